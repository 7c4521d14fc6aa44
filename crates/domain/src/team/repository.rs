//! The port that keeps teams, members and invites.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::store::StoreResult;
use crate::team::model::{
    Invite, InviteDetails, Member, MembershipSummary, Role, Team, TeamSummary,
};
use crate::user::{NewUser, User};

#[derive(Debug, Clone, PartialEq)]
pub struct NewInvite {
    pub team_id: i64,
    pub email: String,
    pub role: Role,
    pub token_hash: String,
    pub invited_by: i64,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Accepting an invite, decided in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum AcceptOutcome {
    Accepted {
        user: User,
        team_id: i64,
        team_name: String,
    },
    /// Used, revoked or expired (or spent by a concurrent accept).
    Gone,
    /// The invite names an e-mail with no account and no names were given to create one.
    NamesRequired,
    TeamInactive,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TeamRepository: Send + Sync {
    /// Creates the team and makes `owner` its owner, in one transaction.
    async fn create_team(
        &self,
        name: String,
        description: Option<String>,
        owner: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<Team>;
    async fn find_team(&self, team_id: i64) -> StoreResult<Option<Team>>;
    /// Teams with counts and `user_id`'s role; `only` limits to those ids (None: every team).
    async fn team_summaries(
        &self,
        only: Option<Vec<i64>>,
        user_id: i64,
    ) -> StoreResult<Vec<TeamSummary>>;
    async fn update_team(
        &self,
        team_id: i64,
        name: Option<String>,
        description: Option<Option<String>>,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    async fn deactivate_team(&self, team_id: i64, at: DateTime<Utc>) -> StoreResult<()>;
    async fn members(&self, team_id: i64) -> StoreResult<Vec<Member>>;
    /// Whether the member takes the team's new leads in turn.
    async fn set_takes_new_leads(
        &self,
        team_id: i64,
        user_internal_id: i64,
        takes: bool,
    ) -> StoreResult<()>;
    async fn set_member_role(
        &self,
        team_id: i64,
        user_internal_id: i64,
        role: Role,
    ) -> StoreResult<()>;
    async fn remove_member(&self, team_id: i64, user_internal_id: i64) -> StoreResult<()>;
    async fn memberships_of(&self, user_id: i64) -> StoreResult<Vec<MembershipSummary>>;
    /// Stores the invite and revokes any pending invite for the same address and team.
    async fn create_invite(&self, invite: NewInvite) -> StoreResult<Invite>;
    async fn pending_invites(&self, team_id: i64, now: DateTime<Utc>) -> StoreResult<Vec<Invite>>;
    async fn revoke_invite(
        &self,
        team_id: i64,
        invite_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    async fn find_invite(&self, token_hash: &str) -> StoreResult<Option<InviteDetails>>;
    /// Spends the invite, creates the user when `new_user` is needed and given, and adds the
    /// membership, all in one transaction.
    async fn accept_invite(
        &self,
        token_hash: &str,
        new_user: Option<NewUser>,
        at: DateTime<Utc>,
    ) -> StoreResult<AcceptOutcome>;
}
