//! Writing normalised leads and answering what became of each submission: for fresh
//! submissions in the transaction that stores them, for stored ones (deferred jobs, and
//! fresh ones whose first write failed) against their stored rows, one at a time if need be.
use std::collections::HashSet;
use std::sync::Arc;

use super::{every_problem, ElementOutcome, SubmissionError, SubmissionService};
use crate::error::FieldError;
use crate::lead::normalize::NormalizedLead;
use crate::lead::record::{LeadWrite, LeadWritten};
use crate::store::StoreError;
use crate::submission::record::{NewBatch, NewSubmission, SubmissionOutcome, SubmissionStatus};

/// Lead writes handed to the store at a time (see `store_and_write`).
const HAND_OVER: usize = 50;

/// One write's result: `Ok(None)` when its submission was final already.
type Written = Result<Option<LeadWritten>, StoreError>;

/// A fresh submission with its lead's write.
pub(super) type Fresh = (NewSubmission, LeadWrite);

impl SubmissionService {
    /// The lead writes for normalised leads: (stored submission id, user id, team id, lead),
    /// made as they are taken (a lead normalised inside `work` is normalised then).
    pub(super) fn lead_writes(
        &self,
        work: impl Iterator<Item = (Option<i64>, i64, Option<i64>, NormalizedLead)>,
    ) -> impl Iterator<Item = LeadWrite> {
        let enrich_later = self.enricher.is_configured();
        work.map(move |(submission_id, user_id, team_id, lead)| LeadWrite {
            team_id,
            user_id,
            lead,
            submission_id,
            enrich_later,
        })
    }

    /// Fresh submissions processed now: stored verbatim in the transaction that writes their
    /// leads. `fresh` yields the `count` submissions in order, each with its lead's write, made as
    /// it is taken (read, then normalised, then). An element refused (`Err`: its problems) stops
    /// the stream, so nothing is stored; the rest are still read, for every element's problems,
    /// answered together as `Invalid`. Should the leads' write fail, the submissions are stored
    /// open all the same and processed as stored submissions are.
    pub(super) async fn store_and_write(
        &self,
        batch: Option<NewBatch>,
        count: usize,
        fresh: impl Iterator<Item = Result<Fresh, Vec<FieldError>>> + Send,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let (sender, stream) = std::sync::mpsc::channel::<Vec<Fresh>>();
        let store =
            self.submissions
                .store_and_write(batch, count, Box::new(stream.into_iter().flatten()));
        // The store's first poll starts its transaction on a database thread; this thread then
        // reads and normalises the elements and hands them over a few at a time, so the store
        // plans and inserts the first ones while the rest are being read. (Handing over each
        // lead alone woke the waiting store once per lead: the first hundred took 3 ms instead
        // of 0.5.) Nothing here awaits, so the store never waits on a sender that is not running.
        let produce = async move {
            let mut fresh = fresh;
            let mut refused: Option<Vec<FieldError>> = None;
            let mut part = Vec::with_capacity(HAND_OVER);
            for item in fresh.by_ref() {
                match item {
                    Ok(f) => part.push(f),
                    Err(problems) => {
                        refused = Some(problems);
                        break;
                    }
                }
                if part.len() == HAND_OVER {
                    let full = std::mem::replace(&mut part, Vec::with_capacity(HAND_OVER));
                    if sender.send(full).is_err() {
                        // The store has stopped taking them: it answers why.
                        break;
                    }
                }
            }
            if refused.is_none() && !part.is_empty() {
                // An error means the store has stopped: it answers why.
                let _ = sender.send(part);
            }
            // Ending the stream short makes the store roll back; every element is still read.
            drop(sender);
            refused.map(|mut problems| {
                problems.extend(every_problem(fresh));
                problems
            })
        };
        let (stored, refused) = futures_util::future::join(store, produce).await;
        if let Some(problems) = refused {
            return match stored {
                Err(_) => Err(SubmissionError::Invalid(problems)),
                Ok(_) => Err(SubmissionError::Unexpected(anyhow::anyhow!(
                    "a batch with a refused element was stored"
                ))),
            };
        }
        let stored = stored?;
        match stored.leads {
            Ok(written) => {
                let written = written.into_iter().map(|w| Ok(Some(w))).collect();
                self.conclude(&stored.ids, &stored.writes, written).await
            }
            Err(e) => {
                tracing::warn!(error = %e, "writing fresh submissions' leads failed; trying them one at a time as stored submissions");
                let mut writes = stored.writes;
                for (w, id) in writes.iter_mut().zip(&stored.ids) {
                    w.submission_id = Some(*id);
                }
                // The whole batch has just failed (after its own retries): straight to one at
                // a time, so that only the element at fault fails.
                let written = self.write_each(&writes).await;
                self.conclude(&stored.ids, &writes, written).await
            }
        }
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

    /// Enriches the leads that need it, then answers each submission's outcome (`ids[i]` is
    /// the submission of `writes[i]`), recording what changed since its lead's transaction
    /// recorded it: enrichment's warnings, or a failure.
    async fn conclude(
        &self,
        ids: &[i64],
        writes: &[LeadWrite],
        written: Vec<Written>,
    ) -> Result<Vec<ElementOutcome>, SubmissionError> {
        let needing: Vec<i64> = written
            .iter()
            .filter_map(|w| w.as_ref().ok().and_then(Option::as_ref))
            .filter(|w| w.needs_enrichment)
            .map(|w| w.lead_id)
            .collect();
        let mut enrichment_warnings = self.enrich_leads(needing).await?;
        let now = self.clock.now();
        let mut follow_ups = HashSet::new();
        let mut elements = Vec::with_capacity(writes.len());
        for (index, ((write, result), &id)) in writes.iter().zip(written).zip(ids).enumerate() {
            let mut warnings = write.lead.warnings.clone();
            let element = match result {
                // Already final (a job run twice after a crash): nothing more to say.
                Ok(None) => continue,
                Ok(Some(w)) => {
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
                    }
                }
                Err(e) => {
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
                    }
                }
            };
            elements.push(element);
        }
        let outcomes: Vec<SubmissionOutcome> = elements
            .iter()
            .filter(|e| follow_ups.contains(&e.submission_id))
            .map(|e| SubmissionOutcome {
                id: e.submission_id,
                status: e.status,
                lead_id: e.lead_id,
                action: e.action,
                warnings: e.warnings.clone(),
                error: e.error.clone(),
                processed_at: now,
            })
            .collect();
        if !outcomes.is_empty() {
            self.submissions.finish_submissions(outcomes).await?;
        }
        Ok(elements)
    }
}
