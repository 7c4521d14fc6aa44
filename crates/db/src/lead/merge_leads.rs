//! `LeadMergeRepository`: a person's merge of two leads, in one transaction.
//!
//! The transaction takes intake's write locks for the streets of both leads and of the
//! survivor's new address, if it takes one, all in one statement before it reads them for the
//! merge, so a submission for any of those properties waits for the merge instead of writing
//! back values read before it; PostgreSQL also locks both rows against the other writers of a
//! lead. All at once, because the locks are taken in one fixed order only within a statement:
//! a lock taken after the others could wait on an intake batch that holds it and waits on them
//! (a deadlock). The new street is known only from the leads, so they are read first unlocked;
//! should the locked read name another street, the transaction starts again with it.
use std::collections::BTreeSet;

use async_trait::async_trait;
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::lead::merge_leads::{
    check_pair, combine, merged_event_subject, LeadMerge, LeadMergeRepository, MergeRefusal,
    MergeSide, SurvivorUpdate,
};
use leadhub_domain::lead::plan::Street;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::{kind, NewActivity};
use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::EventType;

use crate::lead::lead_row::LeadRow;
use crate::lead::lead_tags::{index_tags, strings_column};
use crate::lead::lead_work::{insert_activity, with_assignees};
use crate::lead::lead_writes::lock_for_writing;
use crate::schema::{lead_activity, lead_notes, leads, submissions};
use crate::sql::error::Rollback;
use crate::sql::time::to_db;
use crate::webhook::webhook_events::{emit, Event};
use crate::{scope_of, Database, DbConnection, ReadConnection};

#[async_trait]
impl LeadMergeRepository for Database {
    async fn merge_side(&self, id: i64) -> StoreResult<Option<MergeSide>> {
        self.read(move |conn| {
            let row: Option<(LeadRow, Option<i64>)> = conn
                .first(
                    leads::table
                        .find(id)
                        .select((LeadRow::as_select(), leads::merged_into_id)),
                )
                .optional()?;
            row.map(side).transpose()
        })
        .await
    }

    async fn merge_leads(&self, merge: LeadMerge) -> StoreResult<Result<Lead, MergeRefusal>> {
        self.write(move |conn| {
            let mut streets = BTreeSet::new();
            let mut attempt = 1;
            loop {
                let last = attempt >= MERGE_ATTEMPTS;
                match conn.transaction(|conn| merge_in(conn, merge, &streets, last)) {
                    Ok(done) => return Ok(done),
                    // It needs these streets locked: start again, taking them first.
                    Err(Rollback::Because(more)) => {
                        streets = more;
                        attempt += 1;
                    }
                    Err(Rollback::Db(e)) => return Err(e),
                }
            }
        })
        .await
    }
}

/// Tries of a merge whose leads moved to another street between its unlocked and its locked
/// read; the last takes a lock it lacks late rather than starting again.
const MERGE_ATTEMPTS: usize = 3;

fn side((row, merged_into_id): (LeadRow, Option<i64>)) -> QueryResult<MergeSide> {
    Ok(MergeSide {
        lead: row.into_lead()?,
        merged_into_id,
    })
}

/// The streets the merge of `rows` touches: both leads' and the survivor's new one, if any.
fn streets_of(rows: &[(LeadRow, Option<i64>)], m: LeadMerge) -> QueryResult<BTreeSet<Street>> {
    let mut streets: BTreeSet<Street> = rows
        .iter()
        .filter_map(|(row, _)| {
            Some(Street {
                team_id: row.values.team_id,
                key: row.values.street_key.clone()?,
            })
        })
        .collect();
    let find = |id: i64| rows.iter().find(|(row, _)| row.id == id).cloned();
    if let (Some(survivor), Some(merged)) = (find(m.survivor_id), find(m.merged_id)) {
        let (survivor, merged) = (side(survivor)?, side(merged)?);
        if check_pair(&merged, &survivor).is_ok() {
            let update = combine(&survivor.lead, &merged.lead);
            if let Some(key) = update.keys.and_then(|k| k.street_key) {
                streets.insert(Street {
                    team_id: survivor.lead.team_id,
                    key,
                });
            }
        }
    }
    Ok(streets)
}

fn both_rows(conn: &mut DbConnection, ids: &[i64]) -> QueryResult<Vec<(LeadRow, Option<i64>)>> {
    leads::table
        .filter(leads::id.eq_any(ids))
        .select((LeadRow::as_select(), leads::merged_into_id))
        .load(conn)
}

