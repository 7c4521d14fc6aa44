//! Timestamps on the wire: ISO 8601, UTC, whole seconds, with a `Z`.
use chrono::{DateTime, SecondsFormat, Utc};

/// `2026-06-12T10:59:21Z`. chrono's RFC 3339 writer, not a `format` string: an export writes
/// two a lead, and a format string is parsed again at every call.
pub fn iso(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_seconds_in_utc_with_a_z() {
        let at = DateTime::parse_from_rfc3339("2026-06-12T05:59:21.987-05:00")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(iso(at), "2026-06-12T10:59:21Z");
        assert_eq!(iso(at), at.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
}
