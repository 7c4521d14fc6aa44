//! `SessionRepository` over `auth_tokens` and `sign_in_links`.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::session::{NewToken, RetireOutcome, SessionRepository, StoredToken};
use leadhub_domain::store::StoreResult;

use crate::schema::{auth_tokens, sign_in_links};
use crate::sql::error::stored_word;
use crate::sql::time::{from_db, to_db};
use crate::Database;

#[derive(Queryable, Selectable)]
#[diesel(table_name = auth_tokens)]
struct TokenRow {
    id: i64,
    user_id: i64,
    kind: String,
    token_hash: String,
    family_id: String,
    expires_at: NaiveDateTime,
    retired_at: Option<NaiveDateTime>,
    revoked_at: Option<NaiveDateTime>,
}

impl TryFrom<TokenRow> for StoredToken {
    type Error = diesel::result::Error;

    fn try_from(r: TokenRow) -> Result<Self, Self::Error> {
        Ok(StoredToken {
            id: r.id,
            user_id: r.user_id,
            kind: stored_word("auth_tokens.kind", &r.kind)?,
            token_hash: r.token_hash,
            family_id: r.family_id,
            expires_at: from_db(r.expires_at),
            retired_at: r.retired_at.map(from_db),
            revoked_at: r.revoked_at.map(from_db),
        })
    }
}

#[async_trait]
impl SessionRepository for Database {
    async fn insert_tokens(&self, tokens: Vec<NewToken>) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                for t in &tokens {
                    diesel::insert_into(auth_tokens::table)
                        .values((
                            auth_tokens::user_id.eq(t.user_id),
                            auth_tokens::kind.eq(t.kind.as_str()),
                            auth_tokens::token_hash.eq(&t.token_hash),
                            auth_tokens::family_id.eq(&t.family_id),
                            auth_tokens::created_at.eq(to_db(t.created_at)),
                            auth_tokens::expires_at.eq(to_db(t.expires_at)),
                        ))
                        .execute(conn)?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn find_token(&self, token_hash: &str) -> StoreResult<Option<StoredToken>> {
        let query = auth_tokens::table.filter(auth_tokens::token_hash.eq(token_hash.to_owned()));
        self.find_first::<TokenRow, _, _>(query.select(TokenRow::as_select()))
            .await
    }

    async fn retire_refresh(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> StoreResult<RetireOutcome> {
        let hash = token_hash.to_owned();
        self.write(move |conn| {
            // One conditional UPDATE: of two concurrent refreshes with one token, one retires it.
            let retired = diesel::update(
                auth_tokens::table
                    .filter(auth_tokens::token_hash.eq(&hash))
                    .filter(auth_tokens::kind.eq("refresh"))
                    .filter(auth_tokens::retired_at.is_null())
                    .filter(auth_tokens::revoked_at.is_null()),
            )
            .set(auth_tokens::retired_at.eq(Some(to_db(at))))
            .execute(conn)?;
            if retired == 1 {
                return Ok(RetireOutcome::Retired);
            }
            let state: Option<(Option<NaiveDateTime>, Option<NaiveDateTime>)> = auth_tokens::table
                .filter(auth_tokens::token_hash.eq(&hash))
                .select((auth_tokens::retired_at, auth_tokens::revoked_at))
                .first(conn)
                .optional()?;
            Ok(match state {
                Some((Some(_), _)) => RetireOutcome::AlreadyRetired,
                _ => RetireOutcome::Unusable,
            })
        })
        .await
    }

    async fn revoke_family(&self, family_id: &str, at: DateTime<Utc>) -> StoreResult<()> {
        let family = family_id.to_owned();
        self.execute(
            diesel::update(
                auth_tokens::table
                    .filter(auth_tokens::family_id.eq(family))
                    .filter(auth_tokens::revoked_at.is_null()),
            )
            .set(auth_tokens::revoked_at.eq(Some(to_db(at)))),
        )
        .await
    }

    async fn insert_sign_in_link(
        &self,
        user_id: i64,
        token_hash: &str,
        created_at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> StoreResult<()> {
        let hash = token_hash.to_owned();
        self.execute(diesel::insert_into(sign_in_links::table).values((
            sign_in_links::user_id.eq(user_id),
            sign_in_links::token_hash.eq(hash),
            sign_in_links::created_at.eq(to_db(created_at)),
            sign_in_links::expires_at.eq(to_db(expires_at)),
        )))
        .await
    }

    async fn spend_sign_in_link(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<i64>> {
        let hash = token_hash.to_owned();
        self.write(move |conn| {
            conn.transaction(|conn| {
                let spent = diesel::update(
                    sign_in_links::table
                        .filter(sign_in_links::token_hash.eq(&hash))
                        .filter(sign_in_links::used_at.is_null())
                        .filter(sign_in_links::expires_at.gt(to_db(at))),
                )
                .set(sign_in_links::used_at.eq(Some(to_db(at))))
                .execute(conn)?;
                if spent == 0 {
                    return Ok(None);
                }
                sign_in_links::table
                    .filter(sign_in_links::token_hash.eq(&hash))
                    .select(sign_in_links::user_id)
                    .first(conn)
                    .map(Some)
            })
        })
        .await
    }
}
