//! Sign-in by magic link, token refresh, sign-out, and who am I.
use actix_web::{web, HttpResponse};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::session::Session;

use crate::app::AppState;
use crate::error::ApiResult;
use crate::extract::{Caller, Fields, FromBody, ValidatedJson};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::routes::team_views::UserView;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/auth/magic-link", web::post().to(magic_link))
        .route("/api/auth/verify", web::post().to(verify))
        .route("/api/auth/refresh", web::post().to(refresh))
        .route("/api/auth/logout", web::post().to(logout))
        .route("/api/auth/me", web::get().to(me));
}

fn one_string(value: &Value, name: &str, max: usize) -> Result<String, Vec<FieldError>> {
    let mut problems = Vec::new();
    let fields = Fields::of(value, vec![LocPart::from("body")], &mut problems)
        .ok_or_else(|| problems.clone())?;
    match fields.string(name, 1, max, &mut problems) {
        Some(v) if problems.is_empty() => Ok(v),
        _ => Err(problems),
    }
}

#[derive(ToSchema)]
pub struct MagicLinkRequest {
    #[schema(example = "ada@example.com")]
    pub email: String,
}

impl FromBody for MagicLinkRequest {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        one_string(value, "email", 320).map(|email| MagicLinkRequest { email })
    }
}

#[derive(ToSchema)]
pub struct TokenRequest {
    /// The token from the sign-in link.
    pub token: String,
}

impl FromBody for TokenRequest {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        one_string(value, "token", 200).map(|token| TokenRequest { token })
    }
}

#[derive(ToSchema)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

impl FromBody for RefreshRequest {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        one_string(value, "refresh_token", 200)
            .map(|refresh_token| RefreshRequest { refresh_token })
    }
}

/// A session: use `access_token` as a Bearer credential for `expires_in` seconds, then refresh.
#[derive(Serialize, ToSchema)]
pub struct SessionView {
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds until the access token expires.
    #[schema(example = 3600)]
    pub expires_in: i64,
    #[schema(example = "bearer")]
    pub token_type: String,
}

impl From<Session> for SessionView {
    fn from(s: Session) -> Self {
        SessionView {
            access_token: s.access_token,
            refresh_token: s.refresh_token,
            expires_in: s.expires_in,
            token_type: "bearer".into(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SignedIn {
    #[serde(flatten)]
    #[schema(inline)]
    pub session: SessionView,
    pub user: UserView,
}

/// E-mails a sign-in link to a known address. Always 202, so addresses cannot be probed.
#[utoipa::path(post, path = "/api/auth/magic-link", operation_id = "request_magic_link", tag = "auth",
    request_body = MagicLinkRequest,
    responses(
        (status = 202, description = "Check your e-mail", body = ErrorBody, example = json!({"detail": "Check your e-mail"})),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn magic_link(
    state: web::Data<AppState>,
    body: ValidatedJson<MagicLinkRequest>,
) -> ApiResult<HttpResponse> {
    state
        .auth
        .identity()
        .send_sign_in_link(&body.value.email)
        .await?;
    Ok(HttpResponse::Accepted().json(json!({ "detail": "Check your e-mail" })))
}

/// Spends a sign-in link's token and starts a session.
#[utoipa::path(post, path = "/api/auth/verify", operation_id = "verify_magic_link", tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "Signed in", body = SignedIn),
        (status = 410, description = "The link was already used or has expired", body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn verify(
    state: web::Data<AppState>,
    body: ValidatedJson<TokenRequest>,
) -> ApiResult<HttpResponse> {
    let (user, session) = state
        .auth
        .identity()
        .verify_sign_in_link(&body.value.token)
        .await?;
    Ok(HttpResponse::Ok().json(SignedIn {
        session: session.into(),
        user: UserView::from(&user),
    }))
}

/// Exchanges a refresh token for a new pair; the old one is retired. Presenting a retired
/// refresh token revokes its whole session.
#[utoipa::path(post, path = "/api/auth/refresh", operation_id = "refresh_session", tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new access and refresh token", body = SessionView),
        (status = 401, description = "Unknown, retired, revoked or expired refresh token", body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn refresh(
    state: web::Data<AppState>,
    body: ValidatedJson<RefreshRequest>,
) -> ApiResult<HttpResponse> {
    let session = state.auth.refresh(&body.value.refresh_token).await?;
    Ok(HttpResponse::Ok().json(SessionView::from(session)))
}

/// Revokes the presented access token and its whole session (an API key has no session).
#[utoipa::path(post, path = "/api/auth/logout", operation_id = "logout", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Signed out", body = ErrorBody, example = json!({"detail": "Signed out"})),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody)))]
pub async fn logout(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    state.auth.logout(&caller).await?;
    Ok(HttpResponse::Ok().json(json!({ "detail": "Signed out" })))
}

/// The caller's user.
#[utoipa::path(get, path = "/api/auth/me", operation_id = "me", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = UserView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody)))]
pub async fn me(caller: Caller) -> HttpResponse {
    HttpResponse::Ok().json(UserView::from(&caller.user))
}
