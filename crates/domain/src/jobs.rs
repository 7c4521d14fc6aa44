//! The durable job queue as a port: deferred submissions and enrichment retries live in the
//! database, so a crash loses nothing; a worker that dies mid-job leaves a lease that expires.
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};

use crate::store::StoreResult;

/// Process stored `pending` submissions; payload `{"items": [{submission_id, user_id, team_id, fields}]}`.
pub const PROCESS_SUBMISSIONS: &str = "process_submissions";
/// Geocode and appraise leads still `pending_retry`; payload `{"lead_ids": [N, ...]}`.
pub const ENRICH_LEAD: &str = "enrich_lead";

pub const DEFAULT_MAX_ATTEMPTS: i32 = 5;

/// How long an enrichment retry waits: enrichment runs right after the leads' write, and the
/// retry only does what that left undone (nothing, for leads enriched by then).
const ENRICHMENT_RETRY_DELAY_SECS: i64 = 60;

#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    pub kind: String,
    pub payload: serde_json::Value,
    pub run_at: DateTime<Utc>,
    pub max_attempts: i32,
}

impl NewJob {
    pub fn now(kind: &str, payload: serde_json::Value, at: DateTime<Utc>) -> NewJob {
        NewJob {
            kind: kind.to_owned(),
            payload,
            run_at: at,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        }
    }

    /// The retry queued with a lead write for the leads it marked `pending_retry`
    /// (`lead::plan`), so that a crash before their enrichment cannot lose it.
    pub fn enrichment_retry(lead_ids: impl IntoIterator<Item = i64>, now: DateTime<Utc>) -> NewJob {
        let lead_ids: std::collections::BTreeSet<i64> = lead_ids.into_iter().collect();
        NewJob::now(
            ENRICH_LEAD,
            serde_json::json!({ "lead_ids": lead_ids }),
            now + Duration::seconds(ENRICHMENT_RETRY_DELAY_SECS),
        )
    }
}

/// Stored as `queued`, `running`, `done`, `dead` (`FromStr` takes exactly these).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Dead,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: i64,
    pub kind: String,
    pub payload: serde_json::Value,
    pub status: JobStatus,
    /// Attempts made so far, this one included once claimed.
    pub attempts: i32,
    pub max_attempts: i32,
    pub run_at: DateTime<Utc>,
    pub locked_by: Option<String>,
    pub last_error: Option<String>,
    /// When it was queued (or put back by `requeue_dead`): enrichment's give-up period starts here.
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// When a failed job (other than enrichment, `lead::enrichment_retry`) runs again: exponential
/// backoff from 2 s, capped at 10 minutes.
pub fn retry_delay(attempts: i32) -> Duration {
    let exp = attempts.clamp(1, 12) as u32;
    Duration::seconds((2_i64.pow(exp)).min(600))
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait JobQueue: Send + Sync {
    async fn enqueue(&self, jobs: Vec<NewJob>) -> StoreResult<()>;
    /// Takes the next due job for `worker`: a queued one whose time has come, or a running one
    /// whose lease (`locked_at` older than `lease_expired_before`) ran out because its worker died.
    async fn claim(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease_expired_before: DateTime<Utc>,
    ) -> StoreResult<Option<Job>>;
    /// Keeps the lease of a long job alive.
    async fn heartbeat(&self, job_id: i64, worker: &str, at: DateTime<Utc>) -> StoreResult<()>;
    async fn complete(&self, job_id: i64, at: DateTime<Utc>) -> StoreResult<()>;
    /// Puts a claimed job back, due at `run_at`, giving back the attempt its claim counted: it
    /// could not run (a circuit breaker refused what it needs).
    async fn postpone(
        &self,
        job_id: i64,
        run_at: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// Records a failure: queued again at `retry_at`, or dead when `retry_at` is None.
    async fn fail(
        &self,
        job_id: i64,
        error: &str,
        retry_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    async fn jobs_with_status(&self, status: JobStatus, limit: i64) -> StoreResult<Vec<Job>>;
    /// Puts dead jobs back in the queue (all when `ids` is None), with fresh attempts and a fresh
    /// give-up period (`created_at` = `at`).
    async fn requeue_dead(&self, ids: Option<Vec<i64>>, at: DateTime<Utc>) -> StoreResult<usize>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_caps() {
        assert_eq!(retry_delay(1), Duration::seconds(2));
        assert_eq!(retry_delay(2), Duration::seconds(4));
        assert_eq!(retry_delay(5), Duration::seconds(32));
        assert_eq!(retry_delay(30), Duration::seconds(600));
    }
}
