//! Checking a body's JSON text before it is read into its request type: what serde's derive
//! would skip over unchecked (members it ignores) must still make the body invalid JSON, as
//! it does for any JSON parser, and nesting is bounded.
use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;

use leadhub_domain::error::{FieldError, LocPart};

/// Deepest JSON nesting accepted; no request of this API needs more than a handful of levels,
/// and a bound keeps hostile documents from costing stack or time.
pub const MAX_DEPTH: usize = 32;

/// Checks `body` is one JSON value, answering FastAPI's shapes: an empty body is a missing
/// body, malformed JSON (a number out of range, a lone surrogate escape, anywhere) is
/// `json_invalid` at its byte offset, and nesting deeper than `MAX_DEPTH` is `json_invalid`.
/// Nothing is built: every string is decoded and every number parsed, then dropped.
pub fn check_json(body: &[u8]) -> Result<(), Vec<FieldError>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(vec![FieldError::new(
            vec![LocPart::from("body")],
            "missing",
            "Field required",
        )]);
    }
    let deepest = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    Scan {
        depth: 0,
        deepest: &deepest,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end())
    .map_err(|e| vec![json_invalid(body, &e)])?;
    if deepest.get() > MAX_DEPTH {
        return Err(vec![FieldError::new(
            vec![LocPart::from("body")],
            "json_invalid",
            format!("JSON nested deeper than {MAX_DEPTH} levels"),
        )]);
    }
    Ok(())
}

/// Whether the body (valid JSON) is an object, as every request body must be.
pub fn is_object(body: &[u8]) -> bool {
    body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// `json_invalid` at the byte where serde_json stopped.
pub fn json_invalid(body: &[u8], e: &serde_json::Error) -> FieldError {
    let offset = byte_offset(body, e.line(), e.column());
    FieldError::new(
        vec![LocPart::from("body"), LocPart::Index(offset)],
        "json_invalid",
        format!("JSON decode error: {}", describe(e)),
    )
}

/// One value at `depth` (0 for the body itself); `deepest` keeps the deepest container seen
/// (1 for a flat array or object). The bound is judged after the whole text parsed, so a
/// malformed body is refused for its first fault wherever that lies.
struct Scan<'a> {
    depth: usize,
    deepest: &'a Cell<usize>,
}

impl Scan<'_> {
    /// Enters a container: its members' depth.
    fn enter(&self) -> usize {
        let depth = self.depth + 1;
        self.deepest.set(self.deepest.get().max(depth));
        depth
    }
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.enter();
        let deepest = self.deepest;
        while seq.next_element_seed(Scan { depth, deepest })?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let depth = self.enter();
        let deepest = self.deepest;
        while map.next_key_seed(Scan { depth, deepest })?.is_some() {
            map.next_value_seed(Scan { depth, deepest })?;
        }
        Ok(())
    }
}

/// serde_json's message without its " at line L column C" tail (the offset says where).
fn describe(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.find(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// serde_json reports 1-based line and column; FastAPI reports a byte offset.
fn byte_offset(body: &[u8], line: usize, column: usize) -> usize {
    let line_start: usize = body
        .split(|b| *b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    (line_start + column.saturating_sub(1)).min(body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_and_loc(body: &str) -> (String, Vec<LocPart>) {
        let e = check_json(body.as_bytes()).unwrap_err();
        (e[0].kind.clone(), e[0].loc.clone())
    }

    #[test]
    fn malformed_json_points_at_the_byte() {
        let (kind, loc) = kind_and_loc("{\n  \"a\": 1,\n  \"b\": }");
        assert_eq!(kind, "json_invalid");
        assert_eq!(loc[1], LocPart::Index(19));
    }

    #[test]
    fn empty_body_is_missing() {
        assert_eq!(
            kind_and_loc("  "),
            ("missing".to_owned(), vec![LocPart::from("body")])
        );
    }

    #[test]
    fn what_a_reader_would_skip_is_checked_too() {
        for body in [
            r#"{"leads": [{"x": 1e400}]}"#,
            r#"{"unknown": "\ud800"}"#,
            r#"{"a": 1} x"#,
        ] {
            assert_eq!(kind_and_loc(body).0, "json_invalid", "{body}");
        }
        assert!(check_json(br#"{"a": "\ud83c\udfe0", "b": [1, 2.5e3, null, true]}"#).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(40) + &"]".repeat(40);
        assert_eq!(
            kind_and_loc(&deep),
            ("json_invalid".to_owned(), vec![LocPart::from("body")])
        );
        let at_bound = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(check_json(at_bound.as_bytes()).is_ok());
        // Past serde_json's own limit the parser's error comes first, as before.
        let deeper = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(kind_and_loc(&deeper).1.len(), 2);
    }

    #[test]
    fn objects_are_told_from_other_values() {
        assert!(is_object(b" \n{}"));
        assert!(!is_object(b"[{}]"));
        assert!(!is_object(b"\"{\""));
    }
}
