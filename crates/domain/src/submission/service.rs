//! `SubmissionService`: runs submissions through the pipeline and answers what became of them.
use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::Datelike;

use crate::clock::Clock;
use crate::error::FieldError;
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::normalize::normalize;
use crate::lead::record::{Lead, LeadAction, LeadFilter, LeadRepository, LeadWrite};
use crate::secret::TokenGenerator;
use crate::store::StoreError;
use crate::submission::enrichment::Enricher;
use crate::submission::record::{
    BatchSummary, NewBatch, NewSubmission, Submission, SubmissionOutcome, SubmissionRepository,
    SubmissionStatus,
};
use crate::team_access::MembershipRepository;
use crate::user::User;

#[derive(Debug, thiserror::Error)]
pub enum SubmissionError {
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

impl From<StoreError> for SubmissionError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => SubmissionError::Unexpected(anyhow::anyhow!(m)),
            StoreError::Unexpected(e) => SubmissionError::Unexpected(e),
        }
    }
}

/// One validated lead as submitted.
#[derive(Debug, Clone)]
pub struct SubmissionRequest {
    pub fields: LeadFields,
    pub team_id: Option<i64>,
    /// The element exactly as received, kept verbatim.
    pub raw_json: String,
}

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
}

/// Stored submissions still to be processed: (submission id, user id, team id, fields).
#[derive(Debug, Clone)]
pub struct PendingWork(pub Vec<(i64, i64, Option<i64>, LeadFields)>);

#[derive(Debug, Clone, PartialEq)]
pub struct BatchOutcome {
    pub batch_id: String,
    pub elements: Vec<ElementOutcome>,
}

pub struct SubmissionService {
    leads: Arc<dyn LeadRepository>,
    submissions: Arc<dyn SubmissionRepository>,
    memberships: Arc<dyn MembershipRepository>,
    enricher: Enricher,
    clock: Arc<dyn Clock>,
    tokens: Arc<dyn TokenGenerator>,
}

impl SubmissionService {
    pub fn new(
        leads: Arc<dyn LeadRepository>,
        submissions: Arc<dyn SubmissionRepository>,
        memberships: Arc<dyn MembershipRepository>,
        enricher: Enricher,
        clock: Arc<dyn Clock>,
        tokens: Arc<dyn TokenGenerator>,
    ) -> Self {
        SubmissionService {
            leads,
            submissions,
            memberships,
            enricher,
            clock,
            tokens,
        }
    }

    /// A team may take leads only from its members (and platform admins), and only while active.
    /// An unknown team answers exactly like a foreign one, so ids reveal nothing.
    async fn check_team(&self, user: &User, team_id: i64) -> Result<(), SubmissionError> {
        let active = if user.is_admin {
            self.memberships.team_is_active(team_id).await?
        } else {
            self.memberships
                .membership(team_id, user.id)
                .await?
                .map(|m| m.team_is_active)
        };
        match active {
            None => Err(SubmissionError::Forbidden(
                "Not a member of this team".into(),
            )),
            Some(false) => Err(SubmissionError::Forbidden("Team is inactive".into())),
            Some(true) => Ok(()),
        }
    }

    pub async fn submit_single(
        &self,
        user: &User,
        request: SubmissionRequest,
    ) -> Result<ElementOutcome, SubmissionError> {
        let (mut batch, _) = self.submit(user, vec![request], None).await?;
        batch
            .elements
            .pop()
            .ok_or_else(|| SubmissionError::Unexpected(anyhow::anyhow!("no outcome")))
    }

    /// Stores every element, then processes them now, or answers them `pending` together with
    /// the work a background task must do (`process_pending`).
    pub async fn submit_batch(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        team_id: Option<i64>,
        process_immediately: bool,
    ) -> Result<(BatchOutcome, Option<PendingWork>), SubmissionError> {
        let batch = NewBatch {
            id: self.tokens.public_id("bat_"),
            user_id: user.id,
            team_id,
            total: i32::try_from(requests.len()).unwrap_or(i32::MAX),
            process_immediately,
            created_at: self.clock.now(),
        };
        self.submit(user, requests, Some(batch)).await
    }

