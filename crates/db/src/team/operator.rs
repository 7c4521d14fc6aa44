//! `OperatorDirectory`: the whole-database views of the operator's command line. Small tables
//! (people, teams, keys) read whole; counts grouped in one query each.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::count_star;
use diesel::prelude::*;

use leadhub_domain::api_key::{ApiKey, StoredApiKey};
use leadhub_domain::operator::{KeyRef, OperatorDirectory, TeamListing, UserListing};
use leadhub_domain::store::StoreResult;

use crate::schema::{api_keys, team_members, teams, users};
use crate::sql::simple::Counts;
use crate::sql::time::{from_db, to_db};
use crate::team::credentials::ApiKeyRow;
use crate::team::users::UserRow;
use crate::Database;
use crate::ReadConnection;

/// The accounts `only` lets through (all when None), with their team and live-key counts.
fn listings(
    conn: &mut ReadConnection<'_>,
    only: Option<String>,
    now: NaiveDateTime,
) -> QueryResult<Vec<UserListing>> {
    let mut query = users::table
        .order(users::id.asc())
        .select((UserRow::as_select(), users::deactivated_at))
        .into_boxed();
    if let Some(email) = only {
        query = query.filter(users::email.eq(email));
    }
    let rows: Vec<(UserRow, Option<NaiveDateTime>)> = conn.load(query)?;
    let teams = Counts::load(
        conn,
        team_members::table
            .filter(team_members::is_active.eq(true))
            .group_by(team_members::user_id)
            .select((team_members::user_id, count_star())),
    )?;
    let keys = Counts::load(
        conn,
        api_keys::table
            .filter(api_keys::revoked_at.is_null())
            .filter(
                api_keys::expires_at
                    .is_null()
                    .or(api_keys::expires_at.gt(now)),
            )
            .group_by(api_keys::user_id)
            .select((api_keys::user_id, count_star())),
    )?;
    Ok(rows
        .into_iter()
        .map(|(row, deactivated_at)| {
            let user: leadhub_domain::user::User = row.into();
            UserListing {
                teams: teams.of(&user.id),
                live_keys: keys.of(&user.id),
                deactivated_at: deactivated_at.map(from_db),
                user,
            }
        })
        .collect())
}

#[async_trait]
impl OperatorDirectory for Database {
    async fn list_users(&self) -> StoreResult<Vec<UserListing>> {
        let now = to_db(Utc::now());
        self.read(move |conn| listings(conn, None, now)).await
    }

    async fn find_account(&self, email: &str) -> StoreResult<Option<UserListing>> {
        let (email, now) = (email.to_owned(), to_db(Utc::now()));
        self.read(move |conn| Ok(listings(conn, Some(email), now)?.pop()))
            .await
    }

    async fn deactivate_user(&self, email: &str, at: DateTime<Utc>) -> StoreResult<Option<usize>> {
        let email = email.to_owned();
        let revoked = self
            .write(move |conn| {
                conn.transaction(|conn| {
                    let id: Option<i64> = users::table
                        .filter(users::email.eq(&email))
                        .filter(users::deactivated_at.is_null())
                        .select(users::id)
                        .first(conn)
                        .optional()?;
                    let Some(id) = id else { return Ok(None) };
                    diesel::update(users::table.find(id))
                        .set((
                            users::deactivated_at.eq(Some(to_db(at))),
                            users::updated_at.eq(to_db(at)),
                        ))
                        .execute(conn)?;
                    diesel::update(
                        api_keys::table
                            .filter(api_keys::user_id.eq(id))
                            .filter(api_keys::revoked_at.is_null()),
                    )
                    .set(api_keys::revoked_at.eq(Some(to_db(at))))
                    .execute(conn)
                    .map(Some)
                })
            })
            .await?;
        // This process's copies go at once; other processes' within `RECENT_FOR`.
        self.forget_recent();
        Ok(revoked)
    }

    async fn list_teams(&self) -> StoreResult<Vec<TeamListing>> {
        self.read(|conn| {
            let rows: Vec<(i64, String, bool, NaiveDateTime, Option<String>)> = conn.load(
                teams::table
                    .left_join(users::table.on(users::id.eq(teams::created_by)))
                    .order(teams::id.asc())
                    .select((
                        teams::id,
                        teams::name,
                        teams::is_active,
                        teams::created_at,
                        users::email.nullable(),
                    )),
            )?;
            let members = Counts::load(
                conn,
                team_members::table
                    .filter(team_members::is_active.eq(true))
                    .group_by(team_members::team_id)
                    .select((team_members::team_id, count_star())),
            )?;
            Ok(rows
                .into_iter()
                .map(
                    |(id, name, is_active, created_at, created_by)| TeamListing {
                        id,
                        name,
                        is_active,
                        members: members.of(&id),
                        created_by,
                        created_at: from_db(created_at),
                    },
                )
                .collect())
        })
        .await
    }

    async fn live_keys_named(&self, key: KeyRef) -> StoreResult<Vec<ApiKey>> {
        self.read(move |conn| {
            let mut query = api_keys::table
                .filter(api_keys::revoked_at.is_null())
                .order(api_keys::id.asc())
                .select(ApiKeyRow::as_select())
                .into_boxed();
            query = match key {
                KeyRef::Id(id) => query.filter(api_keys::id.eq(id)),
                // The stored prefix is the key's first 12 characters: a longer paste (the whole
                // key) names it by those, a shorter one by what it gives.
                KeyRef::Prefix(given) => {
                    let start: String = given.chars().take(12).collect();
                    query.filter(
                        api_keys::prefix
                            .like(format!("{}%", crate::sql::escape_like(&start)))
                            .escape('\\'),
                    )
                }
            };
            let rows: Vec<ApiKeyRow> = conn.load(query)?;
            Ok(rows
                .into_iter()
                .map(|r| StoredApiKey::from(r).key)
                .collect())
        })
        .await
    }
}
