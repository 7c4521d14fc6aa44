//! Timestamps on the wire: ISO 8601, UTC, whole seconds, with a `Z`.
use chrono::{DateTime, Utc};

pub fn iso(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
