//! `Idempotency-Key`: a repeat of a request from the same user within 24 hours with the same body
//! replays the first answer (`Idempotent-Replayed: true`) and stores nothing new; the same key with
//! another body is a 422.
use std::future::Future;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use chrono::Duration;
use serde_json::Value;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::secret::hash_secret;
use leadhub_domain::submission::IdempotentAnswer;
use leadhub_domain::user::User;

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};

const HEADER: &str = "idempotency-key";
const WINDOW_HOURS: i64 = 24;

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
    body: &Value,
    produce: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ApiResult<(StatusCode, Value)>>,
{
    let Some(raw) = req.headers().get(HEADER) else {
        let (status, json) = produce().await?;
        return Ok(HttpResponse::build(status).json(json));
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
    let request_hash = hash_secret(&format!("{} {} {}", req.method(), req.path(), body));
    let now = state.clock.now();
    let stale_before = now - Duration::hours(WINDOW_HOURS);
    if let Some(first) = state
        .submissions_repo
        .find_idempotent(user.id, &key)
        .await?
    {
        if first.created_at >= stale_before {
            if first.request_hash != request_hash {
                return Err(header_problem(
                    "This Idempotency-Key was used with a different request body",
                ));
            }
            let status = StatusCode::from_u16(first.status).unwrap_or(StatusCode::OK);
            return Ok(HttpResponse::build(status)
                .insert_header(("Idempotent-Replayed", "true"))
                .content_type("application/json")
                .body(first.body));
        }
    }
    let (status, json) = produce().await?;
    let answer = IdempotentAnswer {
        request_hash,
        status: status.as_u16(),
        body: json.to_string(),
        created_at: now,
    };
    // A concurrent twin may have saved first; its answer stands, ours is still correct to send.
    if let Err(e) = state
        .submissions_repo
        .save_idempotent(user.id, &key, answer, stale_before)
        .await
    {
        tracing::warn!(error = %e, "idempotent answer not saved");
    }
    Ok(HttpResponse::build(status).json(json))
}
