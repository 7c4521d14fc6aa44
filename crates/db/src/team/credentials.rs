//! `CredentialRepository` over `api_keys` (and, with identity, `auth_tokens`).
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::api_key::{ApiKey, CredentialRepository, NewApiKey, StoredApiKey};
use leadhub_domain::store::StoreResult;

use crate::schema::api_keys;
use crate::sql::time::{from_db, to_db};
use crate::Database;

#[derive(Queryable, Selectable)]
#[diesel(table_name = api_keys)]
pub(crate) struct ApiKeyRow {
    id: i64,
    user_id: i64,
    name: String,
    prefix: String,
    key_hash: String,
    created_at: NaiveDateTime,
    last_used_at: Option<NaiveDateTime>,
    expires_at: Option<NaiveDateTime>,
    revoked_at: Option<NaiveDateTime>,
}

impl From<ApiKeyRow> for StoredApiKey {
    fn from(r: ApiKeyRow) -> Self {
        StoredApiKey {
            key: ApiKey {
                id: r.id,
                user_id: r.user_id,
                name: r.name,
                prefix: r.prefix,
                created_at: from_db(r.created_at),
                last_used_at: r.last_used_at.map(from_db),
                expires_at: r.expires_at.map(from_db),
                revoked_at: r.revoked_at.map(from_db),
            },
            key_hash: r.key_hash,
        }
    }
}

#[async_trait]
impl CredentialRepository for Database {
    async fn insert_api_key(&self, key: NewApiKey) -> StoreResult<ApiKey> {
        self.write(move |conn| {
            let id = diesel::insert_into(api_keys::table)
                .values((
                    api_keys::user_id.eq(key.user_id),
                    api_keys::name.eq(&key.name),
                    api_keys::prefix.eq(&key.prefix),
                    api_keys::key_hash.eq(&key.key_hash),
                    api_keys::created_at.eq(to_db(key.created_at)),
                    api_keys::expires_at.eq(key.expires_at.map(to_db)),
                ))
                .returning(api_keys::id)
                .get_result::<i64>(conn)?;
            Ok(ApiKey {
                id,
                user_id: key.user_id,
                name: key.name,
                prefix: key.prefix,
                created_at: key.created_at,
                last_used_at: None,
                expires_at: key.expires_at,
                revoked_at: None,
            })
        })
        .await
    }

    async fn list_api_keys(&self, user_id: i64) -> StoreResult<Vec<ApiKey>> {
        self.read(move |conn| {
            let rows = conn.load(
                api_keys::table
                    .filter(api_keys::user_id.eq(user_id))
                    .order((api_keys::created_at.desc(), api_keys::id.desc()))
                    .select(ApiKeyRow::as_select()),
            )?;
            Ok(rows
                .into_iter()
                .map(|r| StoredApiKey::from(r).key)
                .collect())
        })
        .await
    }

    async fn find_api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<StoredApiKey>> {
        self.recent_keys
            .or_read(key_hash, || {
                let query = api_keys::table.filter(api_keys::key_hash.eq(key_hash.to_owned()));
                self.find_first::<ApiKeyRow, _, _>(query.select(ApiKeyRow::as_select()))
            })
            .await
    }

    async fn touch_api_key(&self, id: i64, at: DateTime<Utc>) -> StoreResult<()> {
        self.execute(
            diesel::update(api_keys::table.find(id))
                .set(api_keys::last_used_at.eq(Some(to_db(at)))),
        )
        .await?;
        // The kept copy says so too, or every request would touch the key again.
        self.recent_keys.update(|k| {
            if k.key.id == id {
                k.key.last_used_at = Some(at);
            }
        });
        Ok(())
    }

    async fn revoke_api_key(&self, user_id: i64, id: i64, at: DateTime<Utc>) -> StoreResult<bool> {
        let revoked = self
            .write(move |conn| {
                diesel::update(
                    api_keys::table
                        .filter(api_keys::id.eq(id))
                        .filter(api_keys::user_id.eq(user_id))
                        .filter(api_keys::revoked_at.is_null()),
                )
                .set(api_keys::revoked_at.eq(Some(to_db(at))))
                .execute(conn)
                .map(|n| n > 0)
            })
            .await?;
        // Refused from now on in this process; other processes read it within `RECENT_FOR`.
        self.recent_keys.forget(|k| k.key.id == id);
        Ok(revoked)
    }
}
