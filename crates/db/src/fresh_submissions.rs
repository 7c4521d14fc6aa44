//! Fresh submissions processed now: stored verbatim, each with its outcome, in the transaction
//! that writes their leads.
//!
//! Storing the submissions first and recording their outcomes after the leads wrote every
//! submission row twice, in two transactions: on SQLite each row's pages went to the log twice,
//! and the outcome UPDATE had to find every row again. Here the leads are written first, in a
//! savepoint, as the caller normalises them (`write_fresh_stream`), and then each submission is
//! inserted once, final. Should the leads' write fail, the savepoint is rolled back and the
//! submissions are inserted all the same, open, so no stage can lose what was submitted; only a
//! failure of the transaction itself stores nothing, and the caller is then answered an error,
//! as it was when the first of the two transactions failed.
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::Error;

use leadhub_domain::lead::record::{LeadWrite, LeadWritten};
use leadhub_domain::submission::{FreshStream, NewBatch, StoredAndWritten};

use crate::error::store_error;
use crate::lead_writes::{retry_on_conflict, write_fresh, write_fresh_stream};
use crate::outcomes::Outcome;
use crate::submissions::{insert_batch, insert_submission_rows};
use crate::DbConnection;

/// Writes the leads of `fresh` and stores its submissions (`count` of them, each with its lead's
/// write, in order) with their outcomes, in one transaction.
pub(crate) fn store_and_write(
    conn: &mut DbConnection,
    batch: Option<&NewBatch>,
    count: usize,
    mut fresh: FreshStream,
) -> QueryResult<StoredAndWritten> {
    conn.transaction(|conn| {
        let mut new = Vec::with_capacity(count);
        let mut received = Vec::with_capacity(count);
        let leads = {
            let mut writes = fresh.as_mut().map(|(submission, write)| {
                new.push(submission);
                write
            });
            write_in_savepoint(conn, &mut writes, &mut received)
        };
        // A stream that ends before every submission has its lead was cut off: its sender
        // refused an element (the batch is then answered 422) or is gone (the request was
        // dropped, say its caller disconnected). Nothing is stored, as for a request refused or
        // cut off before anything was written; committing would leave the rest of the
        // submissions unstored, in a batch marked complete.
        if received.len() != count {
            tracing::debug!(
                submissions = count,
                received = received.len(),
                "the lead stream ended short; nothing is stored"
            );
            return Err(Error::RollbackTransaction);
        }
        let (outcomes, processed_at) = match &leads {
            Ok((written, now)) => (
                received
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
        }
        let outcomes = outcomes
            .into_iter()
            .chain(std::iter::repeat_with(|| None));
        let ids = insert_submission_rows(conn, new.into_iter().zip(outcomes), processed_at)?;
        Ok(StoredAndWritten {
            ids,
            writes: received,
            leads: leads.map(|(written, _)| written).map_err(store_error),
        })
    })
}

/// The leads' write in a savepoint (a nested transaction), taking every write of the stream
/// into `received` whatever happens; tried again, from `received`, when another writer created
/// one of the properties between its read and its write.
fn write_in_savepoint(
    conn: &mut DbConnection,
    stream: &mut dyn Iterator<Item = LeadWrite>,
    received: &mut Vec<LeadWrite>,
) -> QueryResult<(Vec<LeadWritten>, NaiveDateTime)> {
    let done = conn.transaction(|conn| write_fresh_stream(conn, stream, received));
    // A failure may have come before the end of the stream: the rest is the caller's all the same.
    received.extend(stream);
    retry_on_conflict(done, || {
        conn.transaction(|conn| write_fresh(conn, received))
    })
}
