//! `Idempotency-Key`: a repeat of a request from the same user within 24 hours with the same body
//! replays the first answer (`Idempotent-Replayed: true`) and stores nothing new; the same key with
//! another body is a 422.
//!
//! The key is claimed (a row marked running) before the request runs, so of two twins sent at the
//! same moment one runs and the other waits for its answer (409 if it waits over 10 s). A request
//! that fails gives the key up, as one that never ran.
use std::future::Future;
use std::time::Instant;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use chrono::Duration;
use serde_json::Value;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::secret::hash_secret;
use leadhub_domain::submission::IdempotencyClaim;
use leadhub_domain::user::User;

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};

const HEADER: &str = "idempotency-key";
const WINDOW_HOURS: i64 = 24;
/// A first request still running after this long is taken for dead (its process stopped).
const ABANDONED_AFTER_MINUTES: i64 = 5;
/// How long a repeat waits for a twin still running before it answers 409.
const TWIN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
const TWIN_POLL: std::time::Duration = std::time::Duration::from_millis(25);

fn header_problem(msg: &str) -> ApiError {
    ApiError::Validation(vec![FieldError::new(
        vec![LocPart::from("header"), LocPart::from("Idempotency-Key")],
        "value_error",
        msg,
    )])
}

/// Runs `produce` unless the request repeats an earlier one, whose answer is replayed instead.
pub async fn idempotent<F, Fut>(
    req: &HttpRequest,
    state: &AppState,
    user: &User,
    body: impl FnOnce() -> Value,
    produce: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ApiResult<(StatusCode, String)>>,
{
    let Some(raw) = req.headers().get(HEADER) else {
        let (status, json) = produce().await?;
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
            IdempotencyClaim::Claimed => return run_claimed(state, user, &key, produce).await,
            IdempotencyClaim::Taken(first) => first,
        };
        if first.request_hash != request_hash {
            return Err(header_problem(
                "This Idempotency-Key was used with a different request body",
            ));
        }
        if let Some((status, body)) = first.answer {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            return Ok(HttpResponse::build(status)
                .insert_header(("Idempotent-Replayed", "true"))
                .content_type("application/json")
                .body(body));
        }
        // A twin sent at the same moment is still running: wait for its answer rather than
        // store the request a second time.
        if waiting_since.elapsed() >= TWIN_WAIT {
            return Err(ApiError::Conflict(
                "A request with this Idempotency-Key is still being processed; retry later".into(),
            ));
        }
        tokio::time::sleep(TWIN_POLL).await;
    }
}

/// Runs the request that holds the key; keeps its answer, or gives the key up when it failed
/// (nothing was stored then, so a retry must run it again).
async fn run_claimed<F, Fut>(
    state: &AppState,
    user: &User,
    key: &str,
    produce: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ApiResult<(StatusCode, String)>>,
{
    let repo = &state.submissions_repo;
    match produce().await {
        Ok((status, json)) => {
            if let Err(e) = repo
                .complete_idempotent(user.id, key, status.as_u16(), json.clone())
                .await
            {
                // The answer is still right to send; a repeat waits, then may run again
                // once the claim counts as abandoned.
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
