//! `EnrichmentRetryRepository` over `lead_enrichment_retries`: one row per lead whose enrichment
//! ever waited, upserted by the retry job's statements (`INSERT ... ON CONFLICT`, which SQLite and
//! PostgreSQL spell alike).
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};

use leadhub_domain::lead::enrichment_retry::{EnrichmentOutlook, EnrichmentRetryRepository};
use leadhub_domain::lead::record::EnrichmentStatus;
use leadhub_domain::store::StoreResult;

use crate::schema::{lead_enrichment_retries as retries, leads};
use crate::sql::numbered;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection};

/// `$1` lead, `$2` next try, `$3` reason (NULL keeps the stored one), `$4` now. A lead that does
/// not exist (a job queued by hand) gets no row.
const SCHEDULE: &str = "INSERT INTO lead_enrichment_retries (lead_id, next_try_at, gave_up_at, last_reason, updated_at) \
     SELECT id, $2, CAST(NULL AS TIMESTAMP), $3, $4 FROM leads WHERE id = $1 \
     ON CONFLICT (lead_id) DO UPDATE SET next_try_at = excluded.next_try_at, \
     gave_up_at = NULL, last_reason = COALESCE(excluded.last_reason, lead_enrichment_retries.last_reason), \
     updated_at = excluded.updated_at";

/// `$1` lead, `$2` gave up at, `$3` reason.
const GIVE_UP: &str = "INSERT INTO lead_enrichment_retries (lead_id, next_try_at, gave_up_at, last_reason, updated_at) \
     VALUES ($1, NULL, $2, $3, $2) ON CONFLICT (lead_id) DO UPDATE SET next_try_at = NULL, \
     gave_up_at = excluded.gave_up_at, last_reason = excluded.last_reason, updated_at = excluded.updated_at";

/// Records the next try of `lead_ids` inside the caller's transaction (the retry job's insert
/// calls it too, so a lead that waits always says when it is tried next).
pub(crate) fn schedule(
    conn: &mut DbConnection,
    lead_ids: &[i64],
    next_try_at: NaiveDateTime,
    reason: Option<&str>,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let sql = numbered(conn, SCHEDULE);
    for id in lead_ids {
        diesel::sql_query(&sql)
            .bind::<BigInt, _>(id)
            .bind::<Timestamp, _>(next_try_at)
            .bind::<Nullable<Text>, _>(reason)
            .bind::<Timestamp, _>(now)
            .execute(conn)?;
    }
    Ok(())
}

#[async_trait]
impl EnrichmentRetryRepository for Database {
    async fn schedule_retry(
        &self,
        lead_ids: Vec<i64>,
        next_try_at: DateTime<Utc>,
        reason: Option<String>,
    ) -> StoreResult<()> {
        let now = to_db(Utc::now());
        self.write(move |conn| {
            conn.transaction(|conn| {
                schedule(conn, &lead_ids, to_db(next_try_at), reason.as_deref(), now)
            })
        })
        .await
    }

    async fn give_up(
        &self,
        lead_ids: Vec<i64>,
        reason: String,
        at: DateTime<Utc>,
    ) -> StoreResult<usize> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                // Only leads that still wait: one enriched meanwhile (another job, "Enrich
                // again") keeps what it has.
                let given_up: Vec<i64> = leads::table
                    .filter(leads::id.eq_any(&lead_ids))
                    .filter(leads::enrichment_status.eq_any([
                        EnrichmentStatus::PendingRetry.as_str(),
                        EnrichmentStatus::GaveUp.as_str(),
                    ]))
                    .select(leads::id)
                    .load(conn)?;
                diesel::update(leads::table.filter(leads::id.eq_any(&given_up)))
                    .set(leads::enrichment_status.eq(EnrichmentStatus::GaveUp.as_str()))
                    .execute(conn)?;
                let sql = numbered(conn, GIVE_UP);
                for id in &given_up {
                    diesel::sql_query(&sql)
                        .bind::<BigInt, _>(id)
                        .bind::<Timestamp, _>(to_db(at))
                        .bind::<Text, _>(&reason)
                        .execute(conn)?;
                }
                Ok(given_up.len())
            })
        })
        .await
    }

    async fn outlook(&self, lead_id: i64) -> StoreResult<Option<EnrichmentOutlook>> {
        self.read(move |conn| {
            conn.get_result(retries::table.find(lead_id).select((
                retries::next_try_at,
                retries::gave_up_at,
                retries::last_reason,
            )))
            .optional()
            .map(|row| {
                row.map(
                    |(next, gave_up, reason): (
                        Option<NaiveDateTime>,
                        Option<NaiveDateTime>,
                        Option<String>,
                    )| EnrichmentOutlook {
                        next_try_at: next.map(from_db),
                        gave_up_at: gave_up.map(from_db),
                        last_reason: reason,
                    },
                )
            })
        })
        .await
    }
}
