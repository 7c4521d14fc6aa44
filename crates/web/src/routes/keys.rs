//! API key management: the `/api-keys` page uses these, and so can programs.
use actix_web::{web, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use leadhub_domain::api_key::ApiKey;
use leadhub_domain::error::{FieldError, LocPart};

use crate::app::AppState;
use crate::error::ApiResult;
use crate::extract::{Caller, Fields, FromBody, ValidatedJson};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::time::iso;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/keys", web::get().to(list_keys))
        .route("/api/keys", web::post().to(create_key))
        .route("/api/keys/{id}", web::delete().to(revoke_key));
}

/// An API key as listed: never the key itself, only its first 12 characters.
#[derive(Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: i64,
    pub name: String,
    #[schema(example = "lhk_Xy3kP9qR")]
    pub prefix: String,
    #[schema(example = "2026-01-31T17:04:05Z")]
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
}

impl From<&ApiKey> for ApiKeyView {
    fn from(k: &ApiKey) -> Self {
        ApiKeyView {
            id: k.id,
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            created_at: iso(k.created_at),
            last_used_at: k.last_used_at.map(iso),
            expires_at: k.expires_at.map(iso),
            revoked_at: k.revoked_at.map(iso),
        }
    }
}

/// A new key: the full `key` is in this answer and never again.
#[derive(Serialize, ToSchema)]
pub struct CreatedApiKeyView {
    #[serde(flatten)]
    #[schema(inline)]
    pub info: ApiKeyView,
    /// The full key. Store it now: it cannot be shown again.
    pub key: String,
}

#[derive(ToSchema)]
pub struct CreateKeyRequest {
    /// A name to recognise the key by (1..=100 characters).
    #[schema(min_length = 1, max_length = 100, example = "permit scraper")]
    pub name: String,
    /// Days until the key stops working (1..=3650); absent means it never expires.
    #[schema(minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<i64>,
}

impl FromBody for CreateKeyRequest {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let fields = Fields::of(value, vec![LocPart::from("body")], &mut problems)
            .ok_or_else(|| problems.clone())?;
        let name = fields.string("name", 1, 100, &mut problems);
        let expires_in_days = fields.opt_int_in("expires_in_days", 1, 3650, &mut problems);
        match name {
            Some(name) if problems.is_empty() => Ok(CreateKeyRequest {
                name,
                expires_in_days,
            }),
            _ => Err(problems),
        }
    }
}

/// The caller's API keys, newest first (revoked ones included, marked by `revoked_at`).
#[utoipa::path(get, path = "/api/keys", operation_id = "list_api_keys", tag = "api keys",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's keys", body = Vec<ApiKeyView>),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody)))]
pub async fn list_keys(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let keys = state.auth.list_api_keys(&caller.user).await?;
    let views: Vec<ApiKeyView> = keys.iter().map(ApiKeyView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// Creates a key acting as the caller. The full key is shown in this answer only.
#[utoipa::path(post, path = "/api/keys", operation_id = "create_api_key", tag = "api keys",
    security(("bearer" = [])),
    request_body = CreateKeyRequest,
    responses(
        (status = 200, description = "The new key, with the full key this once", body = CreatedApiKeyView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn create_key(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<CreateKeyRequest>,
) -> ApiResult<HttpResponse> {
    let request = body.value;
    let created = state
        .auth
        .create_api_key(&caller.user, &request.name, request.expires_in_days)
        .await?;
    Ok(HttpResponse::Ok().json(CreatedApiKeyView {
        info: ApiKeyView::from(&created.key),
        key: created.secret,
    }))
}

/// Revokes one of the caller's keys; it answers 401 from then on.
#[utoipa::path(delete, path = "/api/keys/{id}", operation_id = "revoke_api_key", tag = "api keys",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The key's id")),
    responses(
        (status = 200, description = "Revoked", body = ErrorBody, example = json!({"detail": "API key revoked"})),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such key of the caller's", body = ErrorBody),
        (status = 422, description = "The id is not a whole number", body = ValidationErrorBody)))]
pub async fn revoke_key(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    state
        .auth
        .revoke_api_key(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "detail": "API key revoked" })))
}
