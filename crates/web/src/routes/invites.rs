//! Team invites: created by owners and team admins, read and accepted by whoever holds the link.
use actix_web::{web, HttpResponse};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::team::{Role, GRANTABLE_ROLES};

use crate::app::AppState;
use crate::error::ApiResult;
use crate::extract::{Caller, Fields, FromBody, ValidatedJson};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::routes::team_views::{InviteInfoView, InviteView};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/teams/{id}/invites", web::post().to(create_invite))
        .route("/api/teams/{id}/invites", web::get().to(list_invites))
        .route(
            "/api/teams/{id}/invites/{invite_id}",
            web::delete().to(revoke_invite),
        )
        .route("/api/invites/{token}", web::get().to(invite_info))
        .route("/api/invites/{token}/accept", web::post().to(accept_invite));
}

#[derive(ToSchema)]
pub struct InviteRequest {
    #[schema(example = "sam@example.com")]
    pub email: String,
    /// admin or member (default member).
    #[schema(example = "member")]
    pub role: Option<String>,
}

pub struct NewInviteBody {
    email: String,
    role: Role,
}

impl FromBody for NewInviteBody {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        let email = f.string("email", 3, 320, &mut p);
        let role = f
            .opt_enum("role", &GRANTABLE_ROLES, &mut p)
            .and_then(Role::parse)
            .unwrap_or(Role::Member);
        match email {
            Some(email) if p.is_empty() => Ok(NewInviteBody { email, role }),
            _ => Err(p),
        }
    }
}

#[derive(ToSchema)]
pub struct AcceptRequest {
    /// Required (1..=100) when the invite's address has no account yet.
    pub first_name: Option<String>,
    pub last_name: Option<String>,
}

pub struct AcceptBody {
    first_name: Option<String>,
    last_name: Option<String>,
}

impl FromBody for AcceptBody {
    /// Someone who already has an account needs to send nothing.
    fn empty_is_object() -> bool {
        true
    }

    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        let first_name = f.opt_string("first_name", 100, &mut p);
        let last_name = f.opt_string("last_name", 100, &mut p);
        if p.is_empty() {
            Ok(AcceptBody {
                first_name,
                last_name,
            })
        } else {
            Err(p)
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AcceptedView {
    pub success: bool,
    pub team_id: i64,
    pub team_name: String,
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

const UNAUTH: &str = "Missing, invalid or expired credential";

/// Invites someone by e-mail (owner or team admin); the answer carries the link too.
#[utoipa::path(post, path = "/api/teams/{id}/invites", operation_id = "create_invite", tag = "invites", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")), request_body = InviteRequest,
    responses((status = 200, description = "The invite, with its link", body = InviteView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not the owner or a team admin, or the team is inactive", body = ErrorBody),
        (status = 404, description = "No such team the caller may see", body = ErrorBody),
        (status = 409, description = "Already a member", body = ErrorBody), (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn create_invite(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<NewInviteBody>,
) -> ApiResult<HttpResponse> {
    let b = body.value;
    let created = state
        .teams
        .invite(&caller.user, id.into_inner(), &b.email, b.role)
        .await?;
    Ok(HttpResponse::Ok().json(InviteView::new(&created.invite, Some(created.invite_url))))
}

/// Pending invites (not used, revoked or expired).
#[utoipa::path(get, path = "/api/teams/{id}/invites", operation_id = "list_invites", tag = "invites", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")),
    responses((status = 200, description = "Pending invites", body = Vec<InviteView>), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not the owner or a team admin", body = ErrorBody), (status = 404, description = "No such team the caller may see", body = ErrorBody),
        (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn list_invites(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let invites = state.teams.invites(&caller.user, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(
        invites
            .iter()
            .map(|i| InviteView::new(i, None))
            .collect::<Vec<_>>(),
    ))
}

/// Revokes a pending invite; its link answers 410 from then on.
#[utoipa::path(delete, path = "/api/teams/{id}/invites/{invite_id}", operation_id = "revoke_invite", tag = "invites", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id"), ("invite_id" = i64, Path, description = "Invite id")),
    responses((status = 200, description = "Revoked", body = ErrorBody, example = json!({"detail": "Invite revoked"})), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not the owner or a team admin", body = ErrorBody), (status = 404, description = "No such team or pending invite", body = ErrorBody),
        (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn revoke_invite(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (team_id, invite_id) = path.into_inner();
    state
        .teams
        .revoke_invite(&caller.user, team_id, invite_id)
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "detail": "Invite revoked" })))
}

/// Public: what an invite link offers. Reading never spends it.
#[utoipa::path(get, path = "/api/invites/{token}", operation_id = "get_invite", tag = "invites",
    params(("token" = String, Path, description = "The invite token from the link")),
    responses((status = 200, description = "The invite", body = InviteInfoView), (status = 404, description = "Unknown token", body = ErrorBody),
        (status = 410, description = "Used, revoked or expired", body = ErrorBody)))]
pub async fn invite_info(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let details = state.teams.invite_info(&token).await?;
    Ok(HttpResponse::Ok().json(InviteInfoView::from(&details)))
}

/// Public: accepts an invite, creating the account when needed, and signs the person in.
#[utoipa::path(post, path = "/api/invites/{token}/accept", operation_id = "accept_invite", tag = "invites",
    params(("token" = String, Path, description = "The invite token from the link")), request_body = AcceptRequest,
    responses((status = 200, description = "Joined, with a session", body = AcceptedView), (status = 403, description = "The team is inactive", body = ErrorBody),
        (status = 404, description = "Unknown token", body = ErrorBody), (status = 410, description = "Used, revoked or expired", body = ErrorBody),
        (status = 422, description = "Names required for a new account", body = ValidationErrorBody)))]
pub async fn accept_invite(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: ValidatedJson<AcceptBody>,
) -> ApiResult<HttpResponse> {
    let b = body.value;
    let accepted = state
        .teams
        .accept(&token, b.first_name.as_deref(), b.last_name.as_deref())
        .await?;
    Ok(HttpResponse::Ok().json(AcceptedView {
        success: true,
        team_id: accepted.team_id,
        team_name: accepted.team_name,
        access_token: accepted.session.access_token,
        refresh_token: accepted.session.refresh_token,
        expires_in: accepted.session.expires_in,
    }))
}
