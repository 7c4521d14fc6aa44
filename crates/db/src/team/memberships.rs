//! `MembershipRepository` over `teams` and `team_members`.
use async_trait::async_trait;
use diesel::prelude::*;

use leadhub_domain::store::StoreResult;
use leadhub_domain::team::Role;
use leadhub_domain::team_access::{Membership, MembershipRepository};

use crate::schema::{team_members, teams};
use crate::sql::error::stored_word;
use crate::Database;

#[async_trait]
impl MembershipRepository for Database {
    async fn membership(&self, team_id: i64, user_id: i64) -> StoreResult<Option<Membership>> {
        self.read(move |conn| {
            conn.first::<_, (String, bool)>(
                team_members::table
                    .inner_join(teams::table)
                    .filter(team_members::team_id.eq(team_id))
                    .filter(team_members::user_id.eq(user_id))
                    .filter(team_members::is_active.eq(true))
                    .select((team_members::role, teams::is_active)),
            )
            .optional()?
            .map(|(role, team_is_active)| {
                Ok(Membership {
                    role: stored_word("team_members.role", &role)?,
                    team_is_active,
                })
            })
            .transpose()
        })
        .await
    }

    async fn team_is_active(&self, team_id: i64) -> StoreResult<Option<bool>> {
        self.read(move |conn| {
            conn.first::<_, bool>(teams::table.find(team_id).select(teams::is_active))
                .optional()
        })
        .await
    }

    async fn team_ids_of(&self, user_id: i64) -> StoreResult<Vec<i64>> {
        self.read(move |conn| {
            conn.load(
                team_members::table
                    .filter(team_members::user_id.eq(user_id))
                    .filter(team_members::is_active.eq(true))
                    .select(team_members::team_id),
            )
        })
        .await
    }

    async fn roles_of(&self, user_id: i64) -> StoreResult<Vec<(i64, Role)>> {
        self.read(move |conn| {
            conn.load::<_, (i64, String)>(
                team_members::table
                    .filter(team_members::user_id.eq(user_id))
                    .filter(team_members::is_active.eq(true))
                    .select((team_members::team_id, team_members::role)),
            )?
            .into_iter()
            .map(|(team, role)| Ok((team, stored_word("team_members.role", &role)?)))
            .collect()
        })
        .await
    }
}
