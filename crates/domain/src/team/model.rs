//! Teams, their members and invites, and who may do what: the one permission table.
use chrono::{DateTime, Utc};

use crate::user::User;
use crate::word_enum::word_enum;

word_enum! {
    /// A member's role in a team: stored and sent as `owner`, `admin`, `member`; read case-insensitively.
    pub enum Role {
        Owner,
        Admin,
        Member,
    }
}

/// The roles an invite or a role change may grant (ownership is never handed out this way).
pub const GRANTABLE_ROLES: [&str; 2] = ["admin", "member"];

/// Everything one can do to a team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum TeamAction {
    View,
    Update,
    Deactivate,
    ChangeRole,
    RemoveMember,
    Invite,
    ListInvites,
    RevokeInvite,
    ManageWebhooks,
    /// Keeps a saved view of the leads list for the whole team, or deletes one.
    ShareViews,
    /// Chooses who takes the team's new leads in turn (`team::turns`).
    DealNewLeads,
}

/// Who acts on a team: a member with a role, or a platform administrator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Member(Role),
    PlatformAdmin,
}

impl Actor {
    /// Who `user` is on a team where they hold `role` (None: not a member), the one rule every
    /// service and page asks: a platform admin keeps every right on every team, also as a plain
    /// member of it (their role still shows as `my_role`); anyone else acts by their role, and
    /// is nobody there without one.
    pub fn of(user: &User, role: Option<Role>) -> Option<Actor> {
        if user.is_admin {
            Some(Actor::PlatformAdmin)
        } else {
            role.map(Actor::Member)
        }
    }
}

/// The permission table. Platform admins may do everything an owner may; members may view.
pub fn permits(actor: Actor, action: TeamAction) -> bool {
    use TeamAction::*;
    match actor {
        Actor::PlatformAdmin | Actor::Member(Role::Owner) => true,
        Actor::Member(Role::Admin) => !matches!(action, Deactivate),
        Actor::Member(Role::Member) => matches!(action, View),
    }
}

/// `permits`, with the sentence a refusal carries when the table says no.
pub fn permit(actor: Actor, action: TeamAction) -> Result<(), &'static str> {
    if permits(actor, action) {
        Ok(())
    } else if action == TeamAction::Deactivate {
        Err("Only the team owner can deactivate the team")
    } else {
        Err("Only the team owner or a team admin can do this")
    }
}

/// Everything one can do to a lead. `Edit` covers its fields, status and owner; `Archive` covers
/// restoring and archiving in bulk; `MoveOut` moves a lead to another team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum LeadWorkAction {
    View,
    Edit,
    AddNote,
    DeleteOwnNote,
    DeleteOthersNote,
    Claim,
    MoveOut,
    Archive,
    /// Takes a lead's do-not-call mark off (anyone who may edit a lead may set it).
    ClearDoNotCall,
}

/// The permission table for leads: members work the team's leads (view, edit, status, owner,
/// their own notes, claim, mark do-not-call); admins and owners also move leads out, archive and
/// restore them, take a do-not-call mark off and delete others' notes; platform admins may do everything. Who acts on an unassigned lead is
/// `lead::work::LeadWorkService`'s rule: every user as a member, a platform admin as themself.
pub fn permits_on_lead(actor: Actor, action: LeadWorkAction) -> bool {
    use LeadWorkAction::*;
    match actor {
        Actor::PlatformAdmin | Actor::Member(Role::Owner | Role::Admin) => true,
        Actor::Member(Role::Member) => {
            matches!(action, View | Edit | AddNote | DeleteOwnNote | Claim)
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Team {
    pub id: i64,
    pub name: String,
    pub description: Option<String>,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
}

/// A team as listed, with its counts and the caller's role in it (None for a platform admin
/// who is not a member).
#[derive(Debug, Clone, PartialEq)]
pub struct TeamSummary {
    pub team: Team,
    pub member_count: i64,
    pub lead_count: i64,
    pub my_role: Option<Role>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub id: i64,
    pub user_internal_id: i64,
    pub user_id: String,
    pub user_email: String,
    pub user_name: String,
    pub role: Role,
    pub is_active: bool,
    pub joined_at: DateTime<Utc>,
    /// Takes the team's new leads in turn (`team::turns`).
    pub takes_new_leads: bool,
    /// The member's last turn at a new lead (None: never had one).
    pub new_lead_turn: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MembershipSummary {
    pub team_id: i64,
    pub team_name: String,
    pub role: Role,
    pub is_active: bool,
    pub joined_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Invite {
    pub id: i64,
    pub team_id: i64,
    pub email: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The inviter's public user id.
    pub invited_by: String,
    pub invited_by_name: String,
}

impl Invite {
    pub fn is_pending_at(&self, now: DateTime<Utc>) -> bool {
        self.used_at.is_none() && self.revoked_at.is_none() && self.expires_at > now
    }
}

/// An invite with what its public page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct InviteDetails {
    pub invite: Invite,
    pub team_name: String,
    pub team_description: Option<String>,
    pub team_is_active: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permission_table() {
        use strum::IntoEnumIterator;
        use TeamAction::*;
        for action in TeamAction::iter() {
            assert!(permits(Actor::Member(Role::Owner), action));
            assert!(permits(Actor::PlatformAdmin, action));
            assert_eq!(
                permits(Actor::Member(Role::Admin), action),
                action != Deactivate
            );
            assert_eq!(permits(Actor::Member(Role::Member), action), action == View);
        }
    }

    #[test]
    fn the_lead_permission_table() {
        use strum::IntoEnumIterator;
        use LeadWorkAction::*;
        for action in LeadWorkAction::iter() {
            for actor in [
                Actor::PlatformAdmin,
                Actor::Member(Role::Owner),
                Actor::Member(Role::Admin),
            ] {
                assert!(permits_on_lead(actor, action), "{actor:?} {action:?}");
            }
            assert_eq!(
                permits_on_lead(Actor::Member(Role::Member), action),
                !matches!(
                    action,
                    DeleteOthersNote | MoveOut | Archive | ClearDoNotCall
                ),
                "{action:?}"
            );
        }
    }

    #[test]
    fn roles_parse_case_insensitively() {
        assert_eq!(Role::parse(" Admin "), Some(Role::Admin));
        assert_eq!(Role::parse("boss"), None);
    }
}
