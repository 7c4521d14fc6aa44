//! Teams and their members.
use actix_web::web::Json;
use apistos::api_operation;
use serde::Deserialize;
use validator::{Validate, ValidationError};

use leadhub_domain::team::{Role, GRANTABLE_ROLES};
use leadhub_http::extract::rules::one_of_text;
use leadhub_http::extract::{json_type, Call, Lax, RequestBody, ValidatedJson};
use leadhub_http::refusals::{Answer, Created, Guarded, GuardedBody, Seen, Signed};
use leadhub_http::schemas::Detail;

use crate::team_views::{MemberView, MembershipView, TeamView};
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        GET "/api/teams/me/memberships" => my_memberships,
        GET "/api/teams" => list_teams,
        POST "/api/teams" => create_team,
        GET "/api/teams/{id}" => get_team,
        PATCH "/api/teams/{id}" => update_team,
        DELETE "/api/teams/{id}" => deactivate_team,
        GET "/api/teams/{id}/members" => list_members,
        PATCH "/api/teams/{id}/members/{user_id}" => change_role,
        DELETE "/api/teams/{id}/members/{user_id}" => remove_member,
        PUT "/api/teams/{id}/members/{user_id}/new-leads" => set_takes_new_leads,
    }
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

impl RequestBody for UpdateTeamRequest {
    const REFUSES_UNKNOWN: bool = true;
}

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

impl RequestBody for RoleRequest {
    const REFUSES_UNKNOWN: bool = true;
}

/// `PUT /api/teams/{id}/members/{user_id}/new-leads`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct NewLeadsRequest {
    /// true: the member takes the team's new leads in turn; false: no longer.
    #[validate(custom(function = "json_type"), required)]
    pub takes_new_leads: Lax<bool>,
}

impl RequestBody for NewLeadsRequest {
    const REFUSES_UNKNOWN: bool = true;
}

/// A role that can be given (blank counts as no role given).
fn grantable_role(field: &Lax<String>) -> Result<(), ValidationError> {
    match field {
        Lax::Given(text) if text.is_empty() => Err(ValidationError::new("missing")
            .with_message(std::borrow::Cow::Borrowed("Field required"))),
        _ => one_of_text(field, &GRANTABLE_ROLES),
    }
}

/// The caller's teams (platform admins: every team).
#[api_operation(operation_id = "list_teams", tag = "teams")]
pub async fn list_teams(call: Call) -> Answer<Json<Vec<TeamView>>, Signed> {
    let teams = call.state.teams.list(call.user()).await?;
    Ok(Json(teams.iter().map(TeamView::from).collect()))
}

/// Creates a team; the caller becomes its owner.
#[api_operation(operation_id = "create_team", tag = "teams")]
pub async fn create_team(
    call: Call,
    body: ValidatedJson<CreateTeamRequest>,
) -> Answer<Json<TeamView>, Created> {
    let r = body.value;
    let team = call
        .state
        .teams
        .create(
            call.user(),
            r.name.text().unwrap_or_default(),
            r.description.text(),
        )
        .await?;
    Ok(Json(TeamView::from(&team)))
}

/// A team the caller belongs to (platform admins: any).
#[api_operation(operation_id = "get_team", tag = "teams")]
pub async fn get_team(team: Call<i64>) -> Answer<Json<TeamView>, Seen> {
    let found = team.state.teams.get(team.user(), team.path).await?;
    Ok(Json(TeamView::from(&found)))
}

/// Renames or re-describes a team: its owner or a team admin.
#[api_operation(operation_id = "update_team", tag = "teams")]
pub async fn update_team(
    team: Call<i64>,
    body: ValidatedJson<UpdateTeamRequest>,
) -> Answer<Json<TeamView>, GuardedBody> {
    let c = body.value;
    let description = c.description.is_sent().then(|| c.description.text());
    let teams = &team.state.teams;
    let updated = teams
        .update(team.user(), team.path, c.name.text(), description)
        .await?;
    Ok(Json(TeamView::from(&updated)))
}

/// Deactivates a team (its owner or a platform admin); nothing is deleted.
#[api_operation(operation_id = "deactivate_team", tag = "teams")]
pub async fn deactivate_team(team: Call<i64>) -> Answer<Json<TeamView>, Guarded> {
    let deactivated = team.state.teams.deactivate(team.user(), team.path).await?;
    Ok(Json(TeamView::from(&deactivated)))
}

/// The team's members.
#[api_operation(operation_id = "list_members", tag = "teams")]
pub async fn list_members(team: Call<i64>) -> Answer<Json<Vec<MemberView>>, Seen> {
    let members = team.state.teams.members(team.user(), team.path).await?;
    Ok(Json(members.iter().map(MemberView::from).collect()))
}

/// Changes a member's role (owner or team admin); the owner's role cannot change.
#[api_operation(operation_id = "change_member_role", tag = "teams")]
pub async fn change_role(
    member: Call<(i64, String)>,
    body: ValidatedJson<RoleRequest>,
) -> Answer<Json<MemberView>, GuardedBody> {
    let (team_id, user_id) = &member.path;
    let role = body
        .value
        .role
        .text()
        .and_then(Role::parse)
        .unwrap_or(Role::Member);
    let teams = &member.state.teams;
    let changed = teams
        .change_role(member.user(), *team_id, user_id, role)
        .await?;
    Ok(Json(MemberView::from(&changed)))
}

/// Removes a member (owner or team admin), or the caller leaving; the owner cannot be removed.
#[api_operation(operation_id = "remove_member", tag = "teams")]
pub async fn remove_member(member: Call<(i64, String)>) -> Answer<Json<Detail>, Guarded> {
    let (team_id, user_id) = &member.path;
    let teams = &member.state.teams;
    teams
        .remove_member(member.user(), *team_id, user_id)
        .await?;
    Ok(Json(Detail::new("Member removed")))
}

/// Puts a member in or out of the team's new leads in turn.
///
/// A lead the team's intake creates with no owner goes to the taker who has waited longest.
/// Owners and team admins choose; a member may take themself out (403 putting themself in); an
/// inactive member is refused (409).
#[api_operation(operation_id = "set_member_takes_new_leads", tag = "teams")]
pub async fn set_takes_new_leads(
    member: Call<(i64, String)>,
    body: ValidatedJson<NewLeadsRequest>,
) -> Answer<Json<MemberView>, GuardedBody> {
    let (team_id, user_id) = &member.path;
    let takes = body.value.takes_new_leads.value().copied().unwrap_or(false);
    let teams = &member.state.teams;
    let changed = teams
        .set_takes_new_leads(member.user(), *team_id, user_id, takes)
        .await?;
    Ok(Json(MemberView::from(&changed)))
}

/// The caller's memberships with their roles.
#[api_operation(operation_id = "my_memberships", tag = "teams")]
pub async fn my_memberships(call: Call) -> Answer<Json<Vec<MembershipView>>, Signed> {
    let list = call.state.teams.memberships(call.user()).await?;
    Ok(Json(list.iter().map(MembershipView::from).collect()))
}
