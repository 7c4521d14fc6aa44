//! `/teams` (the caller's teams, create one) and `/teams/{id}` (members, roles, invites,
//! deactivation). Each control is shown only to those the permission table (`permits`) allows;
//! the `TeamService` checks every action again whatever the page showed.
use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use tera::Context;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::dashboard::Workload;
use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::team::turns::{in_turn_order, Taker};
use leadhub_domain::team::{
    permits, Actor, CreatedInvite, Invite, Member, Role, TeamAction, TeamError, TeamSummary,
    GRANTABLE_ROLES,
};
use leadhub_domain::user::User;

use crate::render::{found_in, problems_text, see_other, when, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, id_of, team_item, Button, Done};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/teams" => list,
        POST "/teams" => create,
        GET "/teams/{id}" => show,
        GET "/teams/{id}/deactivate" => confirm_deactivate,
        POST "/teams/{id}/deactivate" => deactivate,
        POST "/teams/{id}/members/{user_id}/role" => change_role,
        GET "/teams/{id}/members/{user_id}/remove" => confirm_remove,
        POST "/teams/{id}/members/{user_id}/remove" => remove,
        POST "/teams/{id}/members/{user_id}/new-leads" => set_takes_new_leads,
        POST "/teams/{id}/invites" => invite,
        POST "/teams/{id}/invites/{invite_id}/revoke" => revoke_invite,
        POST "/teams/{id}/invites/{invite_id}/resend" => resend_invite,
    }
}

#[derive(Serialize)]
struct TeamRow {
    id: i64,
    name: String,
    description: Option<String>,
    is_active: bool,
    member_count: i64,
    lead_count: i64,
    role: String,
    created: String,
}

impl TeamRow {
    fn new(t: &TeamSummary, offset: UtcOffset) -> Self {
        TeamRow {
            id: t.team.id,
            name: t.team.name.clone(),
            description: t.team.description.clone(),
            is_active: t.team.is_active,
            member_count: t.member_count,
            lead_count: t.lead_count,
            role: t.my_role.map_or("platform admin", Role::as_str).to_owned(),
            created: when(t.team.created_at, offset),
        }
    }
}

/// How the visitor stands to a team, by the domain's one rule (`Actor::of`).
fn actor(user: &User, summary: &TeamSummary) -> Actor {
    // The summary was visible, so the caller is a platform admin or a member: the fallback is
    // never taken, and grants the least.
    Actor::of(user, summary.my_role).unwrap_or(Actor::Member(Role::Member))
}

/// Which controls the team page shows.
#[derive(Serialize)]
struct Controls {
    deactivate: bool,
    change_role: bool,
    remove_member: bool,
    deal_new_leads: bool,
    invite: bool,
    list_invites: bool,
    revoke_invite: bool,
}

impl Controls {
    fn of(actor: Actor, active: bool) -> Controls {
        let can = |action| permits(actor, action);
        Controls {
            deactivate: active && can(TeamAction::Deactivate),
            change_role: can(TeamAction::ChangeRole),
            remove_member: can(TeamAction::RemoveMember),
            deal_new_leads: can(TeamAction::DealNewLeads),
            invite: active && can(TeamAction::Invite),
            list_invites: can(TeamAction::ListInvites),
            revoke_invite: can(TeamAction::RevokeInvite),
        }
    }
}

#[derive(Serialize)]
struct MemberRow {
    user_id: String,
    name: String,
    email: String,
    role: String,
    joined: String,
    is_me: bool,
    /// The owner's role never changes and the owner is never removed.
    can_change_role: bool,
    can_remove: bool,
    /// Takes the team's new leads in turn; the button to change it, for whom may.
    takes_new_leads: bool,
    can_set_new_leads: bool,
    /// The member's open leads of this team, and those of them due for a follow-up.
    open: i64,
    due: i64,
    /// The contacts the member logged on this team's leads today and in the last 7 days (the
    /// visitor's days).
    contacts_today: i64,
    contacts_week: i64,
}

#[derive(Serialize)]
struct InviteRow {
    id: i64,
    email: String,
    role: String,
    expires: String,
    invited_by: String,
}

impl InviteRow {
    fn new(i: &Invite, offset: UtcOffset) -> Self {
        InviteRow {
            id: i.id,
            email: i.email.clone(),
            role: i.role.as_str().to_owned(),
            expires: when(i.expires_at, offset),
            invited_by: i.invited_by_name.clone(),
        }
    }
}

#[derive(Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
}

