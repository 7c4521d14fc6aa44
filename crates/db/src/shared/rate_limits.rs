//! `RateLimitStore` over `rate_limit_counters`: counts shared by every process on one database.
//!
//! One statement per hit: an upsert that returns the new count. MultiConnection cannot express
//! `ON CONFLICT`, so the raw SQL runs on the concrete connection (PostgreSQL, and SQLite >= 3.35,
//! which has `RETURNING`). Ended windows are deleted by whichever process notices first, at most
//! once per `PRUNE_INTERVAL_SECS` per process.
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use diesel::sql_types::{BigInt, Integer, Text};
use diesel::{QueryableByName, RunQueryDsl};

use leadhub_domain::rate_limit::{
    MemoryRateLimitStore, RateLimitStore, Window, LONGEST_WINDOW_SECS,
};
use leadhub_domain::store::StoreResult;

use crate::{Backend, Database, DbConnection};

const PRUNE_INTERVAL_SECS: i64 = 300;

impl Database {
    /// Where rate-limit and mail-throttle counts live: several processes may share a PostgreSQL
    /// database, so its counters live there; a SQLite file is served by one process, whose
    /// memory is the cheaper place to count.
    pub fn rate_limit_store(&self) -> Arc<dyn RateLimitStore> {
        match self.backend() {
            Backend::Postgres => Arc::new(DatabaseRateLimitStore::new(self.clone())),
            Backend::Sqlite => Arc::new(MemoryRateLimitStore::new()),
        }
    }
}

const PG_UPSERT: &str =
    "INSERT INTO rate_limit_counters (bucket, window_start, hits) VALUES ($1, $2, 1) \
     ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 \
     RETURNING hits";
const SQLITE_UPSERT: &str =
    "INSERT INTO rate_limit_counters (bucket, window_start, hits) VALUES (?, ?, 1) \
     ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 \
     RETURNING hits";

const PG_PRUNE: &str = "DELETE FROM rate_limit_counters WHERE window_start < $1";
const SQLITE_PRUNE: &str = "DELETE FROM rate_limit_counters WHERE window_start < ?";

#[derive(QueryableByName)]
struct Hits {
    #[diesel(sql_type = Integer)]
    hits: i32,
}

pub struct DatabaseRateLimitStore {
    db: Database,
    last_prune: AtomicI64,
}

impl DatabaseRateLimitStore {
    pub fn new(db: Database) -> DatabaseRateLimitStore {
        DatabaseRateLimitStore {
            db,
            last_prune: AtomicI64::new(0),
        }
    }
}

#[async_trait]
impl RateLimitStore for DatabaseRateLimitStore {
    async fn hit(&self, bucket: &str, window: Window, now: i64) -> StoreResult<u64> {
        // Every process prunes with the same horizon (the longest window of any limit, not only
        // those this process has seen), so none deletes a window another is still counting in.
        let longest = LONGEST_WINDOW_SECS.max(window.length);
        let last = self.last_prune.load(Ordering::Relaxed);
        let prune_before = (now - last >= PRUNE_INTERVAL_SECS
            && self
                .last_prune
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok())
        .then_some(now - longest);
        let bucket = bucket.to_owned();
        let hits = self
            .db
            .write(move |conn| {
                let hits = match conn {
                    DbConnection::Postgres(c) => diesel::sql_query(PG_UPSERT)
                        .bind::<Text, _>(&bucket)
                        .bind::<BigInt, _>(window.start)
                        .get_result::<Hits>(c)?,
                    DbConnection::Sqlite(c) => diesel::sql_query(SQLITE_UPSERT)
                        .bind::<Text, _>(&bucket)
                        .bind::<BigInt, _>(window.start)
                        .get_result::<Hits>(c)?,
                };
                if let Some(before) = prune_before {
                    match conn {
                        DbConnection::Postgres(c) => diesel::sql_query(PG_PRUNE)
                            .bind::<BigInt, _>(before)
                            .execute(c)?,
                        DbConnection::Sqlite(c) => diesel::sql_query(SQLITE_PRUNE)
                            .bind::<BigInt, _>(before)
                            .execute(c)?,
                    };
                }
                Ok(hits.hits)
            })
            .await?;
        Ok(u64::try_from(hits).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn counts_and_prunes_on_sqlite() {
        let dir = std::env::temp_dir().join(format!("lh_rl_{}", std::process::id()));
        let db = Database::connect(&format!("sqlite://{}/t.db", dir.display()), 2).unwrap();
        db.migrate().unwrap();
        let store = DatabaseRateLimitStore::new(db.clone());
        let old = Window::containing(0, 60);
        assert_eq!(store.hit("a", old, 10).await.unwrap(), 1);
        assert_eq!(store.hit("a", old, 10).await.unwrap(), 2);
        assert_eq!(store.hit("b", old, 10).await.unwrap(), 1);
        // Far later: the first hit of this process since 10 s prunes the old window,
        // but not the running hour.
        let hour = Window::containing(9_990, 3600);
        assert_eq!(store.hit("h", hour, 9_990).await.unwrap(), 1);
        let now = 10_000;
        let current = Window::containing(now, 60);
        assert_eq!(store.hit("a", current, now).await.unwrap(), 1);
        let rows: i64 = db
            .read(|conn| {
                use crate::schema::rate_limit_counters::dsl::*;
                use diesel::prelude::*;
                conn.get_result(rate_limit_counters.count())
            })
            .await
            .unwrap();
        assert_eq!(rows, 2);
        let _ = std::fs::remove_dir_all(dir);
    }
}
