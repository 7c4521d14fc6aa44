//! `SubmissionService`: runs submissions through the pipeline and returns what became of them.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Datelike, Utc};

use crate::clock::Clock;
use crate::error::ServiceError;
use crate::jobs::NewJob;
use crate::lead::enrichment_retry::{EnrichmentRetryRepository, EnrichmentRound, DATABASE_FAILED};
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::normalize::normalize;
use crate::lead::record::{
    EnrichmentStatus, EnrichmentUpdate, Lead, LeadAction, LeadCursor, LeadFilter, LeadRepository,
    LeadWrite,
};
use crate::lead::work::AssigneeFilter;
use crate::secret::TokenGenerator;
use crate::submission::enrichment::{Enriched, Enricher};
use crate::submission::record::{
    BatchSummary, NewBatch, NewSubmission, Submission, SubmissionOutcome, SubmissionRepository,
    SubmissionStatus,
};
use crate::team_access::{may_add_to_team, may_see_team, visible_teams, MembershipRepository};
use crate::user::{User, UserRepository};

mod processing;

pub use processing::FreshWritten;

pub type SubmissionError = ServiceError;

/// A lead filter with the caller's visibility applied; only `SubmissionService::visible_filter`
/// makes one, so every list and export of leads goes through the same rule.
#[derive(Debug, Clone)]
pub struct VisibleLeadFilter(LeadFilter);

impl VisibleLeadFilter {
    pub(crate) fn into_filter(self) -> LeadFilter {
        self.0
    }

    #[cfg(test)]
    pub(crate) fn everything() -> VisibleLeadFilter {
        VisibleLeadFilter(LeadFilter::default())
    }

    /// `filter` as if `visible_filter` had made it (unit tests of the services it feeds).
    #[cfg(test)]
    pub(crate) fn trusted(filter: LeadFilter) -> VisibleLeadFilter {
        VisibleLeadFilter(filter)
    }
}

/// The submissions a person may see, as `may_see` decides one by one: everything for an admin,
/// else their own and those of their teams. Only `SubmissionService::visible_submissions`
/// makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct VisibleSubmissions {
    user_id: i64,
    /// None: every team (an admin).
    teams: Option<Vec<i64>>,
}

impl VisibleSubmissions {
    pub fn user_id(&self) -> i64 {
        self.user_id
    }

    /// None when every submission is visible; else the teams whose submissions are.
    pub fn teams(&self) -> Option<&[i64]> {
        self.teams.as_deref()
    }

    #[cfg(test)]
    pub(crate) fn everything() -> VisibleSubmissions {
        VisibleSubmissions {
            user_id: 0,
            teams: None,
        }
    }
}

/// One submission in a lead's history, with who sent it (None: the account is gone).
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    pub submission: Submission,
    pub submitter: Option<User>,
}

/// One validated lead as submitted.
#[derive(Debug, Clone)]
pub struct SubmissionRequest {
    pub fields: LeadFields,
    pub team_id: Option<i64>,
    /// The element exactly as received, kept verbatim.
    pub raw_json: String,
    /// A single submission sent with an `Idempotency-Key`: the key's claim, stored with the
    /// submission in its transaction (batch elements leave it to their batch).
    pub idempotency_key_id: Option<i64>,
    /// The element names its lead's owner (an import row's owner column, set once the lead is
    /// written): a new lead of it is not given in turn (`team::turns`).
    pub owner_chosen: bool,
}

/// One element of a submission: its position in the request, its submitter, the request.
type Element = (usize, i64, SubmissionRequest);

/// Why a lead with no field at all is refused (contract 3.1): a 422 for a single submission,
/// a failed element in a batch.
pub const NO_FIELD: &str = "A lead needs at least one field; this one has none";

/// What became of one submitted lead.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementOutcome {
    pub index: usize,
    pub submission_id: i64,
    pub status: SubmissionStatus,
    pub lead_id: Option<i64>,
    pub action: Option<LeadAction>,
    pub warnings: Vec<Warning>,
    pub error: Option<String>,
    /// The lead ends the request otherwise than it began it: created, or changed by a merge
    /// that later elements of the batch did not undo (`lead::plan::ElementPlan::lead_changed`).
    /// An `updated` element whose lead is unchanged in the end is what an import counts as
    /// skipped; the element's own answer stays `updated` (contract 3.3).
    pub lead_changed: bool,
}

