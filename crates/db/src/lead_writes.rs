//! Writing a batch of leads: duplicate-safe, and in a handful of statements whatever its size.
//!
//! One property never becomes two leads: the batch's transaction first takes the write lock
//! (SQLite: a no-op UPDATE makes the transaction a writer at once, so its reads cannot go stale;
//! PostgreSQL: an advisory lock per (scope, street key)); the unique index on
//! (dedupe_scope, address_key) backs this up, and a violation retries the whole transaction.
//!
//! The batch is planned in memory first (which element creates, merges into or skips which
//! lead, in element order), then written: one multi-row INSERT per 400 new leads, one UPDATE per
//! stored lead that was touched, and one statement recording every submission's outcome.
use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{Duration, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Text};

use leadhub_domain::address::AddressKey;
use leadhub_domain::jobs::{NewJob, ENRICH_LEAD};
use leadhub_domain::lead::merge_into;
use leadhub_domain::lead::record::{EnrichmentStatus, LeadAction, LeadWrite, LeadWritten};
use leadhub_domain::lead::Warning;
use leadhub_domain::parse::parse_lot_size_acres;
use leadhub_domain::submission::SubmissionStatus;

use crate::connection::{on_backend, take_write_lock};
use crate::fixed_chunks::for_each_fixed_chunk;
use crate::jobs::insert_jobs;
use crate::lead_row::{LeadRow, LeadValues};
use crate::outcomes::{record_outcomes, OutcomeRow};
use crate::schema::{leads, submissions};
use crate::submissions::close_finished_batches;
use crate::time::to_db;
use crate::{scope_of, DbConnection};

/// Bind-parameter lists are chunked below every backend's limit.
const CHUNK: usize = 500;
/// How long the enrichment safety-net job waits before it checks on its leads.
const ENRICH_SAFETY_DELAY_SECS: i64 = 60;

/// Where a lead of the batch is while the batch is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    /// Stored before this batch: an index into `Plan::stored`.
    Stored(usize),
    /// Created by an earlier element of this batch: an index into `Plan::created`.
    Created(usize),
}

/// What one element does, before the new leads have ids.
struct Planned {
    slot: Slot,
    action: LeadAction,
    warnings: Vec<Warning>,
    needs_enrichment: bool,
}

#[derive(Default)]
struct Plan {
    stored: Vec<LeadRow>,
    /// Stored leads some element merged into (or skipped against): written back once each.
    touched: BTreeSet<usize>,
    created: Vec<LeadValues>,
    /// Leads by (scope, street key): the candidates an element's address is compared with.
    by_street: HashMap<(i64, String), Vec<Slot>>,
    elements: Vec<Option<Planned>>,
}

impl Plan {
    fn values(&self, slot: Slot) -> &LeadValues {
        match slot {
            Slot::Stored(i) => &self.stored[i].values,
            Slot::Created(i) => &self.created[i],
        }
    }

    fn values_mut(&mut self, slot: Slot) -> &mut LeadValues {
        match slot {
            Slot::Stored(i) => &mut self.stored[i].values,
            Slot::Created(i) => &mut self.created[i],
        }
    }

    /// The lead of the batch's view (stored or created earlier) that is the same property.
    fn same_property(&self, scope: i64, key: &AddressKey) -> Option<Slot> {
        self.by_street
            .get(&(scope, key.street_key()))?
            .iter()
            .copied()
            .find(|slot| {
                stored_key(self.values(*slot)).is_some_and(|stored| key.same_property(&stored))
            })
    }

    fn plan(&mut self, w: &LeadWrite, now: NaiveDateTime) {
        let scope = scope_of(w.team_id);
        let key = w.lead.address_key.as_ref();
        let planned = match key.and_then(|k| self.same_property(scope, k)) {
            Some(slot) => self.merge(slot, w, now),
            None => {
                let mut values = new_values(w, now);
                values.set_fields(&w.lead.fields);
                let enrich = needs_enrichment(&values);
                if enrich && w.enrich_later {
                    values.enrichment_status = EnrichmentStatus::PendingRetry.as_str().to_owned();
                }
                let slot = Slot::Created(self.created.len());
                self.created.push(values);
                if let Some(k) = key {
                    self.by_street
                        .entry((scope, k.street_key()))
                        .or_default()
                        .push(slot);
                }
                Planned {
                    slot,
                    action: LeadAction::Created,
                    warnings: Vec::new(),
                    needs_enrichment: enrich,
                }
            }
        };
        self.elements.push(Some(planned));
    }

