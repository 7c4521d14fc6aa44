//! `WebhookService`: managing a team's endpoints, for its owner and admins (and platform admins,
//! on any team). Members are refused; a team the caller is not in is "not found".
use std::sync::Arc;

use crate::clock::Clock;
use crate::error::{FieldError, LocPart, ServiceError};
use crate::secret::TokenGenerator;
use crate::team::TeamAction;
use crate::team_access::{authorize, MembershipRepository};
use crate::user::User;
use crate::webhook::model::{
    events_problem, rotation_overlap, url_problem, Creator, Delivery, EndpointChanges, EventType,
    NewEndpoint, WebhookEndpoint,
};
use crate::webhook::repository::WebhookRepository;
use crate::webhook::signature::new_secret;

/// Built with a struct literal from its ports.
pub struct WebhookService {
    pub webhooks: Arc<dyn WebhookRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
    /// `LEADHUB_WEBHOOK_ALLOW_HTTP=1`: plain `http://` targets are accepted.
    pub allow_http: bool,
    /// `LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM` (`ENDPOINTS_PER_TEAM` unless set): the most
    /// endpoints a team may have, active or not.
    pub endpoints_per_team: usize,
}

/// The refusal of a change to a deactivated team's webhooks.
const TEAM_INACTIVE: &str = "Team is inactive";

/// A new endpoint (or a rotated one) with its secret, shown in this answer only.
#[derive(Debug, Clone, PartialEq)]
pub struct WithSecret {
    pub endpoint: WebhookEndpoint,
    pub secret: String,
}

/// The refusal of a team's endpoint past its limit: a 422 on the request as a whole, since no
/// field of it is wrong.
fn too_many_endpoints(limit: usize) -> ServiceError {
    ServiceError::Invalid(vec![FieldError::new(
        vec![LocPart::from("body")],
        "too_many_endpoints",
        format!("A team can have at most {limit} webhook endpoints; delete one to add another"),
    )])
}

impl WebhookService {
    async fn authorize(&self, user: &User, team_id: i64) -> Result<(), ServiceError> {
        authorize(
            &*self.memberships,
            user,
            team_id,
            TeamAction::ManageWebhooks,
        )
        .await?;
        Ok(())
    }

    /// Refuses what would set up deliveries for a deactivated team (403, as adding leads,
    /// businesses or invites to it is): a new endpoint, a changed one, a new secret.
    async fn team_takes_changes(&self, team_id: i64) -> Result<(), ServiceError> {
        match self.memberships.team_is_active(team_id).await? {
            Some(false) => Err(ServiceError::Forbidden(TEAM_INACTIVE.into())),
            _ => Ok(()),
        }
    }

    /// The team's endpoint, once the caller may manage the team's webhooks.
    async fn endpoint(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
    ) -> Result<WebhookEndpoint, ServiceError> {
        self.authorize(user, team_id).await?;
        self.webhooks
            .find_endpoint(team_id, endpoint_id)
            .await?
            .ok_or(ServiceError::NotFound("Webhook"))
    }

