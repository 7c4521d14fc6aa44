//! The morning e-mail of follow-ups due (docs/working-leads.md, "Follow-ups"): once a day, from
//! `LEADHUB_FOLLOW_UP_DIGEST_HOUR` on their own clock (`User::utc_offset`; UTC's where their
//! browser never said), each person with open leads of theirs due for a follow-up by their day,
//! or given to them by someone else in the last day (`GIVEN_WITHIN`), gets one e-mail naming
//! them, unless they turned it off. Each UTC hour's digest is one job of
//! the durable queue, queued once whichever process sees the hour first; it sends to everyone
//! whose day has reached the hour. Each person's e-mail is recorded as sent for their day before
//! it goes, so a later hour or a retried job sends only what is still owed.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, DurationRound, NaiveDate, TimeDelta, Timelike, Utc};

use crate::clock::{Clock, UtcOffset};
use crate::error::ServiceError;
use crate::jobs::NewJob;
use crate::mail::{DueLine, LeadList, Mailer, Message};
use crate::store::StoreResult;

/// An hour's digest; payload `{"hour": "<RFC 3339>"}` (the UTC hour it was queued for).
pub const FOLLOW_UP_DIGEST: &str = "follow_up_digest";
/// Leads named in one e-mail, soonest day first; the rest are behind its link to the list.
pub const DIGEST_LISTED: i64 = 20;
/// A person's open leads not contacted yet: where an e-mail of leads given to them links.
pub(super) const NOT_CONTACTED_YET: &str = "/leads?assignee=me&status=open&contacted=false";
/// How far back a lead given to the person counts as new to them: a day, from one morning's
/// e-mail to the next (a late e-mail names a few of them twice rather than none).
pub const GIVEN_WITHIN: TimeDelta = TimeDelta::hours(24);

/// One lead in a digest.
#[derive(Debug, Clone, PartialEq)]
pub struct DueLead {
    pub id: i64,
    pub address: String,
    /// The property owner's name, when the lead has one.
    pub owner: Option<String>,
    pub status: String,
    pub follow_up_on: Option<NaiveDate>,
}

/// One part of a digest: how many leads it counts, and the first `DIGEST_LISTED` of them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DueLeads {
    pub count: i64,
    pub first: Vec<DueLead>,
}

/// A person owed a digest: their open leads due by the day (the soonest day first), and those
/// given to them lately by someone else and not due (the latest lead first).
#[derive(Debug, Clone, PartialEq)]
pub struct DuePerson {
    pub user_id: i64,
    pub email: String,
    pub due: DueLeads,
    pub given: DueLeads,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DigestRepository: Send + Sync {
    /// Queues `job`, the digest of the UTC hour beginning at `hour`, unless one was queued for
    /// that hour before (by any process); true when this call queued it.
    async fn queue_digest(&self, hour: DateTime<Utc>, job: NewJob) -> StoreResult<bool>;
    /// Where the days of the people who may be owed a digest begin: the offsets of the active
    /// users who have not turned it off (UTC for those whose browser never said), each once.
    async fn digest_offsets(&self) -> StoreResult<Vec<UtcOffset>>;
    /// The people whose day begins at `offset` and whose digest of `day` is not sent yet:
    /// active users who have not turned it off, with live leads assigned to them in an open
    /// status (`OPEN_STATUSES`) whose follow-up day is `day` or earlier (due), or that someone
    /// else (or the service) assigned to them after `given_since` and are not due (given); each
    /// with the counts and the first `listed` of either, the soonest day and the latest lead first.
    async fn owed_digests(
        &self,
        day: NaiveDate,
        offset: UtcOffset,
        given_since: DateTime<Utc>,
        listed: i64,
    ) -> StoreResult<Vec<DuePerson>>;
    /// `user_id`'s e-mail address and those of `lead_ids` still theirs, live and open (the
    /// latest first, `listed` named), as `DuePerson::given`; None for a deactivated person or
    /// one who turned the e-mail of their leads off.
    async fn given_in_turn(
        &self,
        user_id: i64,
        lead_ids: Vec<i64>,
        listed: i64,
    ) -> StoreResult<Option<DuePerson>>;
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
    /// Records where `user_id`'s day begins (`User::utc_offset` carries it on each request).
    async fn set_utc_offset(&self, user_id: i64, offset: UtcOffset) -> StoreResult<()>;
}

/// Built with a struct literal from its ports and settings.
pub struct FollowUpDigests {
    pub digests: Arc<dyn DigestRepository>,
    pub mailer: Arc<dyn Mailer>,
    pub clock: Arc<dyn Clock>,
    /// The hour of each person's day from which their digest goes out; None: no digests.
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

/// How one person's e-mail went.
enum Delivery {
    Sent,
    /// Another worker claimed it first.
    Taken,
    /// The mailer refused it (why); the claim was released.
    Failed(String),
}

impl FollowUpDigests {
    /// The UTC hour now (its first instant), with digests on: each hour's job sends to the
    /// people whose day has reached the digest hour by then.
    pub fn due_hour(&self) -> Option<DateTime<Utc>> {
        self.hour?;
        let now = self.clock.now();
        Some(now.duration_trunc(TimeDelta::hours(1)).unwrap_or(now))
    }

