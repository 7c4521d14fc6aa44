//! The JSON shapes of users, teams, members and invites.
use serde::Serialize;

use leadhub_domain::team::{Invite, InviteDetails, Member, MembershipSummary, TeamSummary};
use leadhub_domain::user::User;
use leadhub_http::time::iso;

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct UserView {
    /// e.g. "usr_0j5x3k9q2w8e7r6t5y4u3i2o1p"
    pub user_id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub is_admin: bool,
    pub created_at: String,
}

impl From<&User> for UserView {
    fn from(u: &User) -> Self {
        UserView {
            user_id: u.user_id.clone(),
            email: u.email.clone(),
            first_name: u.first_name.clone(),
            last_name: u.last_name.clone(),
            is_admin: u.is_admin,
            created_at: iso(u.created_at),
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TeamView {
    pub id: i64,
    pub name: String,
    pub description: Option<String>,
    pub member_count: i64,
    /// The team's live leads (neither archived nor merged into another), as the lead list counts them.
    pub lead_count: i64,
    pub is_active: bool,
    pub created_at: String,
    /// owner, admin or member; null for a platform admin who is not a member.
    pub my_role: Option<String>,
}

impl From<&TeamSummary> for TeamView {
    fn from(t: &TeamSummary) -> Self {
        TeamView {
            id: t.team.id,
            name: t.team.name.clone(),
            description: t.team.description.clone(),
            member_count: t.member_count,
            lead_count: t.lead_count,
            is_active: t.team.is_active,
            created_at: iso(t.team.created_at),
            my_role: t.my_role.map(|r| r.as_str().to_owned()),
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct MemberView {
    pub id: i64,
    pub user_id: String,
    pub user_email: String,
    pub user_name: String,
    pub role: String,
    pub is_active: bool,
    pub joined_at: String,
    /// Takes the team's new leads in turn.
    pub takes_new_leads: bool,
}

impl From<&Member> for MemberView {
    fn from(m: &Member) -> Self {
        MemberView {
            id: m.id,
            user_id: m.user_id.clone(),
            user_email: m.user_email.clone(),
            user_name: m.user_name.clone(),
            role: m.role.as_str().to_owned(),
            is_active: m.is_active,
            joined_at: iso(m.joined_at),
            takes_new_leads: m.takes_new_leads,
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct MembershipView {
    pub team_id: i64,
    pub team_name: String,
    pub role: String,
    /// Whether the team is active.
    pub is_active: bool,
    pub joined_at: String,
}

impl From<&MembershipSummary> for MembershipView {
    fn from(m: &MembershipSummary) -> Self {
        MembershipView {
            team_id: m.team_id,
            team_name: m.team_name.clone(),
            role: m.role.as_str().to_owned(),
            is_active: m.is_active,
            joined_at: iso(m.joined_at),
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct InviteView {
    pub id: i64,
    pub email: String,
    pub role: String,
    pub expires_at: String,
    pub is_used: bool,
    pub created_at: String,
    /// The inviter's user_id.
    pub invited_by: String,
    /// Only in the answer that creates the invite: whether the e-mail with the link went out
    /// (the link itself goes to the invitee's mailbox only; when false, invite again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_sent: Option<bool>,
}

impl InviteView {
    pub fn new(i: &Invite, email_sent: Option<bool>) -> Self {
        InviteView {
            id: i.id,
            email: i.email.clone(),
            role: i.role.as_str().to_owned(),
            expires_at: iso(i.expires_at),
            is_used: i.used_at.is_some(),
            created_at: iso(i.created_at),
            invited_by: i.invited_by.clone(),
            email_sent,
        }
    }
}

/// What the public invite page shows.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct InviteInfoView {
    pub team_name: String,
    pub team_description: Option<String>,
    pub email: String,
    pub role: String,
    pub invited_by_name: String,
    pub expires_at: String,
}

impl From<&InviteDetails> for InviteInfoView {
    fn from(d: &InviteDetails) -> Self {
        InviteInfoView {
            team_name: d.team_name.clone(),
            team_description: d.team_description.clone(),
            email: d.invite.email.clone(),
            role: d.invite.role.as_str().to_owned(),
            invited_by_name: d.invite.invited_by_name.clone(),
            expires_at: iso(d.invite.expires_at),
        }
    }
}
