//! A team's outgoing webhooks: endpoints, their secrets, their deliveries.
use actix_web::http::Method;
use actix_web::web::{self, Json};
use apistos::api_operation;

use leadhub_domain::webhook::EndpointChanges;
use leadhub_http::error::ApiResult;
use leadhub_http::extract::{Caller, PageQuery, ValidatedJson, ValidatedQuery};
use leadhub_http::schemas::Detail;
use leadhub_http::state::AppState;

use crate::webhook_views::{
    CreateWebhookRequest, DeliveryPage, DeliveryView, UpdateWebhookRequest, WebhookView,
    WebhookWithSecretView,
};
use crate::Api;

pub fn routes(api: &mut Api) {
    api.route(Method::POST, "/api/teams/{id}/webhooks", create_webhook)
        .route(Method::GET, "/api/teams/{id}/webhooks", list_webhooks)
        .route(
            Method::PATCH,
            "/api/teams/{id}/webhooks/{wid}",
            update_webhook,
        )
        .route(
            Method::DELETE,
            "/api/teams/{id}/webhooks/{wid}",
            delete_webhook,
        )
        .route(
            Method::POST,
            "/api/teams/{id}/webhooks/{wid}/rotate-secret",
            rotate_webhook_secret,
        )
        .route(
            Method::GET,
            "/api/teams/{id}/webhooks/{wid}/deliveries",
            list_deliveries,
        )
        .route(
            Method::POST,
            "/api/teams/{id}/webhooks/{wid}/deliveries/{did}/retry",
            retry_delivery,
        )
        .route(
            Method::POST,
            "/api/teams/{id}/webhooks/{wid}/test",
            test_webhook,
        );
}

/// Registers an endpoint (team owner or admin); its signing secret is in this answer only.
#[api_operation(
    operation_id = "create_webhook",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn create_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<CreateWebhookRequest>,
) -> ApiResult<Json<WebhookWithSecretView>> {
    let r = body.value;
    let made = state
        .webhooks
        .create(
            &caller.user,
            id.into_inner(),
            r.url.into_value().unwrap_or_default(),
            r.events.into_value().unwrap_or_default(),
            r.description.text().map(str::to_owned),
        )
        .await?;
    Ok(Json(WebhookWithSecretView::from(&made)))
}

/// The team's endpoints, without their secrets.
#[api_operation(
    operation_id = "list_webhooks",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Json<Vec<WebhookView>>> {
    let list = state.webhooks.list(&caller.user, id.into_inner()).await?;
    Ok(Json(list.iter().map(WebhookView::from).collect()))
}

/// Changes an endpoint's URL, events, description or whether it is active.
#[api_operation(
    operation_id = "update_webhook",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn update_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: ValidatedJson<UpdateWebhookRequest>,
) -> ApiResult<Json<WebhookView>> {
    let (team_id, endpoint_id) = path.into_inner();
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
    let endpoint = state
        .webhooks
        .update(&caller.user, team_id, endpoint_id, changes)
        .await?;
    Ok(Json(WebhookView::from(&endpoint)))
}

/// Deletes an endpoint and its deliveries.
#[api_operation(
    operation_id = "delete_webhook",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<Json<Detail>> {
    let (team_id, endpoint_id) = path.into_inner();
    state
        .webhooks
        .delete(&caller.user, team_id, endpoint_id)
        .await?;
    Ok(Json(Detail::new("Webhook deleted")))
}

/// A new signing secret, shown in this answer only; the old one keeps signing for 24 hours.
#[api_operation(
    operation_id = "rotate_webhook_secret",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn rotate_webhook_secret(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<Json<WebhookWithSecretView>> {
    let (team_id, endpoint_id) = path.into_inner();
    let rotated = state
        .webhooks
        .rotate_secret(&caller.user, team_id, endpoint_id)
        .await?;
    Ok(Json(WebhookWithSecretView::from(&rotated)))
}

/// The endpoint's deliveries, newest first.
#[api_operation(
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn list_deliveries(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    query: ValidatedQuery<PageQuery>,
) -> ApiResult<Json<DeliveryPage>> {
    let (team_id, endpoint_id) = path.into_inner();
    let page = query.0.paging();
    let (list, total) = state
        .webhooks
        .deliveries(&caller.user, team_id, endpoint_id, page.limit, page.offset)
        .await?;
    Ok(Json(DeliveryPage {
        items: list.iter().map(DeliveryView::from).collect(),
        total,
        limit: page.limit,
        offset: page.offset,
    }))
}

/// Sends a delivery again now, whatever its state.
#[api_operation(
    operation_id = "retry_webhook_delivery",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn retry_delivery(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64, i64)>,
) -> ApiResult<Json<DeliveryView>> {
    let (team_id, endpoint_id, delivery_id) = path.into_inner();
    let delivery = state
        .webhooks
        .retry(&caller.user, team_id, endpoint_id, delivery_id)
        .await?;
    Ok(Json(DeliveryView::from(&delivery)))
}

/// Queues a `webhook.test` event for this endpoint.
#[api_operation(
    operation_id = "test_webhook",
    tag = "webhooks",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn test_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<Json<DeliveryView>> {
    let (team_id, endpoint_id) = path.into_inner();
    let delivery = state
        .webhooks
        .send_test(&caller.user, team_id, endpoint_id)
        .await?;
    Ok(Json(DeliveryView::from(&delivery)))
}
