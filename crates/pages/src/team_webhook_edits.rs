//! Changing a team's webhook endpoint from the team page: turn it off and on, give it a new
//! signing secret (shown once, like at creation; the old one keeps signing for a day so the
//! receiver can switch over), and delete it after a confirmation page. The same `WebhookService`
//! operations as the API, so the same rules: owner, admins and platform admins only (a member's
//! post is a 403), another team's endpoint is a 404.
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};

use crate::render::{found_in, PageError};
use crate::session::{Posted, Visitor};
use crate::team_webhooks::{press, secret_page, EndpointButton};
use crate::{base_context, team_item, Button};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        POST "/teams/{id}/webhooks/{wid}/disable" => disable,
        POST "/teams/{id}/webhooks/{wid}/enable" => enable,
        POST "/teams/{id}/webhooks/{wid}/rotate-secret" => rotate_secret,
        GET "/teams/{id}/webhooks/{wid}/delete" => confirm_delete,
        POST "/teams/{id}/webhooks/{wid}/delete" => delete,
    }
}

/// POST: no more deliveries to the endpoint until it is enabled again.
pub async fn disable(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    press(&path, visitor, EndpointButton::Active(false)).await
}

pub async fn enable(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    press(&path, visitor, EndpointButton::Active(true)).await
}

/// POST: a new secret, shown on the answer itself (no redirect, so it is in no URL or history).
pub async fn rotate_secret(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let (team_id, endpoint_id) = team_item(&path.0, &path.1, "Webhook")?;
    let rotated = visitor
        .state
        .webhooks
        .rotate_secret(&visitor.user, team_id, endpoint_id)
        .await?;
    secret_page(&visitor, team_id, &rotated, true)
}

/// GET: asks before deleting (works without JavaScript).
pub async fn confirm_delete(
    visitor: Visitor,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, PageError> {
    let (team_id, endpoint_id) = team_item(&path.0, &path.1, "Webhook")?;
    let endpoints = visitor.state.webhooks.list(&visitor.user, team_id).await?;
    let endpoint = found_in(endpoints, |e| e.id == endpoint_id, "Webhook")?;
    let mut context = base_context(Some(&visitor), "teams");
    context.insert("team_id", &team_id);
    context.insert("webhook_id", &endpoint.id);
    context.insert("webhook_url", &endpoint.url);
    visitor.page(StatusCode::OK, "confirm.html", &context)
}

pub async fn delete(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    press(&path, visitor, EndpointButton::Delete).await
}
