//! API key management: the `/api-keys` page uses these, and so can programs.
use actix_web::web::Json;
use apistos::api_operation;
use serde::{Deserialize, Serialize};
use validator::Validate;

use leadhub_domain::api_key::ApiKey;
use leadhub_http::extract::{json_type, Call, Lax, RequestBody, ValidatedJson};
use leadhub_http::refusals::{Answer, Created, Seen, Signed};
use leadhub_http::schemas::Detail;
use leadhub_http::time::iso;

use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        GET "/api/keys" => list_keys,
        POST "/api/keys" => create_key,
        DELETE "/api/keys/{id}" => revoke_key,
    }
}

/// An API key as listed: never the key itself, only its first 12 characters.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct ApiKeyView {
    pub id: i64,
    pub name: String,
    /// The key's first 12 characters, e.g. "lhk_Xy3kP9qR".
    pub prefix: String,
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
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct CreatedApiKeyView {
    #[serde(flatten)]
    pub info: ApiKeyView,
    /// The full key. Store it now: it cannot be shown again.
    pub key: String,
}

/// `POST /api/keys`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct CreateKeyRequest {
    /// A name to recognise the key by, e.g. "permit scraper".
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 100))]
    pub name: Lax<String>,
    /// Days until the key stops working; absent means it never expires.
    #[validate(custom(function = "json_type"), range(min = 1, max = 3650))]
    pub expires_in_days: Lax<i64>,
}

impl RequestBody for CreateKeyRequest {}

/// The caller's API keys, newest first (revoked ones included, marked by `revoked_at`).
#[api_operation(operation_id = "list_api_keys", tag = "api keys")]
pub async fn list_keys(call: Call) -> Answer<Json<Vec<ApiKeyView>>, Signed> {
    let keys = call.state.auth.list_api_keys(call.user()).await?;
    Ok(Json(keys.iter().map(ApiKeyView::from).collect()))
}

/// Creates a key acting as the caller. The full key is shown in this answer only.
#[api_operation(operation_id = "create_api_key", tag = "api keys")]
pub async fn create_key(
    call: Call,
    body: ValidatedJson<CreateKeyRequest>,
) -> Answer<Json<CreatedApiKeyView>, Created> {
    let request = body.value;
    let name = request.name.text().unwrap_or_default();
    let created = call
        .state
        .auth
        .create_api_key(call.user(), name, request.expires_in_days.value().copied())
        .await?;
    Ok(Json(CreatedApiKeyView {
        info: ApiKeyView::from(&created.key),
        key: created.secret,
    }))
}

/// Revokes one of the caller's keys; it answers 401 from then on.
#[api_operation(operation_id = "revoke_api_key", tag = "api keys")]
pub async fn revoke_key(key: Call<i64>) -> Answer<Json<Detail>, Seen> {
    key.state.auth.revoke_api_key(key.user(), key.path).await?;
    Ok(Json(Detail::new("API key revoked")))
}
