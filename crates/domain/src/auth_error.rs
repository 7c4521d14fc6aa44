//! `AuthError`: how authenticating, signing in and managing credentials fail. Its own module
//! because both the `AuthService` and the identity provider it calls answer with it.
use crate::error::FieldError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("invalid or expired credential")]
    Unauthorized,
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Gone(String),
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Unexpected(#[from] anyhow::Error),
}

impl From<StoreError> for AuthError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => AuthError::Conflict(m),
            StoreError::Unexpected(e) => AuthError::Unexpected(e),
        }
    }
}