    /// Merges the element into the lead in `slot`; later elements see the result.
    fn merge(&mut self, slot: Slot, w: &LeadWrite, now: NaiveDateTime) -> Planned {
        if let Slot::Stored(i) = slot {
            self.touched.insert(i);
        }
        let values = self.values_mut(slot);
        let mut fields = values.fields();
        let outcome = merge_into(&mut fields, &w.lead.fields);
        if outcome.changed {
            values.set_fields(&fields);
            values.lot_size_acres = fields.lot_size.as_deref().and_then(parse_lot_size_acres);
        }
        let enrich = outcome.changed && needs_enrichment(values);
        if enrich && w.enrich_later {
            values.enrichment_status = EnrichmentStatus::PendingRetry.as_str().to_owned();
        }
        values.updated_at = now;
        values.submission_count += 1;
        Planned {
            slot,
            action: if outcome.changed {
                LeadAction::Updated
            } else {
                LeadAction::Skipped
            },
            warnings: outcome.warnings,
            needs_enrichment: enrich,
        }
    }
}

fn stored_key(v: &LeadValues) -> Option<AddressKey> {
    AddressKey::parse(
        v.address.as_deref()?,
        v.city.as_deref(),
        v.state.as_deref(),
        v.zip_code.as_deref(),
    )
}

/// The lead lacks coordinates or an appraisal, and has something to look them up by.
fn needs_enrichment(v: &LeadValues) -> bool {
    (v.latitude.is_none() && v.address.is_some())
        || (v.appraisal.is_none() && (v.parcel_number.is_some() || v.latitude.is_some()))
}

fn new_values(w: &LeadWrite, now: NaiveDateTime) -> LeadValues {
    let key = w.lead.address_key.as_ref();
    LeadValues {
        team_id: w.team_id,
        dedupe_scope: scope_of(w.team_id),
        street_key: key.map(AddressKey::street_key),
        // Without a locality (no ZIP, and not both city and state) a lead matches nothing, so it
        // must not claim a slot in the unique index either: two such leads are two leads.
        address_key: key
            .filter(|k| !k.locality_key().is_empty())
            .map(AddressKey::full_key),
        lot_size_acres: w.lead.lot_size_acres,
        enrichment_status: EnrichmentStatus::Skipped.as_str().to_owned(),
        submission_count: 1,
        created_by: w.user_id,
        created_at: now,
        updated_at: now,
        ..LeadValues::default()
    }
}

