//! HTTP routes, grouped by resource. Handlers stay thin: extract, call a service, map the result.
use actix_web::{web, HttpResponse};
use serde_json::json;

pub mod auth;
pub mod batch_body;
pub mod business_views;
pub mod businesses;
pub mod docs;
pub mod health;
mod idempotency;
pub mod invites;
pub mod keys;
pub mod lead_body;
pub mod leads;
pub mod schemas;
pub mod submission_views;
pub mod submissions;
pub mod team_views;
pub mod teams;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.configure(health::configure)
        .configure(docs::configure)
        .configure(keys::configure)
        .configure(submissions::configure)
        .configure(leads::configure)
        .configure(businesses::configure)
        .configure(auth::configure)
        .configure(teams::configure)
        .configure(invites::configure)
        .configure(crate::pages::configure)
        .default_service(web::to(not_found));
}

/// Unknown routes answer JSON like every other error.
async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(json!({ "detail": "Not found" }))
}
