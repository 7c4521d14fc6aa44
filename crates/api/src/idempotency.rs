//! `Idempotency-Key`: a repeat of a request from the same user within 24 hours with the same body
//! replays the first answer (`Idempotent-Replayed: true`) and stores nothing new; the same key with
//! another body is a 422.
//!
//! The key is claimed (a row marked running) before the request runs, so of two twins sent at the
//! same moment one runs and the other waits for its answer (409 if it waits over 10 s). What the
//! request stores (its batch, or its single submission) carries the claim's id, written in the
//! same transaction, so a key is either linked to what its request stored or to nothing: a
//! request that died after its transaction has its answer rebuilt from the stored rows, one that
//! died before it stored nothing, and its key is given up after a while. A request that fails
//! gives the key up at once, as one that never ran.
use std::future::Future;
use std::time::Instant;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use chrono::Duration;
use serde_json::Value;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::lead::record::LeadAction;
use leadhub_domain::secret::hash_secret;
use leadhub_domain::submission::{
    ElementOutcome, IdempotencyClaim, IdempotentAnswer, StoredForClaim, Submission,
};
use leadhub_domain::user::User;
use leadhub_http::error::{ApiError, ApiResult};
use leadhub_http::state::AppState;

use crate::submission_views::{BatchResult, SingleResult};

const HEADER: &str = "idempotency-key";
const WINDOW_HOURS: i64 = 24;
/// A first request that stored nothing and is still running after this long is taken for dead
/// (its process stopped before its transaction committed), and the key is free again. Storing
/// comes first in every request, and takes seconds at most.
const ABANDONED_AFTER_MINUTES: i64 = 2;
/// How long a repeat waits for a twin still running before it answers 409, or, when the twin
/// has stored its request, before it rebuilds the answer from what was stored.
const TWIN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
const TWIN_POLL: std::time::Duration = std::time::Duration::from_millis(25);

fn header_problem(msg: &str) -> ApiError {
    ApiError::Validation(vec![FieldError::new(
        vec![LocPart::from("header"), LocPart::from("Idempotency-Key")],
        "value_error",
        msg,
    )])
}

