//! The ports: the endpoints a team manages, and the outbox the delivery worker drains.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::store::StoreResult;
use crate::webhook::model::{
    Delivery, DeliveryStatus, EndpointChanges, NewEndpoint, WebhookEndpoint,
};

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookRepository: Send + Sync {
    /// Stores `new` with `secret` as its signing secret, unless its team already has `at_most`
    /// endpoints (None then); the count and the insert are one step, so two requests at once
    /// cannot both take the last place.
    async fn create_endpoint(
        &self,
        new: NewEndpoint,
        secret: String,
        at_most: i64,
    ) -> StoreResult<Option<WebhookEndpoint>>;
    async fn endpoints(&self, team_id: i64) -> StoreResult<Vec<WebhookEndpoint>>;
    /// The endpoint when it belongs to `team_id`.
    async fn find_endpoint(
        &self,
        team_id: i64,
        endpoint_id: i64,
    ) -> StoreResult<Option<WebhookEndpoint>>;
    async fn update_endpoint(
        &self,
        endpoint_id: i64,
        changes: EndpointChanges,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// Deletes the endpoint and its deliveries.
    async fn delete_endpoint(&self, endpoint_id: i64) -> StoreResult<()>;
    /// Makes `secret` the signing secret; the current one keeps signing until `previous_until`.
    async fn rotate_secret(
        &self,
        endpoint_id: i64,
        secret: String,
        previous_until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// The endpoint's deliveries, newest first, and how many there are.
    async fn deliveries(
        &self,
        endpoint_id: i64,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Delivery>, i64)>;
    /// Puts the delivery back in the outbox, due at `at`, when it belongs to the endpoint.
    async fn retry_delivery(
        &self,
        endpoint_id: i64,
        delivery_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Delivery>>;
    /// Adds one delivery with its payload already made (`webhook.test`).
    async fn enqueue(
        &self,
        endpoint_id: i64,
        event_id: String,
        event_type: String,
        payload: String,
        at: DateTime<Utc>,
    ) -> StoreResult<Delivery>;
}

/// An active endpoint with deliveries due, and its team: what the worker shares its slots among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DueEndpoint {
    pub endpoint_id: i64,
    pub team_id: i64,
}

/// A delivery the worker took, with what it needs to send it.
#[derive(Debug, Clone, PartialEq)]
pub struct DueDelivery {
    pub id: i64,
    pub endpoint_id: i64,
    /// The endpoint's team, whose share of the slots the delivery takes.
    pub team_id: i64,
    pub event_id: String,
    pub event_type: String,
    /// The request body, once made; None until the first attempt makes it from `subject`.
    pub payload: Option<String>,
    /// What the event is about: a lead id, a submission id, a batch id.
    pub subject: Option<String>,
    pub occurred_at: DateTime<Utc>,
    pub attempts: i32,
    pub url: String,
    /// The signing secrets: the current one, and a rotated-out one still in its overlap.
    pub secrets: Vec<String>,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRecord {
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// The body sent, kept so that every retry sends the same one.
    pub payload: Option<String>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookOutbox: Send + Sync {
    /// Active endpoints with a pending delivery due at `now`, the one due longest first, at most
    /// `limit`, leaving out the endpoints in `skip_endpoints` and the teams in `skip_teams`
    /// (their share of the slots is in flight already).
    async fn due_endpoints(
        &self,
        now: DateTime<Utc>,
        skip_endpoints: Vec<i64>,
        skip_teams: Vec<i64>,
        limit: i64,
    ) -> StoreResult<Vec<DueEndpoint>>;
    /// Takes up to `count` pending deliveries due at `now` of each (endpoint, count) in `take`,
    /// the oldest first, of active endpoints only, and holds them until `held_until`: a worker
    /// that dies leaves them due again then. Rows another process holds are skipped.
    async fn claim(
        &self,
        now: DateTime<Utc>,
        held_until: DateTime<Utc>,
        take: Vec<(i64, i64)>,
    ) -> StoreResult<Vec<DueDelivery>>;
    /// Turns up to `limit` stored event rows into their endpoints' pending deliveries; returns
    /// how many rows it took (fewer than `limit`: none are left).
    async fn fan_out(&self, limit: i64) -> StoreResult<usize>;
    /// Hands claimed deliveries back, due at `at`.
    async fn release(&self, delivery_ids: Vec<i64>, at: DateTime<Utc>) -> StoreResult<()>;
    /// Records how these attempts ended, all in one transaction.
    async fn record_attempts(&self, records: Vec<(i64, AttemptRecord)>) -> StoreResult<()>;
    /// Turns the endpoint off when it has failed every delivery since before `since`
    /// (`failing_cutoff`): one made before then is still undelivered and none was delivered
    /// after it. Returns, once, whom to tell.
    async fn deactivate_if_failing(
        &self,
        endpoint_id: i64,
        since: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Deactivated>>;
}

/// An endpoint just turned off for failing, and the owner of its team.
#[derive(Debug, Clone, PartialEq)]
pub struct Deactivated {
    pub team_name: String,
    pub url: String,
    pub owner_email: Option<String>,
    pub failing_since: DateTime<Utc>,
}
