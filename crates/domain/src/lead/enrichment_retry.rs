//! Enrichment retries that outlast an outage of a public geocoder or a county layer.
//!
//! An `enrich_lead` job that leaves leads waiting runs again after an exponential, jittered wait
//! (from a minute up to about an hour), and gives up only when its give-up period
//! (`LEADHUB_ENRICHMENT_GIVE_UP_SECS`, 24 h by default) has passed since it was queued: the leads
//! are then `gave_up` and only "Enrich again" tries them. While every failure was a circuit
//! breaker refusing the call, the job is postponed to when the breaker lets a probe through and
//! spends no attempt: the service was not asked, so nothing was learnt about it.
//!
//! Each lead records what happens next (next try at, or gave up at, and the last reason in
//! words) so its API view and page can say it.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};

use crate::clock::Clock;
use crate::jobs::{Job, JobQueue, NewJob};
use crate::lead::record::{EnrichmentStatus, Lead};
use crate::store::StoreResult;
use crate::submission::Enriched;

/// The reason a round gives when the service's own database failed it (in words, as the
/// providers' reasons are: never the database's message).
pub const DATABASE_FAILED: &str = "database: could not be read or written";

/// How retries are spaced and when they stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// The wait after the first failed try; it doubles with each further one.
    pub first_delay: Duration,
    /// The longest wait between two tries.
    pub longest_delay: Duration,
    /// Counted from when the job was queued.
    pub give_up_after: Duration,
}

impl RetryPolicy {
    /// A minute doubling to an hour: a short blip costs a minute, a long outage about one try
    /// an hour, which public services tolerate.
    pub fn giving_up_after(give_up_after: Duration) -> RetryPolicy {
        RetryPolicy {
            first_delay: Duration::seconds(60),
            longest_delay: Duration::seconds(3600),
            give_up_after,
        }
    }

    /// The wait after `attempts` failed tries; `jitter` in [0, 1). Half the wait is fixed and
    /// half random, so jobs that failed together (one import, one outage) spread out instead of
    /// all asking the recovering service at the same moment.
    pub fn delay(&self, attempts: i32, jitter: f64) -> Duration {
        let doublings = attempts.clamp(1, 30) as u32 - 1;
        let full = self
            .first_delay
            .checked_mul(2_i32.saturating_pow(doublings))
            .unwrap_or(self.longest_delay)
            .min(self.longest_delay);
        let half_ms = full.num_milliseconds() / 2;
        let random_ms = (half_ms as f64 * jitter.clamp(0.0, 1.0)) as i64;
        Duration::milliseconds(half_ms + random_ms)
    }
}

/// What one run of an `enrich_lead` job left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnrichmentRound {
    /// Leads still `pending_retry`.
    pub still_waiting: Vec<i64>,
    /// The first reason in words (`census: could not be reached`).
    pub reason: Option<String>,
    /// Every waiting lead was held back only by open circuit breakers: the longest wait until
    /// they let a probe through.
    pub paused_for: Option<std::time::Duration>,
}

impl EnrichmentRound {
    pub fn of(enriched: &[Enriched]) -> EnrichmentRound {
        let setbacks: Vec<_> = enriched
            .iter()
            .filter(|e| e.update.status == EnrichmentStatus::PendingRetry)
            .map(|e| (e.update.lead_id, e.setback.as_ref()))
            .collect();
        let paused = setbacks
            .iter()
            .map(|(_, s)| s.and_then(|s| s.paused_for))
            .collect::<Option<Vec<_>>>()
            .and_then(|waits| waits.into_iter().max());
        EnrichmentRound {
            still_waiting: setbacks.iter().map(|(id, _)| *id).collect(),
            reason: setbacks
                .iter()
                .find_map(|(_, s)| s.map(|s| s.reason.clone())),
            paused_for: paused,
        }
    }
}

/// What becomes of the job after a round.
#[derive(Debug, Clone, PartialEq)]
pub enum NextStep {
    /// Nothing waits.
    Done,
    /// A breaker is open: run again at this time without spending an attempt.
    Postpone(DateTime<Utc>),
    /// Try again at this time.
    Retry(DateTime<Utc>),
    /// The give-up period has passed.
    GiveUp,
}

