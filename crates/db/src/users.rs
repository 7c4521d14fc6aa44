//! `UserRepository` over the `users` table.
use async_trait::async_trait;
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::store::StoreResult;
use leadhub_domain::user::{NewUser, User, UserRepository};

use crate::schema::users;
use crate::time::{from_db, to_db};
use crate::Database;

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
        }
    }
}

#[async_trait]
impl UserRepository for Database {
    async fn insert(&self, user: NewUser) -> StoreResult<User> {
        self.write(move |conn| {
            let id = diesel::insert_into(users::table)
                .values((
                    users::user_id.eq(&user.user_id),
                    users::email.eq(&user.email),
                    users::first_name.eq(&user.first_name),
                    users::last_name.eq(&user.last_name),
                    users::is_admin.eq(user.is_admin),
                    users::created_at.eq(to_db(user.created_at)),
                    users::updated_at.eq(to_db(user.created_at)),
                ))
                .returning(users::id)
                .get_result::<i64>(conn)?;
            Ok(User {
                id,
                user_id: user.user_id,
                email: user.email,
                first_name: user.first_name,
                last_name: user.last_name,
                is_admin: user.is_admin,
                created_at: user.created_at,
            })
        })
        .await
    }

    async fn find_by_email(&self, email: &str) -> StoreResult<Option<User>> {
        let email = email.to_owned();
        self.read(move |conn| {
            conn.first(
                users::table
                    .filter(users::email.eq(email))
                    .select(UserRow::as_select()),
            )
            .optional()
            .map(|r| r.map(User::from))
        })
        .await
    }

    async fn find_by_user_id(&self, user_id: &str) -> StoreResult<Option<User>> {
        let user_id = user_id.to_owned();
        self.read(move |conn| {
            conn.first(
                users::table
                    .filter(users::user_id.eq(user_id))
                    .select(UserRow::as_select()),
            )
            .optional()
            .map(|r| r.map(User::from))
        })
        .await
    }

    async fn find_by_internal_id(&self, id: i64) -> StoreResult<Option<User>> {
        self.recent_users
            .or_read(id, || {
                self.read(move |conn| {
                    conn.first(users::table.find(id).select(UserRow::as_select()))
                        .optional()
                        .map(|r| r.map(User::from))
                })
            })
            .await
    }

    async fn first_admin(&self) -> StoreResult<Option<User>> {
        self.read(move |conn| {
            conn.first(
                users::table
                    .filter(users::is_admin.eq(true))
                    .order(users::id.asc())
                    .select(UserRow::as_select()),
            )
            .optional()
            .map(|r| r.map(User::from))
        })
        .await
    }
}
