//! Database errors become domain errors here, in one place: a unique violation is a
//! `Conflict` the services can act on; everything else is unexpected and keeps its cause.
use diesel::result::{DatabaseErrorKind, Error};
use leadhub_domain::store::StoreError;

pub fn store_error(e: Error) -> StoreError {
    match e {
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::Conflict(info.message().to_owned())
        }
        other => StoreError::Unexpected(anyhow::Error::new(other)),
    }
}
