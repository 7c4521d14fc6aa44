//! `SavedViewRepository` over `saved_views`: named lists of leads, a person's or a team's.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};

use leadhub_domain::lead::saved_views::{SavedView, SavedViewRepository};
use leadhub_domain::store::StoreResult;

use crate::schema::saved_views;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection};

#[derive(Queryable, Selectable)]
#[diesel(table_name = saved_views)]
struct SavedViewRow {
    id: i64,
    user_id: i64,
    team_id: Option<i64>,
    name: String,
    query: String,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

impl From<SavedViewRow> for SavedView {
    fn from(r: SavedViewRow) -> Self {
        SavedView {
            id: r.id,
            user_id: r.user_id,
            team_id: r.team_id,
            name: r.name,
            query: r.query,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        }
    }
}

/// The view `name` kept for `team_id`, or `user_id`'s own when None: the keepers in which one
/// name is one view.
fn named_view(
    conn: &mut DbConnection,
    user_id: i64,
    team_id: Option<i64>,
    name: &str,
) -> QueryResult<Option<SavedViewRow>> {
    let named = saved_views::table
        .filter(saved_views::name.eq(name))
        .select(SavedViewRow::as_select());
    match team_id {
        Some(team) => named.filter(saved_views::team_id.eq(team)).first(conn),
        None => named
            .filter(saved_views::user_id.eq(user_id))
            .filter(saved_views::team_id.is_null())
            .first(conn),
    }
    .optional()
}

/// The view `name` kept for `team_id` (or `user_id`) given `query`; false when there is none.
fn replace_query(
    conn: &mut DbConnection,
    user_id: i64,
    team_id: Option<i64>,
    name: &str,
    query: &str,
    at: NaiveDateTime,
) -> QueryResult<bool> {
    let Some(view) = named_view(conn, user_id, team_id, name)? else {
        return Ok(false);
    };
    diesel::update(saved_views::table.find(view.id))
        .set((saved_views::query.eq(query), saved_views::updated_at.eq(at)))
        .execute(conn)?;
    Ok(true)
}

#[async_trait]
impl SavedViewRepository for Database {
    async fn views_of(&self, user_id: i64, team_ids: Vec<i64>) -> StoreResult<Vec<SavedView>> {
        self.read(move |conn| {
            let own = saved_views::user_id
                .eq(user_id)
                .and(saved_views::team_id.is_null());
            let rows: Vec<SavedViewRow> = conn.load(
                saved_views::table
                    .filter(own.or(saved_views::team_id.eq_any(team_ids)))
                    .order((saved_views::name.asc(), saved_views::id.asc()))
                    .select(SavedViewRow::as_select()),
            )?;
            Ok(rows.into_iter().map(SavedView::from).collect())
        })
        .await
    }

    async fn find_view(&self, id: i64) -> StoreResult<Option<SavedView>> {
        self.read(move |conn| {
            let row: Option<SavedViewRow> = conn
                .first(
                    saved_views::table
                        .find(id)
                        .select(SavedViewRow::as_select()),
                )
                .optional()?;
            Ok(row.map(SavedView::from))
        })
        .await
    }

    async fn save_view(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        name: String,
        query: String,
        at: DateTime<Utc>,
    ) -> StoreResult<SavedView> {
        self.write(move |conn| {
            let at = to_db(at);
            if !replace_query(conn, user_id, team_id, &name, &query, at)? {
                let inserted = diesel::insert_into(saved_views::table)
                    .values((
                        saved_views::user_id.eq(user_id),
                        saved_views::team_id.eq(team_id),
                        saved_views::name.eq(&name),
                        saved_views::query.eq(&query),
                        saved_views::created_at.eq(at),
                        saved_views::updated_at.eq(at),
                    ))
                    .execute(conn);
                match inserted {
                    // The same name saved at the same moment from another tab: it takes this one.
                    Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                        replace_query(conn, user_id, team_id, &name, &query, at)?;
                    }
                    other => {
                        other?;
                    }
                }
            }
            let row = named_view(conn, user_id, team_id, &name)?.ok_or(Error::NotFound)?;
            Ok(SavedView::from(row))
        })
        .await
    }

    async fn delete_view(&self, id: i64) -> StoreResult<bool> {
        self.write(move |conn| {
            let deleted = diesel::delete(saved_views::table.find(id)).execute(conn)?;
            Ok(deleted > 0)
        })
        .await
    }
}
