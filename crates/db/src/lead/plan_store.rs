//! Loading what `domain::lead::plan` plans against, and writing what it planned: the stored
//! leads of the batch's streets in, new leads, merged leads and the enrichment retry job out.
//! The caller holds the write locks.
use std::collections::{BTreeSet, HashMap};

use chrono::{NaiveDateTime, Utc};
use diesel::pg::PgConnection;
use diesel::prelude::*;

use leadhub_domain::jobs::NewJob;
use leadhub_domain::lead::plan::{self, Candidate, LeadPlan, NewLead, PlannedLead, Street};
use leadhub_domain::lead::record::{LeadWrite, LeadWritten};

use leadhub_domain::lead::work::{kind, NewActivity};

use crate::job::jobs::insert_jobs;
use crate::lead::lead_row::{LeadRow, LeadValues};
use crate::lead::lead_work::insert_activity;
use crate::lead::turns::{deal_new_leads, give_new_leads};
use crate::schema::leads;
use crate::sql::error::stored_word;
use crate::sql::fixed_chunks::insert_returning_ids;
use crate::sql::kept::kept_update;
use crate::sql::time::from_db;
use crate::sql::unnest::unnest_insert_returning_ids;
use crate::{scope_of, DbConnection, IN_LIST_CHUNK};

/// Plans the writes that `apply` lets through (the others return `None`: their submission is
/// final already) against the stored leads of `streets`, and writes the plan.
pub(crate) fn plan_and_write(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
    streets: &BTreeSet<Street>,
    now: NaiveDateTime,
    apply: impl Fn(&LeadWrite) -> bool,
) -> QueryResult<Vec<Option<LeadWritten>>> {
    let mut stored = load_candidates(conn, streets)?;
    let candidates = stored.iter().map(|(_, (c, _))| c.clone()).collect();
    let mut plan = plan::plan(writes.iter().filter(|w| apply(w)), candidates);
    let owners = deal_new_leads(conn, &plan.new_leads)?;
    let new_ids = insert_leads(conn, std::mem::take(&mut plan.new_leads), now)?;
    give_new_leads(conn, owners, &new_ids, now)?;
    let mut merged_into = std::mem::take(&mut plan.merged);
    // In lead id order, as every writer of several leads (`in_lead_order`).
    merged_into.sort_by_key(|m| m.id);
    for merged in merged_into {
        let Some((_, row)) = stored.get_mut(&merged.id) else {
            continue;
        };
        // A changed lead gets a new version (its ETag), as a person's edit gives it.
        let changed = row.values.fields() != merged.fields;
        let values = &mut row.values;
        values.set_fields(merged.fields);
        values.lot_size_acres = merged.lot_size_acres;
        values.enrichment_status = merged.enrichment_status.as_str().to_owned();
        values.submission_count = merged.submission_count;
        values.updated_at = now;
        let new_version = changed.then(|| leads::version.eq(leads::version + 1));
        kept_update(leads::table, leads::id.eq(row.id), (&*values, new_version)).execute(conn)?;
    }
    let restored = restore_resubmitted(conn, writes, &plan, &stored, &apply, now)?;
    let lead_id = |lead: PlannedLead| match lead {
        PlannedLead::Stored(id) => id,
        PlannedLead::New(i) => new_ids[i],
    };
    queue_enrichment_retry(conn, &plan, lead_id, now)?;
    let mut planned = plan.elements.into_iter().enumerate();
    Ok(writes
        .iter()
        .map(|w| {
            if !apply(w) {
                return None;
            }
            let (i, p) = planned.next()?;
            Some(LeadWritten {
                lead_id: lead_id(p.lead),
                action: p.action,
                warnings: p.warnings,
                to_enrich: p.to_enrich,
                restored: restored.contains(&i),
                lead_changed: p.lead_changed,
            })
        })
        .collect())
}

/// A submission for an archived lead's property merges as usual and restores the lead
/// (docs/working-leads.md): the property is being worked again. The timeline names the first
/// submission that did it (a fresh submission gets its id after this: `name_restoring`).
/// Answers the positions of the plan's elements that restored a lead.
fn restore_resubmitted(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
    plan: &LeadPlan,
    stored: &HashMap<i64, (Candidate, LeadRow)>,
    apply: &impl Fn(&LeadWrite) -> bool,
    now: NaiveDateTime,
) -> QueryResult<BTreeSet<usize>> {
    let mut restored = BTreeSet::new();
    let mut positions = BTreeSet::new();
    for (i, (w, p)) in writes
        .iter()
        .filter(|w| apply(w))
        .zip(&plan.elements)
        .enumerate()
    {
        let PlannedLead::Stored(id) = p.lead else {
            continue;
        };
        let archived = stored
            .get(&id)
            .is_some_and(|(_, row)| row.work.archived_at.is_some());
        if !archived || !restored.insert(id) {
            continue;
        }
        diesel::update(leads::table.find(id))
            .set((
                leads::archived_at.eq(None::<NaiveDateTime>),
                leads::version.eq(leads::version + 1),
            ))
            .execute(conn)?;
        let entry = NewActivity {
            kind: kind::RESUBMITTED_RESTORED,
            detail: serde_json::json!({ "submission_id": w.submission_id }),
        };
        insert_activity(conn, id, Some(w.user_id), &[entry], from_db(now))?;
        positions.insert(i);
    }
    Ok(positions)
}