impl ElementOutcome {
    /// The outcome to record for this element's submission, processed at `at`.
    pub(crate) fn finished(&self, at: DateTime<Utc>) -> SubmissionOutcome {
        SubmissionOutcome {
            id: self.submission_id,
            status: self.status,
            lead_id: self.lead_id,
            action: self.action,
            warnings: self.warnings.clone(),
            error: self.error.clone(),
            processed_at: at,
        }
    }
}

/// Stored submissions still to be processed: (submission id, user id, team id, fields).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct PendingWork(pub Vec<PendingItem>);

/// One stored submission to process: (submission id, user id, team id, fields).
pub type PendingItem = (i64, i64, Option<i64>, LeadFields);

#[derive(Debug, Clone, PartialEq)]
pub struct BatchOutcome {
    pub batch_id: String,
    pub elements: Vec<ElementOutcome>,
}

/// Built with a struct literal from its ports: it holds them and nothing else.
pub struct SubmissionService {
    pub leads: Arc<dyn LeadRepository>,
    pub submissions: Arc<dyn SubmissionRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub users: Arc<dyn UserRepository>,
    pub enricher: Enricher,
    /// Where "Enrich again" queues the retry of a lead that still waits.
    pub retries: Arc<dyn EnrichmentRetryRepository>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
}

impl SubmissionService {
    /// A team may take leads only from its members (and platform admins), and only while active.
    async fn check_team(&self, user: &User, team_id: i64) -> Result<(), SubmissionError> {
        may_add_to_team(self.memberships.as_ref(), user, team_id)
            .await?
            .map_err(|reason| SubmissionError::Forbidden(reason.to_owned()))
    }

    /// Whether `user` may submit `request` on its own (its team, if any, takes the user's leads).
    pub async fn admit_single(
        &self,
        user: &User,
        request: &SubmissionRequest,
    ) -> Result<(), SubmissionError> {
        match request.team_id {
            Some(team_id) => self.check_team(user, team_id).await,
            None => Ok(()),
        }
    }

    /// Single submissions of any callers, each admitted by `admit_single`, stored verbatim in
    /// one write with their leads, as a batch's would be; `answer_singles` then enriches them
    /// and returns their outcomes. Two steps, so a caller holding the writer lets go first.
    pub async fn write_singles(
        &self,
        singles: Vec<(i64, SubmissionRequest)>,
    ) -> Result<FreshWritten, SubmissionError> {
        let elements = singles
            .into_iter()
            .enumerate()
            .map(|(at, (user_id, request))| (at, user_id, request))
            .collect();
        let (submissions, writes) = self.fresh_writes(elements, None, self.clock.now());
        self.record_fresh(None, submissions, writes).await
    }

    /// Enriches what `write_singles` wrote where needed and returns each submission's
    /// outcome, in the order of the singles.
    pub async fn answer_singles(
        &self,
        fresh: FreshWritten,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let count = fresh.ids.len();
        let mut outcomes = self
            .conclude(&fresh.ids, &fresh.writes, fresh.written)
            .await?;
        // Fresh submissions are never final already, so each has its outcome, in order.
        if outcomes.len() != count {
            return Err(SubmissionError::Unexpected(anyhow::anyhow!(
                "{count} single submissions gave {} outcomes",
                outcomes.len()
            )));
        }
        // Each answers on its own: it is no element of anything.
        for outcome in &mut outcomes {
            outcome.index = 0;
        }
        Ok(outcomes)
    }

    /// Stores every element, then processes them now, or returns them `pending` and leaves
    /// them to the job queue's workers.
    pub async fn submit_batch(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        team_id: Option<i64>,
        process_immediately: bool,
        idempotency_key_id: Option<i64>,
    ) -> Result<BatchOutcome, SubmissionError> {
        let mut batch = self.new_batch(user, requests.len(), team_id, process_immediately);
        batch.idempotency_key_id = idempotency_key_id;
        self.submit(user, requests, Some(batch)).await
    }

