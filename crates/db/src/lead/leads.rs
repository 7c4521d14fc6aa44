//! `LeadRepository`: duplicate-safe writes (see `lead_writes`) and lead queries.
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::lead::record::{
    EnrichmentStatus, EnrichmentUpdate, Lead, LeadCursor, LeadFilter, LeadRepository, LeadWrite,
    LeadWritten,
};
use leadhub_domain::lead::work::model::{kind, NewActivity};
use leadhub_domain::lead::work::AssigneeFilter;
use leadhub_domain::store::StoreResult;

use crate::lead::contacts::contacted;
use crate::lead::daily_counts::{rolled_up_count, RollupFilter};
use crate::lead::in_lead_order;
use crate::lead::lead_row::LeadRow;
use crate::lead::lead_search::{any_of, in_order, with_email, with_phone, LeadCondition};
use crate::lead::lead_tags::tagged;
use crate::lead::lead_work::{insert_activity, with_assignees};
use crate::lead::lead_writes::{retry_on_conflict, write_all};
use crate::lead::order_walk::walk_the_order;
use crate::lead::word_search::{in_id_order, lead_search, matching, word_match, WordMatch};
use crate::schema::leads;
use crate::sql::kept::kept_update;
use crate::sql::time::to_db;
use crate::webhook::webhook_events::{emit, Event};
use crate::{Backend, Database, DbConnection, ReadConnection, IN_LIST_CHUNK};
use leadhub_domain::lead::search::SortField;
use leadhub_domain::webhook::EventType;

#[async_trait]
impl LeadRepository for Database {
    async fn write_leads(
        &self,
        writes: std::sync::Arc<Vec<LeadWrite>>,
    ) -> StoreResult<Vec<Option<LeadWritten>>> {
        self.write(move |conn| {
            let done = conn.transaction(|conn| write_all(conn, &writes));
            retry_on_conflict(done, || conn.transaction(|conn| write_all(conn, &writes)))
        })
        .await
    }

    async fn find_lead(&self, id: i64) -> StoreResult<Option<Lead>> {
        self.read(move |conn| {
            let found = conn
                .first(leads::table.find(id).select(LeadRow::as_select()))
                .optional()?;
            Ok(stored_leads(conn, found.into_iter().collect())?.pop())
        })
        .await
    }

    async fn find_leads(&self, ids: Vec<i64>) -> StoreResult<Vec<Lead>> {
        self.read(move |conn| leads_of(conn, &ids)).await
    }

    async fn list_leads(
        &self,
        filter: LeadFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Lead>, i64)> {
        self.read(move |conn| {
            let backend = conn.backend();
            // On SQLite a filter its word index holds whole is counted there, and its newest or
            // oldest first page is the index's rowids: no lead row is read for either.
            let held = match backend {
                Backend::Sqlite => word_match(&filter),
                Backend::Postgres => None,
            };
            let in_word_index = held.is_some();
            let words = held.filter(|w| w.complete);
            let total = listed_count(conn, &filter, words.as_ref(), backend)?;
            if let Some(words) = words.filter(|_| filter.sort.field == SortField::CreatedAt) {
                let ids: Vec<i64> = conn.load(
                    in_id_order(matching(words.expr), filter.sort.descending)
                        .limit(limit)
                        .offset(offset),
                )?;
                return Ok((leads_by_id(conn, &ids, filter.sort.descending)?, total));
            }
            let wanted = offset.saturating_add(limit);
            let matches = if in_word_index && walk_the_order(conn, &filter, total, wanted)? {
                on_rows(&filter)
            } else {
                filtered(&filter, backend)
            };
            let page = in_order(matches, filter.sort, filter.near)
                .limit(limit)
                .offset(offset);
            if filter.near.is_some() {
                // The page's ids first, from the index of live leads' positions alone
                // (`leads_live_position`), then its rows: the rows of every lead in the circle
                // are never read to sort them (docs/search.md, "Near a place").
                let ids: Vec<i64> = conn.load(page.select(leads::id))?;
                return Ok((leads_in_order(conn, &ids)?, total));
            }
            let rows: Vec<LeadRow> = conn.load(page.select(LeadRow::as_select()))?;
            Ok((stored_leads(conn, rows)?, total))
        })
        .await
    }

