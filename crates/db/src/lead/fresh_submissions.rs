//! Fresh submissions processed now: stored verbatim, each with its outcome, in the transaction
//! that writes their leads.
//!
//! The leads are written first, in a savepoint, and then each submission is inserted once,
//! final. Should the leads' write fail, the savepoint is rolled back and the submissions are
//! inserted all the same, open, so no stage can lose what was submitted; only a failure of the
//! transaction itself stores nothing, and the caller then gets an error.
use diesel::prelude::*;

use leadhub_domain::lead::record::LeadWrite;
use leadhub_domain::submission::{NewBatch, NewSubmission, StoredAndWritten};

use crate::lead::lead_writes::{retry_on_conflict, write_leads_of_fresh};
use crate::lead::outcomes::Outcome;
use crate::lead::submission_rows::{insert_batch, insert_submission_rows};
use crate::sql::error::store_error;
use crate::DbConnection;

/// Writes the leads of `writes` and stores `submissions` (`writes[i]` is the lead of
/// `submissions[i]`) with their outcomes, in one transaction.
pub(crate) fn insert_fresh_with_leads(
    conn: &mut DbConnection,
    batch: Option<&NewBatch>,
    submissions: Vec<NewSubmission>,
    writes: &[LeadWrite],
) -> QueryResult<StoredAndWritten> {
    conn.transaction(|conn| {
        // In a savepoint (a nested transaction); tried again when another writer created one of
        // the properties between its read and its write.
        let done = conn.transaction(|conn| write_leads_of_fresh(conn, writes));
        let leads = retry_on_conflict(done, || conn.transaction(|conn| write_leads_of_fresh(conn, writes)));
        let (outcomes, processed_at) = match &leads {
            Ok((written, now)) => (
                writes
                    .iter()
                    .zip(written)
                    .map(|(w, written)| Some(Outcome::of(w, written)))
                    .collect(),
                Some(*now),
            ),
            Err(e) => {
                tracing::warn!(error = %e, "the leads of fresh submissions were not written; the submissions are stored open");
                (Vec::new(), None)
            }
        };
        if let Some(b) = batch {
            // Complete when its submissions are stored final, that is when the leads were written.
            insert_batch(conn, b, processed_at)?;
            if let Some(at) = processed_at {
                crate::webhook::webhook_events::batches_completed(conn, vec![b.id.clone()], at)?;
            }
        }
        let outcomes = outcomes
            .into_iter()
            .chain(std::iter::repeat_with(|| None));
        let ids = insert_submission_rows(conn, submissions.into_iter().zip(outcomes), processed_at)?;
        if let Ok((written, _)) = &leads {
            crate::lead::lead_work::name_restoring(conn, written, &ids)?;
        }
        Ok(StoredAndWritten {
            ids,
            leads: leads.map(|(written, _)| written).map_err(store_error),
        })
    })
}