    /// One chunk of a spreadsheet import, processed now: a batch as `submit_batch` stores it,
    /// linked to the browser upload it came from (`upload_id`), so the upload's leads can be
    /// listed (`LeadFilter::upload`).
    pub async fn submit_import_chunk(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        team_id: Option<i64>,
        upload_id: Option<i64>,
    ) -> Result<BatchOutcome, SubmissionError> {
        let mut batch = self.new_batch(user, requests.len(), team_id, true);
        batch.upload_id = upload_id;
        self.submit(user, requests, Some(batch)).await
    }

    /// A new batch of `total` elements by `user`, now, with no idempotency key or upload.
    fn new_batch(
        &self,
        user: &User,
        total: usize,
        team_id: Option<i64>,
        process_immediately: bool,
    ) -> NewBatch {
        NewBatch {
            id: self.tokens.public_id("bat_"),
            user_id: user.id,
            team_id,
            total: i32::try_from(total).unwrap_or(i32::MAX),
            process_immediately,
            created_at: self.clock.now(),
            idempotency_key_id: None,
            upload_id: None,
        }
    }

    async fn submit(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        batch: Option<NewBatch>,
    ) -> Result<BatchOutcome, SubmissionError> {
        let teams: BTreeSet<i64> = requests.iter().filter_map(|r| r.team_id).collect();
        for team_id in teams {
            self.check_team(user, team_id).await?;
        }
        let submitters = vec![user.id; requests.len()];
        self.store_and_process(submitters, requests, batch).await
    }

    /// Stores every request verbatim with its submitter (`submitters[i]` sent `requests[i]`),
    /// then processes them now, or returns them `pending` when the batch is deferred. An element
    /// with no field at all fails (contract 3.1): it is stored verbatim, with the batch, before
    /// the others, and failed with the reason once they are stored, so its batch is never
    /// complete before every element is final.
    async fn store_and_process(
        &self,
        submitters: Vec<i64>,
        requests: Vec<SubmissionRequest>,
        batch: Option<NewBatch>,
    ) -> Result<BatchOutcome, SubmissionError> {
        let now = self.clock.now();
        let batch_id = batch.as_ref().map(|b| b.id.clone());
        let deferred = batch.as_ref().is_some_and(|b| !b.process_immediately);
        let (empty, filled): (Vec<Element>, Vec<Element>) = submitters
            .into_iter()
            .zip(requests)
            .enumerate()
            .map(|(at, (user_id, request))| (at, user_id, request))
            .partition(|(_, _, request)| request.fields.is_empty());
        // Those with no field first, with the batch, so that it completes only once every
        // element is final; failed below, whatever became of the others.
        let (batch, failed) = if empty.is_empty() {
            (batch, Vec::new())
        } else {
            let positions: Vec<usize> = empty.iter().map(|(at, _, _)| *at).collect();
            let new = empty
                .into_iter()
                .map(|(at, user_id, r)| {
                    let id = batch_id.as_deref();
                    new_submission(id, at, user_id, r.team_id, r.raw_json, None, now)
                })
                .collect();
            let ids = self.submissions.insert_submissions(batch, new).await?;
            let failed = positions
                .into_iter()
                .zip(ids)
                .map(|(index, submission_id)| ElementOutcome {
                    index,
                    submission_id,
                    status: SubmissionStatus::Failed,
                    lead_id: None,
                    action: None,
                    warnings: Vec::new(),
                    error: Some(NO_FIELD.to_owned()),
                    lead_changed: false,
                })
                .collect();
            (None, failed)
        };
        let stored = if filled.is_empty() && batch.is_none() {
            Ok(Vec::new())
        } else {
            self.store_filled(batch, filled, batch_id.as_deref(), deferred, now)
                .await
        };
        if !failed.is_empty() {
            self.submissions
                .finish_submissions(failed.iter().map(|e| e.finished(now)).collect())
                .await?;
        }
        let mut elements = stored?;
        elements.extend(failed);
        elements.sort_by_key(|e| e.index);
        Ok(BatchOutcome {
            batch_id: batch_id.unwrap_or_default(),
            elements,
        })
    }

