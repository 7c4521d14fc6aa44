//! Teams and their members.
use actix_web::{web, HttpResponse};
use serde_json::{json, Value};
use utoipa::ToSchema;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::team::{Role, GRANTABLE_ROLES};

use crate::app::AppState;
use crate::error::ApiResult;
use crate::extract::{Caller, Fields, FromBody, ValidatedJson};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::routes::team_views::{MemberView, MembershipView, TeamView};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/teams/me/memberships", web::get().to(my_memberships))
        .route("/api/teams", web::get().to(list_teams))
        .route("/api/teams", web::post().to(create_team))
        .route("/api/teams/{id}", web::get().to(get_team))
        .route("/api/teams/{id}", web::patch().to(update_team))
        .route("/api/teams/{id}", web::delete().to(deactivate_team))
        .route("/api/teams/{id}/members", web::get().to(list_members))
        .route(
            "/api/teams/{id}/members/{user_id}",
            web::patch().to(change_role),
        )
        .route(
            "/api/teams/{id}/members/{user_id}",
            web::delete().to(remove_member),
        );
}

#[derive(ToSchema)]
pub struct CreateTeamRequest {
    #[schema(min_length = 1, max_length = 100, example = "Austin roofing")]
    pub name: String,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
}

impl FromBody for CreateTeamRequest {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        let name = f.string("name", 1, 100, &mut p);
        let description = f.opt_string("description", 1000, &mut p);
        match name {
            Some(name) if p.is_empty() => Ok(CreateTeamRequest { name, description }),
            _ => Err(p),
        }
    }
}

/// Absent fields stay as they are; `"description": null` clears it.
#[derive(ToSchema)]
pub struct UpdateTeamRequest {
    #[schema(min_length = 1, max_length = 100)]
    pub name: Option<String>,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
}

pub struct TeamChanges {
    name: Option<String>,
    description: Option<Option<String>>,
}

impl FromBody for TeamChanges {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        let name = if f.raw("name").is_some() {
            f.string("name", 1, 100, &mut p)
        } else {
            None
        };
        let description = if f.has("description") {
            Some(f.opt_string("description", 1000, &mut p))
        } else {
            None
        };
        if p.is_empty() {
            Ok(TeamChanges { name, description })
        } else {
            Err(p)
        }
    }
}

#[derive(ToSchema)]
pub struct RoleRequest {
    /// admin or member.
    #[schema(example = "admin")]
    pub role: String,
}

pub struct RoleChange(Role);

impl FromBody for RoleChange {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        match f
            .opt_enum("role", &GRANTABLE_ROLES, &mut p)
            .and_then(Role::parse)
        {
            Some(role) if p.is_empty() => Ok(RoleChange(role)),
            _ => {
                // Absent, null and blank all mean no role was given.
                if p.is_empty() {
                    p.push(FieldError::new(f.loc("role"), "missing", "Field required"));
                }
                Err(p)
            }
        }
    }
}

const UNAUTH: &str = "Missing, invalid or expired credential";

/// The caller's teams (platform admins: every team).
#[utoipa::path(get, path = "/api/teams", operation_id = "list_teams", tag = "teams", security(("bearer" = [])),
    responses((status = 200, description = "Teams", body = Vec<TeamView>), (status = 401, description = UNAUTH, body = ErrorBody)))]
pub async fn list_teams(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let teams = state.teams.list(&caller.user).await?;
    Ok(HttpResponse::Ok().json(teams.iter().map(TeamView::from).collect::<Vec<_>>()))
}

