//! The Webhooks section of the team page (owner, admins and platform admins): the team's
//! endpoints with their recent deliveries, a form to add one (its secret shown once, on the page
//! that answers the form), a test event and a retry per delivery; a deactivated team's section
//! offers nothing that would add or change an endpoint, only turning one off. `WebhookService`
//! checks every action again whatever the page showed: a member's form post is a 403, another
//! team's ids 404.
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::error::ServiceError;
use leadhub_domain::webhook::{
    rotation_overlap, subscribable, Delivery, EndpointChanges, EventType, WebhookEndpoint,
    WithSecret,
};

use crate::render::{problems_text, see_other, when, when_opt, PageError};
use crate::session::{Posted, Visitor};
use crate::teams::{team_page, Problem};
use crate::{base_context, id_of, team_item, Button};

/// Deliveries shown per endpoint, newest first.
const RECENT: i64 = 10;

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        POST "/teams/{id}/webhooks" => create,
        POST "/teams/{id}/webhooks/{wid}/test" => send_test,
        POST "/teams/{id}/webhooks/{wid}/deliveries/{did}/retry" => retry,
    }
}

#[derive(Serialize)]
pub struct Section {
    endpoints: Vec<EndpointRow>,
    /// The form's checkboxes, one per event type.
    event_types: Vec<&'static str>,
    /// Whether the team takes new or changed endpoints and new secrets: not once it is
    /// deactivated (`WebhookService` refuses them, 403), when only turning one off, a test, a
    /// retry and deleting remain.
    takes_changes: bool,
}

#[derive(Serialize)]
struct EndpointRow {
    id: i64,
    url: String,
    events: String,
    description: Option<String>,
    is_active: bool,
    created: String,
    /// Who added it (an e-mail address); None for endpoints older than the record.
    created_by: Option<String>,
    deliveries: Vec<DeliveryRow>,
    more: bool,
}

#[derive(Serialize)]
struct DeliveryRow {
    id: i64,
    event_type: String,
    event_id: String,
    status: &'static str,
    attempts: i32,
    last_status: Option<i32>,
    next_attempt: Option<String>,
    delivered: Option<String>,
}

impl DeliveryRow {
    fn new(d: &Delivery, offset: UtcOffset) -> Self {
        DeliveryRow {
            id: d.id,
            event_type: d.event_type.clone(),
            event_id: d.event_id.clone(),
            status: d.status.as_str(),
            attempts: d.attempts,
            last_status: d.last_status,
            next_attempt: when_opt(d.next_attempt_at, offset),
            delivered: when_opt(d.delivered_at, offset),
        }
    }
}

