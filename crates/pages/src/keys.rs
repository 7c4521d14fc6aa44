//! `/api-keys`: the caller's keys, a new key (its full value shown once), revocation after a
//! confirmation page.
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tera::Context;

use leadhub_domain::api_key::ApiKey;
use leadhub_domain::auth::{AuthError, MAX_KEY_LIFETIME_DAYS};
use leadhub_domain::clock::UtcOffset;

use crate::render::{found_in, problems_text, see_other, when, when_opt, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, id_of, Button, Done};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/api-keys" => list,
        POST "/api-keys" => create,
        GET "/api-keys/{id}/revoke" => confirm_revoke,
        POST "/api-keys/{id}/revoke" => revoke,
    }
}

#[derive(Serialize)]
struct KeyRow {
    id: i64,
    name: String,
    prefix: String,
    created: String,
    last_used: Option<String>,
    expires: Option<String>,
    revoked: Option<String>,
    expired: bool,
}

impl KeyRow {
    /// The key as it stands at `now`, its times on the person's clock (`offset`).
    fn new(k: &ApiKey, now: DateTime<Utc>, offset: UtcOffset) -> Self {
        KeyRow {
            id: k.id,
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            created: when(k.created_at, offset),
            last_used: when_opt(k.last_used_at, offset),
            expires: when_opt(k.expires_at, offset),
            revoked: when_opt(k.revoked_at, offset),
            expired: k.revoked_at.is_none() && !k.is_usable_at(now),
        }
    }
}

#[derive(Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    name: String,
    /// Empty: never expires.
    #[serde(default)]
    expires_in_days: String,
}

async fn list_page(
    visitor: &Visitor,
    status: StatusCode,
    notice: Option<&str>,
    error: Option<&str>,
) -> Result<HttpResponse, PageError> {
    let keys = visitor.state.auth.list_api_keys(&visitor.user).await?;
    let now = visitor.state.clock.now();
    let mut context = base_context(Some(visitor), "api-keys");
    context.insert(
        "keys",
        &keys
            .iter()
            .map(|k| KeyRow::new(k, now, visitor.offset))
            .collect::<Vec<_>>(),
    );
    context.insert("notice", &notice);
    context.insert("error", &error);
    context.insert("max_days", &MAX_KEY_LIFETIME_DAYS);
    visitor.page(status, "api_keys.html", &context)
}

/// The list again with the form's problem, as a 422.
async fn refused(visitor: &Visitor, problem: &str) -> Result<HttpResponse, PageError> {
    list_page(
        visitor,
        StatusCode::UNPROCESSABLE_ENTITY,
        None,
        Some(problem),
    )
    .await
}

pub async fn list(visitor: Visitor, done: web::Query<Done>) -> Result<HttpResponse, PageError> {
    list_page(&visitor, StatusCode::OK, done.notice(), None).await
}

/// POST /api-keys: makes a key and shows it, this once (the answer is not cached; no redirect,
/// so the key never appears in a URL).
pub async fn create(
    Posted { visitor, form }: Posted<CreateForm>,
) -> Result<HttpResponse, PageError> {
    let days = match form.expires_in_days.trim() {
        "" => None,
        d => match d.parse::<i64>() {
            Ok(d) => Some(d),
            Err(_) => {
                let msg = format!("Expires in: enter a number of days from 1 to {MAX_KEY_LIFETIME_DAYS}, or leave it empty.");
                return refused(&visitor, &msg).await;
            }
        },
    };
    let created = match visitor
        .state
        .auth
        .create_api_key(&visitor.user, &form.name, days)
        .await
    {
        Ok(created) => created,
        Err(AuthError::Invalid(problems)) => {
            return refused(&visitor, &problems_text(&problems)).await;
        }
        Err(e) => return Err(e.into()),
    };
    let mut context = base_context(Some(&visitor), "api-keys");
    context.insert(
        "key",
        &KeyRow::new(&created.key, visitor.state.clock.now(), visitor.offset),
    );
    context.insert("secret", &created.secret);
    visitor.page(StatusCode::OK, "api_key_created.html", &context)
}

async fn own_key(visitor: &Visitor, id: &str) -> Result<ApiKey, PageError> {
    let id = id_of(id, "API key")?;
    let keys = visitor.state.auth.list_api_keys(&visitor.user).await?;
    found_in(keys, |k| k.id == id, "API key")
}

/// GET /api-keys/{id}/revoke: asks before revoking (works without JavaScript).
pub async fn confirm_revoke(
    visitor: Visitor,
    id: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let key = own_key(&visitor, &id).await?;
    let mut context: Context = base_context(Some(&visitor), "api-keys");
    context.insert(
        "key",
        &KeyRow::new(&key, visitor.state.clock.now(), visitor.offset),
    );
    visitor.page(StatusCode::OK, "confirm.html", &context)
}

pub async fn revoke(
    id: web::Path<String>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let key = own_key(&visitor, &id).await?;
    match visitor
        .state
        .auth
        .revoke_api_key(&visitor.user, key.id)
        .await
    {
        // Revoking twice (a double click, a reload) is not an error worth a page.
        Ok(()) | Err(AuthError::NotFound(_)) => {
            Ok(visitor.finish(see_other("/api-keys?done=key-revoked")))
        }
        Err(e) => Err(e.into()),
    }
}
