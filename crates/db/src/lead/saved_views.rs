//! `SavedViewRepository` over `saved_views`: a person's named lists of leads.
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
            name: r.name,
            query: r.query,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        }
    }
}

/// The view `name` of `user_id` given `query`: how many rows took it (0: there is none).
fn replace_query(
    conn: &mut DbConnection,
    user_id: i64,
    name: &str,
    query: &str,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        saved_views::table
            .filter(saved_views::user_id.eq(user_id))
            .filter(saved_views::name.eq(name)),
    )
    .set((saved_views::query.eq(query), saved_views::updated_at.eq(at)))
    .execute(conn)
}

#[async_trait]
impl SavedViewRepository for Database {
    async fn views_of(&self, user_id: i64) -> StoreResult<Vec<SavedView>> {
        self.read(move |conn| {
            let rows: Vec<SavedViewRow> = conn.load(
                saved_views::table
                    .filter(saved_views::user_id.eq(user_id))
                    .order((saved_views::name.asc(), saved_views::id.asc()))
                    .select(SavedViewRow::as_select()),
            )?;
            Ok(rows.into_iter().map(SavedView::from).collect())
        })
        .await
    }

    async fn save_view(
        &self,
        user_id: i64,
        name: String,
        query: String,
        at: DateTime<Utc>,
    ) -> StoreResult<SavedView> {
        self.write(move |conn| {
            let at = to_db(at);
            if replace_query(conn, user_id, &name, &query, at)? == 0 {
                let inserted = diesel::insert_into(saved_views::table)
                    .values((
                        saved_views::user_id.eq(user_id),
                        saved_views::name.eq(&name),
                        saved_views::query.eq(&query),
                        saved_views::created_at.eq(at),
                        saved_views::updated_at.eq(at),
                    ))
                    .execute(conn);
                match inserted {
                    // The same name saved at the same moment from another tab: it takes this one.
                    Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                        replace_query(conn, user_id, &name, &query, at)?;
                    }
                    other => {
                        other?;
                    }
                }
            }
            let row: SavedViewRow = saved_views::table
                .filter(saved_views::user_id.eq(user_id))
                .filter(saved_views::name.eq(&name))
                .select(SavedViewRow::as_select())
                .first(conn)?;
            Ok(SavedView::from(row))
        })
        .await
    }

    async fn delete_view(&self, user_id: i64, id: i64) -> StoreResult<bool> {
        self.write(move |conn| {
            let deleted = diesel::delete(
                saved_views::table
                    .filter(saved_views::id.eq(id))
                    .filter(saved_views::user_id.eq(user_id)),
            )
            .execute(conn)?;
            Ok(deleted > 0)
        })
        .await
    }
}
