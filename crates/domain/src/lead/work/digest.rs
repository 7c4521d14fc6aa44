//! The morning e-mail of follow-ups due (docs/working-leads.md, "Follow-ups"): once a day, from
//! `LEADHUB_FOLLOW_UP_DIGEST_HOUR` (UTC) on, each person with open leads of theirs due for a
//! follow-up gets one e-mail naming them, unless they turned it off. The day's digest is one job
//! of the durable queue, queued once whichever process sees the hour first; each person's e-mail
//! is recorded as sent before it goes, so a retried job sends only what is still owed.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Timelike, Utc};

use crate::clock::Clock;
use crate::error::ServiceError;
use crate::jobs::{Job, NewJob};
use crate::mail::{DueLine, Mailer, Message};
use crate::store::StoreResult;

/// The day's digest; payload `{"day": "YYYY-MM-DD"}`.
pub const FOLLOW_UP_DIGEST: &str = "follow_up_digest";
/// Leads named in one e-mail, soonest day first; the rest are behind its link to the list.
pub const DIGEST_LISTED: i64 = 20;

/// One lead in a digest.
#[derive(Debug, Clone, PartialEq)]
pub struct DueLead {
    pub id: i64,
    pub address: String,
    /// The property owner's name, when the lead has one.
    pub owner: Option<String>,
    pub status: String,
    pub follow_up_on: NaiveDate,
}

/// A person owed a digest: their open leads due by the day.
#[derive(Debug, Clone, PartialEq)]
pub struct DuePerson {
    pub user_id: i64,
    pub email: String,
    /// All of their due leads; `leads` holds the first `DIGEST_LISTED`.
    pub due: i64,
    pub leads: Vec<DueLead>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DigestRepository: Send + Sync {
    /// Queues `job`, the digest of `day`, unless one was queued for that day before (by any
    /// process); true when this call queued it.
    async fn queue_digest(&self, day: NaiveDate, job: NewJob) -> StoreResult<bool>;
    /// The people whose digest of `day` is not sent yet: active users who have not turned it
    /// off, with live leads assigned to them in an open status (`OPEN_STATUSES`) whose
    /// follow-up day is `day` or earlier; each with the count and the first `listed` of them,
    /// soonest day first.
    async fn due_follow_ups(&self, day: NaiveDate, listed: i64) -> StoreResult<Vec<DuePerson>>;
    /// Records `user_id`'s digest of `day` as sent; false when it already was (another worker).
    async fn claim_digest(
        &self,
        user_id: i64,
        day: NaiveDate,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Takes back `claim_digest` after the e-mail failed, so the job's retry sends it.
    async fn release_digest(&self, user_id: i64, day: NaiveDate) -> StoreResult<()>;
    /// Turns `user_id`'s digest on or off (`User::follow_up_digest` carries it on each request).
    async fn set_wants_digest(&self, user_id: i64, wanted: bool) -> StoreResult<()>;
}

/// Built with a struct literal from its ports and settings.
pub struct FollowUpDigests {
    pub digests: Arc<dyn DigestRepository>,
    pub mailer: Arc<dyn Mailer>,
    pub clock: Arc<dyn Clock>,
    /// The UTC hour from which a day's digest goes out; None: no digests.
    pub hour: Option<u32>,
    /// The service's own address, for the links in the e-mail.
    pub public_url: String,
}

/// What one run of a day's digest did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DigestRun {
    pub sent: usize,
    pub failed: usize,
}

impl FollowUpDigests {
    /// Today (UTC) once the digest's hour has come; None before it, or with digests off.
    pub fn due_day(&self) -> Option<NaiveDate> {
        let now = self.clock.now();
        (now.hour() >= self.hour?).then(|| now.date_naive())
    }

    /// Queues the digest of `day` unless some process did; true when this call queued it. A
    /// scheduler asks once a day (`due_day`), so each process writes once a day.
    pub async fn queue(&self, day: NaiveDate) -> Result<bool, ServiceError> {
        let job = NewJob::now(
            FOLLOW_UP_DIGEST,
            serde_json::json!({ "day": day.to_string() }),
            self.clock.now(),
        );
        Ok(self.digests.queue_digest(day, job).await?)
    }

    /// Sends the digest of `job`'s day to everyone still owed it. A day already past is not
    /// sent (a job retried after midnight would call yesterday's leads due "today").
    pub async fn send(&self, job: &Job) -> Result<DigestRun, String> {
        let day = job
            .payload
            .get("day")
            .and_then(|d| d.as_str())
            .and_then(|d| d.parse::<NaiveDate>().ok())
            .ok_or("bad payload: no day")?;
        if day < self.clock.now().date_naive() {
            return Ok(DigestRun::default());
        }
        let people = self
            .digests
            .due_follow_ups(day, DIGEST_LISTED)
            .await
            .map_err(|e| e.to_string())?;
        let mut run = DigestRun::default();
        let mut first_error = None;
        for person in people {
            let user_id = person.user_id;
            let claimed = self
                .digests
                .claim_digest(user_id, day, self.clock.now())
                .await
                .map_err(|e| e.to_string())?;
            if !claimed {
                continue;
            }
            match self.mailer.send(&self.message(day, person)).await {
                Ok(()) => run.sent += 1,
                Err(e) => {
                    run.failed += 1;
                    first_error.get_or_insert(e.to_string());
                    self.digests
                        .release_digest(user_id, day)
                        .await
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        match first_error {
            // Failed as a job, so the queue retries the ones not sent.
            Some(e) => Err(format!(
                "{} of {} follow-up e-mails not sent: {e}",
                run.failed,
                run.failed + run.sent
            )),
            None => Ok(run),
        }
    }

    fn message(&self, day: NaiveDate, person: DuePerson) -> Message {
        let base = &self.public_url;
        Message::FollowUpsDue {
            to: person.email,
            day,
            due: person.due,
            leads: person
                .leads
                .into_iter()
                .map(|l| DueLine {
                    url: format!("{base}/leads/{}", l.id),
                    address: l.address,
                    owner: l.owner,
                    status: l.status,
                    follow_up_on: l.follow_up_on,
                })
                .collect(),
            list_url: format!("{base}/leads?assignee=me&follow_up_by={day}&sort=follow_up_on"),
            settings_url: format!("{base}/#digest"),
        }
    }

    pub async fn set_wanted(&self, user_id: i64, wanted: bool) -> Result<(), ServiceError> {
        Ok(self.digests.set_wants_digest(user_id, wanted).await?)
    }
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
