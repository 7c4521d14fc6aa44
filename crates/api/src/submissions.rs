//! Lead submissions: single, batch, and their status.
use std::time::Instant;

use actix_web::http::{Method, StatusCode};
use actix_web::web::{self, Json};
use apistos::api_operation;

use leadhub_domain::error::FieldError;
use leadhub_domain::submission::NO_FIELD;
use leadhub_http::error::{ApiError, ApiResult};
use leadhub_http::extract::{Caller, IdempotentRequest, PathText, ValidatedJson};
use leadhub_http::schemas::WrittenJson;
use leadhub_http::state::AppState;

use crate::batch_body::BatchSubmission;
use crate::idempotency::idempotent;
use crate::lead_body::SubmittedLead;
use crate::submission_views::{BatchResult, BatchStatusView, SingleResult, SubmissionStatusView};
use crate::Api;

pub fn routes(api: &mut Api) {
    api.route(Method::POST, "/api/v1/submissions/single", submit_single)
        .route(Method::POST, "/api/v1/submissions/batch", submit_batch)
        .route(
            Method::GET,
            "/api/v1/submissions/status/{submission_id}",
            submission_status,
        )
        .route(
            Method::GET,
            "/api/v1/submissions/batches/{batch_id}",
            batch_status,
        );
}

fn to_json<T: serde::Serialize>(v: &T) -> ApiResult<String> {
    serde_json::to_string(v).map_err(|e| ApiError::unexpected(e.into()))
}

/// Submits one lead; the answer comes after every pipeline stage ran.
#[api_operation(
    operation_id = "submit_single",
    tag = "submissions",
    error_code = 401,
    error_code = 403,
    error_code = 409,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn submit_single(
    req: IdempotentRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<SubmittedLead>,
) -> ApiResult<WrittenJson<SingleResult>> {
    let raw = body.raw;
    let mut request = body.value.into_request(None);
    // Nothing to store but an empty lead: refused (contract 3.1), like a wrong type would be.
    if request.fields.is_empty() {
        return Err(ApiError::Validation(vec![FieldError::body(
            &[],
            "value_error",
            NO_FIELD,
        )]));
    }
    let (intake, user) = (&state.single_intake, &caller.user);
    idempotent(
        &req,
        &state,
        user,
        || raw.json(),
        |claim| async move {
            request.idempotency_key_id = claim;
            let outcome = intake.submit(user, request).await?;
            Ok((StatusCode::OK, to_json(&SingleResult::from(&outcome))?))
        },
    )
    .await
    .map(WrittenJson::new)
}

/// Submits up to 1000 leads. Every element is validated before anything is stored.
#[api_operation(
    operation_id = "submit_batch",
    tag = "submissions",
    error_code = 401,
    error_code = 403,
    error_code = 409,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn submit_batch(
    req: IdempotentRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<BatchSubmission>,
) -> ApiResult<WrittenJson<BatchResult>> {
    let raw = body.raw;
    let batch = body.value;
    let (team_id, process_immediately) = (batch.team_id(), batch.process_immediately());
    let requests = batch.into_requests();
    let started = Instant::now();
    let service = state.submissions.clone();
    let user = &caller.user;
    idempotent(
        &req,
        &state,
        user,
        || raw.json(),
        |claim| async move {
            // Deferred elements are stored with their jobs; the workers process them.
            let outcome = service
                .submit_batch(user, requests, team_id, process_immediately, claim)
                .await?;
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
    .map(WrittenJson::new)
}

/// A submission's processing status: its submitter, its team's members and admins may see it.
#[api_operation(
    operation_id = "submission_status",
    tag = "submissions",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn submission_status(
    state: web::Data<AppState>,
    caller: Caller,
    submission_id: web::Path<i64>,
) -> ApiResult<Json<SubmissionStatusView>> {
    let found = state
        .submissions
        .submission(&caller.user, submission_id.into_inner())
        .await?;
    Ok(Json(SubmissionStatusView::from(&found)))
}

/// A batch's progress, counted over its submissions.
#[api_operation(
    operation_id = "batch_status",
    tag = "submissions",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn batch_status(
    state: web::Data<AppState>,
    caller: Caller,
    batch_id: PathText,
) -> ApiResult<Json<BatchStatusView>> {
    let found = state.submissions.batch(&caller.user, &batch_id.0).await?;
    Ok(Json(BatchStatusView::from(&found)))
}
