//! The error answers an operation documents, named once per kind of operation: a handler that
//! answers `Answer<T, Guarded>` documents 401, 403, 404, 422 and 429 (and the 301 every
//! operation documents) without listing them in its `#[api_operation]`. The answer sent is
//! `ApiError`'s, whatever the set says; the set only says what the document shows.
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use apistos::paths::Response;
use apistos::reference_or::ReferenceOr;
use apistos::{ApiErrorComponent, Schema};

use crate::error::ApiError;

/// A set of documented error codes.
pub trait Refusals {
    const CODES: &'static [u16];
}

/// What apistos's own `error_code` filter keeps: every answer below 400, and the set's codes.
fn documents<R: Refusals>(status: &str) -> bool {
    status
        .parse::<u16>()
        .map_or(true, |code| code < 400 || R::CODES.contains(&code))
}

/// An `ApiError` documented as one of the set `R`.
pub struct Refused<R> {
    error: ApiError,
    set: PhantomData<R>,
}

/// A handler's result, its errors documented as the set `R`.
pub type Answer<T, R> = Result<T, Refused<R>>;

impl<R, E> From<E> for Refused<R>
where
    ApiError: From<E>,
{
    fn from(error: E) -> Self {
        Refused {
            error: ApiError::from(error),
            set: PhantomData,
        }
    }
}

impl<R> fmt::Debug for Refused<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.error, f)
    }
}

impl<R> fmt::Display for Refused<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

impl<R> ResponseError for Refused<R> {
    fn status_code(&self) -> StatusCode {
        self.error.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        self.error.error_response()
    }
}

impl<R: Refusals> ApiErrorComponent for Refused<R> {
    fn schemas_by_status_code() -> BTreeMap<String, (String, ReferenceOr<Schema>)> {
        ApiError::schemas_by_status_code()
            .into_iter()
            .filter(|(status, _)| documents::<R>(status))
            .collect()
    }

    fn error_responses() -> Vec<(String, Response)> {
        ApiError::error_responses()
            .into_iter()
            .filter(|(status, _)| documents::<R>(status))
            .collect()
    }
}

macro_rules! refusals {
    ($($(#[$doc:meta])* $name:ident = [$($code:literal),+];)+) => {
        $(
            $(#[$doc])*
            pub enum $name {}

            impl Refusals for $name {
                const CODES: &'static [u16] = &[$($code),+];
            }
        )+
    };
}

refusals! {
    /// What only the caller's own credential decides: a list of their own things.
    Signed = [401, 429];
    /// A list or a query: its parameters may be refused.
    Queried = [401, 422, 429];
    /// Something new from a body, of the caller's own.
    Created = [401, 413, 422, 429];
    /// One thing the caller may see, named in the path.
    Seen = [401, 404, 422, 429];
    /// A change from a body of one thing the caller may see.
    SeenBody = [401, 404, 413, 422, 429];
    /// A change of one thing the caller may see that may clash (a note on a merged lead).
    SeenClashing = [401, 404, 409, 422, 429];
    /// A change from a body of one thing the caller may see that may clash (a merge).
    SeenClashingBody = [401, 404, 409, 413, 422, 429];
    /// One thing that only some roles of its team may act on.
    Guarded = [401, 403, 404, 422, 429];
    /// A guarded change from a body.
    GuardedBody = [401, 403, 404, 413, 422, 429];
    /// A guarded change that may clash with another thing (a lead's archive, move, claim).
    Clashing = [401, 403, 404, 409, 422, 429];
    /// A guarded change from a body that may clash (an invite to someone invited already).
    ClashingBody = [401, 403, 404, 409, 413, 422, 429];
    /// A clashing change that names the version it changes (`If-Match`).
    Versioned = [401, 403, 404, 409, 412, 422, 429];
    /// A change from a body of every thing the caller sees that it names (a tag renamed): one of
    /// them may clash.
    Sweeping = [401, 409, 413, 422, 429];
    /// A submission: the team may refuse the caller, the `Idempotency-Key` may be in use.
    Submission = [401, 403, 409, 413, 422, 429];
    /// An import into the directory, which the caller's role may be refused.
    Import = [401, 403, 413, 422, 429];
    /// A body without a credential (asking for a sign-in link).
    Anonymous = [413, 422, 429];
    /// Spending a sign-in link's token: a used or expired one answers 410.
    SpentLink = [410, 413, 422, 429];
    /// What an invite link offers, read without a credential.
    InviteLink = [404, 410, 422, 429];
    /// Accepting an invite by its link, with a body, without a credential.
    InviteAccepted = [403, 404, 410, 413, 422, 429];
}
