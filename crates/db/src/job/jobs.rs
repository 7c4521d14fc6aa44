//! `JobQueue` over the `jobs` table.
//!
//! Claiming is one statement per backend: PostgreSQL picks the row with `FOR UPDATE SKIP LOCKED`
//! so concurrent workers (in any number of processes) never take the same job; SQLite has one
//! writer at a time, so the same UPDATE ... WHERE id = (SELECT ...) is just as exclusive.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};

use leadhub_domain::jobs::{Job, JobQueue, JobStatus, NewJob, ENRICH_LEAD};
use leadhub_domain::store::StoreResult;

use crate::job::job_wakeups::{announce, Work};
use crate::lead::enrichment_retries::schedule;
use crate::schema::jobs;
use crate::sql::error::{stored_rows, stored_word};
use crate::sql::numbered;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection};

#[derive(QueryableByName, Queryable, Selectable)]
#[diesel(table_name = jobs)]
struct JobRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Integer)]
    max_attempts: i32,
    #[diesel(sql_type = Timestamp)]
    run_at: NaiveDateTime,
    #[diesel(sql_type = Nullable<Text>)]
    locked_by: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
    #[diesel(sql_type = Timestamp)]
    created_at: NaiveDateTime,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
}

impl TryFrom<JobRow> for Job {
    type Error = diesel::result::Error;