    async fn list_leads_after(
        &self,
        filter: LeadFilter,
        after: Option<LeadCursor>,
        limit: i64,
    ) -> StoreResult<Vec<Lead>> {
        self.read(move |conn| {
            let backend = conn.backend();
            if backend == Backend::Sqlite {
                if let Some(words) = word_match(&filter) {
                    return words_after(conn, &filter, words, after, limit);
                }
            }
            let mut query = filtered(&filter, backend);
            if let Some(c) = after {
                // A row value, so both backends seek the creation-time index to the cursor
                // instead of reading every lead before it again for each chunk.
                query = query.filter(
                    diesel::dsl::sql::<diesel::sql_types::Bool>("(leads.created_at, leads.id) < (")
                        .bind::<diesel::sql_types::Timestamp, _>(to_db(c.created_at))
                        .sql(", ")
                        .bind::<diesel::sql_types::BigInt, _>(c.id)
                        .sql(")"),
                );
            }
            let rows: Vec<LeadRow> = conn.load(
                query
                    .order((leads::created_at.desc(), leads::id.desc()))
                    .limit(limit)
                    .select(LeadRow::as_select()),
            )?;
            stored_leads(conn, rows)
        })
        .await
    }

    async fn save_enrichment(
        &self,
        updates: Vec<EnrichmentUpdate>,
        actor: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                for u in in_lead_order(&updates, |u| u.lead_id)
                    .into_iter()
                    .map(|i| &updates[i])
                {
                    let geocode = u.geocode.as_ref();
                    kept_update(
                        leads::table,
                        leads::id.eq(u.lead_id),
                        (
                            leads::latitude.eq(u.coordinates.map(|c| c.0)),
                            leads::longitude.eq(u.coordinates.map(|c| c.1)),
                            leads::geocode_source.eq(geocode.map(|g| g.source.clone())),
                            leads::geocode_match.eq(geocode.map(|g| g.match_type.clone())),
                            leads::geocode_matched_address
                                .eq(geocode.and_then(|g| g.matched_address.clone())),
                            leads::county_fips.eq(u.county_fips.clone()),
                            leads::appraisal.eq(u.appraisal.as_ref().map(|a| a.to_string())),
                            leads::enrichment_status.eq(u.status.as_str()),
                        ),
                    )
                    .execute(conn)?;
                    if u.looked_up {
                        let run = NewActivity {
                            kind: kind::ENRICHED,
                            detail: serde_json::json!({ "status": u.status.as_str() }),
                        };
                        insert_activity(conn, u.lead_id, actor, &[run], at)?;
                    }
                }
                emit_enriched(conn, &updates)
            })
        })
        .await
    }
}

/// A keyset page (newest first) of a filter the word index holds, on SQLite: in the index's
/// order, the lead's id (creation order: SQLite has one writer), so each chunk of an export seeks
/// the index past the cursor instead of listing every match again. When the filter has
/// conditions on the row too, the index's matches past the cursor are listed and the row decides.
fn words_after(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    words: WordMatch,
    after: Option<LeadCursor>,
    limit: i64,
) -> QueryResult<Vec<Lead>> {
    if words.complete {
        let mut in_index = matching(words.expr);
        if let Some(c) = after {
            in_index = in_index.filter(lead_search::rowid.lt(c.id));
        }
        let ids: Vec<i64> = conn.load(in_id_order(in_index, true).limit(limit))?;
        return leads_by_id(conn, &ids, true);
    }
    let mut query = filtered(filter, Backend::Sqlite);
    if let Some(c) = after {
        query = query.filter(leads::id.lt(c.id));
    }
    let rows: Vec<LeadRow> = conn.load(
        query
            .order(leads::id.desc())
            .limit(limit)
            .select(LeadRow::as_select()),
    )?;
    stored_leads(conn, rows)
}

/// The leads of `ids` in id order, descending or not.
fn leads_by_id(
    conn: &mut ReadConnection<'_>,
    ids: &[i64],
    descending: bool,
) -> QueryResult<Vec<Lead>> {
    let mut leads = leads_of(conn, ids)?;
    leads.sort_by_key(|lead| lead.id);
    if descending {
        leads.reverse();
    }
    Ok(leads)
}

/// The leads of `ids` in that order (an id of no lead is passed over).
fn leads_in_order(conn: &mut ReadConnection<'_>, ids: &[i64]) -> QueryResult<Vec<Lead>> {
    let place: std::collections::HashMap<i64, usize> =
        ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut leads = leads_of(conn, ids)?;
    leads.sort_by_key(|lead| place.get(&lead.id).copied());
    Ok(leads)
}

