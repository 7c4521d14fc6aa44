//! `LeadRepository`: duplicate-safe writes and lead queries.
//!
//! One property never becomes two leads: writes for a batch run in one transaction that first
//! takes the write lock (SQLite: a no-op UPDATE makes the transaction a writer at once, so its
//! reads cannot go stale; PostgreSQL: an advisory lock per (scope, street key)); the unique index
//! on (dedupe_scope, address_key) backs this up, and a violation retries the whole transaction.
use std::collections::{BTreeSet, HashMap, HashSet};

use async_trait::async_trait;
use chrono::{Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::Text;

use leadhub_domain::address::AddressKey;
use leadhub_domain::jobs::{NewJob, ENRICH_LEAD};
use leadhub_domain::lead::merge_into;
use leadhub_domain::lead::record::{
    EnrichmentStatus, EnrichmentUpdate, Lead, LeadAction, LeadFilter, LeadRepository, LeadWrite,
    LeadWritten,
};
use leadhub_domain::parse::parse_lot_size_acres;
use leadhub_domain::store::{StoreError, StoreResult};
use leadhub_domain::submission::SubmissionStatus;

use crate::connection::take_write_lock;
use crate::error::store_error;
use crate::jobs::insert_jobs;
use crate::lead_row::{LeadRow, LeadValues};
use crate::schema::{leads, submissions};
use crate::submissions::close_finished_batches;
use crate::time::to_db;
use crate::{Database, DbConnection};

/// Bind-parameter lists are chunked below every backend's limit.
const CHUNK: usize = 500;
const WRITE_ATTEMPTS: usize = 3;

fn scope_of(team_id: Option<i64>) -> i64 {
    team_id.unwrap_or(0)
}

fn stored_key(row: &LeadRow) -> Option<AddressKey> {
    AddressKey::parse(
        row.address.as_deref()?,
        row.city.as_deref(),
        row.state.as_deref(),
        row.zip_code.as_deref(),
    )
}

/// Takes the write locks the batch needs before reading anything.
fn lock_for_writing(conn: &mut DbConnection, writes: &[LeadWrite]) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => take_write_lock(conn)?,
        DbConnection::Postgres(_) => {
            let keys: BTreeSet<String> = writes
                .iter()
                .filter_map(|w| {
                    let key = w.lead.address_key.as_ref()?;
                    Some(format!("{}|{}", scope_of(w.team_id), key.street_key()))
                })
                .collect();
            // Sorted, so two batches never wait on each other in opposite orders.
            for key in keys {
                diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                    .bind::<Text, _>(key)
                    .execute(conn)?;
            }
        }
    }
    Ok(())
}