/// The merge, in the caller's transaction: with `known` streets locked too, and, on the `last`
/// try, a street found missing locked late instead of asking to start again (rolled back with
/// the streets it needs).
fn merge_in(
    conn: &mut DbConnection,
    m: LeadMerge,
    known: &BTreeSet<Street>,
    last: bool,
) -> Result<Result<Lead, MergeRefusal>, Rollback<BTreeSet<Street>>> {
    let ids = vec![m.merged_id, m.survivor_id];
    let mut locked = streets_of(&both_rows(conn, &ids)?, m)?;
    locked.extend(known.iter().cloned());
    lock_for_writing(conn, &locked)?;

    if let DbConnection::Postgres(pg) = conn {
        leads::table
            .filter(leads::id.eq_any(&ids))
            .order(leads::id.asc())
            .select(leads::id)
            .for_update()
            .load::<i64>(pg)?;
    }
    let rows = both_rows(conn, &ids)?;
    let needed = streets_of(&rows, m)?;
    if !needed.is_subset(&locked) {
        if !last {
            return Err(Rollback::Because(locked.union(&needed).cloned().collect()));
        }
        lock_for_writing(conn, &needed.difference(&locked).cloned().collect())?;
    }
    let find = |id: i64| rows.iter().find(|(row, _)| row.id == id).cloned();
    // The service saw both leads, and leads are never deleted.
    let (Some((survivor_row, survivor_into)), Some(merged)) =
        (find(m.survivor_id), find(m.merged_id))
    else {
        return Err(diesel::result::Error::NotFound.into());
    };
    let merged = side(merged)?;
    let survivor = MergeSide {
        lead: survivor_row.clone().into_lead()?,
        merged_into_id: survivor_into,
    };
    if let Err(refusal) = check_pair(&merged, &survivor) {
        return Ok(Err(refusal));
    }

    let update = combine(&survivor.lead, &merged.lead);
    if let Some(keys) = &update.keys {
        if let Some(lead_id) = holder_of(
            conn,
            survivor.lead.team_id,
            keys.address_key.as_deref(),
            &ids,
        )? {
            return Ok(Err(MergeRefusal::AddressTaken { lead_id }));
        }
    }

    let at = to_db(m.at);
    // The merged lead gives up its keys first, so the survivor may take them.
    diesel::update(leads::table.find(m.merged_id))
        .set((
            leads::merged_into_id.eq(m.survivor_id),
            leads::street_key.eq(None::<String>),
            leads::address_key.eq(None::<String>),
            leads::version.eq(leads::version + 1),
            leads::updated_at.eq(at),
        ))
        .execute(conn)?;
    index_tags(conn, m.survivor_id, &survivor.lead.work.tags, &update.tags)?;
    write_survivor(
        conn,
        survivor_row,
        &update,
        merged.lead.submission_count,
        at,
    )?;
    move_history(conn, m)?;
    emit(
        conn,
        vec![Event {
            team_id: survivor.lead.team_id,
            kind: EventType::LeadUpdated,
            subject: merged_event_subject(m.survivor_id, m.merged_id, &update.changes),
        }],
        at,
    )?;
    let stored: LeadRow = leads::table
        .find(m.survivor_id)
        .select(LeadRow::as_select())
        .first(conn)?;
    // Answered as every other read of a lead: with its assignee's public id.
    let mut survivor = with_assignees(&mut ReadConnection::of(conn), vec![stored.into_lead()?])?;
    survivor
        .pop()
        .map(Ok)
        .ok_or(Rollback::Db(diesel::result::Error::NotFound))
}

/// Another lead of the scope that holds `address_key`, if any (not one of `ids`).
fn holder_of(
    conn: &mut DbConnection,
    team_id: Option<i64>,
    address_key: Option<&str>,
    ids: &[i64],
) -> QueryResult<Option<i64>> {
    let Some(key) = address_key else {
        return Ok(None);
    };
    leads::table
        .filter(leads::dedupe_scope.eq(scope_of(team_id)))
        .filter(leads::address_key.eq(key))
        .filter(leads::id.ne_all(ids))
        .select(leads::id)
        .first(conn)
        .optional()
}

/// Writes the survivor's merged values, its submission count with the merged lead's added, and
/// a raised version.
fn write_survivor(
    conn: &mut DbConnection,
    row: LeadRow,
    update: &SurvivorUpdate,
    merged_submissions: i32,
    at: NaiveDateTime,
) -> QueryResult<()> {
    let mut values = row.values;
    values.set_fields(update.fields.clone());
    values.lot_size_acres = update.lot_size_acres;
    values.geocode_source = update.geocode.as_ref().map(|g| g.source.clone());
    values.geocode_match = update.geocode.as_ref().map(|g| g.match_type.clone());
    values.geocode_matched_address = update
        .geocode
        .as_ref()
        .and_then(|g| g.matched_address.clone());
    values.county_fips = update.county_fips.clone();
    values.appraisal = update.appraisal.as_ref().map(|a| a.to_string());
    values.enrichment_status = update.enrichment_status.as_str().to_owned();
    if let Some(keys) = &update.keys {
        values.street_key = keys.street_key.clone();
        values.address_key = keys.address_key.clone();
    }
    values.submission_count = values.submission_count.saturating_add(merged_submissions);
    values.updated_at = at;
    diesel::update(leads::table.find(row.id))
        .set((
            &values,
            leads::version.eq(leads::version + 1),
            leads::do_not_call.eq(update.do_not_call),
            leads::tags.eq(strings_column(&update.tags)),
            leads::wrong_phones.eq(strings_column(&update.barred.wrong)),
            leads::do_not_call_phones.eq(strings_column(&update.barred.not_to_call)),
        ))
        .execute(conn)
        .map(drop)
}

/// Moves the merged lead's submissions, notes and activity to the survivor, and records the
/// merge on the survivor's timeline.
fn move_history(conn: &mut DbConnection, m: LeadMerge) -> QueryResult<()> {
    diesel::update(submissions::table.filter(submissions::result_lead_id.eq(m.merged_id)))
        .set(submissions::result_lead_id.eq(m.survivor_id))
        .execute(conn)?;
    diesel::update(lead_notes::table.filter(lead_notes::lead_id.eq(m.merged_id)))
        .set(lead_notes::lead_id.eq(m.survivor_id))
        .execute(conn)?;
    diesel::update(lead_activity::table.filter(lead_activity::lead_id.eq(m.merged_id)))
        .set(lead_activity::lead_id.eq(m.survivor_id))
        .execute(conn)?;
    let entry = NewActivity {
        kind: kind::MERGED,
        detail: serde_json::json!({ "merged_id": m.merged_id }),
    };
    insert_activity(conn, m.survivor_id, Some(m.actor_id), &[entry], m.at)
}