    /// Stores elements that hold a field (each with its position in the request), with the
    /// batch when given; processes them now, or leaves them `pending` to the job queue's
    /// workers when the batch is deferred.
    async fn store_filled(
        &self,
        batch: Option<NewBatch>,
        filled: Vec<Element>,
        batch_id: Option<&str>,
        deferred: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let positions: Vec<usize> = filled.iter().map(|(at, _, _)| *at).collect();
        let mut elements = if deferred {
            // Stored verbatim with their jobs, the fields too; the job queue's workers process
            // them.
            let new = filled
                .into_iter()
                .map(|(at, user_id, r)| {
                    let fields = Some(Box::new(r.fields));
                    let mut new =
                        new_submission(batch_id, at, user_id, r.team_id, r.raw_json, fields, now);
                    new.idempotency_key_id = r.idempotency_key_id;
                    new
                })
                .collect();
            let ids = self.submissions.insert_submissions(batch, new).await?;
            ids.iter()
                .enumerate()
                .map(|(index, id)| ElementOutcome {
                    index,
                    submission_id: *id,
                    status: SubmissionStatus::Pending,
                    lead_id: None,
                    action: None,
                    warnings: Vec::new(),
                    error: None,
                    lead_changed: false,
                })
                .collect()
        } else {
            let (submissions, writes) = self.fresh_writes(filled, batch_id, now);
            self.process_fresh(batch, submissions, writes).await?
        };
        // Outcomes come numbered in the order given: back to the request's positions.
        for e in &mut elements {
            e.index = positions.get(e.index).copied().unwrap_or(e.index);
        }
        Ok(elements)
    }

    /// The submissions to store verbatim and their normalised leads to write (`writes[i]` is
    /// the lead of `submissions[i]`), from elements given as (position in the batch,
    /// submitter, request).
    fn fresh_writes(
        &self,
        elements: Vec<Element>,
        batch_id: Option<&str>,
        now: DateTime<Utc>,
    ) -> (Vec<NewSubmission>, Vec<LeadWrite>) {
        let year = now.year();
        let enrich_later = self.enricher.is_configured();
        elements
            .into_iter()
            .map(|(at, user_id, r)| {
                let write = LeadWrite {
                    team_id: r.team_id,
                    user_id,
                    lead: normalize(&r.fields, year),
                    submission_id: None,
                    enrich_later,
                    owner_chosen: r.owner_chosen,
                };
                let mut submission =
                    new_submission(batch_id, at, user_id, r.team_id, r.raw_json, None, now);
                submission.idempotency_key_id = r.idempotency_key_id;
                (submission, write)
            })
            .unzip()
    }

    /// Processes stored `pending` submissions (a deferred batch's job); those already final
    /// are left alone, so a job run twice after a crash applies each submission once.
    pub async fn process_pending(
        &self,
        work: PendingWork,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let work = self.refuse_unauthorised(work.0).await?;
        let year = self.clock.now().year();
        let enrich_later = self.enricher.is_configured();
        let writes = work
            .into_iter()
            .map(|(id, user_id, team_id, fields)| LeadWrite {
                team_id,
                user_id,
                lead: normalize(&fields, year),
                submission_id: Some(id),
                enrich_later,
                // A deferred batch comes from the API, whose elements name no owner.
                owner_chosen: false,
            })
            .collect();
        self.write_and_conclude(writes).await
    }

    /// A deferred submission was authorised when it was queued; what held then may not hold
    /// when its job runs (the submitter left the team, or the team was deactivated). Those
    /// still open are failed with the reason; the rest are returned to be processed.
    async fn refuse_unauthorised(
        &self,
        work: Vec<PendingItem>,
    ) -> Result<Vec<PendingItem>, SubmissionError> {
        let mut verdicts: HashMap<(i64, i64), Option<&'static str>> = HashMap::new();
        for (_, user_id, team_id, _) in &work {
            let Some(team_id) = *team_id else { continue };
            if verdicts.contains_key(&(*user_id, team_id)) {
                continue;
            }
            let verdict = match self.users.find_by_internal_id(*user_id).await? {
                None => Some("The submitter's account no longer exists"),
                Some(user) => may_add_to_team(self.memberships.as_ref(), &user, team_id)
                    .await?
                    .err(),
            };
            verdicts.insert((*user_id, team_id), verdict);
        }
        let refusal = |(_, user_id, team_id, _): &PendingItem| {
            team_id.and_then(|t| verdicts.get(&(*user_id, t)).copied().flatten())
        };
        let (refused, allowed): (Vec<_>, Vec<_>) =
            work.into_iter().partition(|item| refusal(item).is_some());
        if refused.is_empty() {
            return Ok(allowed);
        }
        let open: HashSet<i64> = self
            .submissions
            .find_submissions(refused.iter().map(|item| item.0).collect())
            .await?
            .into_iter()
            .filter(|s| {
                matches!(
                    s.status,
                    SubmissionStatus::Pending | SubmissionStatus::Processing
                )
            })
            .map(|s| s.id)
            .collect();
        let now = self.clock.now();
        let outcomes: Vec<SubmissionOutcome> = refused
            .iter()
            .filter(|item| open.contains(&item.0))
            .map(|item| SubmissionOutcome {
                id: item.0,
                status: SubmissionStatus::Failed,
                lead_id: None,
                action: None,
                warnings: Vec::new(),
                error: refusal(item).map(|reason| {
                    format!("Not processed: {reason} (checked when the deferred batch ran)")
                }),
                processed_at: now,
            })
            .collect();
        if !outcomes.is_empty() {
            tracing::warn!(
                refused = outcomes.len(),
                "deferred submissions no longer authorised; failed"
            );
            self.submissions.finish_submissions(outcomes).await?;
        }
        Ok(allowed)
    }

