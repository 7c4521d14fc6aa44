//! Lead submissions: single, batch, and their status.
use std::time::Instant;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};

use leadhub_domain::submission::SubmissionError;

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Caller, ValidatedJson};
use crate::routes::batch_body::{BatchElements, BatchSubmission};
use crate::routes::idempotency::idempotent;
use crate::routes::lead_body::{BatchRequestSchema, LeadSubmissionSchema, SingleSubmission};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::routes::submission_views::{
    BatchResult, BatchStatusView, SingleResult, SubmissionStatusView,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/submissions/single", web::post().to(submit_single))
        .route("/api/v1/submissions/batch", web::post().to(submit_batch))
        .route(
            "/api/v1/submissions/status/{submission_id}",
            web::get().to(submission_status),
        )
        .route(
            "/api/v1/submissions/batches/{batch_id}",
            web::get().to(batch_status),
        );
}

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

fn to_json<T: serde::Serialize>(v: &T) -> ApiResult<String> {
    serde_json::to_string(v).map_err(|e| ApiError::unexpected(e.into()))
}

/// Submits one lead; the answer comes after every pipeline stage ran.
#[utoipa::path(post, path = "/api/v1/submissions/single", operation_id = "submit_single", tag = "submissions",
    security(("bearer" = [])),
    request_body = LeadSubmissionSchema,
    params(("Idempotency-Key" = Option<String>, Header, description = "Replays the first answer for 24 hours")),
    responses(
        (status = 200, description = "What became of the lead", body = SingleResult),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 403, description = "team_id of a team the caller is not a member of, or an inactive team", body = ErrorBody),
        (status = 409, description = "A request with the same Idempotency-Key is still being processed", body = ErrorBody),
        (status = 413, description = "Request body too large", body = ErrorBody),
        (status = 422, description = "Validation failure: every problem listed", body = ValidationErrorBody)))]
pub async fn submit_single(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<SingleSubmission>,
) -> ApiResult<HttpResponse> {
    let request = body.value.0;
    idempotent(
        &req,
        &state,
        &caller.user,
        || body.raw.json(),
        || async {
            let outcome = state.single_intake.submit(&caller.user, request).await?;
            Ok((StatusCode::OK, to_json(&SingleResult::from(&outcome))?))
        },
    )
    .await
}

/// Submits up to 1000 leads. Every element is validated before anything is stored.
#[utoipa::path(post, path = "/api/v1/submissions/batch", operation_id = "submit_batch", tag = "submissions",
    security(("bearer" = [])),
    request_body = BatchRequestSchema,
    params(("Idempotency-Key" = Option<String>, Header, description = "Replays the first answer for 24 hours")),
    responses(
        (status = 200, description = "One result per element, with counters", body = BatchResult),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 403, description = "team_id of a team the caller is not a member of, or an inactive team", body = ErrorBody),
        (status = 409, description = "A request with the same Idempotency-Key is still being processed", body = ErrorBody),
        (status = 413, description = "Request body too large", body = ErrorBody),
        (status = 422, description = "Validation failure: every bad element named by index", body = ValidationErrorBody)))]
pub async fn submit_batch(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<BatchSubmission>,
) -> ApiResult<HttpResponse> {
    let BatchSubmission {
        elements,
        process_immediately,
        team_id,
    } = body.value;
    let started = Instant::now();
    let service = state.submissions.clone();
    let user = &caller.user;
    idempotent(
        &req,
        &state,
        user,
        || body.raw.json(),
        || async move {
            // Deferred elements are stored with their jobs; the workers process them.
            let outcome = match elements {
                BatchElements::Read(leads) => {
                    service
                        .submit_batch(user, leads, team_id, process_immediately)
                        .await?
                }
                BatchElements::Unread(unread) => {
                    let mut reader = unread.reader();
                    let streamed = service
                        .submit_batch_read_as_stored(user, unread.count(), team_id, &mut reader)
                        .await;
                    match streamed {
                        // An element stopped the reading, so nothing was stored: read the body
                        // whole and go the usual way.
                        Err(_) if reader.must_read_whole() => {
                            let leads = unread.read_whole().map_err(ApiError::Validation)?;
                            service
                                .submit_batch(user, leads, team_id, process_immediately)
                                .await?
                        }
                        streamed => streamed?,
                    }
                }
            };
            let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            Ok((
                StatusCode::OK,
                to_json(&BatchResult::new(
                    outcome.batch_id,
                    &outcome.elements,
                    elapsed,
                ))?,
            ))
        },
    )
    .await
}

/// A submission's processing status: its submitter, its team's members and admins may see it.
#[utoipa::path(get, path = "/api/v1/submissions/status/{submission_id}", operation_id = "submission_status", tag = "submissions",
    security(("bearer" = [])),
    params(("submission_id" = i64, Path, description = "The submission's id")),
    responses(
        (status = 200, description = "The submission's status", body = SubmissionStatusView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such submission the caller may see", body = ErrorBody),
        (status = 422, description = "The id is not a whole number", body = ValidationErrorBody)))]
pub async fn submission_status(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let found = state
        .submissions
        .submission(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(SubmissionStatusView::from(&found)))
}

/// A batch's progress, counted over its submissions.
#[utoipa::path(get, path = "/api/v1/submissions/batches/{batch_id}", operation_id = "batch_status", tag = "submissions",
    security(("bearer" = [])),
    params(("batch_id" = String, Path, description = "The batch's id")),
    responses(
        (status = 200, description = "The batch's counters", body = BatchStatusView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such batch the caller may see", body = ErrorBody)))]
pub async fn batch_status(
    state: web::Data<AppState>,
    caller: Caller,
    batch_id: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let found = state.submissions.batch(&caller.user, &batch_id).await?;
    Ok(HttpResponse::Ok().json(BatchStatusView::from(&found)))
}
