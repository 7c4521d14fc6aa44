//! `EnrichmentRetryRepository` over `lead_enrichment_retries`: one row per lead whose enrichment
//! ever waited, upserted by the retry job's statements (`INSERT ... ON CONFLICT`, which SQLite and
//! PostgreSQL spell alike).
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};

use leadhub_domain::jobs::NewJob;
use leadhub_domain::lead::enrichment_retry::{EnrichmentOutlook, EnrichmentRetryRepository};
use leadhub_domain::lead::record::EnrichmentStatus;
use leadhub_domain::store::StoreResult;

use crate::job::jobs::insert_jobs;
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

/// `$1` lead: how many `enrich_lead` jobs, queued or running, have it in their `lead_ids`. The
/// payload is JSON text, read with each backend's JSON functions.
const RETRIES_OF_SQLITE: &str =
    "SELECT COUNT(*) AS n FROM jobs, json_each(jobs.payload, '$.lead_ids') AS l \
     WHERE jobs.kind = 'enrich_lead' AND jobs.status IN ('queued', 'running') AND l.value = $1";
const RETRIES_OF_POSTGRES: &str = "SELECT COUNT(*) AS n FROM jobs \
     WHERE kind = 'enrich_lead' AND status IN ('queued', 'running') \
     AND (payload::jsonb -> 'lead_ids') @> to_jsonb($1::bigint)";

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Whether an `enrich_lead` job that is queued or running covers `lead_id`, in the caller's
/// transaction. On PostgreSQL it first takes a transaction lock for the lead, so two "Enrich
/// again" at once cannot both find none and both queue one (SQLite's writers take turns).
fn retry_queued(conn: &mut DbConnection, lead_id: i64) -> QueryResult<bool> {
    let sql = match conn {
        DbConnection::Sqlite(_) => RETRIES_OF_SQLITE.replace("$1", "?1"),
        DbConnection::Postgres(pg) => {
            diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind::<Text, _>(format!("enrich_lead|{lead_id}"))
                .execute(pg)?;
            RETRIES_OF_POSTGRES.to_owned()
        }
    };
    let found: Count = diesel::sql_query(sql)
        .bind::<BigInt, _>(lead_id)
        .get_result(conn)?;
    Ok(found.n > 0)
}

#[async_trait]
impl EnrichmentRetryRepository for Database {
    async fn queue_retry_unless_queued(&self, lead_id: i64, job: NewJob) -> StoreResult<bool> {
        let now = to_db(Utc::now());
        self.write(move |conn| {
            conn.transaction(|conn| {
                if retry_queued(conn, lead_id)? {
                    return Ok(false);
                }
                insert_jobs(conn, std::slice::from_ref(&job), now)?;
                Ok(true)
            })
        })
        .await
    }

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
