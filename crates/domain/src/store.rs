//! What a repository adapter can report besides success. Adapters translate constraint
//! violations into `Conflict` so services can apply domain rules instead of guessing from SQL.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("conflict: {0}")]
    Conflict(String),
    #[error(transparent)]
    Unexpected(#[from] anyhow::Error),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// `From<StoreError>` for a service error with no use for a store's `Conflict`: the service has
/// checked its rules before writing, so a conflict there is a bug, reported like any other
/// failure as the error's `Unexpected`.
macro_rules! store_errors_are_unexpected {
    ($($error:ident),+ $(,)?) => {$(
        impl From<$crate::store::StoreError> for $error {
            fn from(e: $crate::store::StoreError) -> Self {
                match e {
                    $crate::store::StoreError::Conflict(m) => $error::Unexpected(anyhow::anyhow!(m)),
                    $crate::store::StoreError::Unexpected(e) => $error::Unexpected(e),
                }
            }
        }
    )+};
}
pub(crate) use store_errors_are_unexpected;

/// The database's storage is full (SQLite `SQLITE_FULL`, PostgreSQL `disk_full`): nothing was
/// written. Carried inside `StoreError::Unexpected` so that every service passes it through as
/// it is; the web layer answers 507 for it (`is_storage_full`). Holds the database's message.
#[derive(Debug, thiserror::Error)]
#[error("the database's storage is full: {0}")]
pub struct StorageFull(pub String);

/// Whether `cause` is (or wraps) `StorageFull`.
pub fn is_storage_full(cause: &anyhow::Error) -> bool {
    // The chain starts with the error itself.
    cause.chain().any(|c| c.is::<StorageFull>())
}

/// The database refuses writes (SQLite `SQLITE_READONLY`: a file, its folder or its file system
/// that this process cannot write; PostgreSQL `read_only_sql_transaction`, 25006: a standby or a
/// read-only setting): nothing was written. Carried inside `StoreError::Unexpected` as
/// `StorageFull` is; the web layer answers 503 for it (`is_database_read_only`).
#[derive(Debug, thiserror::Error)]
#[error("the database is read-only: {0}")]
pub struct DatabaseReadOnly(pub String);

/// Whether `cause` is (or wraps) `DatabaseReadOnly`.
pub fn is_database_read_only(cause: &anyhow::Error) -> bool {
    cause.chain().any(|c| c.is::<DatabaseReadOnly>())
}

/// No database connection could be had within the pool's wait: the server is down, gone or
/// unreachable, or every connection stayed busy. Nothing was done. Carried inside
/// `StoreError::Unexpected` as `StorageFull` is; the web layer answers 503 for it
/// (`is_database_unreachable`), so a client retries and the operator's alert says what it is.
#[derive(Debug, thiserror::Error)]
#[error("no database connection: {0}")]
pub struct DatabaseUnreachable(pub String);

/// Whether `cause` is (or wraps) `DatabaseUnreachable`.
pub fn is_database_unreachable(cause: &anyhow::Error) -> bool {
    cause.chain().any(|c| c.is::<DatabaseUnreachable>())
}