    /// Runs enrichment for these leads now; returns the warnings per lead.
    async fn enrich_leads(
        &self,
        lead_ids: Vec<i64>,
    ) -> Result<std::collections::HashMap<i64, Vec<Warning>>, SubmissionError> {
        let mut warnings = std::collections::HashMap::new();
        if !self.enricher.is_configured() || lead_ids.is_empty() {
            return Ok(warnings);
        }
        let leads: Vec<Lead> = self.leads.find_leads(lead_ids).await?;
        let mut results = self.enricher.enrich_telling(leads).await;
        for e in &mut results {
            warnings.insert(e.update.lead_id, std::mem::take(&mut e.warnings));
        }
        self.store_enriched(results).await?;
        Ok(warnings)
    }

    /// Stores what enrichment changed (`Enriched::to_save`); nothing, not even a write
    /// transaction, when it changed no lead.
    async fn store_enriched(&self, enriched: Vec<Enriched>) -> Result<(), SubmissionError> {
        let updates: Vec<EnrichmentUpdate> = enriched
            .into_iter()
            .filter(|e| e.to_save)
            .map(|e| e.update)
            .collect();
        if !updates.is_empty() {
            let now = self.clock.now();
            self.leads.save_enrichment(updates, None, now).await?;
        }
        Ok(())
    }

    /// The enrichment job: leads still `pending_retry` (or given up, when an operator put the job
    /// back) are enriched again. Answers which still wait and what held them back, so the job can
    /// be retried, postponed or given up (`lead::enrichment_retry`).
    ///
    /// A database failure is a round like an outage: every lead of the job still waits, so the
    /// job keeps to the enrichment schedule and in the end gives the leads up, where a failed
    /// job would die after a few quick tries and leave them `pending_retry` for ever.
    pub async fn retry_enrichment(&self, lead_ids: Vec<i64>) -> EnrichmentRound {
        match self.enrichment_round(lead_ids.clone()).await {
            Ok(round) => round,
            Err(error) => {
                tracing::warn!(%error, "enrichment round failed on the database; the leads still wait");
                EnrichmentRound {
                    still_waiting: lead_ids,
                    reason: Some(DATABASE_FAILED.to_owned()),
                    paused_for: None,
                }
            }
        }
    }

    async fn enrichment_round(
        &self,
        lead_ids: Vec<i64>,
    ) -> Result<EnrichmentRound, SubmissionError> {
        let waiting: Vec<Lead> = self
            .leads
            .find_leads(lead_ids)
            .await?
            .into_iter()
            .filter(|l| {
                matches!(
                    l.enrichment_status,
                    EnrichmentStatus::PendingRetry | EnrichmentStatus::GaveUp
                )
            })
            .collect();
        if waiting.is_empty() {
            return Ok(EnrichmentRound::default());
        }
        if !self.enricher.is_configured() {
            // Switched off since the leads were written: they wait until it is back or the job
            // gives up, as in an outage.
            return Ok(EnrichmentRound {
                still_waiting: waiting.iter().map(|l| l.id).collect(),
                reason: Some("no geocoder or appraisal service is configured".to_owned()),
                paused_for: None,
            });
        }
        let enriched = self.enricher.enrich_telling(waiting).await;
        let round = EnrichmentRound::of(&enriched);
        self.store_enriched(enriched).await?;
        Ok(round)
    }

