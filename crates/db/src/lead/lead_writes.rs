//! Writing a batch of leads: duplicate-safe, and in a handful of statements whatever its size.
//!
//! One property never becomes two leads: the batch's transaction first takes the write lock
//! (SQLite: a no-op UPDATE makes the transaction a writer at once, so its reads cannot go stale;
//! PostgreSQL: an advisory lock per (scope, street key)); the unique index on
//! (dedupe_scope, address_key) backs this up, and a violation retries the whole transaction.
//!
//! The batch is planned in memory by the domain (`lead::plan`: which element creates, merges
//! into or skips which lead, in element order), then written (`plan_store`): multi-row INSERTs
//! of the new leads, one UPDATE per stored lead merged into, and the submissions' outcomes:
//! recorded on stored submissions in few statements (`write_all`), or left to the caller that
//! stores fresh submissions with them (`write_leads_of_fresh`).
use std::collections::{BTreeSet, HashSet};

use chrono::{NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};
use diesel::sql_types::{Array, Text};

use leadhub_domain::lead::plan::{streets, Street};
use leadhub_domain::lead::record::{LeadAction, LeadWrite, LeadWritten};
use leadhub_domain::webhook::EventType;

use crate::lead::outcomes::{record_outcomes, Outcome, OutcomeRow};
use crate::lead::plan_store::plan_and_write;
use crate::lead::submission_rows::close_finished_batches;
use crate::pool::connection::take_write_lock;
use crate::schema::submissions;
use crate::sql::time::to_db;
use crate::webhook::webhook_events::{emit, Event};
use crate::{scope_of, DbConnection, IN_LIST_CHUNK};

/// Tries of a lead write that met a property created by another writer since its read.
const WRITE_ATTEMPTS: usize = 3;

/// `done`, or, while it failed on a property another writer created between its read and its
/// write, what `again` returns: `WRITE_ATTEMPTS` tries in all.
pub(crate) fn retry_on_conflict<T>(
    mut done: QueryResult<T>,
    mut again: impl FnMut() -> QueryResult<T>,
) -> QueryResult<T> {
    for _ in 1..WRITE_ATTEMPTS {
        match &done {
            Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => done = again(),
            _ => break,
        }
    }
    done
}

/// Takes the write locks for these streets before reading anything.
pub(crate) fn lock_for_writing(
    conn: &mut DbConnection,
    streets: &BTreeSet<Street>,
) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => take_write_lock(conn),
        DbConnection::Postgres(pg) => {
            let keys: Vec<String> = streets
                .iter()
                .map(|s| format!("{}|{}", scope_of(s.team_id), s.key))
                .collect();
            if keys.is_empty() {
                return Ok(());
            }
            // One statement for the whole batch; the locks are taken in the order of their
            // hashes, the same in every transaction, so two batches never wait on each other in
            // opposite orders.
            diesel::sql_query(
                "SELECT pg_advisory_xact_lock(h) FROM \
                 (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest($1::text[]) AS k \
                  ORDER BY h) AS locks",
            )
            .bind::<Array<Text>, _>(keys)
            .execute(pg)
            .map(drop)
        }
    }
}

/// Of the writes' submissions, those still open (pending or processing), and their batches.
fn open_submissions(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<(HashSet<i64>, BTreeSet<String>)> {
    let ids: HashSet<i64> = writes.iter().filter_map(|w| w.submission_id).collect();
    let mut open = HashSet::with_capacity(ids.len());
    let mut batches = BTreeSet::new();
    let (Some(&low), Some(&high)) = (ids.iter().min(), ids.iter().max()) else {
        return Ok((open, batches));
    };
    let open_only = || submissions::status.eq_any(["pending", "processing"]);
    // A batch's submissions were inserted together, so their ids form one narrow range: one
    // prepared range query reads them, where IN lists of 500 binds are parsed anew each time.
    // Rows of other requests inside the range are read and left out.
    let found: Vec<(i64, Option<String>)> = if high - low < 2 * ids.len() as i64 + 1000 {
        submissions::table
            .filter(submissions::id.between(low, high))
            .filter(open_only())
            .select((submissions::id, submissions::batch_id))
            .load(conn)?
    } else {
        let ids: Vec<i64> = ids.iter().copied().collect();
        let mut found = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(IN_LIST_CHUNK) {
            found.extend(
                submissions::table
                    .filter(submissions::id.eq_any(chunk))
                    .filter(open_only())
                    .select((submissions::id, submissions::batch_id))
                    .load::<(i64, Option<String>)>(conn)?,
            );
        }
        found
    };
    for (id, batch) in found {
        if ids.contains(&id) {
            open.insert(id);
            batches.extend(batch);
        }
    }
    Ok((open, batches))
}

/// Writes the batch in the caller's transaction. An element whose submission is already final
/// (a job run twice after a crash) returns `None` and changes nothing; the others' outcomes are
/// recorded on their stored submissions.
pub(crate) fn write_all(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<Vec<Option<LeadWritten>>> {
    let streets = streets(writes);
    lock_for_writing(conn, &streets)?;
    let (open, batch_ids) = open_submissions(conn, writes)?;
    let now = to_db(Utc::now());
    let results = plan_and_write(conn, writes, &streets, now, |w| {
        w.submission_id.is_none_or(|id| open.contains(&id))
    })?;
    let outcomes: Vec<OutcomeRow> = writes
        .iter()
        .zip(&results)
        .filter_map(|(w, written)| {
            Some(OutcomeRow {
                id: w.submission_id?,
                outcome: Outcome::of(w, written.as_ref()?),
            })
        })
        .collect();
    record_outcomes(conn, &outcomes, now)?;
    emit_lead_events(conn, writes, results.iter().map(Option::as_ref), now)?;
    close_finished_batches(conn, batch_ids, now)?;
    Ok(results)
}

/// Writes the leads of submissions not stored yet, in the caller's transaction: every element
/// is applied, and recording the outcomes is the caller's (it stores each submission with its
/// outcome at once). Answers one result per write, and the time the transaction wrote.
pub(crate) fn write_leads_of_fresh(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<(Vec<LeadWritten>, NaiveDateTime)> {
    let streets = streets(writes);
    lock_for_writing(conn, &streets)?;
    let now = to_db(Utc::now());
    let results = plan_and_write(conn, writes, &streets, now, |_| true)?;
    emit_lead_events(conn, writes, results.iter().map(Option::as_ref), now)?;
    Ok((results.into_iter().flatten().collect(), now))
}

/// `lead.created` / `lead.updated` for the written leads of teams, in the leads' transaction.
fn emit_lead_events<'a>(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
    results: impl Iterator<Item = Option<&'a LeadWritten>>,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let events = writes
        .iter()
        .zip(results)
        .filter_map(|(w, written)| {
            let written = written?;
            let kind = match written.action {
                LeadAction::Created => EventType::LeadCreated,
                LeadAction::Updated => EventType::LeadUpdated,
                LeadAction::Skipped => return None,
            };
            Some(Event {
                team_id: w.team_id,
                kind,
                subject: written.lead_id.to_string(),
            })
        })
        .collect();
    emit(conn, events, now)
}