    async fn submit(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        batch: Option<NewBatch>,
    ) -> Result<(BatchOutcome, Option<PendingWork>), SubmissionError> {
        let teams: BTreeSet<i64> = requests.iter().filter_map(|r| r.team_id).collect();
        for team_id in teams {
            self.check_team(user, team_id).await?;
        }
        let now = self.clock.now();
        let deferred = batch.as_ref().is_some_and(|b| !b.process_immediately);
        let batch_id = batch.as_ref().map(|b| b.id.clone());
        let new: Vec<NewSubmission> = requests
            .iter()
            .enumerate()
            .map(|(i, r)| NewSubmission {
                batch_id: batch_id.clone(),
                batch_index: batch_id
                    .as_ref()
                    .map(|_| i32::try_from(i).unwrap_or(i32::MAX)),
                user_id: user.id,
                team_id: r.team_id,
                raw_json: r.raw_json.clone(),
                status: if deferred {
                    SubmissionStatus::Pending
                } else {
                    SubmissionStatus::Processing
                },
                created_at: now,
            })
            .collect();
        // Stored verbatim before any stage can fail: nothing submitted is ever lost.
        let ids = self.submissions.insert_submissions(batch, new).await?;
        let work: Vec<_> = ids
            .iter()
            .zip(requests)
            .map(|(id, r)| (*id, user.id, r.team_id, r.fields))
            .collect();
        let (elements, pending) = if deferred {
            let elements = ids
                .iter()
                .enumerate()
                .map(|(index, id)| ElementOutcome {
                    index,
                    submission_id: *id,
                    status: SubmissionStatus::Pending,
                    lead_id: None,
                    action: None,
                    warnings: Vec::new(),
                    error: None,
                })
                .collect();
            (elements, Some(PendingWork(work)))
        } else {
            (self.process(work).await?, None)
        };
        Ok((
            BatchOutcome {
                batch_id: batch_id.unwrap_or_default(),
                elements,
            },
            pending,
        ))
    }

    /// Processes submissions stored as `pending` (a deferred batch).
    pub async fn process_pending(
        &self,
        work: PendingWork,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        self.process(work.0).await
    }