/// The leads of `ids`, in no particular order, with their assignees.
fn leads_of(conn: &mut ReadConnection<'_>, ids: &[i64]) -> QueryResult<Vec<Lead>> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(IN_LIST_CHUNK) {
        out.extend(
            conn.load::<_, LeadRow>(
                leads::table
                    .filter(leads::id.eq_any(chunk))
                    .select(LeadRow::as_select()),
            )?,
        );
    }
    stored_leads(conn, out)
}

/// Stored lead rows as the domain's leads, with their assignees' public ids.
pub(crate) fn stored_leads(
    conn: &mut ReadConnection<'_>,
    rows: Vec<LeadRow>,
) -> QueryResult<Vec<Lead>> {
    let leads = rows
        .into_iter()
        .map(LeadRow::into_lead)
        .collect::<QueryResult<_>>()?;
    with_assignees(conn, leads)
}

/// `lead.enriched` for the leads whose enrichment ran (found all or part of what applies).
fn emit_enriched(conn: &mut DbConnection, updates: &[EnrichmentUpdate]) -> QueryResult<()> {
    let ids: Vec<i64> = updates
        .iter()
        .filter(|u| {
            u.looked_up
                && matches!(
                    u.status,
                    EnrichmentStatus::Complete | EnrichmentStatus::Partial
                )
        })
        .map(|u| u.lead_id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut events = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(IN_LIST_CHUNK) {
        let teams: Vec<(i64, Option<i64>)> = leads::table
            .filter(leads::id.eq_any(chunk))
            .select((leads::id, leads::team_id))
            .load(conn)?;
        events.extend(teams.into_iter().map(|(id, team_id)| Event {
            team_id,
            kind: EventType::LeadEnriched,
            subject: id.to_string(),
        }));
    }
    emit(conn, events, to_db(chrono::Utc::now()))
}

/// Narrows `$q` to leads whose text `$column` is `$value` but for case and surrounding spaces,
/// for each value given (a free-typed city or work type is matched as a person means it).
macro_rules! filter_folded {
    ($q:ident, $($value:expr => $column:expr),+ $(,)?) => {$(
        if let Some(v) = $value {
            let v: &String = v;
            $q = $q.filter(
                $crate::lead::leads::lower($column).eq($crate::lead::leads::lower(v.trim().to_owned())),
            );
        }
    )+};
}
pub(crate) use filter_folded;

/// A boxed query over leads (whatever it selects or groups by) limited to the leads of a
/// `LeadFilter`; `visible_teams` Some limits to unassigned leads and those teams. Text filters
/// compare case-folded and trimmed; `source` is compared as its slug, the form it is stored in.
/// On SQLite the conditions its word index holds are one MATCH (`word_search`); PostgreSQL
/// compares `lower(column) = lower(?)`, each on an index of that expression.
macro_rules! narrow_leads {
    ($query:expr, $filter:expr, $backend:expr) => {{
        let f: &leadhub_domain::lead::record::LeadFilter = $filter;
        let backend: $crate::Backend = $backend;
        let words = match backend {
            $crate::Backend::Sqlite => $crate::lead::word_search::word_match(f),
            $crate::Backend::Postgres => None,
        };
        $crate::lead::leads::narrow_leads!($query, f, backend, words)
    }};
    // `$words` None on SQLite: every condition on the row (no `q`: only the word index holds it).
    ($query:expr, $filter:expr, $backend:expr, $words:expr) => {{
        use leadhub_domain::lead::search::source_slug;
        use leadhub_domain::lead::work::{ArchiveFilter, AssigneeFilter, Person};
        use $crate::lead::lead_search::{matches_q, matches_zip};
        use $crate::lead::word_search::in_word_index;
        use $crate::schema::leads;
        use $crate::sql::time::to_db;
        let f: &leadhub_domain::lead::record::LeadFilter = $filter;
        let backend: $crate::Backend = $backend;
        let mut q = $query;
        let words: Option<$crate::lead::word_search::WordMatch> = $words;
        if let Some(words) = &words {
            q = q.filter(in_word_index(words.expr.clone()));
        } else {
            $crate::sql::narrow_to_teams!(q, leads::team_id, &f.visible_teams, f.team_id);
            if let Some(v) = &f.state {
                q = q.filter(leads::state.eq(v.trim().to_ascii_uppercase()));
            }
            $crate::lead::leads::filter_folded!(q, &f.city => leads::city, &f.county => leads::county);
            if let Some(v) = &f.property_type {
                q = q.filter(leads::property_type.eq(v.trim().to_ascii_lowercase()));
            }
            $crate::lead::leads::filter_folded!(
                q,
                &f.permit_status => leads::permit_status,
                &f.work_type => leads::work_type,
            );
            if let Some(v) = &f.source {
                // A value that slugs to nothing (only punctuation) finds no lead.
                q = q.filter(leads::source.eq(source_slug(v).unwrap_or_default()));
            }
            if let Some(v) = &f.q {
                q = q.filter(matches_q(v));
            }
            // A lead merged away is part of its survivor now: never listed or counted.
            q = q.filter(leads::merged_into_id.is_null());
            q = match f.archive {
                ArchiveFilter::Active => q.filter(leads::archived_at.is_null()),
                ArchiveFilter::Archived => q.filter(leads::archived_at.is_not_null()),
            };
        }
        if let Some(v) = &f.zip_code {
            if !words.as_ref().is_some_and(|w| w.zip_in_index) {
                q = q.filter(matches_zip(v));
            }
        }
        if let Some(v) = f.enrichment_status {
            q = q.filter(leads::enrichment_status.eq(v.as_str()));
        }
        if let Some(v) = f.created_after {
            q = q.filter(leads::created_at.ge(to_db(v)));
        }
        if let Some(v) = f.created_before {
            q = q.filter(leads::created_at.lt(to_db(v)));
        }
        if let Some(v) = f.status {
            q = q.filter(leads::status.eq_any(v.statuses()));
        }
        if let Some(day) = f.follow_up_by {
            q = q.filter(leads::follow_up_on.le(day));
        }
        if let Some(marked) = f.do_not_call {
            q = q.filter(leads::do_not_call.eq(marked));
        }
        if let Some(circle) = &f.near {
            q = q.filter($crate::lead::lead_search::within(circle));
        }
        // What a lead carries is in the MATCH whenever there is one (`word_match`).
        if words.is_none() {
            for tag in &f.tags {
                q = q.filter($crate::lead::lead_tags::tagged(tag));
            }
            for tag in &f.without_tags {
                q = q.filter($crate::lead::lead_tags::not_tagged(tag, backend));
            }
            if let Some(has) = f.has_phone {
                q = q.filter($crate::lead::lead_search::with_phone(has));
            }
            if let Some(has) = f.has_email {
                q = q.filter($crate::lead::lead_search::with_email(has));
            }
        }
        if let Some(ever) = f.contacted {
            q = q.filter($crate::lead::contacts::contacted(ever));
        }
        if let Some(since) = f.last_contact_before {
            q = q.filter($crate::lead::contacts::quiet_since(since));
        }
        match (&f.contacted_by, f.contacted_since) {
            (None, None) => {}
            (None, Some(since)) => q = q.filter($crate::lead::contacts::contacted_since(since)),
            (Some(by), since) => q = q.filter($crate::lead::contacts::contacted_by(by, since)),
        }
        match &f.assignee {
            None => {}
            Some(AssigneeFilter::Nobody) => q = q.filter(leads::assignee_id.is_null()),
            Some(AssigneeFilter::Of(Person::User(id))) => {
                q = q.filter(leads::assignee_id.eq(*id))
            }
            // Made `User` by the service before it gets here; alone it names nobody.
            Some(AssigneeFilter::Of(Person::Me)) => q = q.filter(leads::id.ne(leads::id)),
            Some(AssigneeFilter::Of(Person::PublicId(public))) => {
                q = q.filter(
                    leads::assignee_id.eq_any($crate::team::users::row_id_of(public.clone())),
                )
            }
        }
        if let Some(upload) = f.upload {
            q = q.filter($crate::lead::leads::of_upload(
                upload,
                f.visible_teams.clone(),
            ));
        }
        q
    }};
}
pub(crate) use narrow_leads;

/// The leads an upload created or updated: those a submission of the upload's batches names
/// with that action (a merge moves the submissions to the surviving lead). With `visible_teams`
/// the upload must be of one of them, so the filter never shows what another team imported
/// into a lead everyone sees (an unassigned one), nor that the upload exists.
pub(crate) fn of_upload(
    upload: i64,
    visible_teams: Option<Vec<i64>>,
) -> crate::lead::lead_search::LeadCondition {
    use crate::schema::{batches, submissions, uploads};
    use leadhub_domain::lead::record::LeadAction;
    // Written out twice rather than boxed: a boxed subselect cannot be sent through the
    // MultiConnection backend.
    macro_rules! leads_of {
        ($batches:expr) => {
            Box::new(
                leads::id.eq_any(
                    submissions::table
                        .filter(
                            submissions::batch_id.eq_any($batches.select(batches::id.nullable())),
                        )
                        .filter(
                            submissions::result_action.eq_any([
                                LeadAction::Created.as_str(),
                                LeadAction::Updated.as_str(),
                            ]),
                        )
                        .select(submissions::result_lead_id.assume_not_null()),
                ),
            )
        };
    }
    let of_upload = batches::table.filter(batches::upload_id.eq(upload));
    match visible_teams {
        None => leads_of!(of_upload),
        Some(teams) => leads_of!(of_upload.filter(
            batches::upload_id.eq_any(
                uploads::table
                    .filter(uploads::id.eq(upload))
                    .filter(uploads::team_id.eq_any(teams))
                    .select(uploads::id.nullable()),
            )
        )),
    }
}

/// The filtered lead query.
fn filtered(
    f: &LeadFilter,
    backend: Backend,
) -> leads::BoxedQuery<'static, <DbConnection as diesel::Connection>::Backend> {
    narrow_leads!(leads::table.into_boxed(), f, backend)
}