    fn check(&self, url: Option<&str>, events: Option<&[String]>) -> Result<(), ServiceError> {
        let mut problems = Vec::new();
        if let Some(msg) = url.and_then(|u| url_problem(u, self.allow_http)) {
            problems.push(FieldError::body(
                &[LocPart::from("url")],
                "url_parsing",
                msg,
            ));
        }
        if let Some(msg) = events.and_then(events_problem) {
            problems.push(FieldError::body(
                &[LocPart::from("events")],
                "value_error",
                msg,
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ServiceError::Invalid(problems))
        }
    }

    pub async fn create(
        &self,
        user: &User,
        team_id: i64,
        url: String,
        events: Vec<String>,
        description: Option<String>,
    ) -> Result<WithSecret, ServiceError> {
        self.authorize(user, team_id).await?;
        self.team_takes_changes(team_id).await?;
        self.check(Some(&url), Some(&events))?;
        let secret = new_secret(self.tokens.as_ref());
        let new = NewEndpoint {
            id: (),
            team_id,
            url,
            events,
            description,
            is_active: true,
            created_at: self.clock.now(),
            created_by: Some(Creator {
                id: user.id,
                user_id: user.user_id.clone(),
                email: user.email.clone(),
            }),
        };
        let at_most = i64::try_from(self.endpoints_per_team).unwrap_or(i64::MAX);
        let endpoint = self
            .webhooks
            .create_endpoint(new, secret.clone(), at_most)
            .await?
            .ok_or_else(|| too_many_endpoints(self.endpoints_per_team))?;
        Ok(WithSecret { endpoint, secret })
    }

    pub async fn list(
        &self,
        user: &User,
        team_id: i64,
    ) -> Result<Vec<WebhookEndpoint>, ServiceError> {
        self.authorize(user, team_id).await?;
        Ok(self.webhooks.endpoints(team_id).await?)
    }

    pub async fn update(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
        changes: EndpointChanges,
    ) -> Result<WebhookEndpoint, ServiceError> {
        if changes.is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError::nothing_to_change()]));
        }
        self.endpoint(user, team_id, endpoint_id).await?;
        if !changes.only_turns_off() {
            self.team_takes_changes(team_id).await?;
        }
        self.check(changes.url.as_deref(), changes.events.as_deref())?;
        self.webhooks
            .update_endpoint(endpoint_id, changes, self.clock.now())
            .await?;
        // Authorized above; only the changed row is read again.
        self.webhooks
            .find_endpoint(team_id, endpoint_id)
            .await?
            .ok_or(ServiceError::NotFound("Webhook"))
    }

    pub async fn delete(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
    ) -> Result<(), ServiceError> {
        self.endpoint(user, team_id, endpoint_id).await?;
        Ok(self.webhooks.delete_endpoint(endpoint_id).await?)
    }

    /// A new secret; the old one keeps signing alongside it for `rotation_overlap`.
    pub async fn rotate_secret(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
    ) -> Result<WithSecret, ServiceError> {
        let endpoint = self.endpoint(user, team_id, endpoint_id).await?;
        self.team_takes_changes(team_id).await?;
        let secret = new_secret(self.tokens.as_ref());
        let now = self.clock.now();
        self.webhooks
            .rotate_secret(endpoint_id, secret.clone(), now + rotation_overlap(), now)
            .await?;
        Ok(WithSecret { endpoint, secret })
    }

    pub async fn deliveries(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<Delivery>, i64), ServiceError> {
        self.endpoint(user, team_id, endpoint_id).await?;
        Ok(self.webhooks.deliveries(endpoint_id, limit, offset).await?)
    }

    /// Sends the delivery again now, whatever its state.
    pub async fn retry(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
        delivery_id: i64,
    ) -> Result<Delivery, ServiceError> {
        self.endpoint(user, team_id, endpoint_id).await?;
        self.webhooks
            .retry_delivery(endpoint_id, delivery_id, self.clock.now())
            .await?
            .ok_or(ServiceError::NotFound("Delivery"))
    }

    /// Queues a `webhook.test` event for this endpoint only.
    pub async fn send_test(
        &self,
        user: &User,
        team_id: i64,
        endpoint_id: i64,
    ) -> Result<Delivery, ServiceError> {
        self.endpoint(user, team_id, endpoint_id).await?;
        let now = self.clock.now();
        let kind = EventType::WebhookTest.as_str();
        let payload = serde_json::json!({
            "type": kind,
            "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "data": { "webhook_id": endpoint_id, "team_id": team_id },
        });
        Ok(self
            .webhooks
            .enqueue(
                endpoint_id,
                self.tokens.public_id("msg_"),
                kind.to_owned(),
                payload.to_string(),
                now,
            )
            .await?)
    }
}
