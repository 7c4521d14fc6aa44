//! Liveness, readiness and metrics: unauthenticated, for orchestrators and scrapers.
use actix_web::web::{self, Json};
use actix_web::HttpResponse;
use apistos::api_operation;
use serde::Serialize;

use leadhub_http::error::{ApiError, ApiResult};
use leadhub_http::state::AppState;

use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        GET "/healthz" => healthz,
        GET "/readyz" => readyz,
        GET "/metrics" => metrics,
    }
}

/// How the process is.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct Status {
    /// "ok" (alive) or "ready".
    pub status: String,
}

/// The process is up and answering.
#[api_operation(operation_id = "healthz", tag = "operations")]
pub async fn healthz() -> Json<Status> {
    Json(Status {
        status: "ok".into(),
    })
}

/// How long `/readyz` reports a full storage (or a read-only database) after a statement last
/// found it so: long enough for a load balancer's checks to see it, short enough to come back
/// once space is freed (or the database writable again).
const FAULT_REPORTED_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// The database answers, every migration is applied, and writes are not refused.
/// Not ready while a write found the storage full or the database read-only in the last minute.
#[api_operation(operation_id = "readyz", tag = "operations", error_code = 503)]
pub async fn readyz(state: web::Data<AppState>) -> ApiResult<Json<Status>> {
    if let Some(ago) = state.db.storage_full_within(FAULT_REPORTED_FOR) {
        return Err(ApiError::Unavailable(format!(
            "Database storage full ({ago} s ago); writes are refused"
        )));
    }
    if let Some(ago) = state.db.read_only_within(FAULT_REPORTED_FOR) {
        return Err(ApiError::Unavailable(format!(
            "Database read-only ({ago} s ago); writes are refused"
        )));
    }
    if state.db.is_ready().await {
        Ok(Json(Status {
            status: "ready".into(),
        }))
    } else {
        Err(ApiError::Unavailable(
            "Database unreachable or migrations pending".into(),
        ))
    }
}

/// Prometheus text format: requests and latency per route, database pool usage.
#[api_operation(operation_id = "metrics", tag = "operations", produces = "text/plain")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let (open, idle) = state.db.pool_state();
    let now = state.clock.now();
    let queues = match state.db.queue_gauges(now).await {
        Ok(q) => Some(q),
        Err(e) => {
            tracing::warn!(error = %e, "metrics: the queue gauges could not be read");
            None
        }
    };
    let text = state
        .metrics
        .render((open, idle, state.db.pool_max_size()), queues.as_ref(), now);
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text)
}