/// The leads of `f` on SQLite with every condition checked on the row, none in the word index
/// (`walk_the_order`; `f` has no `q`, which only the index holds).
fn on_rows(
    f: &LeadFilter,
) -> leads::BoxedQuery<'static, <DbConnection as diesel::Connection>::Backend> {
    narrow_leads!(leads::table.into_boxed(), f, Backend::Sqlite, None)
}

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Nullable<diesel::sql_types::Text>) -> diesel::sql_types::Nullable<diesel::sql_types::Text>);

/// How many leads `filter` lists, from the first source that holds the count exactly. The
/// rollup holds the count of the filters made of its columns (none, a team, a status, a source):
/// kept exact by triggers, a few thousand rows instead of every lead. On SQLite, the word index
/// counts a filter it holds whole (`words`). Such a rollup filter of the leads without a contact
/// or an assignee is its count less the leads with one, which a partial index holds alone. Any
/// other filter is counted from the leads it matches.
fn listed_count(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    words: Option<&WordMatch>,
    backend: Backend,
) -> QueryResult<i64> {
    if let Some(rollup) = RollupFilter::of(filter) {
        return rolled_up_count(conn, &rollup);
    }
    if let Some(words) = words {
        return conn.get_result(matching(words.expr.clone()).count());
    }
    if let Some((rollup, rest, with)) = complement(filter, backend) {
        let with: i64 = conn.get_result(filtered(&rest, backend).filter(with).count())?;
        return Ok(rolled_up_count(conn, &rollup)? - with);
    }
    conn.get_result(filtered(filter, backend).count())
}

