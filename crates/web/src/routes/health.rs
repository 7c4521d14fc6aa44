//! Liveness, readiness and metrics: unauthenticated, for orchestrators and scrapers.
use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::app::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(healthz))
        .route("/readyz", web::get().to(readyz))
        .route("/metrics", web::get().to(metrics));
}

/// The process is up and answering.
#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "operations",
    responses((status = 200, description = "Alive", body = serde_json::Value, example = json!({"status": "ok"}))))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// The database answers and every migration is applied.
#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready", body = serde_json::Value, example = json!({"status": "ready"})),
        (status = 503, description = "Not ready", body = crate::routes::schemas::ErrorBody)))]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    if state.db.is_ready().await {
        HttpResponse::Ok().json(json!({ "status": "ready" }))
    } else {
        HttpResponse::ServiceUnavailable()
            .json(json!({ "detail": "Database unreachable or migrations pending" }))
    }
}

/// Prometheus text format: requests and latency per route, database pool usage.
#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "Prometheus exposition", content_type = "text/plain", body = String)))]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let (open, idle) = state.db.pool_state();
    let text = state.metrics.render((open, idle, state.db.pool_max_size()));
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text)
}
