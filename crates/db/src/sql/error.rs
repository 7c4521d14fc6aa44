//! Database errors become domain errors here, in one place: a unique violation is a
//! `Conflict` the services can act on; everything else is unexpected and keeps its cause.
use std::str::FromStr;

use diesel::result::{DatabaseErrorKind, Error};
use leadhub_domain::store::{StorageFull, StoreError};
use leadhub_domain::telemetry::STORAGE_FULL;

pub fn store_error(e: Error) -> StoreError {
    match e {
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::Conflict(info.message().to_owned())
        }
        Error::DatabaseError(DatabaseErrorKind::Unknown, info) if storage_is_full(info.as_ref()) => {
            metrics::counter!(STORAGE_FULL).increment(1);
            StoreError::Unexpected(anyhow::Error::new(StorageFull(info.message().to_owned())))
        }
        other => StoreError::Unexpected(anyhow::Error::new(other)),
    }
}

/// SQLite's `SQLITE_FULL` ("database or disk is full": the disk, or `max_page_count`), or
/// PostgreSQL's `disk_full` (53100). diesel keeps neither code, only the words: SQLite's fixed
/// message, and PostgreSQL's `ENOSPC` text or the hint it gives with every disk-full error.
fn storage_is_full(info: &(dyn diesel::result::DatabaseErrorInformation + Send + Sync)) -> bool {
    let message = info.message();
    message.contains("database or disk is full")
        || message.contains("No space left on device")
        || info.hint().is_some_and(|h| h.contains("free disk space"))
}

/// A word in a column that this code does not know (a status, a role): the row is reported,
/// never read as some other word.
#[derive(Debug, thiserror::Error)]
#[error("unknown value {value:?} in {column}")]
pub struct UnknownWord {
    column: &'static str,
    value: String,
}

/// Reads the word stored in `column` (`"submissions.status"`) as its domain enum; an unknown one
/// is an error that `store_error` reports as unexpected, naming the column and the value.
pub fn stored_word<T: FromStr>(column: &'static str, value: &str) -> Result<T, Error> {
    value.parse().map_err(|_| {
        Error::DeserializationError(Box::new(UnknownWord {
            column,
            value: value.to_owned(),
        }))
    })
}
