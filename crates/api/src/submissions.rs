//! Lead submissions: single, batch, and their status.
use std::time::Instant;

use actix_web::http::StatusCode;
use actix_web::web::Json;
use apistos::api_operation;

use leadhub_domain::error::FieldError;
use leadhub_domain::submission::NO_FIELD;
use leadhub_http::error::{ApiError, ApiResult};
use leadhub_http::extract::{Call, IdempotentRequest, PathText, ValidatedJson};
use leadhub_http::refusals::{Answer, Seen, Submission};
use leadhub_http::schemas::WrittenJson;

use crate::batch_body::BatchSubmission;
use crate::idempotency::idempotent;
use crate::lead_body::SubmittedLead;
use crate::submission_views::{BatchResult, BatchStatusView, SingleResult, SubmissionStatusView};
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/v1/submissions/single" => submit_single,
        POST "/api/v1/submissions/batch" => submit_batch,
        GET "/api/v1/submissions/status/{submission_id}" => submission_status,
        GET "/api/v1/submissions/batches/{batch_id}" => batch_status,
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> ApiResult<String> {
    serde_json::to_string(v).map_err(|e| ApiError::unexpected(e.into()))
}

/// Submits one lead; the answer comes after every pipeline stage ran.
#[api_operation(operation_id = "submit_single", tag = "submissions")]
pub async fn submit_single(
    req: IdempotentRequest,
    call: Call,
    body: ValidatedJson<SubmittedLead>,
) -> Answer<WrittenJson<SingleResult>, Submission> {
    let raw = body.raw;
    let mut request = body.value.into_request(None);
    // Nothing to store but an empty lead: refused (contract 3.1), like a wrong type would be.
    if request.fields.is_empty() {
        return Err(
            ApiError::Validation(vec![FieldError::body(&[], "value_error", NO_FIELD)]).into(),
        );
    }
    let (intake, user) = (&call.state.single_intake, call.user());
    let answer = idempotent(
        &req,
        &call.state,
        user,
        || raw.json(),
        |claim| async move {
            request.idempotency_key_id = claim;
            let outcome = intake.submit(user, request).await?;
            Ok((StatusCode::OK, to_json(&SingleResult::from(&outcome))?))
        },
    )
    .await?;
    Ok(WrittenJson::new(answer))
}

/// Submits up to 1000 leads. Every element is validated before anything is stored.
#[api_operation(operation_id = "submit_batch", tag = "submissions")]
pub async fn submit_batch(
    req: IdempotentRequest,
    call: Call,
    body: ValidatedJson<BatchSubmission>,
) -> Answer<WrittenJson<BatchResult>, Submission> {
    let raw = body.raw;
    let batch = body.value;
    let (team_id, process_immediately) = (batch.team_id(), batch.process_immediately());
    let requests = batch.into_requests();
    let started = Instant::now();
    let service = call.state.submissions.clone();
    let user = call.user();
    let answer = idempotent(
        &req,
        &call.state,
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
    .await?;
    Ok(WrittenJson::new(answer))
}

/// A submission's processing status: its submitter, its team's members and admins may see it.
#[api_operation(operation_id = "submission_status", tag = "submissions")]
pub async fn submission_status(submission: Call<i64>) -> Answer<Json<SubmissionStatusView>, Seen> {
    let intake = &submission.state.submissions;
    let found = intake
        .submission(submission.user(), submission.path)
        .await?;
    Ok(Json(SubmissionStatusView::from(&found)))
}

/// A batch's progress, counted over its submissions.
#[api_operation(operation_id = "batch_status", tag = "submissions")]
pub async fn batch_status(call: Call, batch_id: PathText) -> Answer<Json<BatchStatusView>, Seen> {
    let found = call
        .state
        .submissions
        .batch(call.user(), &batch_id.0)
        .await?;
    Ok(Json(BatchStatusView::from(&found)))
}
