//! `UserRepository` over the `users` table.
use async_trait::async_trait;
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::store::StoreResult;
use leadhub_domain::user::{NewUser, User, UserRepository};

use crate::schema::users;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection, IN_LIST_CHUNK};

#[derive(Queryable, Selectable)]
#[diesel(table_name = users)]
pub(crate) struct UserRow {
    id: i64,
    user_id: String,
    email: String,
    first_name: Option<String>,
    last_name: Option<String>,
    is_admin: bool,
    created_at: NaiveDateTime,
    follow_up_digest: bool,
    utc_offset_minutes: Option<i32>,
}

impl From<UserRow> for User {
    fn from(r: UserRow) -> Self {
        User {
            id: r.id,
            user_id: r.user_id,
            email: r.email,
            first_name: r.first_name,
            last_name: r.last_name,
            is_admin: r.is_admin,
            created_at: from_db(r.created_at),
            follow_up_digest: r.follow_up_digest,
            utc_offset: r.utc_offset_minutes.and_then(UtcOffset::from_minutes),
        }
    }
}

/// Inserts `user`; fails on a taken e-mail address (a unique violation).
pub(crate) fn insert_user(conn: &mut DbConnection, user: NewUser) -> QueryResult<User> {
    let id = diesel::insert_into(users::table)
        .values((
            users::user_id.eq(&user.user_id),
            users::email.eq(&user.email),
            users::first_name.eq(&user.first_name),
            users::last_name.eq(&user.last_name),
            users::is_admin.eq(user.is_admin),
            users::created_at.eq(to_db(user.created_at)),
            users::updated_at.eq(to_db(user.created_at)),
            users::follow_up_digest.eq(user.follow_up_digest),
            users::utc_offset_minutes.eq(user.utc_offset.map(UtcOffset::minutes)),
        ))
        .returning(users::id)
        .get_result::<i64>(conn)?;
    Ok(user.stored(id))
}

/// The row id of the user with public id `public`, as a subselect (none when no user has it):
/// a list filter naming a person (`assignee`, `contacted_by`) finds nothing for an unknown id.
#[diesel::dsl::auto_type]
pub(crate) fn row_id_of(public: String) -> _ {
    users::table
        .filter(users::user_id.eq(public))
        .select(users::id.nullable())
}

/// The accounts still in use: every lookup starts here, so a deactivated one is never found.
fn live_users() -> diesel::dsl::Filter<users::table, diesel::dsl::IsNull<users::deactivated_at>> {
    users::table.filter(users::deactivated_at.is_null())
}

/// Every lookup skips a deactivated account (`leadhub user deactivate`): none of its keys, tokens
/// or sign-in links works any more, and its e-mail address cannot be taken again by a new one.
#[async_trait]
impl UserRepository for Database {
    async fn insert(&self, user: NewUser) -> StoreResult<User> {
        self.write(move |conn| insert_user(conn, user)).await
    }

    async fn find_by_email(&self, email: &str) -> StoreResult<Option<User>> {
        let query = live_users().filter(users::email.eq(email.to_owned()));
        self.find_first::<UserRow, _, _>(query.select(UserRow::as_select()))
            .await
    }

    async fn find_by_user_id(&self, user_id: &str) -> StoreResult<Option<User>> {
        let query = live_users().filter(users::user_id.eq(user_id.to_owned()));
        self.find_first::<UserRow, _, _>(query.select(UserRow::as_select()))
            .await
    }

    async fn find_by_internal_id(&self, id: i64) -> StoreResult<Option<User>> {
        self.recent_users
            .or_read(&id, || {
                self.find_first::<UserRow, _, _>(
                    live_users()
                        .filter(users::id.eq(id))
                        .select(UserRow::as_select()),
                )
            })
            .await
    }

    async fn find_by_internal_ids(&self, ids: &[i64]) -> StoreResult<Vec<User>> {
        let ids = ids.to_vec();
        self.read(move |conn| {
            let mut found = Vec::with_capacity(ids.len());
            for chunk in ids.chunks(IN_LIST_CHUNK) {
                found.extend(
                    conn.load(
                        live_users()
                            .filter(users::id.eq_any(chunk))
                            .select(UserRow::as_select()),
                    )?
                    .into_iter()
                    .map(User::from),
                );
            }
            Ok(found)
        })
        .await
    }

    async fn first_admin(&self) -> StoreResult<Option<User>> {
        let query = live_users().filter(users::is_admin.eq(true));
        self.find_first::<UserRow, _, _>(query.order(users::id.asc()).select(UserRow::as_select()))
            .await
    }
}
