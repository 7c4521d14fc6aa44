//! Teams and their members.
use actix_web::http::Method;
use actix_web::web::{self, Json};
use apistos::api_operation;
use serde::Deserialize;
use validator::{Validate, ValidationError};

use leadhub_domain::team::{Role, GRANTABLE_ROLES};
use leadhub_http::error::ApiResult;
use leadhub_http::extract::rules::one_of_text;
use leadhub_http::extract::{json_type, Caller, Lax, RequestBody, ValidatedJson};
use leadhub_http::schemas::Detail;
use leadhub_http::state::AppState;

use crate::team_views::{MemberView, MembershipView, TeamView};
use crate::Api;

pub fn routes(api: &mut Api) {
    api.route(Method::GET, "/api/teams/me/memberships", my_memberships)
        .route(Method::GET, "/api/teams", list_teams)
        .route(Method::POST, "/api/teams", create_team)
        .route(Method::GET, "/api/teams/{id}", get_team)
        .route(Method::PATCH, "/api/teams/{id}", update_team)
        .route(Method::DELETE, "/api/teams/{id}", deactivate_team)
        .route(Method::GET, "/api/teams/{id}/members", list_members)
        .route(
            Method::PATCH,
            "/api/teams/{id}/members/{user_id}",
            change_role,
        )
        .route(
            Method::DELETE,
            "/api/teams/{id}/members/{user_id}",
            remove_member,
        );
}

/// `POST /api/teams`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct CreateTeamRequest {
    /// e.g. "Austin roofing"
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 100))]
    pub name: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 1000))]
    pub description: Lax<String>,
}

impl RequestBody for CreateTeamRequest {}

/// `PATCH /api/teams/{id}`: absent fields stay as they are; `"description": null` clears it.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct UpdateTeamRequest {
    #[validate(custom(function = "json_type"), length(min = 1, max = 100))]
    pub name: Lax<String>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 1000))]
    pub description: Lax<String>,
}

impl RequestBody for UpdateTeamRequest {}

/// `PATCH /api/teams/{id}/members/{user_id}`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct RoleRequest {
    /// admin or member.
    #[validate(
        custom(function = "json_type"),
        required,
        length(max = 255),
        custom(function = "grantable_role")
    )]
    pub role: Lax<String>,
}

impl RequestBody for RoleRequest {}

/// A role that can be given (blank counts as no role given).
fn grantable_role(field: &Lax<String>) -> Result<(), ValidationError> {
    match field {
        Lax::Given(text) if text.is_empty() => Err(ValidationError::new("missing")
            .with_message(std::borrow::Cow::Borrowed("Field required"))),
        _ => one_of_text(field, &GRANTABLE_ROLES),
    }
}

/// The caller's teams (platform admins: every team).
#[api_operation(
    operation_id = "list_teams",
    tag = "teams",
    error_code = 401,
    error_code = 429
)]
pub async fn list_teams(
    state: web::Data<AppState>,
    caller: Caller,
) -> ApiResult<Json<Vec<TeamView>>> {
    let teams = state.teams.list(&caller.user).await?;
    Ok(Json(teams.iter().map(TeamView::from).collect()))
}

/// Creates a team; the caller becomes its owner.
#[api_operation(
    operation_id = "create_team",
    tag = "teams",
    error_code = 401,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn create_team(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<CreateTeamRequest>,
) -> ApiResult<Json<TeamView>> {
    let r = body.value;
    let team = state
        .teams
        .create(
            &caller.user,
            r.name.text().unwrap_or_default(),
            r.description.text(),
        )
        .await?;
    Ok(Json(TeamView::from(&team)))
}

/// A team the caller belongs to (platform admins: any).
#[api_operation(
    operation_id = "get_team",
    tag = "teams",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn get_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Json<TeamView>> {
    let team = state.teams.get(&caller.user, id.into_inner()).await?;
    Ok(Json(TeamView::from(&team)))
}

/// Renames or re-describes a team: its owner or a team admin.
#[api_operation(
    operation_id = "update_team",
    tag = "teams",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn update_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<UpdateTeamRequest>,
) -> ApiResult<Json<TeamView>> {
    let c = body.value;
    let description = c.description.is_sent().then(|| c.description.text());
    let team = state
        .teams
        .update(&caller.user, id.into_inner(), c.name.text(), description)
        .await?;
    Ok(Json(TeamView::from(&team)))
}

/// Deactivates a team (its owner or a platform admin); nothing is deleted.
#[api_operation(
    operation_id = "deactivate_team",
    tag = "teams",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn deactivate_team(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Json<TeamView>> {
    let team = state
        .teams
        .deactivate(&caller.user, id.into_inner())
        .await?;
    Ok(Json(TeamView::from(&team)))
}

/// The team's members.
#[api_operation(
    operation_id = "list_members",
    tag = "teams",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn list_members(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Json<Vec<MemberView>>> {
    let members = state.teams.members(&caller.user, id.into_inner()).await?;
    Ok(Json(members.iter().map(MemberView::from).collect()))
}

/// Changes a member's role (owner or team admin); the owner's role cannot change.
#[api_operation(
    operation_id = "change_member_role",
    tag = "teams",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 413,
    error_code = 422,
    error_code = 429
)]
pub async fn change_role(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, String)>,
    body: ValidatedJson<RoleRequest>,
) -> ApiResult<Json<MemberView>> {
    let (team_id, user_id) = path.into_inner();
    let role = body
        .value
        .role
        .text()
        .and_then(Role::parse)
        .unwrap_or(Role::Member);
    let member = state
        .teams
        .change_role(&caller.user, team_id, &user_id, role)
        .await?;
    Ok(Json(MemberView::from(&member)))
}

/// Removes a member (owner or team admin), or the caller leaving; the owner cannot be removed.
#[api_operation(
    operation_id = "remove_member",
    tag = "teams",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn remove_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, String)>,
) -> ApiResult<Json<Detail>> {
    let (team_id, user_id) = path.into_inner();
    state
        .teams
        .remove_member(&caller.user, team_id, &user_id)
        .await?;
    Ok(Json(Detail::new("Member removed")))
}

/// The caller's memberships with their roles.
#[api_operation(
    operation_id = "my_memberships",
    tag = "teams",
    error_code = 401,
    error_code = 429
)]
pub async fn my_memberships(
    state: web::Data<AppState>,
    caller: Caller,
) -> ApiResult<Json<Vec<MembershipView>>> {
    let list = state.teams.memberships(&caller.user).await?;
    Ok(Json(list.iter().map(MembershipView::from).collect()))
}
