//! `TeamService` with every port mocked: the permission table, the invite life cycle, accepting.
//! Here the team, its people and the `Setup` of the mocks; the rules in the files below.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use chrono::Duration;
use mockall::predicate::eq;

use crate::error::{FieldError, LocPart};
use crate::identity::MockIdentityProvider;
use crate::mail::{MailError, Message, MockMailer};
use crate::secret::{hash_secret, MockTokenGenerator, INVITE_TOKEN_PREFIX};
use crate::session::Session;
use crate::team::model::{Invite, InviteDetails, Member, Role, Team, TeamAction, TeamSummary};
use crate::team::repository::{AcceptOutcome, MockTeamRepository};
use crate::team::service::{TeamError, TeamService};
use crate::test_support::{
    clock, now, numbered_tokens, person, platform_admin, roster_memberships,
};
use crate::user::{MockUserRepository, User};

mod accepting;
mod invites;
mod permissions;
mod teammates;
mod turns;

const TEAM: i64 = 1;
const PUBLIC_URL: &str = "https://leads.example.com";
const INVITE_TTL_DAYS: i64 = 7;
const INVITE_TOKEN: &str = "lhi_the-generated-token";

// The people of team 1, and two who are not in it.
pub(crate) fn owner() -> User {
    person(1, "owner@example.com")
}
pub(crate) fn team_admin() -> User {
    person(2, "admin@example.com")
}
pub(crate) fn member() -> User {
    person(3, "member@example.com")
}
/// The member the others act upon (change the role of, remove).
fn colleague() -> User {
    person(4, "colleague@example.com")
}
pub(crate) fn outsider() -> User {
    person(5, "outsider@example.com")
}
pub(crate) fn site_admin() -> User {
    platform_admin(6, "root@example.com")
}
/// A platform administrator who is also a plain member of the team.
fn site_admin_in_team() -> User {
    platform_admin(7, "root-member@example.com")
}

/// Team 1 with its roster, and the mocks of every port `TeamService` uses. Tests add the
/// expectations their rule is about; `build` then adds the reads every operation makes
/// (the team, who belongs to it), after them, as fallbacks.
struct Setup {
    teams: MockTeamRepository,
    users: MockUserRepository,
    identity: MockIdentityProvider,
    mailer: MockMailer,
    tokens: MockTokenGenerator,
    team_active: bool,
    roster: Vec<(User, Role)>,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            teams: MockTeamRepository::new(),
            users: MockUserRepository::new(),
            identity: MockIdentityProvider::new(),
            mailer: MockMailer::new(),
            tokens: MockTokenGenerator::new(),
            team_active: true,
            roster: vec![
                (owner(), Role::Owner),
                (team_admin(), Role::Admin),
                (member(), Role::Member),
                (colleague(), Role::Member),
                (site_admin_in_team(), Role::Member),
            ],
        }
    }

    fn team_inactive(mut self) -> Setup {
        self.team_active = false;
        self
    }

    /// No invite is stored and no e-mail sent.
    fn inviting_nothing(mut self) -> Setup {
        self.teams.expect_create_invite().never();
        self.mailer.expect_send().never();
        self
    }

    /// No member is removed and no role changed.
    fn changing_no_member(mut self) -> Setup {
        self.teams.expect_remove_member().never();
        self.teams.expect_set_member_role().never();
        self
    }

    /// The invite token generator hands out `INVITE_TOKEN` (once).
    fn invite_token(mut self) -> Setup {
        self.tokens
            .expect_secret()
            .with(eq(INVITE_TOKEN_PREFIX))
            .times(1)
            .return_const(INVITE_TOKEN.to_owned());
        self
    }

    fn build(mut self) -> TeamService {
        let team = Team {
            id: TEAM,
            name: "Roofers".into(),
            description: None,
            is_active: self.team_active,
            created_at: now(),
        };
        let members: Vec<Member> = self
            .roster
            .iter()
            .map(|(user, role)| member_of(user, *role, true))
            .collect();
        let found = team.clone();
        self.teams
            .expect_find_team()
            .returning(move |id| Ok((id == TEAM).then(|| found.clone())));
        self.teams
            .expect_members()
            .returning(move |_| Ok(members.clone()));
        let summary = TeamSummary {
            team,
            member_count: self.roster.len() as i64,
            lead_count: 0,
            my_role: None,
        };
        self.teams
            .expect_team_summaries()
            .returning(move |_, _| Ok(vec![summary.clone()]));
        let memberships = roster_memberships(
            self.roster
                .iter()
                .map(|(user, role)| (TEAM, user.id, *role, self.team_active))
                .collect(),
        );
        numbered_tokens(&mut self.tokens);
        TeamService {
            teams: Arc::new(self.teams),
            memberships: Arc::new(memberships),
            users: Arc::new(self.users),
            identity: Arc::new(self.identity),
            mailer: Arc::new(self.mailer),
            clock: clock(),
            tokens: Arc::new(self.tokens),
            public_url: PUBLIC_URL.into(),
            invite_ttl: Duration::days(INVITE_TTL_DAYS),
            mail_throttle: None,
        }
    }
}

/// `user` as a member of a team with `role`, active or not.
fn member_of(user: &User, role: Role, is_active: bool) -> Member {
    Member {
        id: user.id * 10,
        user_internal_id: user.id,
        user_id: user.user_id.clone(),
        user_email: user.email.clone(),
        user_name: user.display_name(),
        role,
        is_active,
        joined_at: now(),
        takes_new_leads: false,
        new_lead_turn: None,
    }
}

/// A stored invite for `email` to team 1, pending unless a test changes it.
fn pending_invite(email: &str) -> InviteDetails {
    InviteDetails {
        invite: Invite {
            id: 9,
            team_id: TEAM,
            email: email.into(),
            role: Role::Admin,
            created_at: now() - Duration::days(1),
            expires_at: now() + Duration::days(6),
            used_at: None,
            revoked_at: None,
            invited_by: owner().user_id,
            invited_by_name: owner().display_name(),
        },
        team_name: "Roofers".into(),
        team_description: None,
        team_is_active: true,
    }
}

fn stored(invite: &crate::team::repository::NewInvite) -> Invite {
    Invite {
        id: 9,
        team_id: invite.team_id,
        email: invite.email.clone(),
        role: invite.role,
        created_at: invite.created_at,
        expires_at: invite.expires_at,
        used_at: None,
        revoked_at: None,
        invited_by: owner().user_id,
        invited_by_name: owner().display_name(),
    }
}

fn session() -> Session {
    Session {
        access_token: "lha_a".into(),
        refresh_token: "lhr_r".into(),
        expires_in: 3600,
    }
}