/// The section for `visitor` of a team that is `active` or not, or None when they may not
/// manage the team's webhooks.
pub async fn section(
    visitor: &Visitor,
    team_id: i64,
    active: bool,
) -> Result<Option<Section>, PageError> {
    let state = &visitor.state;
    let endpoints = match state.webhooks.list(&visitor.user, team_id).await {
        Ok(list) => list,
        Err(ServiceError::Forbidden(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut rows = Vec::with_capacity(endpoints.len());
    for endpoint in endpoints {
        let (deliveries, total) = state
            .webhooks
            .deliveries(&visitor.user, team_id, endpoint.id, RECENT, 0)
            .await?;
        rows.push(EndpointRow::new(
            endpoint,
            &deliveries,
            total,
            visitor.offset,
        ));
    }
    Ok(Some(Section {
        endpoints: rows,
        event_types: subscribable().map(EventType::as_str).collect(),
        takes_changes: active,
    }))
}

impl EndpointRow {
    fn new(
        e: WebhookEndpoint,
        deliveries: &[Delivery],
        total: i64,
        offset: UtcOffset,
    ) -> EndpointRow {
        EndpointRow {
            id: e.id,
            url: e.url,
            events: e.events.join(", "),
            description: e.description,
            is_active: e.is_active,
            created: when(e.created_at, offset),
            created_by: e.created_by.map(|c| c.email),
            deliveries: deliveries
                .iter()
                .map(|d| DeliveryRow::new(d, offset))
                .collect(),
            more: total > deliveries.len() as i64,
        }
    }
}

/// The add form: a checkbox per event type, each named after it, or `all`.
#[derive(Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    url: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    all: Option<String>,
    #[serde(default, rename = "lead.created")]
    lead_created: Option<String>,
    #[serde(default, rename = "lead.updated")]
    lead_updated: Option<String>,
    #[serde(default, rename = "lead.enriched")]
    lead_enriched: Option<String>,
    #[serde(default, rename = "submission.failed")]
    submission_failed: Option<String>,
    #[serde(default, rename = "batch.completed")]
    batch_completed: Option<String>,
}

impl CreateForm {
    fn events(&self) -> Vec<String> {
        if self.all.is_some() {
            return vec!["*".into()];
        }
        let ticked = [
            &self.lead_created,
            &self.lead_updated,
            &self.lead_enriched,
            &self.submission_failed,
            &self.batch_completed,
        ];
        subscribable()
            .zip(ticked)
            .filter(|(_, on)| on.is_some())
            .map(|(e, _)| e.as_str().to_owned())
            .collect()
    }
}

/// POST: adds the endpoint and shows its secret, this once (no redirect, so it is in no URL).
pub async fn create(
    id: web::Path<String>,
    Posted { visitor, form }: Posted<CreateForm>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&id, "Team")?;
    let description = Some(form.description.trim().to_owned()).filter(|d| !d.is_empty());
    let created = visitor
        .state
        .webhooks
        .create(
            &visitor.user,
            team_id,
            form.url.trim().to_owned(),
            form.events(),
            description,
        )
        .await;
    let created = match created {
        Ok(created) => created,
        Err(ServiceError::Invalid(problems)) => {
            let problem = Problem {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                // A refusal of the whole form (the team's endpoint limit) reads as it is; a
                // field's problem is named after the field.
                message: if problems.iter().all(|p| p.loc.len() == 1) {
                    problems_text(&problems)
                } else {
                    format!("Webhook {}", problems_text(&problems))
                },
                values: vec![
                    ("webhook_url", form.url.trim().to_owned()),
                    ("webhook_description", form.description.trim().to_owned()),
                ],
            };
            return team_page(&visitor, team_id, None, Some(problem)).await;
        }
        Err(e) => return Err(e.into()),
    };
    secret_page(&visitor, team_id, &created, false)
}

/// An endpoint's secret, shown once on the answer itself (no redirect, so it is in no URL or
/// history): when the endpoint is made, or `rotated` with the old one's overlap.
pub(crate) fn secret_page(
    visitor: &Visitor,
    team_id: i64,
    made: &WithSecret,
    rotated: bool,
) -> Result<HttpResponse, PageError> {
    let mut context = base_context(Some(visitor), "teams");
    context.insert("team_id", &team_id);
    context.insert("url", &made.endpoint.url);
    context.insert("events", &made.endpoint.events.join(", "));
    context.insert("secret", &made.secret);
    if rotated {
        context.insert("rotated", &true);
        context.insert("overlap_hours", &rotation_overlap().num_hours());
    }
    visitor.page(StatusCode::OK, "webhook_created.html", &context)
}

/// Back to the team page's webhooks, saying what was `done`.
fn back(team_id: i64, done: &str) -> HttpResponse {
    see_other(&format!("/teams/{team_id}?done={done}#webhooks"))
}

pub async fn send_test(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    press(&path, visitor, EndpointButton::SendTest).await
}

/// What a button on one of a team's endpoints does: set whether it is active, send a test, delete.
#[derive(Clone, Copy)]
pub(crate) enum EndpointButton {
    Active(bool),
    SendTest,
    Delete,
}

/// Presses `button` on the endpoint of `path` (team, endpoint) as the visitor, then back to
/// the team page's webhooks saying what was done.
pub(crate) async fn press(
    path: &(String, String),
    visitor: Visitor,
    button: EndpointButton,
) -> Result<HttpResponse, PageError> {
    let (team_id, endpoint_id) = team_item(&path.0, &path.1, "Webhook")?;
    let (webhooks, user) = (&visitor.state.webhooks, &visitor.user);
    let done = match button {
        EndpointButton::Active(is_active) => {
            let changes = EndpointChanges {
                is_active: Some(is_active),
                ..EndpointChanges::default()
            };
            webhooks.update(user, team_id, endpoint_id, changes).await?;
            if is_active {
                "webhook-enabled"
            } else {
                "webhook-disabled"
            }
        }
        EndpointButton::SendTest => {
            webhooks.send_test(user, team_id, endpoint_id).await?;
            "webhook-test"
        }
        EndpointButton::Delete => {
            webhooks.delete(user, team_id, endpoint_id).await?;
            "webhook-deleted"
        }
    };
    Ok(visitor.finish(back(team_id, done)))
}

pub async fn retry(
    path: web::Path<(String, String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let (team_id, endpoint_id) = team_item(&path.0, &path.1, "Webhook")?;
    let delivery_id = id_of(&path.2, "Delivery")?;
    visitor
        .state
        .webhooks
        .retry(&visitor.user, team_id, endpoint_id, delivery_id)
        .await?;
    Ok(visitor.finish(back(team_id, "webhook-retried")))
}