#[derive(Deserialize)]
pub struct RoleForm {
    #[serde(default)]
    role: String,
}

#[derive(Deserialize)]
pub struct NewLeadsForm {
    /// `true` or `false`.
    #[serde(default)]
    takes: String,
}

#[derive(Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

/// What a form failed with, shown above the form again.
pub(crate) struct Problem {
    pub status: StatusCode,
    pub message: String,
    /// What the visitor typed, so they need not type it again.
    pub values: Vec<(&'static str, String)>,
}

async fn list_page(
    visitor: &Visitor,
    notice: Option<&str>,
    problem: Option<Problem>,
) -> Result<HttpResponse, PageError> {
    let teams = visitor.state.teams.list(&visitor.user).await?;
    let mut context = base_context(Some(visitor), "teams");
    context.insert(
        "teams",
        &teams
            .iter()
            .map(|t| TeamRow::new(t, visitor.offset))
            .collect::<Vec<_>>(),
    );
    context.insert("notice", &notice);
    let status = add_problem(&mut context, problem);
    visitor.page(status, "teams.html", &context)
}

fn add_problem(context: &mut Context, problem: Option<Problem>) -> StatusCode {
    match problem {
        Some(p) => {
            context.insert("error", &p.message);
            for (k, v) in p.values {
                context.insert(k, &v);
            }
            p.status
        }
        None => {
            context.insert("error", &None::<String>);
            StatusCode::OK
        }
    }
}

pub async fn list(visitor: Visitor, done: web::Query<Done>) -> Result<HttpResponse, PageError> {
    list_page(&visitor, done.notice(), None).await
}

pub async fn create(
    Posted { visitor, form }: Posted<CreateForm>,
) -> Result<HttpResponse, PageError> {
    let name = form.name.trim();
    let description = form.description.trim();
    let message = if name.is_empty() {
        Some("Name: enter a name for the team.")
    } else if name.chars().count() > 100 {
        Some("Name: at most 100 characters.")
    } else if description.chars().count() > 1000 {
        Some("Description: at most 1000 characters.")
    } else {
        None
    };
    if let Some(message) = message {
        let problem = Problem {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            message: message.into(),
            values: vec![("name", name.into()), ("description", description.into())],
        };
        return list_page(&visitor, None, Some(problem)).await;
    }
    let description = Some(description).filter(|d| !d.is_empty());
    let team = visitor
        .state
        .teams
        .create(&visitor.user, name, description)
        .await?;
    Ok(visitor.finish(see_other(&format!("/teams/{}?done=created", team.team.id))))
}

pub(crate) async fn team_page(
    visitor: &Visitor,
    team_id: i64,
    notice: Option<&str>,
    problem: Option<Problem>,
) -> Result<HttpResponse, PageError> {
    let summary = visitor.state.teams.get(&visitor.user, team_id).await?;
    let actor = actor(&visitor.user, &summary);
    let controls = Controls::of(actor, summary.team.is_active);
    let workload = workload(visitor, team_id).await?;
    let all = visitor.state.teams.members(&visitor.user, team_id).await?;
    let members: Vec<MemberRow> = all
        .iter()
        .map(|m: &Member| {
            let is_me = m.user_internal_id == visitor.user.id;
            let not_owner = m.role != Role::Owner;
            let load = workload
                .get(&Some(m.user_internal_id))
                .copied()
                .unwrap_or_default();
            MemberRow {
                user_id: m.user_id.clone(),
                name: m.user_name.clone(),
                email: m.user_email.clone(),
                role: m.role.as_str().to_owned(),
                joined: when(m.joined_at, visitor.offset),
                is_me,
                can_change_role: not_owner && controls.change_role,
                can_remove: not_owner && (controls.remove_member || is_me),
                takes_new_leads: m.takes_new_leads,
                // An inactive member is never put in the turn; taking one out is always allowed.
                can_set_new_leads: (m.is_active || m.takes_new_leads)
                    && (controls.deal_new_leads || (is_me && m.takes_new_leads)),
                open: load.open,
                due: load.due,
                contacts_today: load.contacts_today,
                contacts_week: load.contacts_week,
            }
        })
        .collect();
    let invites: Vec<InviteRow> = if controls.list_invites {
        visitor
            .state
            .teams
            .invites(&visitor.user, team_id)
            .await?
            .iter()
            .map(|i| InviteRow::new(i, visitor.offset))
            .collect()
    } else {
        Vec::new()
    };
    let mut context = base_context(Some(visitor), "teams");
    context.insert("team", &TeamRow::new(&summary, visitor.offset));
    context.insert("can", &controls);
    context.insert("members", &members);
    context.insert("in_turn", &in_turn(&all));
    let unowned = workload.get(&None).copied().unwrap_or_default();
    context.insert("unowned_open", &unowned.open);
    context.insert("today", &visitor.today().to_string());
    // The first day of the "last 7 days" the contacts are counted over (`workload`).
    let week_began =
        visitor.today() - chrono::Days::new(leadhub_domain::dashboard::CONTACT_WEEK_DAYS - 1);
    context.insert("week_began", &week_began.to_string());
    context.insert("invites", &invites);
    context.insert("roles", &GRANTABLE_ROLES);
    context.insert("notice", &notice);
    context.insert("invite_email", "");
    context.insert("invite_role", "member");
    let webhooks = crate::team_webhooks::section(visitor, team_id, summary.team.is_active).await?;
    context.insert("webhooks", &webhooks);
    let status = add_problem(&mut context, problem);
    visitor.page(status, "team.html", &context)
}

/// The names of those who take the team's new leads, the next one first.
fn in_turn(members: &[Member]) -> Vec<String> {
    let takers = members
        .iter()
        .filter(|m| m.takes_new_leads && m.is_active)
        .map(|m| Taker {
            user_id: m.user_internal_id,
            last_turn: m.new_lead_turn,
        })
        .collect();
    in_turn_order(takers)
        .iter()
        .filter_map(|t| members.iter().find(|m| m.user_internal_id == t.user_id))
        .map(|m| m.user_name.clone())
        .collect()
}

/// The team's open leads by owner (row id; None: nobody), within what the visitor may see.
async fn workload(
    visitor: &Visitor,
    team_id: i64,
) -> Result<BTreeMap<Option<i64>, Workload>, PageError> {
    let team = LeadFilter {
        team_id: Some(team_id),
        ..LeadFilter::default()
    };
    let state = &visitor.state;
    let leads = state
        .submissions
        .visible_filter(&visitor.user, team)
        .await?;
    Ok(state.dashboard.workload(leads, visitor.offset).await?)
}

pub async fn show(
    visitor: Visitor,
    id: web::Path<String>,
    done: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&id, "Team")?;
    team_page(&visitor, team_id, done.notice(), None).await
}

