//! Which text encoding a file is in: a byte-order mark says so (UTF-8, UTF-16LE/BE); else UTF-8 when the
//! file reads as UTF-8, or holds UTF-8 text beside a few bad rows (their cells are read as windows-1252,
//! `sheet`);
//! else the legacy encoding `chardetng` (Firefox's detector) guesses, typically windows-1252, what Excel
//! on Windows saves as "CSV".
use std::io::{self, Read, Seek, SeekFrom};

use encoding_rs::{Encoding, UTF_8};

const CHUNK: usize = 64 * 1024;

/// The file's encoding and the length of its byte-order mark; the reader is left at the start.
pub fn detect<R: Read + Seek>(reader: &mut R) -> io::Result<(&'static Encoding, usize)> {
    reader.seek(SeekFrom::Start(0))?;
    let mut head = [0u8; 3];
    let n = read_full(reader, &mut head)?;
    if let Some((encoding, bom)) = Encoding::for_bom(&head[..n]) {
        reader.seek(SeekFrom::Start(0))?;
        return Ok((encoding, bom));
    }
    reader.seek(SeekFrom::Start(0))?;
    let utf8 = scan_utf8(reader)?;
    reader.seek(SeekFrom::Start(0))?;
    if !utf8.invalid || utf8.multibyte {
        return Ok((UTF_8, 0));
    }
    let mut detector = chardetng::EncodingDetector::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = reader.read(&mut buf)?;
        detector.feed(buf.get(..n).unwrap_or_default(), n == 0);
        if n == 0 {
            break;
        }
    }
    reader.seek(SeekFrom::Start(0))?;
    Ok((detector.guess(None, false), 0))
}

fn read_full<R: Read>(reader: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(buf.get_mut(filled..).unwrap_or_default())? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// What a pass over the bytes found: an invalid UTF-8 sequence, a valid multi-byte one.
#[derive(Debug, Default, PartialEq)]
struct Utf8Scan {
    invalid: bool,
    multibyte: bool,
}

fn scan_utf8<R: Read>(reader: &mut R) -> io::Result<Utf8Scan> {
    let mut scan = Utf8Scan::default();
    let mut buf = vec![0u8; CHUNK + 4];
    let mut carried = 0;
    loop {
        let n = reader.read(buf.get_mut(carried..).unwrap_or_default())?;
        let end = carried + n;
        let last = n == 0;
        let mut rest = buf.get(..end).unwrap_or_default();
        carried = 0;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    scan.multibyte |= !text.is_ascii();
                    rest = &[];
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    scan.multibyte |= !valid.is_ascii();
                    match e.error_len() {
                        Some(bad) => {
                            scan.invalid = true;
                            rest = after.get(bad..).unwrap_or_default();
                        }
                        // A sequence cut by the chunk's end: carried over, unless the file ends there.
                        None if !last => {
                            carried = after.len();
                            rest = &[];
                        }
                        None => {
                            scan.invalid = true;
                            rest = &[];
                        }
                    }
                }
            }
        }
        if carried > 0 {
            buf.copy_within(end - carried..end, 0);
        }
        if last {
            return Ok(scan);
        }
        // Both findings are in: nothing later changes the answer.
        if scan.invalid && scan.multibyte {
            return Ok(scan);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn name(bytes: &[u8]) -> (&'static str, usize) {
        let (e, bom) = detect(&mut Cursor::new(bytes.to_vec())).unwrap();
        (e.name(), bom)
    }

    #[test]
    fn boms_decide() {
        assert_eq!(name(b"\xEF\xBB\xBFa,b\n"), ("UTF-8", 3));
        assert_eq!(name(b"\xFF\xFEa\0,\0"), ("UTF-16LE", 2));
        assert_eq!(name(b"\xFE\xFF\0a\0,"), ("UTF-16BE", 2));
    }

    #[test]
    fn utf8_plain_or_with_a_few_bad_rows() {
        assert_eq!(name(b"a,b\n1,2\n"), ("UTF-8", 0));
        assert_eq!(name("city\nSão Paulo\n".as_bytes()), ("UTF-8", 0));
        assert_eq!(name(b"city\nS\xC3\xA3o Paulo\nM\xFCnchen\n"), ("UTF-8", 0));
    }

    #[test]
    fn legacy_files_are_guessed() {
        let latin = b"name,city\nJos\xE9 Pe\xF1a,M\xFCnchen\nFran\xE7ois,Qu\xE9bec\nCaf\xE9 Ren\xE9,S\xE3o Paulo\n";
        assert_eq!(name(latin), ("windows-1252", 0));
    }

    #[test]
    fn a_sequence_cut_by_a_chunk_is_not_invalid() {
        let mut bytes = vec![b'a'; CHUNK - 1];
        bytes.extend("é".as_bytes());
        let scan = scan_utf8(&mut Cursor::new(bytes)).unwrap();
        assert_eq!(
            scan,
            Utf8Scan {
                invalid: false,
                multibyte: true
            }
        );
    }
}