    /// Queues the digest of `hour` unless some process did; true when this call queued it. A
    /// scheduler asks once an hour (`due_hour`), so each process writes once an hour.
    pub async fn queue(&self, hour: DateTime<Utc>) -> Result<bool, ServiceError> {
        let job = NewJob::now(
            FOLLOW_UP_DIGEST,
            serde_json::json!({ "hour": hour.to_rfc3339() }),
            self.clock.now(),
        );
        Ok(self.digests.queue_digest(hour, job).await?)
    }

    /// Sends their digest of today to everyone still owed it whose day has reached the digest
    /// hour, by the clock when the job runs (a job retried later sends for the day it is then).
    pub async fn send(&self) -> Result<DigestRun, String> {
        let mut run = DigestRun::default();
        let Some(hour) = self.hour else {
            return Ok(run);
        };
        let now = self.clock.now();
        let offsets = self
            .digests
            .digest_offsets()
            .await
            .map_err(|e| e.to_string())?;
        let mut first_error = None;
        for offset in offsets {
            let local = offset.local(now);
            if local.hour() < hour {
                continue;
            }
            let day = local.date();
            let people = self
                .digests
                .owed_digests(day, offset, now - GIVEN_WITHIN, DIGEST_LISTED)
                .await
                .map_err(|e| e.to_string())?;
            for person in people {
                match self.deliver(day, person).await? {
                    Delivery::Sent => run.sent += 1,
                    Delivery::Failed(e) => {
                        run.failed += 1;
                        first_error.get_or_insert(e);
                    }
                    Delivery::Taken => {}
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

    /// Sends `person` their e-mail of `day` unless another worker claimed it meanwhile. Err:
    /// the store failed, and the job stops there (its retry sends what is still owed).
    async fn deliver(&self, day: NaiveDate, person: DuePerson) -> Result<Delivery, String> {
        let user_id = person.user_id;
        let claimed = self
            .digests
            .claim_digest(user_id, day, self.clock.now())
            .await
            .map_err(|e| e.to_string())?;
        if !claimed {
            return Ok(Delivery::Taken);
        }
        match self.mailer.send(&self.message(day, person)).await {
            Ok(()) => Ok(Delivery::Sent),
            Err(e) => {
                // Released, so the job's retry sends it.
                self.digests
                    .release_digest(user_id, day)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(Delivery::Failed(e.to_string()))
            }
        }
    }

    /// `part` as an e-mail's list: each lead a link to its page, and `list_url` (a path of the
    /// service) to them all.
    pub(super) fn lead_list(&self, part: DueLeads, list_url: &str) -> LeadList {
        let base = &self.public_url;
        LeadList {
            count: part.count,
            leads: part
                .first
                .into_iter()
                .map(|l| DueLine {
                    url: format!("{base}/leads/{}", l.id),
                    address: l.address,
                    owner: l.owner,
                    status: l.status,
                    follow_up_on: l.follow_up_on,
                })
                .collect(),
            list_url: format!("{base}{list_url}"),
        }
    }

    /// Where a person turns the e-mails about their leads off: the dashboard's switch.
    pub(super) fn settings_url(&self) -> String {
        format!("{}/#digest", self.public_url)
    }

    fn message(&self, day: NaiveDate, person: DuePerson) -> Message {
        let due = format!("/leads?assignee=me&status=open&follow_up_by={day}&sort=follow_up_on");
        Message::FollowUpsDue {
            to: person.email,
            day,
            due: self.lead_list(person.due, &due),
            given: self.lead_list(person.given, NOT_CONTACTED_YET),
            settings_url: self.settings_url(),
        }
    }

    pub async fn set_wanted(&self, user_id: i64, wanted: bool) -> Result<(), ServiceError> {
        Ok(self.digests.set_wants_digest(user_id, wanted).await?)
    }

    /// Records where `user_id`'s day begins, for their e-mail's hour and day.
    pub async fn set_offset(&self, user_id: i64, offset: UtcOffset) -> Result<(), ServiceError> {
        Ok(self.digests.set_utc_offset(user_id, offset).await?)
    }
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
