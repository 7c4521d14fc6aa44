//! Database errors become domain errors here, in one place: a unique violation is a
//! `Conflict` the services can act on; everything else is unexpected and keeps its cause.
use std::str::FromStr;

use diesel::result::{DatabaseErrorKind, Error};
use leadhub_domain::store::{DatabaseReadOnly, StorageFull, StoreError};

/// The domain error of a database error. A full storage and a read-only database are only named
/// here (`StorageFull`, `DatabaseReadOnly`); counting them and marking `/readyz` is
/// `Database::note_storage_error`'s, the one place for both.
pub fn store_error(e: Error) -> StoreError {
    match e {
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::Conflict(info.message().to_owned())
        }
        Error::DatabaseError(DatabaseErrorKind::Unknown, info)
            if storage_is_full(info.as_ref()) =>
        {
            StoreError::Unexpected(anyhow::Error::new(StorageFull(info.message().to_owned())))
        }
        Error::DatabaseError(_, info) if is_read_only(info.message()) => StoreError::Unexpected(
            anyhow::Error::new(DatabaseReadOnly(info.message().to_owned())),
        ),
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

/// SQLite's `SQLITE_READONLY` ("attempt to write a readonly database", whatever its extended
/// code: a file or folder not writable, a file system mounted read-only, a moved file) or
/// PostgreSQL's `read_only_sql_transaction` (25006: "cannot execute INSERT in a read-only
/// transaction", on a standby or with `default_transaction_read_only`). Words only, as above.
pub(crate) fn is_read_only(message: &str) -> bool {
    message.contains("attempt to write a readonly database")
        || message.contains("in a read-only transaction")
}

/// SQLite's `SQLITE_BUSY` ("database is locked"): a lock another connection holds, which a
/// connection without a busy timeout does not wait for. Words only, as above.
pub(crate) fn is_busy(error: &Error) -> bool {
    matches!(error, Error::DatabaseError(_, info) if info.message().contains("database is locked"))
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

/// Rows read as their domain values (each row's `TryFrom`, which fails on a stored word this code
/// does not know).
pub fn stored_rows<R, T: TryFrom<R, Error = Error>>(rows: Vec<R>) -> Result<Vec<T>, Error> {
    rows.into_iter().map(T::try_from).collect()
}

/// Why a transaction was rolled back: `Because` a reason of the repository's own, which its
/// caller acts on once the transaction is undone, or the database's error (`?` on a diesel
/// result gives this one).
pub(crate) enum Rollback<R> {
    Because(R),
    Db(Error),
}

impl<R> From<Error> for Rollback<R> {
    fn from(e: Error) -> Self {
        Rollback::Db(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::result::DatabaseErrorInformation;
    use leadhub_domain::store::{is_database_read_only, is_storage_full};

    /// What a database said, as diesel hands it over.
    struct Said {
        message: &'static str,
        hint: Option<&'static str>,
    }

    impl DatabaseErrorInformation for Said {
        fn message(&self) -> &str {
            self.message
        }
        fn details(&self) -> Option<&str> {
            None
        }
        fn hint(&self) -> Option<&str> {
            self.hint
        }
        fn table_name(&self) -> Option<&str> {
            None
        }
        fn column_name(&self) -> Option<&str> {
            None
        }
        fn constraint_name(&self) -> Option<&str> {
            None
        }
        fn statement_position(&self) -> Option<i32> {
            None
        }
    }

    fn full(message: &'static str, hint: Option<&'static str>) -> bool {
        let error =
            Error::DatabaseError(DatabaseErrorKind::Unknown, Box::new(Said { message, hint }));
        matches!(store_error(error), StoreError::Unexpected(cause) if is_storage_full(&cause))
    }

    #[test]
    fn storage_full_is_told_from_other_failures_on_both_backends() {
        assert!(full("database or disk is full", None), "SQLITE_FULL");
        assert!(full(
            "could not extend file \"base/16384/16385\": No space left on device",
            Some("Check free disk space.")
        ));
        assert!(full(
            "could not extend file \"base/16384/16385\": wrote only 4096 of 8192 bytes at block 3",
            Some("Check free disk space.")
        ));
        assert!(!full("database is locked", None));
        assert!(!full("relation \"leads\" does not exist", None));
    }

    fn read_only(message: &'static str) -> bool {
        let said = Box::new(Said {
            message,
            hint: None,
        });
        let error = Error::DatabaseError(DatabaseErrorKind::Unknown, said);
        matches!(store_error(error), StoreError::Unexpected(cause) if is_database_read_only(&cause))
    }

    #[test]
    fn a_read_only_database_is_told_from_other_failures_on_both_backends() {
        assert!(read_only("attempt to write a readonly database"));
        assert!(read_only(
            "cannot execute INSERT in a read-only transaction"
        ));
        assert!(!read_only("database or disk is full"));
        assert!(!read_only("database is locked"));
    }
}