    /// Enriches one lead again on request (any status), for those who may see it, and retries
    /// it later if it still waits (`follow_up`).
    pub async fn enrich_now(&self, user: &User, lead_id: i64) -> Result<Lead, SubmissionError> {
        let lead = self.lead(user, lead_id).await?;
        self.enrich_again(lead, Some(user.id)).await?;
        let lead = self.lead(user, lead_id).await?;
        self.follow_up(&lead).await?;
        Ok(lead)
    }

    /// Enriches a lead again whoever asks (the operator's CLI), and retries it later if it still
    /// waits (`follow_up`); returns it afterwards.
    pub async fn enrich_lead_again(&self, lead_id: i64) -> Result<Lead, SubmissionError> {
        let lead = self
            .leads
            .find_lead(lead_id)
            .await?
            .ok_or(SubmissionError::NotFound("Lead"))?;
        self.enrich_again(lead, None).await?;
        let lead = self
            .leads
            .find_lead(lead_id)
            .await?
            .ok_or(SubmissionError::NotFound("Lead"))?;
        self.follow_up(&lead).await?;
        Ok(lead)
    }

    /// After "Enrich again": a lead that still waits is retried like a new one (a job of its
    /// own, whose give-up period starts now), unless a queued or running retry job covers it
    /// already: that job retries it, and a second one would only ask the same provider twice.
    async fn follow_up(&self, lead: &Lead) -> Result<(), SubmissionError> {
        if lead.enrichment_status != EnrichmentStatus::PendingRetry {
            return Ok(());
        }
        let job = NewJob::enrichment_retry([lead.id], self.clock.now());
        self.retries.queue_retry_unless_queued(lead.id, job).await?;
        Ok(())
    }

    async fn enrich_again(
        &self,
        mut lead: Lead,
        actor: Option<i64>,
    ) -> Result<(), SubmissionError> {
        if !self.enricher.is_configured() {
            return Ok(());
        }
        // Forget what the stages found before so they run again; coordinates the
        // submitter gave (no geocode recorded) are the submitter's and stay.
        if lead.geocode.take().is_some() {
            lead.fields.latitude = None;
            lead.fields.longitude = None;
        }
        lead.appraisal = None;
        let results = self.enricher.enrich(vec![lead]).await;
        self.leads
            .save_enrichment(
                results.into_iter().map(|(u, _)| u).collect(),
                actor,
                self.clock.now(),
            )
            .await?;
        Ok(())
    }

    /// Whether `user` may see something of `team_id` submitted by `owner`.
    async fn may_see(
        &self,
        user: &User,
        team_id: Option<i64>,
        owner: Option<i64>,
    ) -> Result<bool, SubmissionError> {
        if user.is_admin || owner == Some(user.id) {
            return Ok(true);
        }
        match team_id {
            Some(team) => Ok(may_see_team(self.memberships.as_ref(), user, team).await?),
            // Unassigned leads are everyone's; an unassigned submission is its submitter's.
            None => Ok(owner.is_none()),
        }
    }

    /// `found`, if the user may see it: an unknown id and someone else's answer alike.
    async fn visible<T>(
        &self,
        user: &User,
        found: Option<T>,
        what: &'static str,
        team_and_owner: impl Fn(&T) -> (Option<i64>, Option<i64>),
    ) -> Result<T, SubmissionError> {
        let found = found.ok_or(SubmissionError::NotFound(what))?;
        let (team_id, owner) = team_and_owner(&found);
        if self.may_see(user, team_id, owner).await? {
            Ok(found)
        } else {
            Err(SubmissionError::NotFound(what))
        }
    }

    pub async fn submission(&self, user: &User, id: i64) -> Result<Submission, SubmissionError> {
        let found = self.submissions.find_submission(id).await?;
        self.visible(user, found, "Submission", |s| (s.team_id, Some(s.user_id)))
            .await
    }

    pub async fn batch(
        &self,
        user: &User,
        batch_id: &str,
    ) -> Result<BatchSummary, SubmissionError> {
        let found = self.submissions.find_batch(batch_id).await?;
        self.visible(user, found, "Batch", |b| (b.team_id, Some(b.user_id)))
            .await
    }