/// Stored leads that share a street key with any write, by (scope, street key).
fn candidates(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<HashMap<(i64, String), Vec<LeadRow>>> {
    let wanted: BTreeSet<(i64, String)> = writes
        .iter()
        .filter_map(|w| {
            Some((
                scope_of(w.team_id),
                w.lead.address_key.as_ref()?.street_key(),
            ))
        })
        .collect();
    let scopes: BTreeSet<i64> = wanted.iter().map(|(s, _)| *s).collect();
    let keys: Vec<String> = wanted
        .iter()
        .map(|(_, k)| k.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut found: HashMap<(i64, String), Vec<LeadRow>> = HashMap::new();
    for chunk in keys.chunks(CHUNK) {
        let rows: Vec<LeadRow> = leads::table
            .filter(leads::dedupe_scope.eq_any(scopes.iter().copied().collect::<Vec<_>>()))
            .filter(leads::street_key.eq_any(chunk))
            .order(leads::id.asc())
            .select(LeadRow::as_select())
            .load(conn)?;
        for row in rows {
            if let Some(key) = row.street_key.clone() {
                found.entry((row.dedupe_scope, key)).or_default().push(row);
            }
        }
    }
    Ok(found)
}

fn needs_enrichment(
    row_fields_lat: Option<f64>,
    has_address: bool,
    has_parcel: bool,
    has_appraisal: bool,
) -> bool {
    (row_fields_lat.is_none() && has_address)
        || (!has_appraisal && (has_parcel || row_fields_lat.is_some()))
}

fn write_all(
    conn: &mut DbConnection,
    writes: &[LeadWrite],
) -> QueryResult<Vec<Option<LeadWritten>>> {
    lock_for_writing(conn, writes)?;
    let mut known = candidates(conn, writes)?;
    let open = open_submissions(conn, writes)?;
    let now = to_db(Utc::now());
    let mut results = Vec::with_capacity(writes.len());
    let mut to_enrich = Vec::new();
    for w in writes {
        if w.submission_id.is_some_and(|id| !open.contains(&id)) {
            results.push(None);
            continue;
        }
        let scope = scope_of(w.team_id);
        let key = w.lead.address_key.as_ref();
        let slot = key.map(|k| (scope, k.street_key()));
        let existing = slot
            .as_ref()
            .and_then(|s| known.get_mut(s))
            .and_then(|rows| {
                rows.iter_mut().find(|row| {
                    key.zip(stored_key(row))
                        .is_some_and(|(k, s)| k.same_property(&s))
                })
            });
        match existing {
            Some(row) => {
                let mut fields = row.fields();
                let outcome = merge_into(&mut fields, &w.lead.fields);
                let mut values = row.values();
                if outcome.changed {
                    values.set_fields(&fields);
                    values.lot_size_acres =
                        fields.lot_size.as_deref().and_then(parse_lot_size_acres);
                }
                let lead_id = row.id;
                let enrich = outcome.changed
                    && needs_enrichment(
                        values.latitude,
                        values.address.is_some(),
                        values.parcel_number.is_some(),
                        values.appraisal.is_some(),
                    );
                if enrich && w.enrich_later {
                    values.enrichment_status = EnrichmentStatus::PendingRetry.as_str().to_owned();
                    to_enrich.push(lead_id);
                }
                values.updated_at = now;
                values.submission_count += 1;
                diesel::update(leads::table.find(lead_id))
                    .set(&values)
                    .execute(conn)?;
                // Later elements of the batch must see this element's changes.
                *row = LeadRow::from_values(lead_id, values);
                let written = LeadWritten {
                    lead_id,
                    action: if outcome.changed {
                        LeadAction::Updated
                    } else {
                        LeadAction::Skipped
                    },
                    warnings: outcome.warnings,
                    needs_enrichment: enrich,
                };
                record_outcome(conn, w, &written, now)?;
                results.push(Some(written));
            }
            None => {
                let mut values = new_values(w, now);
                values.set_fields(&w.lead.fields);
                let enrich = needs_enrichment(
                    values.latitude,
                    values.address.is_some(),
                    values.parcel_number.is_some(),
                    false,
                );
                if enrich && w.enrich_later {
                    values.enrichment_status = EnrichmentStatus::PendingRetry.as_str().to_owned();
                }
                let id = diesel::insert_into(leads::table)
                    .values(&values)
                    .returning(leads::id)
                    .get_result::<i64>(conn)?;
                if enrich && w.enrich_later {
                    to_enrich.push(id);
                }
                if let Some(slot) = slot {
                    known
                        .entry(slot)
                        .or_default()
                        .push(LeadRow::from_values(id, values));
                }
                let written = LeadWritten {
                    lead_id: id,
                    action: LeadAction::Created,
                    warnings: Vec::new(),
                    needs_enrichment: enrich,
                };
                record_outcome(conn, w, &written, now)?;
                results.push(Some(written));
            }
        }
    }
    let submission_ids: Vec<i64> = writes.iter().filter_map(|w| w.submission_id).collect();
    let mut batch_ids = BTreeSet::new();
    for chunk in submission_ids.chunks(CHUNK) {
        let found: Vec<Option<String>> = submissions::table
            .filter(submissions::id.eq_any(chunk))
            .select(submissions::batch_id)
            .distinct()
            .load(conn)?;
        batch_ids.extend(found.into_iter().flatten());
    }
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

/// How long the enrichment safety-net job waits before it checks on its leads.
const ENRICH_SAFETY_DELAY_SECS: i64 = 60;

/// Ids of the writes' submissions that are still open (pending or processing).
fn open_submissions(conn: &mut DbConnection, writes: &[LeadWrite]) -> QueryResult<HashSet<i64>> {
    let ids: Vec<i64> = writes.iter().filter_map(|w| w.submission_id).collect();
    let mut open = HashSet::with_capacity(ids.len());
    for chunk in ids.chunks(CHUNK) {
        let found: Vec<i64> = submissions::table
            .filter(submissions::id.eq_any(chunk))
            .filter(submissions::status.eq_any(["pending", "processing"]))
            .select(submissions::id)
            .load(conn)?;
        open.extend(found);
    }
    Ok(open)
}

/// The submission's outcome, in the lead's transaction: a crash leaves both or neither.
fn record_outcome(
    conn: &mut DbConnection,
    w: &LeadWrite,
    written: &LeadWritten,
    now: chrono::NaiveDateTime,
) -> QueryResult<()> {
    let Some(id) = w.submission_id else {
        return Ok(());
    };
    let mut warnings = w.lead.warnings.clone();
    warnings.extend(written.warnings.iter().cloned());
    diesel::update(submissions::table.find(id))
        .set((
            submissions::status.eq(SubmissionStatus::for_action(written.action).as_str()),
            submissions::result_lead_id.eq(Some(written.lead_id)),
            submissions::result_action.eq(Some(written.action.as_str())),
            submissions::validation_warnings
                .eq(serde_json::to_string(&warnings).unwrap_or_else(|_| "[]".into())),
            submissions::processed_at.eq(Some(now)),
        ))
        .execute(conn)
        .map(drop)
}

fn new_values(w: &LeadWrite, now: chrono::NaiveDateTime) -> LeadValues {
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
        ..LeadValues::empty()
    }
}

#[async_trait]
impl LeadRepository for Database {
    async fn write_leads(&self, writes: Vec<LeadWrite>) -> StoreResult<Vec<Option<LeadWritten>>> {
        self.run(move |conn| {
            let mut attempt = 0;
            loop {
                attempt += 1;
                match conn.transaction(|conn| write_all(conn, &writes)) {
                    Ok(done) => return Ok(done),
                    Err(e) => match store_error(e) {
                        // Another writer created the property between our read and write.
                        StoreError::Conflict(_) if attempt < WRITE_ATTEMPTS => continue,
                        other => return Err(other),
                    },
                }
            }
        })
        .await
    }

    async fn find_lead(&self, id: i64) -> StoreResult<Option<Lead>> {
        self.query(move |conn| {
            leads::table
                .find(id)
                .select(LeadRow::as_select())
                .first(conn)
                .optional()
                .map(|r| r.map(LeadRow::into_lead))
        })
        .await
    }

    async fn find_leads(&self, ids: Vec<i64>) -> StoreResult<Vec<Lead>> {
        self.query(move |conn| {
            let mut out = Vec::with_capacity(ids.len());
            for chunk in ids.chunks(CHUNK) {
                let rows: Vec<LeadRow> = leads::table
                    .filter(leads::id.eq_any(chunk))
                    .select(LeadRow::as_select())
                    .load(conn)?;
                out.extend(rows.into_iter().map(LeadRow::into_lead));
            }
            Ok(out)
        })
        .await
    }

    async fn list_leads(
        &self,
        filter: LeadFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Lead>, i64)> {
        self.query(move |conn| {
            let total: i64 = filtered(&filter).count().get_result(conn)?;
            let rows: Vec<LeadRow> = filtered(&filter)
                .order((leads::created_at.desc(), leads::id.desc()))
                .limit(limit)
                .offset(offset)
                .select(LeadRow::as_select())
                .load(conn)?;
            Ok((rows.into_iter().map(LeadRow::into_lead).collect(), total))
        })
        .await
    }

    async fn save_enrichment(&self, updates: Vec<EnrichmentUpdate>) -> StoreResult<()> {
        self.query(move |conn| {
            conn.transaction(|conn| {
                for u in &updates {
                    diesel::update(leads::table.find(u.lead_id))
                        .set((
                            leads::latitude.eq(u.coordinates.map(|c| c.0)),
                            leads::longitude.eq(u.coordinates.map(|c| c.1)),
                            leads::geocode_source.eq(u.geocode.as_ref().map(|g| g.source.clone())),
                            leads::geocode_match
                                .eq(u.geocode.as_ref().map(|g| g.match_type.clone())),
                            leads::geocode_matched_address
                                .eq(u.geocode.as_ref().and_then(|g| g.matched_address.clone())),
                            leads::county_fips.eq(u.county_fips.clone()),
                            leads::appraisal.eq(u.appraisal.as_ref().map(|a| a.to_string())),
                            leads::enrichment_status.eq(u.status.as_str()),
                        ))
                        .execute(conn)?;
                }
                Ok(())
            })
        })
        .await
    }
}

/// The filtered lead query; `visible_teams` Some limits to unassigned leads and those teams.
fn filtered(
    f: &LeadFilter,
) -> leads::BoxedQuery<'static, <DbConnection as diesel::Connection>::Backend> {
    let mut q = leads::table.into_boxed();
    if let Some(teams) = &f.visible_teams {
        q = q.filter(
            leads::team_id
                .is_null()
                .or(leads::team_id.eq_any(teams.clone())),
        );
    }
    if let Some(t) = f.team_id {
        q = q.filter(leads::team_id.eq(t));
    }
    if let Some(v) = &f.state {
        q = q.filter(leads::state.eq(v.to_ascii_uppercase()));
    }
    if let Some(v) = &f.city {
        q = q.filter(leads::city.eq(v.clone()));
    }
    if let Some(v) = &f.zip_code {
        q = q.filter(
            leads::zip_code
                .like(format!("{}%", escape_like(v)))
                .escape('\\'),
        );
    }
    if let Some(v) = &f.property_type {
        q = q.filter(leads::property_type.eq(v.to_ascii_lowercase()));
    }
    if let Some(v) = &f.permit_status {
        q = q.filter(leads::permit_status.eq(v.clone()));
    }
    if let Some(v) = &f.source {
        q = q.filter(leads::source.eq(v.clone()));
    }
    if let Some(v) = &f.q {
        let pattern = format!("%{}%", escape_like(&v.to_lowercase()));
        q = q.filter(
            diesel::dsl::sql::<diesel::sql_types::Bool>("(")
                .sql("LOWER(COALESCE(address, '')) LIKE ")
                .bind::<Text, _>(pattern.clone())
                .sql(" ESCAPE '\\' OR LOWER(COALESCE(first_name, '') || ' ' || COALESCE(last_name, '')) LIKE ")
                .bind::<Text, _>(pattern.clone())
                .sql(" ESCAPE '\\' OR LOWER(COALESCE(project_number, '')) LIKE ")
                .bind::<Text, _>(pattern)
                .sql(" ESCAPE '\\')"),
        );
    }
    if let Some(v) = f.created_after {
        q = q.filter(leads::created_at.ge(to_db(v)));
    }
    if let Some(v) = f.created_before {
        q = q.filter(leads::created_at.lt(to_db(v)));
    }
    q
}

fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}
