//! Writing normalised leads and returning what became of each submission: for fresh
//! submissions in the transaction that stores them, for stored ones (deferred jobs, and
//! fresh ones whose first write failed) against their stored rows, one at a time if need be.
use std::collections::HashSet;
use std::sync::Arc;

use super::{ElementOutcome, SubmissionError, SubmissionService};
use crate::lead::record::{LeadWrite, LeadWritten};
use crate::store::StoreError;
use crate::submission::record::{NewBatch, NewSubmission, SubmissionOutcome, SubmissionStatus};
use crate::telemetry::LEADS_INGESTED;

/// One write's result: `Ok(None)` when its submission was final already.
type Written = Result<Option<LeadWritten>, StoreError>;

/// Fresh submissions stored with their leads written, not yet enriched nor answered
/// (`writes[i]` is the lead of submission `ids[i]`, `written[i]` what its write did).
pub struct FreshWritten {
    pub(super) ids: Vec<i64>,
    pub(super) writes: Vec<LeadWrite>,
    pub(super) written: Vec<Written>,
}

impl FreshWritten {
    /// Whether concluding will ask the enricher about any lead (a geocoder, an appraisal
    /// layer: it may take a while).
    pub fn enriches(&self) -> bool {
        self.written.iter().any(|w| lead_to_enrich(w).is_some())
    }
}

/// The lead a write left for enrichment to look at, if any.
fn lead_to_enrich(written: &Written) -> Option<i64> {
    match written {
        Ok(Some(w)) if w.to_enrich => Some(w.lead_id),
        _ => None,
    }
}

impl SubmissionService {
    /// Fresh submissions processed now (`writes[i]` is the lead of `submissions[i]`): stored
    /// verbatim and their leads written, then enriched and concluded.
    pub(super) async fn process_fresh(
        &self,
        batch: Option<NewBatch>,
        submissions: Vec<NewSubmission>,
        writes: Vec<LeadWrite>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let fresh = self.record_fresh(batch, submissions, writes).await?;
        self.conclude(&fresh.ids, &fresh.writes, fresh.written)
            .await
    }

    /// Stores fresh submissions verbatim in the transaction that writes their leads. Should the
    /// leads' write fail, the submissions are stored open all the same and their leads written
    /// one at a time, as stored submissions' are.
    pub(super) async fn record_fresh(
        &self,
        batch: Option<NewBatch>,
        submissions: Vec<NewSubmission>,
        writes: Vec<LeadWrite>,
    ) -> Result<FreshWritten, SubmissionError> {
        let writes = Arc::new(writes);
        let stored = self
            .submissions
            .store_fresh_and_plan_leads(batch, submissions, Arc::clone(&writes))
            .await?;
        let writes = Arc::try_unwrap(writes).unwrap_or_else(|shared| (*shared).clone());
        let (writes, written) = match stored.leads {
            Ok(written) => (writes, written.into_iter().map(|w| Ok(Some(w))).collect()),
            Err(e) => {
                tracing::warn!(error = %e, "writing fresh submissions' leads failed; trying them one at a time as stored submissions");
                let writes: Vec<LeadWrite> = writes
                    .iter()
                    .zip(&stored.ids)
                    .map(|(w, id)| LeadWrite {
                        submission_id: Some(*id),
                        ..w.clone()
                    })
                    .collect();
                // The whole batch has just failed (after its own retries): straight to one at
                // a time, so that only the element at fault fails.
                let written = self.write_each(&writes).await;
                (writes, written)
            }
        };
        Ok(FreshWritten {
            ids: stored.ids,
            writes,
            written,
        })
    }

    /// Writes the leads of stored submissions (each outcome in its lead's transaction), all
    /// together, or one at a time when that fails; then concludes.
    pub(super) async fn write_and_conclude(
        &self,
        writes: Vec<LeadWrite>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let writes = Arc::new(writes);
        let written = match self.leads.write_leads(Arc::clone(&writes)).await {
            Ok(w) => w.into_iter().map(Ok).collect::<Vec<_>>(),
            // One bad element must not fail its neighbours: retry them one at a time.
            Err(_) if writes.len() > 1 => self.write_each(&writes).await,
            Err(e) => vec![Err(e)],
        };
        let ids: Vec<i64> = writes
            .iter()
            .map(|w| w.submission_id.unwrap_or_default())
            .collect();
        self.conclude(&ids, &writes, written).await
    }

    /// Writes each stored submission's lead in a transaction of its own.
    async fn write_each(&self, writes: &[LeadWrite]) -> Vec<Written> {
        let mut each = Vec::with_capacity(writes.len());
        for w in writes.iter().cloned() {
            each.push(
                self.leads
                    .write_leads(Arc::new(vec![w]))
                    .await
                    .map(|mut v| v.pop().flatten()),
            );
        }
        each
    }

    /// Enriches the leads that need it, then returns each submission's outcome (`ids[i]` is
    /// the submission of `writes[i]`), recording what changed since its lead's transaction
    /// recorded it: enrichment's warnings, or a failure.
    pub(super) async fn conclude(
        &self,
        ids: &[i64],
        writes: &[LeadWrite],
        written: Vec<Written>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let needing: Vec<i64> = written.iter().filter_map(lead_to_enrich).collect();
        // The leads are stored, each waiting one with its retry job (`enrich_later`): a failure
        // to store what enrichment found (a full disk) leaves them to that job, and the request
        // says what was stored rather than that nothing was.
        let mut enrichment_warnings = match self.enrich_leads(needing).await {
            Ok(warnings) => warnings,
            Err(error) => {
                tracing::warn!(%error, "enrichment not stored; the leads wait for their retry");
                Default::default()
            }
        };
        let now = self.clock.now();
        let mut follow_ups = HashSet::new();
        let mut elements = Vec::with_capacity(writes.len());
        for (index, ((write, result), &id)) in writes.iter().zip(written).zip(ids).enumerate() {
            let mut warnings = write.lead.warnings.clone();
            let element = match result {
                // Already final (a job run twice after a crash): nothing more to say.
                Ok(None) => continue,
                Ok(Some(w)) => {
                    metrics::counter!(LEADS_INGESTED, "action" => w.action.as_str()).increment(1);
                    warnings.extend(w.warnings);
                    if let Some(extra) = enrichment_warnings
                        .remove(&w.lead_id)
                        .filter(|e| !e.is_empty())
                    {
                        warnings.extend(extra);
                        follow_ups.insert(id);
                    }
                    ElementOutcome {
                        index,
                        submission_id: id,
                        status: SubmissionStatus::for_action(w.action),
                        lead_id: Some(w.lead_id),
                        action: Some(w.action),
                        warnings,
                        error: None,
                        lead_changed: w.lead_changed,
                    }
                }
                Err(e) => {
                    metrics::counter!(LEADS_INGESTED, "action" => "failed").increment(1);
                    tracing::error!(submission_id = id, error = %e, "lead write failed");
                    follow_ups.insert(id);
                    ElementOutcome {
                        index,
                        submission_id: id,
                        status: SubmissionStatus::Failed,
                        lead_id: None,
                        action: None,
                        warnings,
                        error: Some(
                            "The lead could not be stored; the submission is kept verbatim".into(),
                        ),
                        lead_changed: false,
                    }
                }
            };
            elements.push(element);
        }
        let outcomes: Vec<SubmissionOutcome> = elements
            .iter()
            .filter(|e| follow_ups.contains(&e.submission_id))
            .map(|e| e.finished(now))
            .collect();
        if !outcomes.is_empty() {
            self.submissions.finish_submissions(outcomes).await?;
        }
        Ok(elements)
    }
}