    pub async fn lead(&self, user: &User, id: i64) -> Result<Lead, SubmissionError> {
        let found = self.leads.find_lead(id).await?;
        self.visible(user, found, "Lead", |l| (l.team_id, None))
            .await
    }

    /// `filter` limited to the leads the user may see: their teams' and unassigned ones (all for
    /// an admin). A `team_id` filter for a team the user is not in simply finds nothing (no
    /// existence leak).
    pub async fn visible_filter(
        &self,
        user: &User,
        mut filter: LeadFilter,
    ) -> Result<VisibleLeadFilter, SubmissionError> {
        filter.visible_teams = visible_teams(self.memberships.as_ref(), user).await?;
        if let Some(AssigneeFilter::Of(person)) = filter.assignee {
            filter.assignee = Some(AssigneeFilter::Of(person.seen_by(user.id)));
        }
        filter.contacted_by = filter.contacted_by.map(|person| person.seen_by(user.id));
        Ok(VisibleLeadFilter(filter))
    }

    /// The submissions the user may see: `may_see`'s rule as a filter for a query.
    pub async fn visible_submissions(
        &self,
        user: &User,
    ) -> Result<VisibleSubmissions, SubmissionError> {
        Ok(VisibleSubmissions {
            user_id: user.id,
            teams: visible_teams(self.memberships.as_ref(), user).await?,
        })
    }

    /// The leads the user may see, filtered, newest first, with the number of matches.
    pub async fn leads(
        &self,
        user: &User,
        filter: LeadFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<Lead>, i64), SubmissionError> {
        let VisibleLeadFilter(filter) = self.visible_filter(user, filter).await?;
        Ok(self.leads.list_leads(filter, limit, offset).await?)
    }

    /// The next `limit` visible leads after `after`, newest first: an export reads every match
    /// this way, a chunk at a time.
    pub async fn leads_after(
        &self,
        filter: &VisibleLeadFilter,
        after: Option<LeadCursor>,
        limit: i64,
    ) -> Result<Vec<Lead>, SubmissionError> {
        Ok(self
            .leads
            .list_leads_after(filter.0.clone(), after, limit)
            .await?)
    }

    /// The newest `limit` submissions of `lead` and their submitters. Trusts its caller: no
    /// visibility check here, so call it only with a lead the caller already opened for the
    /// person (the lead page opens it once, through `LeadWorkService::desk`).
    pub async fn history_of_opened_lead(
        &self,
        lead: &Lead,
        limit: i64,
    ) -> Result<Vec<HistoryEntry>, SubmissionError> {
        let submissions = self.submissions.submissions_of_lead(lead.id, limit).await?;
        let mut submitters: HashMap<i64, Option<User>> = HashMap::new();
        for s in &submissions {
            if let std::collections::hash_map::Entry::Vacant(slot) = submitters.entry(s.user_id) {
                slot.insert(self.users.find_by_internal_id(s.user_id).await?);
            }
        }
        let history = submissions
            .into_iter()
            .map(|submission| HistoryEntry {
                submitter: submitters.get(&submission.user_id).cloned().flatten(),
                submission,
            })
            .collect();
        Ok(history)
    }

    /// Whether "enrich again" (`enrich_now`) does anything for `user` on `lead`: enrichment is
    /// configured and the user may see the lead, the rule `enrich_now` applies.
    pub async fn may_enrich(&self, user: &User, lead: &Lead) -> Result<bool, SubmissionError> {
        Ok(self.enricher.is_configured() && self.may_see(user, lead.team_id, None).await?)
    }
}

/// A submission to store verbatim: open, `pending` with the fields its job will process when
/// deferred, else `processing`; element `index` of the batch when there is one.
fn new_submission(
    batch_id: Option<&str>,
    index: usize,
    user_id: i64,
    team_id: Option<i64>,
    raw_json: String,
    deferred: Option<Box<LeadFields>>,
    created_at: DateTime<Utc>,
) -> NewSubmission {
    NewSubmission {
        batch_id: batch_id.map(str::to_owned),
        batch_index: batch_id.map(|_| i32::try_from(index).unwrap_or(i32::MAX)),
        user_id,
        team_id,
        raw_json,
        status: if deferred.is_some() {
            SubmissionStatus::Pending
        } else {
            SubmissionStatus::Processing
        },
        deferred,
        created_at,
        idempotency_key_id: None,
    }
}
