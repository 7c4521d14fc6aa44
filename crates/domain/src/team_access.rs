//! The part of teams every other service needs: who belongs where.
use async_trait::async_trait;

use crate::store::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub role: String,
    pub team_is_active: bool,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait MembershipRepository: Send + Sync {
    /// The user's active membership of the team, if any.
    async fn membership(&self, team_id: i64, user_id: i64) -> StoreResult<Option<Membership>>;
    /// Whether the team exists and is active (for platform admins, who need no membership).
    async fn team_is_active(&self, team_id: i64) -> StoreResult<Option<bool>>;
    /// Ids of the teams the user is an active member of.
    async fn team_ids_of(&self, user_id: i64) -> StoreResult<Vec<i64>>;
}