/// Runs `produce` (given the key's claim, to store with what it stores) unless the request
/// repeats an earlier one, whose answer is replayed instead.
pub async fn idempotent<F, Fut>(
    req: &HttpRequest,
    state: &AppState,
    user: &User,
    body: impl FnOnce() -> Value,
    produce: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(Option<i64>) -> Fut,
    Fut: Future<Output = ApiResult<(StatusCode, String)>>,
{
    let Some(raw) = req.headers().get(HEADER) else {
        let (status, json) = produce(None).await?;
        return Ok(json_answer(status, json));
    };
    let key = raw
        .to_str()
        .map_err(|_| header_problem("Idempotency-Key must be visible ASCII"))?
        .trim()
        .to_owned();
    if key.is_empty() || key.len() > 255 {
        return Err(header_problem(
            "Idempotency-Key must have 1 to 255 characters",
        ));
    }
    // serde_json orders object keys, so the hash ignores key order and whitespace.
    let request_hash = hash_secret(&format!("{} {} {}", req.method(), req.path(), body()));
    let repo = &state.submissions_repo;
    let waiting_since = Instant::now();
    loop {
        let now = state.clock.now();
        let claim = repo
            .claim_idempotent(
                user.id,
                &key,
                &request_hash,
                now,
                now - Duration::hours(WINDOW_HOURS),
                now - Duration::minutes(ABANDONED_AFTER_MINUTES),
            )
            .await?;
        let first = match claim {
            IdempotencyClaim::Claimed(id) => {
                return run_claimed(state, user, &key, id, produce).await
            }
            IdempotencyClaim::Taken(first) => first,
        };
        if first.request_hash != request_hash {
            return Err(header_problem(
                "This Idempotency-Key was used with a different request body",
            ));
        }
        if let Some((status, body)) = first.answer {
            return Ok(replay(status, body));
        }
        // The first request is still running, or its process stopped. Once it has stored what
        // it was sent, and it had time to answer, its answer is rebuilt from the stored rows.
        let waited = waiting_since.elapsed() >= TWIN_WAIT;
        if waited || first_is_older_than_twin_wait(state, &first) {
            if let Some(stored) = repo.stored_for_claim(first.id).await? {
                let body = rebuilt_answer(stored)?;
                if let Err(e) = repo
                    .complete_idempotent(user.id, &key, StatusCode::OK.as_u16(), body.clone())
                    .await
                {
                    tracing::warn!(error = %e, "rebuilt idempotent answer not saved");
                }
                return Ok(replay(StatusCode::OK.as_u16(), body));
            }
        }
        if waited {
            return Err(ApiError::Conflict(
                "A request with this Idempotency-Key is still being processed; retry later".into(),
            ));
        }
        tokio::time::sleep(TWIN_POLL).await;
    }
}

fn first_is_older_than_twin_wait(state: &AppState, first: &IdempotentAnswer) -> bool {
    let twin_wait = Duration::from_std(TWIN_WAIT).unwrap_or_else(|_| Duration::seconds(10));
    state.clock.now() - first.created_at >= twin_wait
}

fn replay(status: u16, body: String) -> HttpResponse {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    HttpResponse::build(status)
        .insert_header(("Idempotent-Replayed", "true"))
        .content_type("application/json")
        .body(body)
}

/// The answer of a request whose process stopped after storing it, from its stored rows: what
/// each submission became (a deferred one is still `pending`, as in the first answer).
fn rebuilt_answer(stored: StoredForClaim) -> ApiResult<String> {
    let json = match stored {
        StoredForClaim::Single(submission) => {
            serde_json::to_string(&SingleResult::from(&outcome_of(0, &submission)))
        }
        StoredForClaim::Batch {
            batch_id,
            submissions,
        } => {
            let elements: Vec<ElementOutcome> = submissions
                .iter()
                .enumerate()
                .map(|(index, s)| outcome_of(index, s))
                .collect();
            serde_json::to_string(&BatchResult::new(batch_id, &elements, 0))
        }
    };
    json.map_err(|e| ApiError::unexpected(e.into()))
}

fn outcome_of(index: usize, s: &Submission) -> ElementOutcome {
    ElementOutcome {
        index,
        submission_id: s.id,
        status: s.status,
        lead_id: s.result_lead_id,
        action: s.result_action,
        warnings: s.validation_warnings.clone(),
        error: s.error.clone(),
        // Not stored, and not part of the answer replayed: the action stands for it.
        lead_changed: matches!(
            s.result_action,
            Some(LeadAction::Created | LeadAction::Updated)
        ),
    }
}

/// Runs the request that holds the key; keeps its answer, or gives the key up when it failed
/// (nothing was stored then, so a retry must run it again).
async fn run_claimed<F, Fut>(
    state: &AppState,
    user: &User,
    key: &str,
    claim: i64,
    produce: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(Option<i64>) -> Fut,
    Fut: Future<Output = ApiResult<(StatusCode, String)>>,
{
    let repo = &state.submissions_repo;
    match produce(Some(claim)).await {
        Ok((status, json)) => {
            if let Err(e) = repo
                .complete_idempotent(user.id, key, status.as_u16(), json.clone())
                .await
            {
                // The answer is still right to send; a repeat rebuilds it from what was stored.
                tracing::warn!(error = %e, "idempotent answer not saved");
            }
            Ok(json_answer(status, json))
        }
        Err(problem) => {
            if let Err(e) = repo.release_idempotent(user.id, key).await {
                tracing::warn!(error = %e, "idempotency key not released");
            }
            Err(problem)
        }
    }
}

/// An answer already serialised: a batch's answer is written once, straight from its results,
/// and a kept answer is replayed as the very text first sent.
fn json_answer(status: StatusCode, json: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(json)
}