/// Creates a team; the caller becomes its owner.
#[utoipa::path(post, path = "/api/teams", operation_id = "create_team", tag = "teams", security(("bearer" = [])),
    request_body = CreateTeamRequest,
    responses((status = 200, description = "The new team", body = TeamView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn create_team(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<CreateTeamRequest>,
) -> ApiResult<HttpResponse> {
    let r = body.value;
    let team = state
        .teams
        .create(&caller.user, &r.name, r.description.as_deref())
        .await?;
    Ok(HttpResponse::Ok().json(TeamView::from(&team)))
}

/// A team the caller belongs to (platform admins: any).
#[utoipa::path(get, path = "/api/teams/{id}", operation_id = "get_team", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")),
    responses((status = 200, description = "The team", body = TeamView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 404, description = "No such team the caller may see", body = ErrorBody), (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn get_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let team = state.teams.get(&caller.user, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(TeamView::from(&team)))
}

/// Renames or re-describes a team: its owner or a team admin.
#[utoipa::path(patch, path = "/api/teams/{id}", operation_id = "update_team", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")), request_body = UpdateTeamRequest,
    responses((status = 200, description = "The team", body = TeamView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not the owner or a team admin", body = ErrorBody), (status = 404, description = "No such team the caller may see", body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn update_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<TeamChanges>,
) -> ApiResult<HttpResponse> {
    let c = body.value;
    let team = state
        .teams
        .update(
            &caller.user,
            id.into_inner(),
            c.name.as_deref(),
            c.description.as_ref().map(|d| d.as_deref()),
        )
        .await?;
    Ok(HttpResponse::Ok().json(TeamView::from(&team)))
}

/// Deactivates a team (its owner or a platform admin); nothing is deleted.
#[utoipa::path(delete, path = "/api/teams/{id}", operation_id = "deactivate_team", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")),
    responses((status = 200, description = "The team, now inactive", body = TeamView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not the owner", body = ErrorBody), (status = 404, description = "No such team the caller may see", body = ErrorBody),
        (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn deactivate_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let team = state
        .teams
        .deactivate(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(TeamView::from(&team)))
}

/// The team's members.
#[utoipa::path(get, path = "/api/teams/{id}/members", operation_id = "list_members", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id")),
    responses((status = 200, description = "Members", body = Vec<MemberView>), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 404, description = "No such team the caller may see", body = ErrorBody), (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn list_members(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let members = state.teams.members(&caller.user, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(members.iter().map(MemberView::from).collect::<Vec<_>>()))
}

/// Changes a member's role (owner or team admin); the owner's role cannot change.
#[utoipa::path(patch, path = "/api/teams/{id}/members/{user_id}", operation_id = "change_member_role", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id"), ("user_id" = String, Path, description = "The member's user_id")), request_body = RoleRequest,
    responses((status = 200, description = "The member", body = MemberView), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not allowed, or the owner's role", body = ErrorBody), (status = 404, description = "No such team or member", body = ErrorBody),
        (status = 422, description = "Validation failure", body = ValidationErrorBody)))]
pub async fn change_role(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, String)>,
    body: ValidatedJson<RoleChange>,
) -> ApiResult<HttpResponse> {
    let (team_id, user_id) = path.into_inner();
    let member = state
        .teams
        .change_role(&caller.user, team_id, &user_id, body.value.0)
        .await?;
    Ok(HttpResponse::Ok().json(MemberView::from(&member)))
}

/// Removes a member (owner or team admin), or the caller leaving; the owner cannot be removed.
#[utoipa::path(delete, path = "/api/teams/{id}/members/{user_id}", operation_id = "remove_member", tag = "teams", security(("bearer" = [])),
    params(("id" = i64, Path, description = "Team id"), ("user_id" = String, Path, description = "The member's user_id")),
    responses((status = 200, description = "Removed", body = ErrorBody, example = json!({"detail": "Member removed"})), (status = 401, description = UNAUTH, body = ErrorBody),
        (status = 403, description = "Not allowed, or the owner", body = ErrorBody), (status = 404, description = "No such team or member", body = ErrorBody),
        (status = 422, description = "Bad id", body = ValidationErrorBody)))]
pub async fn remove_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, String)>,
) -> ApiResult<HttpResponse> {
    let (team_id, user_id) = path.into_inner();
    state
        .teams
        .remove_member(&caller.user, team_id, &user_id)
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "detail": "Member removed" })))
}

/// The caller's memberships with their roles.
#[utoipa::path(get, path = "/api/teams/me/memberships", operation_id = "my_memberships", tag = "teams", security(("bearer" = [])),
    responses((status = 200, description = "Memberships", body = Vec<MembershipView>), (status = 401, description = UNAUTH, body = ErrorBody)))]
pub async fn my_memberships(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let list = state.teams.memberships(&caller.user).await?;
    Ok(HttpResponse::Ok().json(list.iter().map(MembershipView::from).collect::<Vec<_>>()))
}
