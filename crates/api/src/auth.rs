//! Sign-in by magic link, token refresh, sign-out, and who am I.
use actix_web::web::{self, Json};
use apistos::api_operation;
use serde::{Deserialize, Serialize};
use validator::Validate;

use leadhub_domain::session::Session;
use leadhub_http::extract::{json_type, Call, Caller, Lax, RequestBody, ValidatedJson};
use leadhub_http::refusals::{Anonymous, Answer, Created, Signed, SpentLink};
use leadhub_http::schemas::{Detail, JsonWithStatus};
use leadhub_http::state::AppState;

use crate::team_views::UserView;
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/auth/magic-link" => magic_link,
        POST "/api/auth/verify" => verify,
        POST "/api/auth/refresh" => refresh,
        POST "/api/auth/logout" => logout,
        GET "/api/auth/me" => me,
    }
}

#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct MagicLinkRequest {
    /// e.g. "ada@example.com"
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 320))]
    pub email: Lax<String>,
}

impl RequestBody for MagicLinkRequest {}

#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TokenRequest {
    /// The token from the sign-in link.
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 200))]
    pub token: Lax<String>,
}

impl RequestBody for TokenRequest {}

#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct RefreshRequest {
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 200))]
    pub refresh_token: Lax<String>,
}

impl RequestBody for RefreshRequest {}

/// A session: use `access_token` as a Bearer credential for `expires_in` seconds, then refresh.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct SessionView {
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// Always "bearer".
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

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct SignedIn {
    #[serde(flatten)]
    pub session: SessionView,
    pub user: UserView,
}

/// E-mails a sign-in link to a known address. Always 202, in the same time whatever the address
/// (the link is sent after the answer), so addresses cannot be probed.
#[api_operation(operation_id = "request_magic_link", tag = "auth")]
pub async fn magic_link(
    state: web::Data<AppState>,
    body: ValidatedJson<MagicLinkRequest>,
) -> Answer<JsonWithStatus<Detail, 202>, Anonymous> {
    state
        .sign_in_links
        .request(body.value.email.text().unwrap_or_default(), None);
    Ok(JsonWithStatus(Detail::new("Check your e-mail")))
}

/// Spends a sign-in link's token and starts a session.
#[api_operation(operation_id = "verify_magic_link", tag = "auth")]
pub async fn verify(
    state: web::Data<AppState>,
    body: ValidatedJson<TokenRequest>,
) -> Answer<Json<SignedIn>, SpentLink> {
    let (user, session) = state
        .auth
        .identity()
        .verify_sign_in_link(body.value.token.text().unwrap_or_default())
        .await?;
    Ok(Json(SignedIn {
        session: session.into(),
        user: UserView::from(&user),
    }))
}

/// Exchanges a refresh token for a new pair; the old one is retired.
/// Presenting a retired refresh token revokes its whole session.
#[api_operation(operation_id = "refresh_session", tag = "auth")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: ValidatedJson<RefreshRequest>,
) -> Answer<Json<SessionView>, Created> {
    let session = state
        .auth
        .refresh(body.value.refresh_token.text().unwrap_or_default())
        .await?;
    Ok(Json(SessionView::from(session)))
}

/// Revokes the presented access token and its whole session (an API key has no session).
#[api_operation(operation_id = "logout", tag = "auth")]
pub async fn logout(call: Call) -> Answer<Json<Detail>, Signed> {
    call.state.auth.logout(&call.caller).await?;
    Ok(Json(Detail::new("Signed out")))
}

/// The caller's user.
#[api_operation(operation_id = "me", tag = "auth")]
pub async fn me(caller: Caller) -> Answer<Json<UserView>, Signed> {
    Ok(Json(UserView::from(&caller.user)))
}
