//! How failures reach clients.
//!
//! Rules: every non-2xx answer is JSON with a `detail` key; a 401 is always exactly
//! "Invalid or expired API key" (no hint which part was wrong); a 404 also covers what the caller
//! may not see; an unexpected error is logged with its cause inside the request's span (which
//! carries the request id) and answered with a bare "Internal server error".
use std::collections::BTreeMap;

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use apistos::paths::Response;
use apistos::reference_or::ReferenceOr;
use apistos::{ApiErrorComponent, Schema};

use leadhub_domain::auth::AuthError;
use leadhub_domain::error::FieldError;
use leadhub_domain::lead::merge_leads::MergeError;
use leadhub_domain::lead::work::LeadWorkError;
use leadhub_domain::store::{
    is_database_read_only, is_database_unreachable, is_storage_full, StoreError,
};
use leadhub_domain::submission::SubmissionError;
use leadhub_domain::team::TeamError;

use crate::schemas::{body_of, json_response, ErrorBody, ValidationErrorBody, ERRORS};

pub const UNAUTHORIZED_DETAIL: &str = "Invalid or expired API key";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("unauthorized")]
    Unauthorized,
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("{0} not found")]
    NotFound(String),
    #[error("conflict: {0}")]
    Conflict(String),
    /// A conflict with another lead, named in the body as `lead_id`.
    #[error("conflict with lead {lead_id}: {detail}")]
    ConflictWithLead { detail: String, lead_id: i64 },
    /// A lead merged into another: 301 to the survivor, named in the body as `merged_into`.
    #[error("moved to lead {0}")]
    MergedInto(i64),
    /// `If-Match` named another version than the current one.
    #[error("precondition failed")]
    PreconditionFailed,
    #[error("gone: {0}")]
    Gone(String),
    #[error("request body too large")]
    PayloadTooLarge,
    #[error("request body not received in time")]
    RequestTimeout,
    #[error("validation failed")]
    Validation(Vec<FieldError>),
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error("rate limit exceeded: {limit}")]
    RateLimited { limit: String, retry_after: u64 },
    /// The database's storage is full: nothing was stored (507, never a bare 500).
    #[error("storage full")]
    StorageFull,
    /// The database refuses writes: nothing was stored (503 with `Retry-After`, never a 500).
    #[error("database read-only")]
    DatabaseReadOnly,
    /// No database connection could be had: nothing was done (503 with `Retry-After`).
    #[error("database unreachable")]
    DatabaseUnreachable,
    #[error("internal error")]
    Internal,
}

/// The 507's detail: what happened to the request and what to do.
pub const STORAGE_FULL_DETAIL: &str =
    "The service's storage is full; nothing was stored. Try again later (the operator is alerted).";

/// The 503's detail when the database is read-only.
pub const DATABASE_READ_ONLY_DETAIL: &str =
    "The service's database is read-only; nothing was stored. Try again later (the operator is alerted).";

/// The 503's detail when no database connection could be had.
pub const DATABASE_UNREACHABLE_DETAIL: &str =
    "The service cannot reach its database right now; nothing was done. Try again shortly (the operator is alerted).";

/// How long a client is asked to wait when the database cannot be reached: a restart or a
/// network cut is often over in seconds.
pub const DATABASE_UNREACHABLE_RETRY_AFTER: u64 = 10;

/// How long a client is asked to wait when the database is read-only: an operator has to act.
pub const DATABASE_READ_ONLY_RETRY_AFTER: u64 = 60;

