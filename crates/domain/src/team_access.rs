//! The part of teams every other service needs: who belongs where.
use async_trait::async_trait;

use crate::store::StoreResult;
use crate::team::{Actor, Role};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub role: Role,
    pub team_is_active: bool,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MembershipRepository: Send + Sync {
    /// The user's active membership of the team, if any.
    async fn membership(&self, team_id: i64, user_id: i64) -> StoreResult<Option<Membership>>;
    /// Whether the team exists and is active (for platform admins, who need no membership).
    async fn team_is_active(&self, team_id: i64) -> StoreResult<Option<bool>>;
    /// Ids of the teams the user is an active member of.
    async fn team_ids_of(&self, user_id: i64) -> StoreResult<Vec<i64>>;
    /// The teams the user is an active member of, each with their role there.
    async fn roles_of(&self, user_id: i64) -> StoreResult<Vec<(i64, Role)>>;
}

/// Who `user` is on the team (`Actor::of`), asking for a membership only when the user is not
/// a platform admin. None: nobody there.
pub async fn actor_on(
    memberships: &dyn MembershipRepository,
    user: &crate::user::User,
    team_id: i64,
) -> StoreResult<Option<Actor>> {
    let role = if user.is_admin {
        None
    } else {
        memberships
            .membership(team_id, user.id)
            .await?
            .map(|m| m.role)
    };
    Ok(Actor::of(user, role))
}

/// The teams whose things `user` may see: None for a platform admin (every team), else the teams
/// they are an active member of.
pub async fn visible_teams(
    memberships: &dyn MembershipRepository,
    user: &crate::user::User,
) -> StoreResult<Option<Vec<i64>>> {
    if user.is_admin {
        return Ok(None);
    }
    memberships.team_ids_of(user.id).await.map(Some)
}

/// Whether `user` may see what belongs to `team_id`: a member of it, or a platform admin.
pub async fn may_see_team(
    memberships: &dyn MembershipRepository,
    user: &crate::user::User,
    team_id: i64,
) -> StoreResult<bool> {
    Ok(user.is_admin || memberships.membership(team_id, user.id).await?.is_some())
}

/// Whether `user` may add things (leads, businesses) to `team_id`: a member of an active team, or a
/// platform admin. `Err` carries the 403 reason. An unknown team answers exactly like a foreign
/// one, so ids reveal nothing.
pub async fn may_add_to_team(
    memberships: &dyn MembershipRepository,
    user: &crate::user::User,
    team_id: i64,
) -> StoreResult<Result<(), &'static str>> {
    let active = if user.is_admin {
        memberships.team_is_active(team_id).await?
    } else {
        memberships
            .membership(team_id, user.id)
            .await?
            .map(|m| m.team_is_active)
    };
    Ok(match active {
        None => Err("Not a member of this team"),
        Some(false) => Err("Team is inactive"),
        Some(true) => Ok(()),
    })
}

/// Who `user` is on `team_id` when the permission table lets them do `action` there: a team
/// nobody knows, or one the user is not in, is not found (ids reveal nothing; a platform admin
/// is in every existing team); a role the table refuses is forbidden with its reason.
pub async fn authorize(
    memberships: &dyn MembershipRepository,
    user: &crate::user::User,
    team_id: i64,
    action: crate::team::TeamAction,
) -> Result<Actor, crate::error::ServiceError> {
    use crate::error::ServiceError;
    if user.is_admin && memberships.team_is_active(team_id).await?.is_none() {
        return Err(ServiceError::NotFound("Team"));
    }
    let actor = actor_on(memberships, user, team_id)
        .await?
        .ok_or(ServiceError::NotFound("Team"))?;
    crate::team::permit(actor, action).map_err(|reason| ServiceError::Forbidden(reason.into()))?;
    Ok(actor)
}