/// A refused team action shown on the team page; anything else becomes an error page.
async fn refused(
    visitor: &Visitor,
    team_id: i64,
    error: TeamError,
    values: Vec<(&'static str, String)>,
) -> Result<HttpResponse, PageError> {
    let (status, message) = match error {
        TeamError::Conflict(m) => (StatusCode::CONFLICT, m),
        TeamError::Forbidden(m) => (StatusCode::FORBIDDEN, m),
        TeamError::Invalid(problems) => {
            (StatusCode::UNPROCESSABLE_ENTITY, problems_text(&problems))
        }
        TeamError::TooManyEmails(seconds) => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "This address was sent too many e-mails; try again in {} minute(s).",
                seconds.div_ceil(60)
            ),
        ),
        other => return Err(other.into()),
    };
    let problem = Problem {
        status,
        message,
        values,
    };
    team_page(visitor, team_id, None, Some(problem)).await
}

fn back(team_id: i64, done: &str) -> HttpResponse {
    see_other(&format!("/teams/{team_id}?done={done}"))
}

pub async fn change_role(
    path: web::Path<(String, String)>,
    Posted { visitor, form }: Posted<RoleForm>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&path.0, "Team")?;
    let role = match Role::parse(&form.role).filter(|r| *r != Role::Owner) {
        Some(role) => role,
        None => {
            let error = TeamError::Forbidden("A role change can grant admin or member only".into());
            return refused(&visitor, team_id, error, vec![]).await;
        }
    };
    match visitor
        .state
        .teams
        .change_role(&visitor.user, team_id, &path.1, role)
        .await
    {
        Ok(_) => Ok(visitor.finish(back(team_id, "role"))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}

/// Puts a member in or out of the team's new leads in turn.
pub async fn set_takes_new_leads(
    path: web::Path<(String, String)>,
    Posted { visitor, form }: Posted<NewLeadsForm>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&path.0, "Team")?;
    let takes = form.takes == "true";
    match visitor
        .state
        .teams
        .set_takes_new_leads(&visitor.user, team_id, &path.1, takes)
        .await
    {
        Ok(_) if takes => Ok(visitor.finish(back(team_id, "takes-new-leads"))),
        Ok(_) => Ok(visitor.finish(back(team_id, "no-new-leads"))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}

/// GET: asks before removing (works without JavaScript).
pub async fn confirm_remove(
    visitor: Visitor,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&path.0, "Team")?;
    let summary = visitor.state.teams.get(&visitor.user, team_id).await?;
    let members = visitor.state.teams.members(&visitor.user, team_id).await?;
    let member = found_in(members, |m| m.user_id == path.1, "Member")?;
    let mut context = base_context(Some(&visitor), "teams");
    context.insert("team", &TeamRow::new(&summary, visitor.offset));
    context.insert("member_user_id", &member.user_id);
    context.insert("member_name", &member.user_name);
    context.insert("member_email", &member.user_email);
    context.insert("is_me", &(member.user_internal_id == visitor.user.id));
    visitor.page(StatusCode::OK, "confirm.html", &context)
}

pub async fn remove(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&path.0, "Team")?;
    let leaving = path.1 == visitor.user.user_id;
    match visitor
        .state
        .teams
        .remove_member(&visitor.user, team_id, &path.1)
        .await
    {
        Ok(()) if leaving => Ok(visitor.finish(see_other("/teams?done=left"))),
        Ok(()) => Ok(visitor.finish(back(team_id, "removed"))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}

pub async fn invite(
    id: web::Path<String>,
    Posted { visitor, form }: Posted<InviteForm>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&id, "Team")?;
    let typed = vec![
        ("invite_email", form.email.trim().to_owned()),
        ("invite_role", form.role.clone()),
    ];
    let role = match Role::parse(&form.role).filter(|r| *r != Role::Owner) {
        Some(role) => role,
        None => {
            let error = TeamError::Forbidden("An invite can grant admin or member only".into());
            return refused(&visitor, team_id, error, typed).await;
        }
    };
    match visitor
        .state
        .teams
        .invite(&visitor.user, team_id, &form.email, role)
        .await
    {
        Ok(created) => Ok(visitor.finish(back(team_id, sent_notice(&created, "invited")))),
        Err(e) => refused(&visitor, team_id, e, typed).await,
    }
}

pub async fn revoke_invite(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let (team_id, invite_id) = team_item(&path.0, &path.1, "Invite")?;
    match visitor
        .state
        .teams
        .revoke_invite(&visitor.user, team_id, invite_id)
        .await
    {
        Ok(()) => Ok(visitor.finish(back(team_id, "invite-revoked"))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}

/// The notice after an invite: `sent` when its e-mail went out, else one that asks to resend.
fn sent_notice(created: &CreatedInvite, sent: &'static str) -> &'static str {
    if created.email_sent {
        sent
    } else {
        "invite-not-mailed"
    }
}

/// Resending is a new invite for the same address and role; it replaces the pending one, whose
/// link then stops working.
pub async fn resend_invite(
    path: web::Path<(String, String)>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let (team_id, invite_id) = team_item(&path.0, &path.1, "Invite")?;
    let pending = match visitor.state.teams.invites(&visitor.user, team_id).await {
        Ok(list) => list,
        Err(e) => return refused(&visitor, team_id, e, vec![]).await,
    };
    let old = found_in(pending, |i| i.id == invite_id, "Pending invite")?;
    match visitor
        .state
        .teams
        .invite(&visitor.user, team_id, &old.email, old.role)
        .await
    {
        Ok(created) => Ok(visitor.finish(back(team_id, sent_notice(&created, "resent")))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}

/// GET: asks before deactivating.
pub async fn confirm_deactivate(
    visitor: Visitor,
    id: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&id, "Team")?;
    let summary = visitor.state.teams.get(&visitor.user, team_id).await?;
    if !permits(actor(&visitor.user, &summary), TeamAction::Deactivate) {
        return Err(PageError::Forbidden(
            "Only the team owner can deactivate the team".into(),
        ));
    }
    let mut context = base_context(Some(&visitor), "teams");
    context.insert("team", &TeamRow::new(&summary, visitor.offset));
    visitor.page(StatusCode::OK, "confirm.html", &context)
}

pub async fn deactivate(
    id: web::Path<String>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let team_id = id_of(&id, "Team")?;
    match visitor.state.teams.deactivate(&visitor.user, team_id).await {
        Ok(_) => Ok(visitor.finish(back(team_id, "deactivated"))),
        Err(e) => refused(&visitor, team_id, e, vec![]).await,
    }
}