/// A filter of the leads without something a small partial index holds, whose other fields the
/// rollup answers: never contacted (`leads_contacted` holds the contacted leads) or unassigned
/// (`leads_assignee_status` the assigned ones); on PostgreSQL also the leads with a phone or an
/// e-mail (`leads_without_phone` and `leads_without_email` hold the others), and the leads without
/// some tags (`lead_tags` holds the tagged ones: an anti-join read every visible lead's entry,
/// 110 ms at 233,333 of them, against 75 ms). Their count is the rollup's count of the other
/// fields (`rest`) less the leads of `rest` `with` it: at most an index of some of the visible
/// leads instead of every visible lead's row.
fn complement(
    filter: &LeadFilter,
    backend: Backend,
) -> Option<(RollupFilter, LeadFilter, LeadCondition)> {
    let postgres = backend == Backend::Postgres;
    let (rest, with): (LeadFilter, LeadCondition) = match filter {
        LeadFilter {
            contacted: Some(false),
            ..
        } => (
            LeadFilter {
                contacted: None,
                ..filter.clone()
            },
            contacted(true),
        ),
        LeadFilter {
            assignee: Some(AssigneeFilter::Nobody),
            ..
        } => (
            LeadFilter {
                assignee: None,
                ..filter.clone()
            },
            Box::new(leads::assignee_id.is_not_null()),
        ),
        LeadFilter {
            has_phone: Some(true),
            ..
        } if postgres => (
            LeadFilter {
                has_phone: None,
                ..filter.clone()
            },
            with_phone(false),
        ),
        LeadFilter {
            has_email: Some(true),
            ..
        } if postgres => (
            LeadFilter {
                has_email: None,
                ..filter.clone()
            },
            with_email(false),
        ),
        LeadFilter { without_tags, .. } if postgres && !without_tags.is_empty() => (
            LeadFilter {
                without_tags: Vec::new(),
                ..filter.clone()
            },
            any_of(without_tags.iter().map(|tag| tagged(tag)).collect()),
        ),
        _ => return None,
    };
    Some((RollupFilter::of(&rest)?, rest, with))
}
