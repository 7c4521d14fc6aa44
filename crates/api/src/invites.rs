//! Team invites: created by owners and team admins, read and accepted by whoever holds the link.
use actix_web::web::{self, Json};
use apistos::api_operation;
use serde::{Deserialize, Serialize};
use validator::{Validate, ValidationError};

use leadhub_domain::team::{Role, GRANTABLE_ROLES};
use leadhub_http::extract::rules::one_of_text;
use leadhub_http::extract::{json_type, Call, Lax, PathText, RequestBody, ValidatedJson};
use leadhub_http::refusals::{Answer, ClashingBody, Guarded, InviteAccepted, InviteLink};
use leadhub_http::schemas::Detail;
use leadhub_http::state::AppState;

use crate::team_views::{InviteInfoView, InviteView};
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/teams/{id}/invites" => create_invite,
        GET "/api/teams/{id}/invites" => list_invites,
        DELETE "/api/teams/{id}/invites/{invite_id}" => revoke_invite,
        GET "/api/invites/{token}" => invite_info,
        POST "/api/invites/{token}/accept" => accept_invite,
    }
}

/// `POST /api/teams/{id}/invites`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct InviteRequest {
    /// e.g. "sam@example.com"
    #[validate(custom(function = "json_type"), required, length(min = 3, max = 320))]
    pub email: Lax<String>,
    /// admin or member (default member).
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "grantable_role")
    )]
    pub role: Lax<String>,
}

fn grantable_role(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of_text(field, &GRANTABLE_ROLES)
}

impl RequestBody for InviteRequest {}

/// `POST /api/invites/{token}/accept`: someone who already has an account needs to send
/// nothing.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct AcceptRequest {
    /// Required (1..=100) when the invite's address has no account yet.
    #[validate(custom(function = "json_type"), length(max = 100))]
    pub first_name: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 100))]
    pub last_name: Lax<String>,
}

impl RequestBody for AcceptRequest {
    const EMPTY_IS_OBJECT: bool = true;
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct AcceptedView {
    pub success: bool,
    pub team_id: i64,
    pub team_name: String,
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

/// Invites someone by e-mail (owner or team admin); the link goes to the invitee's mailbox only.
/// The answer's `email_sent` says whether it went out.
#[api_operation(operation_id = "create_invite", tag = "invites")]
pub async fn create_invite(
    team: Call<i64>,
    body: ValidatedJson<InviteRequest>,
) -> Answer<Json<InviteView>, ClashingBody> {
    let b = body.value;
    let role = b.role.text().and_then(Role::parse).unwrap_or(Role::Member);
    let teams = &team.state.teams;
    let created = teams
        .invite(
            team.user(),
            team.path,
            b.email.text().unwrap_or_default(),
            role,
        )
        .await?;
    Ok(Json(InviteView::new(
        &created.invite,
        Some(created.email_sent),
    )))
}

/// Pending invites (not used, revoked or expired).
#[api_operation(operation_id = "list_invites", tag = "invites")]
pub async fn list_invites(team: Call<i64>) -> Answer<Json<Vec<InviteView>>, Guarded> {
    let invites = team.state.teams.invites(team.user(), team.path).await?;
    Ok(Json(
        invites.iter().map(|i| InviteView::new(i, None)).collect(),
    ))
}

/// Revokes a pending invite; its link answers 410 from then on.
#[api_operation(operation_id = "revoke_invite", tag = "invites")]
pub async fn revoke_invite(invite: Call<(i64, i64)>) -> Answer<Json<Detail>, Guarded> {
    let (team_id, invite_id) = invite.path;
    let teams = &invite.state.teams;
    teams
        .revoke_invite(invite.user(), team_id, invite_id)
        .await?;
    Ok(Json(Detail::new("Invite revoked")))
}

/// Public: what an invite link offers. Reading never spends it.
#[api_operation(operation_id = "get_invite", tag = "invites")]
pub async fn invite_info(
    state: web::Data<AppState>,
    token: PathText,
) -> Answer<Json<InviteInfoView>, InviteLink> {
    let details = state.teams.invite_info(&token.0).await?;
    Ok(Json(InviteInfoView::from(&details)))
}

/// Public: accepts an invite, creating the account when needed, and signs the person in.
#[api_operation(operation_id = "accept_invite", tag = "invites")]
pub async fn accept_invite(
    state: web::Data<AppState>,
    token: PathText,
    body: ValidatedJson<AcceptRequest>,
) -> Answer<Json<AcceptedView>, InviteAccepted> {
    let b = body.value;
    let accepted = state
        .teams
        .accept(&token.0, b.first_name.text(), b.last_name.text())
        .await?;
    Ok(Json(AcceptedView {
        success: true,
        team_id: accepted.team_id,
        team_name: accepted.team_name,
        access_token: accepted.session.access_token,
        refresh_token: accepted.session.refresh_token,
        expires_in: accepted.session.expires_in,
    }))
}
