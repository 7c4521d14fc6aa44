//! The database stores UTC as `TIMESTAMP` without a zone; the domain speaks `DateTime<Utc>`.
use chrono::{DateTime, NaiveDateTime, Utc};

pub fn to_db(at: DateTime<Utc>) -> NaiveDateTime {
    at.naive_utc()
}

pub fn from_db(at: NaiveDateTime) -> DateTime<Utc> {
    at.and_utc()
}