/// Takes the write locks the batch needs before reading anything.
fn lock_for_writing(conn: &mut DbConnection, writes: &[LeadWrite]) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => take_write_lock(conn),
        DbConnection::Postgres(pg) => {
            let keys: Vec<String> = writes
                .iter()
                .filter_map(|w| {
                    let key = w.lead.address_key.as_ref()?;
                    Some(format!("{}|{}", scope_of(w.team_id), key.street_key()))
                })
                .collect::<BTreeSet<_>>()
                .into_iter()
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

/// Stored leads that share a (scope, street key) with any write.
fn load_candidates(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
    plan: &mut Plan,
) -> QueryResult<()> {
    let wanted: BTreeSet<(i64, String)> = writes
        .iter()
        .filter_map(|w| {
            Some((
                scope_of(w.team_id),
                w.lead.address_key.as_ref()?.street_key(),
            ))
        })
        .collect();
    let scopes: Vec<i64> = wanted
        .iter()
        .map(|(s, _)| *s)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let keys: Vec<String> = wanted
        .iter()
        .map(|(_, k)| k.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for chunk in keys.chunks(CHUNK) {
        let rows: Vec<LeadRow> = match (scopes.as_slice(), chunk) {
            // The single submission's case, as a statement SQLite can keep prepared (an IN
            // list of binds is prepared anew each time).
            ([scope], [key]) => leads::table
                .filter(leads::dedupe_scope.eq(scope))
                .filter(leads::street_key.eq(key))
                .order(leads::id.asc())
                .select(LeadRow::as_select())
                .load(conn)?,
            _ => leads::table
                .filter(leads::dedupe_scope.eq_any(&scopes))
                .filter(leads::street_key.eq_any(chunk))
                .order(leads::id.asc())
                .select(LeadRow::as_select())
                .load(conn)?,
        };
        for row in rows {
            if let Some(key) = row.values.street_key.clone() {
                let slot = Slot::Stored(plan.stored.len());
                plan.by_street
                    .entry((row.values.dedupe_scope, key))
                    .or_default()
                    .push(slot);
                plan.stored.push(row);
            }
        }
    }
    Ok(())
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
        for chunk in ids.chunks(CHUNK) {
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

/// Inserts the new leads in chunks of fixed sizes (see fixed_chunks.rs); answers their ids in
/// the order given. Ids grow with each row of an INSERT on both backends (SQLite's next rowid,
/// PostgreSQL's sequence, under this transaction's locks), while RETURNING's row order is not
/// promised: sorting restores it.
///
/// On PostgreSQL every statement is a round trip; on SQLite, measured with the lead list's
/// indexes in place, 1000 single-row INSERTs took 57 ms and three multi-row ones 16 ms.
fn insert_leads(conn: &mut DbConnection, created: &[LeadValues]) -> QueryResult<Vec<i64>> {
    let mut ids = Vec::with_capacity(created.len());
    for_each_fixed_chunk!(created, chunk => {
        let mut chunk_ids: Vec<i64> = on_backend!(conn, c => diesel::insert_into(leads::table)
            .values(chunk)
            .returning(leads::id)
            .get_results(c))?;
        chunk_ids.sort_unstable();
        ids.extend(chunk_ids);
    });
    Ok(ids)
}

/// Writes the batch in the caller's transaction. An element whose submission is already final
/// (a job run twice after a crash) answers `None` and changes nothing.
pub(crate) fn write_all(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<Vec<Option<LeadWritten>>> {
    lock_for_writing(conn, writes)?;
    let (open, batch_ids) = open_submissions(conn, writes)?;
    let now = to_db(Utc::now());
    let mut plan = Plan::default();
    load_candidates(conn, writes, &mut plan)?;
    for w in writes {
        if w.submission_id.is_some_and(|id| !open.contains(&id)) {
            plan.elements.push(None);
        } else {
            plan.plan(w, now);
        }
    }
    let created_ids = insert_leads(conn, &plan.created)?;
    for &i in &plan.touched {
        let row = &plan.stored[i];
        diesel::update(leads::table.find(row.id))
            .set(&row.values)
            .execute(conn)?;
    }
    let lead_id = |slot: Slot| match slot {
        Slot::Stored(i) => plan.stored[i].id,
        Slot::Created(i) => created_ids[i],
    };
    let mut results = Vec::with_capacity(writes.len());
    let mut outcomes = Vec::with_capacity(writes.len());
    let mut to_enrich = BTreeSet::new();
    for (w, planned) in writes.iter().zip(&plan.elements) {
        let Some(p) = planned else {
            results.push(None);
            continue;
        };
        let written = LeadWritten {
            lead_id: lead_id(p.slot),
            action: p.action,
            warnings: p.warnings.clone(),
            needs_enrichment: p.needs_enrichment,
        };
        if p.needs_enrichment && w.enrich_later {
            to_enrich.insert(written.lead_id);
        }
        if let Some(id) = w.submission_id {
            let mut warnings = w.lead.warnings.clone();
            warnings.extend(written.warnings.iter().cloned());
            outcomes.push(OutcomeRow {
                id,
                status: SubmissionStatus::for_action(written.action).as_str(),
                lead_id: written.lead_id,
                action: written.action.as_str(),
                warnings: serde_json::to_string(&warnings).unwrap_or_else(|_| "[]".into()),
            });
        }
        results.push(Some(written));
    }
    record_outcomes(conn, &outcomes, now)?;
    close_finished_batches(conn, batch_ids, now)?;
    if !to_enrich.is_empty() {
        // A safety net: enrichment runs right after this transaction; should the process die
        // first, or the enrichment fail, this job does it later. It does nothing for leads
        // whose enrichment finished.
        let job = NewJob::now(
            ENRICH_LEAD,
            serde_json::json!({ "lead_ids": to_enrich }),
            Utc::now() + Duration::seconds(ENRICH_SAFETY_DELAY_SECS),
        );
        insert_jobs(conn, &[job], now)?;
    }
    Ok(results)
}