impl ApiError {
    /// Logs the cause here, inside the request's span, and keeps it out of the answer.
    pub fn unexpected(cause: anyhow::Error) -> ApiError {
        if is_storage_full(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "storage full; request refused"
            );
            return ApiError::StorageFull;
        }
        if is_database_read_only(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "database read-only; request refused"
            );
            return ApiError::DatabaseReadOnly;
        }
        if is_database_unreachable(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "no database connection; request refused"
            );
            return ApiError::DatabaseUnreachable;
        }
        tracing::error!(error = format!("{cause:#}"), "unexpected error");
        ApiError::Internal
    }

    pub fn not_found(thing: &str) -> ApiError {
        ApiError::NotFound(thing.to_owned())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) | ApiError::ConflictWithLead { .. } => StatusCode::CONFLICT,
            ApiError::MergedInto(_) => StatusCode::MOVED_PERMANENTLY,
            ApiError::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            ApiError::Gone(_) => StatusCode::GONE,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unavailable(_)
            | ApiError::DatabaseReadOnly
            | ApiError::DatabaseUnreachable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::StorageFull => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let detail = match self {
            ApiError::Unauthorized => UNAUTHORIZED_DETAIL.to_owned(),
            ApiError::Forbidden(reason)
            | ApiError::Conflict(reason)
            | ApiError::Gone(reason)
            | ApiError::Unavailable(reason) => reason.clone(),
            ApiError::NotFound(thing) => format!("{thing} not found"),
            ApiError::PayloadTooLarge => "Request body too large".to_owned(),
            ApiError::RequestTimeout => "Request body not received in time".to_owned(),
            ApiError::Validation(problems) => {
                return HttpResponse::build(self.status_code())
                    .json(ValidationErrorBody { detail: problems })
            }
            ApiError::RateLimited { limit, .. } => format!("Rate limit exceeded: {limit}"),
            ApiError::StorageFull => STORAGE_FULL_DETAIL.to_owned(),
            ApiError::DatabaseReadOnly => DATABASE_READ_ONLY_DETAIL.to_owned(),
            ApiError::DatabaseUnreachable => DATABASE_UNREACHABLE_DETAIL.to_owned(),
            ApiError::Internal => "Internal server error".to_owned(),
            ApiError::ConflictWithLead { detail, lead_id } => {
                return HttpResponse::build(self.status_code())
                    .json(serde_json::json!({"detail": detail, "lead_id": lead_id}));
            }
            ApiError::MergedInto(into) => {
                return HttpResponse::build(self.status_code())
                    .insert_header((header::LOCATION, format!("/api/v1/leads/{into}")))
                    .json(serde_json::json!({
                        "detail": format!("Lead merged into lead {into}"),
                        "merged_into": into,
                    }));
            }
            ApiError::PreconditionFailed => {
                "The lead changed since it was read (stale If-Match); read it again".to_owned()
            }
        };
        let mut response = HttpResponse::build(self.status_code());
        if let ApiError::Unauthorized = self {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let ApiError::RateLimited { retry_after, .. } = self {
            response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
        }
        if let ApiError::DatabaseReadOnly = self {
            response.insert_header((
                header::RETRY_AFTER,
                DATABASE_READ_ONLY_RETRY_AFTER.to_string(),
            ));
        }
        if let ApiError::DatabaseUnreachable = self {
            response.insert_header((
                header::RETRY_AFTER,
                DATABASE_UNREACHABLE_RETRY_AFTER.to_string(),
            ));
        }
        response.json(ErrorBody { detail })
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Unauthorized => ApiError::Unauthorized,
            AuthError::NotFound(thing) => ApiError::not_found(thing),
            AuthError::Conflict(reason) => ApiError::Conflict(reason),
            AuthError::Gone(reason) => ApiError::Gone(reason),
            AuthError::Invalid(problems) => ApiError::Validation(problems),
            AuthError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

impl From<TeamError> for ApiError {
    fn from(e: TeamError) -> Self {
        match e {
            TeamError::NotFound(thing) => ApiError::not_found(thing),
            TeamError::Forbidden(reason) => ApiError::Forbidden(reason),
            TeamError::Conflict(reason) => ApiError::Conflict(reason),
            TeamError::Gone(reason) => ApiError::Gone(reason),
            TeamError::Invalid(problems) => ApiError::Validation(problems),
            TeamError::TooManyEmails(retry_after) => ApiError::RateLimited {
                limit: "invite e-mails to this address".into(),
                retry_after,
            },
            TeamError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(reason) => ApiError::unexpected(anyhow::anyhow!(reason)),
            StoreError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

/// Also the businesses' error: `BusinessError` is the same `ServiceError`.
impl From<SubmissionError> for ApiError {
    fn from(e: SubmissionError) -> Self {
        match e {
            SubmissionError::Forbidden(reason) => ApiError::Forbidden(reason),
            SubmissionError::NotFound(thing) => ApiError::not_found(thing),
            SubmissionError::Invalid(problems) => ApiError::Validation(problems),
            SubmissionError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

impl From<LeadWorkError> for ApiError {
    fn from(e: LeadWorkError) -> Self {
        match e {
            LeadWorkError::NotFound(thing) => ApiError::not_found(thing),
            LeadWorkError::Forbidden(reason) => ApiError::Forbidden(reason),
            LeadWorkError::Invalid(problems) => ApiError::Validation(problems),
            LeadWorkError::Conflict {
                detail,
                lead_id: Some(lead_id),
            } => ApiError::ConflictWithLead { detail, lead_id },
            LeadWorkError::Conflict {
                detail,
                lead_id: None,
            } => ApiError::Conflict(detail),
            LeadWorkError::PreconditionFailed => ApiError::PreconditionFailed,
            LeadWorkError::Merged(into) => ApiError::MergedInto(into),
            LeadWorkError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

impl From<MergeError> for ApiError {
    fn from(e: MergeError) -> Self {
        match e {
            MergeError::NotFound(thing) => ApiError::not_found(thing),
            MergeError::Invalid(problems) => ApiError::Validation(problems),
            MergeError::Conflict(reason) => ApiError::Conflict(reason),
            MergeError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The error answers every operation documents (schemas.rs has their bodies).
impl ApiErrorComponent for ApiError {
    fn schemas_by_status_code() -> BTreeMap<String, (String, ReferenceOr<Schema>)> {
        ERRORS
            .iter()
            .map(|(status, _)| (status.to_string(), body_of(*status)))
            .collect()
    }

    fn error_responses() -> Vec<(String, Response)> {
        ERRORS
            .iter()
            .map(|(status, description)| {
                let (name, _) = body_of(*status);
                (status.to_string(), json_response(description, &name))
            })
            .collect()
    }
}
