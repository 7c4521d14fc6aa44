//! A team's outgoing webhooks: endpoints, their secrets, their deliveries.
use actix_web::web::Json;
use apistos::api_operation;

use leadhub_domain::webhook::EndpointChanges;
use leadhub_http::extract::{Call, PageQuery, ValidatedJson, ValidatedQuery};
use leadhub_http::refusals::{Answer, Guarded, GuardedBody};
use leadhub_http::schemas::Detail;

use crate::page::page;
use crate::webhook_views::{
    CreateWebhookRequest, DeliveryPage, DeliveryView, UpdateWebhookRequest, WebhookView,
    WebhookWithSecretView,
};
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/teams/{id}/webhooks" => create_webhook,
        GET "/api/teams/{id}/webhooks" => list_webhooks,
        PATCH "/api/teams/{id}/webhooks/{wid}" => update_webhook,
        DELETE "/api/teams/{id}/webhooks/{wid}" => delete_webhook,
        POST "/api/teams/{id}/webhooks/{wid}/rotate-secret" => rotate_webhook_secret,
        GET "/api/teams/{id}/webhooks/{wid}/deliveries" => list_deliveries,
        POST "/api/teams/{id}/webhooks/{wid}/deliveries/{did}/retry" => retry_delivery,
        POST "/api/teams/{id}/webhooks/{wid}/test" => test_webhook,
    }
}

/// Registers an endpoint (team owner or admin); its signing secret is in this answer only.
#[api_operation(operation_id = "create_webhook", tag = "webhooks")]
pub async fn create_webhook(
    team: Call<i64>,
    body: ValidatedJson<CreateWebhookRequest>,
) -> Answer<Json<WebhookWithSecretView>, GuardedBody> {
    let r = body.value;
    let webhooks = &team.state.webhooks;
    let made = webhooks
        .create(
            team.user(),
            team.path,
            r.url.into_value().unwrap_or_default(),
            r.events.into_value().unwrap_or_default(),
            r.description.text().map(str::to_owned),
        )
        .await?;
    Ok(Json(WebhookWithSecretView::from(&made)))
}

/// The team's endpoints, without their secrets.
#[api_operation(operation_id = "list_webhooks", tag = "webhooks")]
pub async fn list_webhooks(team: Call<i64>) -> Answer<Json<Vec<WebhookView>>, Guarded> {
    let list = team.state.webhooks.list(team.user(), team.path).await?;
    Ok(Json(list.iter().map(WebhookView::from).collect()))
}

/// Changes an endpoint's URL, events, description or whether it is active.
#[api_operation(operation_id = "update_webhook", tag = "webhooks")]
pub async fn update_webhook(
    endpoint: Call<(i64, i64)>,
    body: ValidatedJson<UpdateWebhookRequest>,
) -> Answer<Json<WebhookView>, GuardedBody> {
    let (team_id, endpoint_id) = endpoint.path;
    let r = body.value;
    let changes = EndpointChanges {
        description: r
            .description
            .is_sent()
            .then(|| r.description.text().map(str::to_owned)),
        url: r.url.into_value(),
        events: r.events.into_value(),
        is_active: r.is_active.into_value(),
    };
    let webhooks = &endpoint.state.webhooks;
    let updated = webhooks
        .update(endpoint.user(), team_id, endpoint_id, changes)
        .await?;
    Ok(Json(WebhookView::from(&updated)))
}

/// Deletes an endpoint and its deliveries.
#[api_operation(operation_id = "delete_webhook", tag = "webhooks")]
pub async fn delete_webhook(endpoint: Call<(i64, i64)>) -> Answer<Json<Detail>, Guarded> {
    let (team_id, endpoint_id) = endpoint.path;
    let webhooks = &endpoint.state.webhooks;
    webhooks
        .delete(endpoint.user(), team_id, endpoint_id)
        .await?;
    Ok(Json(Detail::new("Webhook deleted")))
}

/// A new signing secret, shown in this answer only; the old one keeps signing for 24 hours.
#[api_operation(operation_id = "rotate_webhook_secret", tag = "webhooks")]
pub async fn rotate_webhook_secret(
    endpoint: Call<(i64, i64)>,
) -> Answer<Json<WebhookWithSecretView>, Guarded> {
    let (team_id, endpoint_id) = endpoint.path;
    let webhooks = &endpoint.state.webhooks;
    let rotated = webhooks
        .rotate_secret(endpoint.user(), team_id, endpoint_id)
        .await?;
    Ok(Json(WebhookWithSecretView::from(&rotated)))
}

/// The endpoint's deliveries, newest first.
#[api_operation(operation_id = "list_webhook_deliveries", tag = "webhooks")]
pub async fn list_deliveries(
    endpoint: Call<(i64, i64)>,
    query: ValidatedQuery<PageQuery>,
) -> Answer<Json<DeliveryPage>, Guarded> {
    let (team_id, endpoint_id) = endpoint.path;
    let paging = query.0.paging();
    let webhooks = &endpoint.state.webhooks;
    let (list, total) = webhooks
        .deliveries(
            endpoint.user(),
            team_id,
            endpoint_id,
            paging.limit,
            paging.offset,
        )
        .await?;
    Ok(page(&list, total, paging))
}

/// Sends a delivery again now, whatever its state.
#[api_operation(operation_id = "retry_webhook_delivery", tag = "webhooks")]
pub async fn retry_delivery(
    delivery: Call<(i64, i64, i64)>,
) -> Answer<Json<DeliveryView>, Guarded> {
    let (team_id, endpoint_id, delivery_id) = delivery.path;
    let webhooks = &delivery.state.webhooks;
    let retried = webhooks
        .retry(delivery.user(), team_id, endpoint_id, delivery_id)
        .await?;
    Ok(Json(DeliveryView::from(&retried)))
}

/// Queues a `webhook.test` event for this endpoint.
#[api_operation(operation_id = "test_webhook", tag = "webhooks")]
pub async fn test_webhook(endpoint: Call<(i64, i64)>) -> Answer<Json<DeliveryView>, Guarded> {
    let (team_id, endpoint_id) = endpoint.path;
    let webhooks = &endpoint.state.webhooks;
    let delivery = webhooks
        .send_test(endpoint.user(), team_id, endpoint_id)
        .await?;
    Ok(Json(DeliveryView::from(&delivery)))
}