/// The step after `round` for a job queued at `queued_at` that has made `attempts` tries.
pub fn next_step(
    policy: &RetryPolicy,
    round: &EnrichmentRound,
    queued_at: DateTime<Utc>,
    attempts: i32,
    now: DateTime<Utc>,
    jitter: f64,
) -> NextStep {
    if round.still_waiting.is_empty() {
        return NextStep::Done;
    }
    let give_up_at = queued_at + policy.give_up_after;
    if now >= give_up_at {
        return NextStep::GiveUp;
    }
    // The last try falls on the give-up time, not past it.
    match round.paused_for {
        Some(wait) => {
            let wait = Duration::from_std(wait)
                .unwrap_or(policy.longest_delay)
                .max(Duration::seconds(1));
            NextStep::Postpone((now + wait).min(give_up_at))
        }
        None => NextStep::Retry((now + policy.delay(attempts, jitter)).min(give_up_at)),
    }
}

/// Where a lead stands with its enrichment retries.
#[derive(Debug, Clone, PartialEq)]
pub struct EnrichmentOutlook {
    pub next_try_at: Option<DateTime<Utc>>,
    pub gave_up_at: Option<DateTime<Utc>>,
    /// What held it back the last time, in words.
    pub last_reason: Option<String>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait EnrichmentRetryRepository: Send + Sync {
    /// The leads wait for a try at `next_try_at`; `reason` replaces the stored one when given.
    async fn schedule_retry(
        &self,
        lead_ids: Vec<i64>,
        next_try_at: DateTime<Utc>,
        reason: Option<String>,
    ) -> StoreResult<()>;
    /// Marks the leads that still wait `gave_up` at `at`, with the reason; answers how many.
    async fn give_up(
        &self,
        lead_ids: Vec<i64>,
        reason: String,
        at: DateTime<Utc>,
    ) -> StoreResult<usize>;
    async fn outlook(&self, lead_id: i64) -> StoreResult<Option<EnrichmentOutlook>>;
    /// Queues `job`, the retry of `lead_id` after "Enrich again", unless an `enrich_lead` job
    /// that is queued or running covers the lead already; answers whether it queued it.
    async fn queue_retry_unless_queued(&self, lead_id: i64, job: NewJob) -> StoreResult<bool>;
}

/// Settles `enrich_lead` jobs after each round and tells what lies ahead for a lead.
pub struct EnrichmentRetries {
    pub jobs: Arc<dyn JobQueue>,
    pub retries: Arc<dyn EnrichmentRetryRepository>,
    pub clock: Arc<dyn Clock>,
    pub policy: RetryPolicy,
}

impl EnrichmentRetries {
    /// Records the round on the job and its leads; `jitter` in [0, 1).
    pub async fn settle(
        &self,
        job: &Job,
        round: EnrichmentRound,
        jitter: f64,
    ) -> StoreResult<NextStep> {
        let now = self.clock.now();
        let step = next_step(
            &self.policy,
            &round,
            job.created_at,
            job.attempts,
            now,
            jitter,
        );
        let waiting = round.still_waiting.len();
        let reason = round.reason.clone();
        let words = reason.as_deref().unwrap_or("no reason given");
        match &step {
            NextStep::Done => self.jobs.complete(job.id, now).await?,
            NextStep::Postpone(at) => {
                self.retries
                    .schedule_retry(round.still_waiting, *at, reason)
                    .await?;
                self.jobs.postpone(job.id, *at, now).await?;
            }
            NextStep::Retry(at) => {
                let error = format!("{waiting} lead(s) still wait for enrichment: {words}");
                self.retries
                    .schedule_retry(round.still_waiting, *at, reason)
                    .await?;
                self.jobs.fail(job.id, &error, Some(*at), now).await?;
            }
            NextStep::GiveUp => {
                let error = format!(
                    "gave up after {}: {waiting} lead(s) still wait for enrichment: {words}",
                    span_words(self.policy.give_up_after)
                );
                self.retries
                    .give_up(round.still_waiting, words.to_owned(), now)
                    .await?;
                self.jobs.fail(job.id, &error, None, now).await?;
            }
        }
        Ok(step)
    }

    /// What lies ahead for a lead that waits for enrichment or was given up; None otherwise.
    pub async fn outlook(&self, lead: &Lead) -> StoreResult<Option<EnrichmentOutlook>> {
        match lead.enrichment_status {
            EnrichmentStatus::PendingRetry | EnrichmentStatus::GaveUp => {
                self.retries.outlook(lead.id).await
            }
            _ => Ok(None),
        }
    }
}

/// `24 h`, `90 min`, `45 s`: the give-up period as a person reads it.
fn span_words(span: Duration) -> String {
    let s = span.num_seconds();
    if s >= 3600 && s % 3600 == 0 {
        format!("{} h", s / 3600)
    } else if s >= 60 && s % 60 == 0 {
        format!("{} min", s / 60)
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
#[path = "enrichment_retry_tests.rs"]
mod tests;
