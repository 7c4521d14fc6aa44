//! The JSON shapes of webhook endpoints and deliveries, and the requests that manage them.
use serde::{Deserialize, Serialize};
use validator::Validate;

use leadhub_domain::webhook::{Delivery, WebhookEndpoint, WithSecret};
use leadhub_http::extract::{json_type, Lax, RequestBody};
use leadhub_http::time::iso;

use crate::page::page_type;

/// `POST /api/teams/{id}/webhooks`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct CreateWebhookRequest {
    /// e.g. "https://crm.example.com/hooks/leadhub": https (http only when the service allows it).
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 2000))]
    pub url: Lax<String>,
    /// Any of lead.created, lead.updated, lead.enriched, submission.failed, batch.completed;
    /// or ["*"] for all.
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 10))]
    pub events: Lax<Vec<String>>,
    #[validate(custom(function = "json_type"), length(max = 1000))]
    pub description: Lax<String>,
}

impl RequestBody for CreateWebhookRequest {}

/// `PATCH /api/teams/{id}/webhooks/{wid}`: absent fields stay; `"description": null` clears it.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct UpdateWebhookRequest {
    #[validate(custom(function = "json_type"), length(min = 1, max = 2000))]
    pub url: Lax<String>,
    #[validate(custom(function = "json_type"), length(min = 1, max = 10))]
    pub events: Lax<Vec<String>>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 1000))]
    pub description: Lax<String>,
    #[validate(custom(function = "json_type"))]
    pub is_active: Lax<bool>,
}

impl RequestBody for UpdateWebhookRequest {
    const REFUSES_UNKNOWN: bool = true;
}

/// An endpoint as listed: never its secret.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct WebhookView {
    pub id: i64,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub is_active: bool,
    pub created_at: String,
    /// The public user id (`usr_...`) of who registered it; null for endpoints registered before
    /// this was recorded. The endpoint is the team's: it keeps delivering after that person leaves.
    pub created_by: Option<String>,
}

impl From<&WebhookEndpoint> for WebhookView {
    fn from(e: &WebhookEndpoint) -> Self {
        WebhookView {
            id: e.id,
            url: e.url.clone(),
            events: e.events.clone(),
            description: e.description.clone(),
            is_active: e.is_active,
            created_at: iso(e.created_at),
            created_by: e.created_by.as_ref().map(|c| c.user_id.clone()),
        }
    }
}

/// An endpoint just created or given a new secret: the only answers that carry the secret.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct WebhookWithSecretView {
    pub id: i64,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub is_active: bool,
    /// "whsec_" + base64 of 32 random bytes: the Standard Webhooks signing secret.
    pub secret: String,
    pub created_at: String,
    /// The public user id of who registered it; null for endpoints registered before this was
    /// recorded.
    pub created_by: Option<String>,
}

impl From<&WithSecret> for WebhookWithSecretView {
    fn from(w: &WithSecret) -> Self {
        let v = WebhookView::from(&w.endpoint);
        WebhookWithSecretView {
            id: v.id,
            url: v.url,
            events: v.events,
            description: v.description,
            is_active: v.is_active,
            secret: w.secret.clone(),
            created_at: v.created_at,
            created_by: v.created_by,
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct DeliveryView {
    pub id: i64,
    /// The `webhook-id` header, the same on every attempt.
    pub event_id: String,
    pub event_type: String,
    /// pending, delivered or failed.
    pub status: String,
    pub attempts: i32,
    /// The HTTP status of the last answer, if one came.
    pub last_status: Option<i32>,
    /// At most 1 KiB.
    pub last_error: Option<String>,
    pub next_attempt_at: Option<String>,
    pub delivered_at: Option<String>,
    pub created_at: String,
}

impl From<&Delivery> for DeliveryView {
    fn from(d: &Delivery) -> Self {
        DeliveryView {
            id: d.id,
            event_id: d.event_id.clone(),
            event_type: d.event_type.clone(),
            status: d.status.as_str().to_owned(),
            attempts: d.attempts,
            last_status: d.last_status,
            last_error: d.last_error.clone(),
            next_attempt_at: d.next_attempt_at.map(iso),
            delivered_at: d.delivered_at.map(iso),
            created_at: iso(d.created_at),
        }
    }
}

page_type! {
    /// A page of deliveries, newest first.
    DeliveryPage of DeliveryView
}
