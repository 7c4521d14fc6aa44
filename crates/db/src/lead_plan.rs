//! A batch of lead writes planned in memory, then written: which element creates, merges into
//! or skips which lead, in element order, against the stored leads it may be a duplicate of.
//!
//! A plan grows chunk by chunk (`add`): a writer can plan and insert a batch's first leads while
//! the rest are still being normalised (see `lead_writes::write_fresh_stream`). Planning a whole
//! batch at once is one chunk. The caller holds the write locks.
use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{Duration, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::address::AddressKey;
use leadhub_domain::jobs::{NewJob, ENRICH_LEAD};
use leadhub_domain::lead::merge_into;
use leadhub_domain::lead::record::{EnrichmentStatus, LeadAction, LeadWrite, LeadWritten};
use leadhub_domain::lead::Warning;
use leadhub_domain::parse::parse_lot_size_acres;

use crate::fixed_chunks::{insert_returning_ids, LARGE};
use crate::jobs::insert_jobs;
use crate::lead_row::{LeadRow, LeadValues};
use crate::schema::leads;
use crate::{scope_of, DbConnection, IN_LIST_CHUNK};

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
pub(crate) struct Plan {
    stored: Vec<LeadRow>,
    /// Stored leads some element merged into (or skipped against): written back once each.
    touched: BTreeSet<usize>,
    created: Vec<LeadValues>,
    /// Ids of the created leads inserted so far: the first `created_ids.len()` of `created`.
    created_ids: Vec<i64>,
    /// Created leads a later element merged into after they were inserted: written back once
    /// each.
    touched_created: BTreeSet<usize>,
    /// The (scope, street key)s whose stored leads are loaded: each is read once per plan.
    loaded: HashSet<(i64, String)>,
    /// Leads by (scope, street key): the candidates an element's address is compared with.
    by_street: HashMap<(i64, String), Vec<Slot>>,
    elements: Vec<Option<Planned>>,
}

impl Plan {
    /// Plans the batch's next elements, in order; an element `apply` refuses answers `None`.
    pub(crate) fn add(
        &mut self,
        conn: &mut DbConnection,
        writes: &[LeadWrite],
        now: NaiveDateTime,
        apply: impl Fn(&LeadWrite) -> bool,
    ) -> QueryResult<()> {
        // Each element's (scope, street key), built once: the candidates' lookup, the match
        // and the new lead's row all use it.
        let streets: Vec<Option<(i64, String)>> = writes
            .iter()
            .map(|w| {
                let key = w.lead.address_key.as_ref()?;
                Some((scope_of(w.team_id), key.street_key()))
            })
            .collect();
        self.load_candidates(conn, &streets)?;
        for (w, street) in writes.iter().zip(streets) {
            if apply(w) {
                self.plan(w, street, now);
            } else {
                self.elements.push(None);
            }
        }
        Ok(())
    }

    /// Inserts the leads created since the last insert: every one when `all`, else only as
    /// many as fill whole statements of the largest size (the rest wait for the next chunk).
    pub(crate) fn insert_created(&mut self, conn: &mut DbConnection, all: bool) -> QueryResult<()> {
        let waiting = &self.created[self.created_ids.len()..];
        let count = if all {
            waiting.len()
        } else {
            waiting.len() - waiting.len() % LARGE
        };
        let ids = insert_leads(conn, &waiting[..count])?;
        self.created_ids.extend(ids);
        Ok(())
    }

    /// Writes what is left of the plan (the leads not inserted yet, the leads merged into, the
    /// enrichment safety-net job) and answers each element's result; `writes` are the elements
    /// added, in order.
    pub(crate) fn finish(
        mut self,
        conn: &mut DbConnection,
        writes: &[LeadWrite],
        now: NaiveDateTime,
    ) -> QueryResult<Vec<Option<LeadWritten>>> {
        self.insert_created(conn, true)?;
        for &i in &self.touched {
            let row = &self.stored[i];
            diesel::update(leads::table.find(row.id))
                .set(&row.values)
                .execute(conn)?;
        }
        for &i in &self.touched_created {
            diesel::update(leads::table.find(self.created_ids[i]))
                .set(&self.created[i])
                .execute(conn)?;
        }
        let lead_id = |slot: Slot| match slot {
            Slot::Stored(i) => self.stored[i].id,
            Slot::Created(i) => self.created_ids[i],
        };
        let mut results = Vec::with_capacity(writes.len());
        let mut to_enrich = BTreeSet::new();
        for (w, planned) in writes.iter().zip(self.elements) {
            let Some(p) = planned else {
                results.push(None);
                continue;
            };
            let written = LeadWritten {
                lead_id: lead_id(p.slot),
                action: p.action,
                warnings: p.warnings,
                needs_enrichment: p.needs_enrichment,
            };
            if p.needs_enrichment && w.enrich_later {
                to_enrich.insert(written.lead_id);
            }
            results.push(Some(written));
        }
        if !to_enrich.is_empty() {
            // A safety net: enrichment runs right after this transaction; should the process
            // die first, or the enrichment fail, this job does it later. It does nothing for
            // leads whose enrichment finished.
            let job = NewJob::now(
                ENRICH_LEAD,
                serde_json::json!({ "lead_ids": to_enrich }),
                Utc::now() + Duration::seconds(ENRICH_SAFETY_DELAY_SECS),
            );
            insert_jobs(conn, &[job], now)?;
        }
        Ok(results)
    }

    /// Loads the stored leads that share one of these (scope, street key)s, but for those
    /// loaded for earlier elements: the plan holds their latest values.
    fn load_candidates(
        &mut self,
        conn: &mut DbConnection,
        streets: &[Option<(i64, String)>],
    ) -> QueryResult<()> {
        let wanted: BTreeSet<(i64, String)> = streets
            .iter()
            .flatten()
            .filter(|pair| !self.loaded.contains(*pair))
            .cloned()
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
        for chunk in keys.chunks(IN_LIST_CHUNK) {
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
                let Some(key) = row.values.street_key.clone() else {
                    continue;
                };
                // The query reads every scope with every key; a pair no write asked for is left
                // for a later chunk that asks, so that no stored lead is loaded twice.
                let pair = (row.values.dedupe_scope, key);
                if wanted.contains(&pair) {
                    let slot = Slot::Stored(self.stored.len());
                    self.by_street.entry(pair).or_default().push(slot);
                    self.stored.push(row);
                }
            }
        }
        self.loaded.extend(wanted);
        Ok(())
    }

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
    fn same_property(&self, street: &(i64, String), key: &AddressKey) -> Option<Slot> {
        self.by_street.get(street)?.iter().copied().find(|slot| {
            stored_key(self.values(*slot)).is_some_and(|stored| key.same_property(&stored))
        })
    }

    /// Plans one element; `street` is its (scope, street key) when it has an address key.
    fn plan(&mut self, w: &LeadWrite, street: Option<(i64, String)>, now: NaiveDateTime) {
        let key = w.lead.address_key.as_ref();
        let found = street
            .as_ref()
            .zip(key)
            .and_then(|(street, k)| self.same_property(street, k));
        let planned = match found {
            Some(slot) => self.merge(slot, w, now),
            None => {
                let mut values = new_values(w, street.as_ref().map(|(_, k)| k.as_str()), now);
                values.set_fields(&w.lead.fields);
                let enrich = needs_enrichment(&values);
                if enrich && w.enrich_later {
                    values.enrichment_status = EnrichmentStatus::PendingRetry.as_str().to_owned();
                }
                let slot = Slot::Created(self.created.len());
                self.created.push(values);
                if let Some(street) = street {
                    self.by_street.entry(street).or_default().push(slot);
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
        match slot {
            Slot::Stored(i) => {
                self.touched.insert(i);
            }
            Slot::Created(i) if i < self.created_ids.len() => {
                self.touched_created.insert(i);
            }
            Slot::Created(_) => {}
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

/// A new lead's row before its fields are set; `street_key` is its key's street key (what
/// `AddressKey::street_key` answers), built once by the caller.
fn new_values(w: &LeadWrite, street_key: Option<&str>, now: NaiveDateTime) -> LeadValues {
    let key = w.lead.address_key.as_ref();
    LeadValues {
        team_id: w.team_id,
        dedupe_scope: scope_of(w.team_id),
        street_key: street_key.map(str::to_owned),
        // Without a locality (no ZIP, and not both city and state) a lead matches nothing, so it
        // must not claim a slot in the unique index either: two such leads are two leads.
        address_key: key
            .zip(street_key)
            .filter(|(k, _)| !k.locality_key().is_empty())
            .map(|(k, street)| k.full_key_from(street)),
        lot_size_acres: w.lead.lot_size_acres,
        enrichment_status: EnrichmentStatus::Skipped.as_str().to_owned(),
        submission_count: 1,
        created_by: w.user_id,
        created_at: now,
        updated_at: now,
        ..LeadValues::default()
    }
}

/// Inserts the new leads; answers their ids in the order given.
///
/// On PostgreSQL every statement is a round trip; on SQLite, measured with the lead list's
/// indexes in place, 1000 single-row INSERTs took 57 ms and three multi-row ones 16 ms.
fn insert_leads(conn: &mut DbConnection, created: &[LeadValues]) -> QueryResult<Vec<i64>> {
    Ok(insert_returning_ids!(
        conn,
        leads::table,
        leads::id,
        created
    ))
}
