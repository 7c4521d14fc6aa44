//! Reading the `multipart/form-data` body of an upload form, held in memory (its size is capped
//! before it gets here). Parts are read one at a time, so the first (the CSRF token) can be
//! checked even when a later part was cut off at the cap.

/// One field of the form.
#[derive(Debug, PartialEq)]
pub struct Part<'a> {
    pub name: String,
    /// Set for a file input.
    pub file_name: Option<String>,
    pub data: &'a [u8],
}

/// The body does not follow the multipart format (or was cut off).
#[derive(Debug, PartialEq)]
pub struct Malformed;

/// The `boundary` parameter of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params
        .split(';')
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim().trim_matches('"').to_owned())
        .filter(|b| !b.is_empty() && b.len() <= 70)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The parts of `body`, in order.
pub struct Parts<'a> {
    rest: &'a [u8],
    delimiter: Vec<u8>,
    done: bool,
}

impl<'a> Parts<'a> {
    pub fn new(body: &'a [u8], boundary: &str) -> Parts<'a> {
        let delimiter = format!("--{boundary}").into_bytes();
        // Anything before the first delimiter is a preamble, which is ignored.
        let (rest, done) = match find(body, &delimiter) {
            Some(at) => (&body[at + delimiter.len()..], false),
            None => (&body[..0], true),
        };
        Parts {
            rest,
            delimiter,
            done,
        }
    }

    fn part(&mut self) -> Result<Option<Part<'a>>, Malformed> {
        if self.rest.starts_with(b"--") {
            return Ok(None);
        }
        let after_line = self.rest.strip_prefix(b"\r\n").ok_or(Malformed)?;
        let head_end = find(after_line, b"\r\n\r\n").ok_or(Malformed)?;
        let head = std::str::from_utf8(&after_line[..head_end]).map_err(|_| Malformed)?;
        let content = &after_line[head_end + 4..];
        let mut closing = b"\r\n".to_vec();
        closing.extend_from_slice(&self.delimiter);
        let end = find(content, &closing).ok_or(Malformed)?;
        self.rest = &content[end + closing.len()..];
        let disposition = head
            .split("\r\n")
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-disposition"))
            .map(|(_, value)| value)
            .ok_or(Malformed)?;
        let param = |wanted: &str| {
            disposition
                .split(';')
                .filter_map(|p| p.trim().split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case(wanted))
                .map(|(_, v)| v.trim().trim_matches('"').to_owned())
        };
        Ok(Some(Part {
            name: param("name").ok_or(Malformed)?,
            file_name: param("filename"),
            data: &content[..end],
        }))
    }
}

impl<'a> Iterator for Parts<'a> {
    type Item = Result<Part<'a>, Malformed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let part = self.part();
        if !matches!(part, Ok(Some(_))) {
            self.done = true;
        }
        part.transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"leads.csv\"\r\nContent-Type: text/csv\r\n\r\naddress\r\n1 Main St\r\n\r\n--XyZ--\r\n";

    #[test]
    fn reads_fields_and_files_in_order() {
        assert_eq!(
            boundary("multipart/form-data; boundary=\"XyZ\"").as_deref(),
            Some("XyZ")
        );
        assert_eq!(boundary("application/x-www-form-urlencoded"), None);
        let parts: Vec<Part> = Parts::new(BODY, "XyZ").collect::<Result<_, _>>().unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            (parts[0].name.as_str(), parts[0].data),
            ("csrf", &b"abc"[..])
        );
        assert_eq!(parts[1].file_name.as_deref(), Some("leads.csv"));
        assert_eq!(parts[1].data, b"address\r\n1 Main St\r\n");
    }

    #[test]
    fn a_cut_off_body_still_yields_its_first_part() {
        let cut = &BODY[..BODY.len() - 30];
        let mut parts = Parts::new(cut, "XyZ");
        assert_eq!(parts.next().unwrap().unwrap().name, "csrf");
        assert_eq!(parts.next(), Some(Err(Malformed)));
        assert_eq!(parts.next(), None);
    }
}
