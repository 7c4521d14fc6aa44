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