    /// Normalise, dedupe and write, enrich, record outcomes.
    async fn process(
        &self,
        work: Vec<(i64, i64, Option<i64>, LeadFields)>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let year = self.clock.now().year();
        let normalised: Vec<_> = work.iter().map(|(_, _, _, f)| normalize(f, year)).collect();
        let writes: Vec<LeadWrite> = work
            .iter()
            .zip(&normalised)
            .map(|((_, user_id, team_id, _), lead)| LeadWrite {
                team_id: *team_id,
                user_id: *user_id,
                lead: lead.clone(),
            })
            .collect();
        let written = match self.leads.write_leads(writes.clone()).await {
            Ok(w) => w.into_iter().map(Ok).collect::<Vec<_>>(),
            // One bad element must not fail its neighbours: retry them one at a time.
            Err(_) if writes.len() > 1 => {
                let mut each = Vec::with_capacity(writes.len());
                for w in writes {
                    each.push(
                        self.leads
                            .write_leads(vec![w])
                            .await
                            .map(|mut v| v.remove(0)),
                    );
                }
                each
            }
            Err(e) => vec![Err(e)],
        };
        let needing: Vec<i64> = written
            .iter()
            .filter_map(|w| w.as_ref().ok())
            .filter(|w| w.needs_enrichment)
            .map(|w| w.lead_id)
            .collect();
        let mut enrichment_warnings = std::collections::HashMap::new();
        if self.enricher.is_configured() && !needing.is_empty() {
            let leads: Vec<Lead> = self.leads.find_leads(needing).await?;
            let results = self.enricher.enrich(leads).await;
            let mut updates = Vec::with_capacity(results.len());
            for (update, warnings) in results {
                enrichment_warnings.insert(update.lead_id, warnings);
                updates.push(update);
            }
            self.leads.save_enrichment(updates).await?;
        }
        let now = self.clock.now();
        let mut outcomes = Vec::with_capacity(work.len());
        let mut elements = Vec::with_capacity(work.len());
        for (index, (((id, ..), lead), result)) in
            work.iter().zip(normalised).zip(written).enumerate()
        {
            let mut warnings = lead.warnings;
            let element = match result {
                Ok(w) => {
                    warnings.extend(w.warnings);
                    if let Some(extra) = enrichment_warnings.remove(&w.lead_id) {
                        warnings.extend(extra);
                    }
                    ElementOutcome {
                        index,
                        submission_id: *id,
                        status: SubmissionStatus::for_action(w.action),
                        lead_id: Some(w.lead_id),
                        action: Some(w.action),
                        warnings,
                        error: None,
                    }
                }
                Err(e) => {
                    tracing::error!(submission_id = id, error = %e, "lead write failed");
                    ElementOutcome {
                        index,
                        submission_id: *id,
                        status: SubmissionStatus::Failed,
                        lead_id: None,
                        action: None,
                        warnings,
                        error: Some("The lead could not be stored; the submission is kept and can be retried".into()),
                    }
                }
            };
            outcomes.push(SubmissionOutcome {
                id: element.submission_id,
                status: element.status,
                lead_id: element.lead_id,
                action: element.action,
                warnings: element.warnings.clone(),
                error: element.error.clone(),
                processed_at: now,
            });
            elements.push(element);
        }
        self.submissions.finish_submissions(outcomes).await?;
        Ok(elements)
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
            Some(team) => Ok(self.memberships.membership(team, user.id).await?.is_some()),
            // Unassigned leads are everyone's; an unassigned submission is its submitter's.
            None => Ok(owner.is_none()),
        }
    }

    pub async fn submission(&self, user: &User, id: i64) -> Result<Submission, SubmissionError> {
        let found = self
            .submissions
            .find_submission(id)
            .await?
            .ok_or(SubmissionError::NotFound("Submission"))?;
        if self
            .may_see(user, found.team_id, Some(found.user_id))
            .await?
        {
            Ok(found)
        } else {
            Err(SubmissionError::NotFound("Submission"))
        }
    }

    pub async fn batch(
        &self,
        user: &User,
        batch_id: &str,
    ) -> Result<BatchSummary, SubmissionError> {
        let found = self
            .submissions
            .find_batch(batch_id)
            .await?
            .ok_or(SubmissionError::NotFound("Batch"))?;
        if self
            .may_see(user, found.team_id, Some(found.user_id))
            .await?
        {
            Ok(found)
        } else {
            Err(SubmissionError::NotFound("Batch"))
        }
    }

    pub async fn lead(&self, user: &User, id: i64) -> Result<Lead, SubmissionError> {
        let found = self
            .leads
            .find_lead(id)
            .await?
            .ok_or(SubmissionError::NotFound("Lead"))?;
        if self.may_see(user, found.team_id, None).await? {
            Ok(found)
        } else {
            Err(SubmissionError::NotFound("Lead"))
        }
    }

    /// The leads the user may see, filtered. A `team_id` filter for a team the user is not in
    /// simply finds nothing (no existence leak).
    pub async fn leads(
        &self,
        user: &User,
        mut filter: LeadFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<Lead>, i64), SubmissionError> {
        filter.visible_teams = if user.is_admin {
            None
        } else {
            Some(self.memberships.team_ids_of(user.id).await?)
        };
        Ok(self.leads.list_leads(filter, limit, offset).await?)
    }
}