/// Queues the plan's enrichment retry, in the leads' transaction.
fn queue_enrichment_retry(
    conn: &mut DbConnection,
    plan: &LeadPlan,
    lead_id: impl Fn(PlannedLead) -> i64,
    now: NaiveDateTime,
) -> QueryResult<()> {
    if plan.enrichment_retry.is_empty() {
        return Ok(());
    }
    let ids = plan.enrichment_retry.iter().map(|l| lead_id(*l));
    insert_jobs(conn, &[NewJob::enrichment_retry(ids, Utc::now())], now)
}

/// The stored leads of these streets, by id: each as the plan reads it, and its row, which is
/// written back when the plan merged into it.
fn load_candidates(
    conn: &mut DbConnection,
    streets: &BTreeSet<Street>,
) -> QueryResult<HashMap<i64, (Candidate, LeadRow)>> {
    let wanted: HashMap<(i64, &str), &Street> = streets
        .iter()
        .map(|s| ((scope_of(s.team_id), s.key.as_str()), s))
        .collect();
    let scopes: Vec<i64> = wanted
        .keys()
        .map(|(scope, _)| *scope)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let keys: Vec<&str> = streets
        .iter()
        .map(|s| s.key.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut found = HashMap::new();
    for chunk in keys.chunks(IN_LIST_CHUNK) {
        let rows: Vec<LeadRow> = match (scopes.as_slice(), chunk) {
            // The single submission's case, as a statement SQLite can keep prepared (an IN
            // list of binds is prepared anew each time).
            ([scope], [key]) => leads::table
                .filter(leads::dedupe_scope.eq(scope))
                .filter(leads::street_key.eq(key))
                .select(LeadRow::as_select())
                .load(conn)?,
            _ => leads::table
                .filter(leads::dedupe_scope.eq_any(&scopes))
                .filter(leads::street_key.eq_any(chunk))
                .select(LeadRow::as_select())
                .load(conn)?,
        };
        for row in rows {
            // The query reads every scope with every key: only the pairs asked for count.
            let street = row
                .values
                .street_key
                .as_deref()
                .and_then(|key| wanted.get(&(row.values.dedupe_scope, key)));
            if let Some(street) = street {
                let v = &row.values;
                let candidate = Candidate {
                    id: row.id,
                    street: (*street).clone(),
                    fields: v.fields(),
                    lot_size_acres: v.lot_size_acres,
                    has_appraisal: v.appraisal.is_some(),
                    enrichment_status: stored_word(
                        "leads.enrichment_status",
                        &v.enrichment_status,
                    )?,
                    submission_count: v.submission_count,
                    barred: row.work.barred()?,
                };
                found.insert(row.id, (candidate, row));
            }
        }
    }
    Ok(found)
}

/// Inserts the new leads; returns their ids in the order given.
///
/// On SQLite, measured with the lead list's indexes in place, 1000 single-row INSERTs took
/// 57 ms and three multi-row ones 16 ms. On PostgreSQL every statement is a round trip: all
/// rows go in one, as column arrays (unnest.rs).
fn insert_leads(
    conn: &mut DbConnection,
    new: Vec<NewLead>,
    now: NaiveDateTime,
) -> QueryResult<Vec<i64>> {
    let rows: Vec<LeadValues> = new
        .into_iter()
        .map(|n| LeadValues::new_lead(n, now))
        .collect();
    match conn {
        DbConnection::Postgres(pg) if rows.len() > 1 => Ok(insert_lead_arrays(pg, &rows)?),
        _ => Ok(insert_returning_ids!(conn, leads::table, leads::id, rows)),
    }
}

/// PostgreSQL: every column of `LeadValues`, one array each.
fn insert_lead_arrays(pg: &mut PgConnection, rows: &[LeadValues]) -> QueryResult<Vec<i64>> {
    use diesel::sql_types::{BigInt, Double, Integer, Nullable, Text, Timestamp};
    type OptText = Nullable<Text>;
    Ok(unnest_insert_returning_ids!(pg, "leads", rows, [
        team_id: Nullable<BigInt>, dedupe_scope: BigInt, street_key: OptText,
        address_key: OptText, address: OptText, city: OptText, state: OptText,
        zip_code: OptText, county: OptText, first_name: OptText, last_name: OptText,
        primary_phone: OptText, primary_phone_type: OptText, phone_2: OptText,
        phone_3: OptText, phone_4: OptText, phone_5: OptText, email_1: OptText,
        email_2: OptText, email_3: OptText, mail_address: OptText, mail_city: OptText,
        mail_state: OptText, mail_zip: OptText, project_number: OptText,
        permit_date: OptText, permit_status: OptText, parcel_number: OptText,
        subdivision: OptText, lot: OptText, work_type: OptText,
        project_description: OptText, specific_use: OptText, property_type: OptText,
        lot_size: OptText, lot_size_acres: Nullable<Double>, bedrooms: Nullable<Integer>,
        related_url: OptText, latitude: Nullable<Double>, longitude: Nullable<Double>,
        source: OptText, source_identifier: OptText, geocode_source: OptText,
        geocode_match: OptText, geocode_matched_address: OptText, county_fips: OptText,
        appraisal: OptText, enrichment_status: Text, submission_count: Integer,
        created_by: BigInt, created_at: Timestamp, updated_at: Timestamp,
    ]))
}