    fn try_from(r: JobRow) -> Result<Self, Self::Error> {
        Ok(Job {
            id: r.id,
            kind: r.kind,
            payload: serde_json::from_str(&r.payload).unwrap_or(serde_json::Value::Null),
            status: stored_word("jobs.status", &r.status)?,
            attempts: r.attempts,
            max_attempts: r.max_attempts,
            run_at: from_db(r.run_at),
            locked_by: r.locked_by,
            last_error: r.last_error,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

const RETURNING: &str = "RETURNING id, kind, payload, status, attempts, max_attempts, run_at, locked_by, last_error, created_at, updated_at";

/// Inserts jobs inside the caller's transaction (submissions and their job commit together). The
/// caller wakes this process's workers after the commit when a job is due now. An enrichment
/// retry also records its leads' next try (`lead_enrichment_retries`).
pub(crate) fn insert_jobs(
    conn: &mut DbConnection,
    new: &[NewJob],
    at: NaiveDateTime,
) -> QueryResult<()> {
    for j in new {
        diesel::insert_into(jobs::table)
            .values((
                jobs::kind.eq(&j.kind),
                jobs::payload.eq(j.payload.to_string()),
                jobs::status.eq(JobStatus::Queued.as_str()),
                jobs::attempts.eq(0),
                jobs::max_attempts.eq(j.max_attempts),
                jobs::run_at.eq(to_db(j.run_at)),
                jobs::created_at.eq(at),
                jobs::updated_at.eq(at),
            ))
            .execute(conn)?;
        if j.kind == ENRICH_LEAD {
            let ids: Vec<i64> = j
                .payload
                .get("lead_ids")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default();
            schedule(conn, &ids, to_db(j.run_at), None, at)?;
        }
    }
    if new.iter().any(|j| to_db(j.run_at) <= at) {
        announce(conn, Work::Jobs)?;
    }
    Ok(())
}

#[async_trait]
impl JobQueue for Database {
    async fn enqueue(&self, new: Vec<NewJob>) -> StoreResult<()> {
        let now = Utc::now();
        self.write(move |conn| conn.transaction(|conn| insert_jobs(conn, &new, to_db(now))))
            .await
    }

    async fn claim(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease_expired_before: DateTime<Utc>,
    ) -> StoreResult<Option<Job>> {
        let worker = worker.to_owned();
        self.write(move |conn| {
            let pick = match conn {
                DbConnection::Postgres(_) => "SELECT id FROM jobs WHERE (status = 'queued' AND run_at <= $1) \
                     OR (status = 'running' AND locked_at < $2) ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                DbConnection::Sqlite(_) => "SELECT id FROM jobs WHERE (status = 'queued' AND run_at <= $1) \
                     OR (status = 'running' AND locked_at < $2) ORDER BY run_at, id LIMIT 1",
            };
            let sql = format!(
                "UPDATE jobs SET status = 'running', locked_at = $3, locked_by = $4, attempts = attempts + 1, \
                 updated_at = $3 WHERE id = ({pick}) {RETURNING}"
            );
            let sql = numbered(conn, &sql);
            diesel::sql_query(sql)
                .bind::<Timestamp, _>(to_db(now))
                .bind::<Timestamp, _>(to_db(lease_expired_before))
                .bind::<Timestamp, _>(to_db(now))
                .bind::<Text, _>(worker)
                .get_result::<JobRow>(conn)
                .optional()
                .and_then(|r| r.map(Job::try_from).transpose())
        })
        .await
    }

    async fn heartbeat(&self, job_id: i64, worker: &str, at: DateTime<Utc>) -> StoreResult<()> {
        let worker = worker.to_owned();
        self.execute(
            diesel::update(
                jobs::table
                    .find(job_id)
                    .filter(jobs::locked_by.eq(worker))
                    .filter(jobs::status.eq("running")),
            )
            .set(jobs::locked_at.eq(Some(to_db(at)))),
        )
        .await
    }

    async fn complete(&self, job_id: i64, at: DateTime<Utc>) -> StoreResult<()> {
        self.execute(diesel::update(jobs::table.find(job_id)).set((
            jobs::status.eq(JobStatus::Done.as_str()),
            jobs::updated_at.eq(to_db(at)),
            jobs::last_error.eq(None::<String>),
        )))
        .await
    }

    async fn postpone(
        &self,
        job_id: i64,
        run_at: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.execute(
            diesel::update(jobs::table.find(job_id).filter(jobs::status.eq("running"))).set((
                jobs::status.eq(JobStatus::Queued.as_str()),
                jobs::attempts.eq(jobs::attempts - 1),
                jobs::run_at.eq(to_db(run_at)),
                jobs::locked_at.eq(None::<NaiveDateTime>),
                jobs::updated_at.eq(to_db(at)),
            )),
        )
        .await
    }

    async fn fail(
        &self,
        job_id: i64,
        error: &str,
        retry_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        let error = error.chars().take(2000).collect::<String>();
        self.write(move |conn| {
            let status = if retry_at.is_some() {
                JobStatus::Queued
            } else {
                JobStatus::Dead
            };
            diesel::update(jobs::table.find(job_id))
                .set((
                    jobs::status.eq(status.as_str()),
                    jobs::last_error.eq(Some(error)),
                    jobs::run_at.eq(to_db(retry_at.unwrap_or(at))),
                    jobs::locked_at.eq(None::<NaiveDateTime>),
                    jobs::updated_at.eq(to_db(at)),
                ))
                .execute(conn)
                .map(drop)
        })
        .await
    }

    async fn jobs_with_status(&self, status: JobStatus, limit: i64) -> StoreResult<Vec<Job>> {
        self.read(move |conn| {
            conn.load(
                jobs::table
                    .filter(jobs::status.eq(status.as_str()))
                    .order(jobs::id.asc())
                    .limit(limit)
                    .select(JobRow::as_select()),
            )
            .and_then(stored_rows::<JobRow, Job>)
        })
        .await
    }

    async fn requeue_dead(&self, ids: Option<Vec<i64>>, at: DateTime<Utc>) -> StoreResult<usize> {
        self.write(move |conn| {
            let values = (
                jobs::status.eq(JobStatus::Queued.as_str()),
                jobs::attempts.eq(0),
                jobs::run_at.eq(to_db(at)),
                jobs::created_at.eq(to_db(at)),
                jobs::updated_at.eq(to_db(at)),
            );
            match ids {
                Some(ids) => diesel::update(
                    jobs::table
                        .filter(jobs::status.eq("dead"))
                        .filter(jobs::id.eq_any(ids)),
                )
                .set(values)
                .execute(conn),
                None => diesel::update(jobs::table.filter(jobs::status.eq("dead")))
                    .set(values)
                    .execute(conn),
            }
        })
        .await
    }
}
