//! `LeadWorkRepository`: a lead's changes with their timeline rows and `lead.updated` events,
//! its notes, its timeline; and the assignees' public ids on the leads the store answers with.
use std::collections::{BTreeSet, HashMap, HashSet};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};

use leadhub_domain::lead::plan::Street;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::{
    kind, ActivityEntry, ActorRef, Assignee, ChangeSaved, ContactOutcome, ContactSummary,
    LeadChange, LeadWorkRepository, NewActivity, Note, TagCount, SUBMISSION_KIND,
};
use leadhub_domain::lead::LeadFields;
use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::{event_subject, BodyMembers, EventType};

use crate::lead::contacts::contact_summaries;
use crate::lead::in_lead_order;
use crate::lead::lead_row::{LeadRow, LeadValues};
use crate::lead::lead_tags::{index_tags, stored_tags, strings_column, tag_counts};
use crate::lead::lead_writes::lock_for_writing;
use crate::lead::unindexed::unindexed_columns;
use crate::schema::{lead_activity, lead_notes, leads, submissions, users};
use crate::sql::kept::kept_update;
use crate::sql::time::{from_db, to_db};
use crate::webhook::webhook_events::{emit, Event};
use crate::{scope_of, Backend, Database, DbConnection, ReadConnection, IN_LIST_CHUNK};

#[async_trait]
impl LeadWorkRepository for Database {
    async fn save_change(&self, change: LeadChange) -> StoreResult<ChangeSaved> {
        match self.backend() {
            Backend::Sqlite => self.save_change_in_group(change).await,
            Backend::Postgres => self.write(move |conn| save_one(conn, &change)).await,
        }
    }

    async fn save_changes(&self, changes: Vec<LeadChange>) -> StoreResult<Vec<ChangeSaved>> {
        self.write(move |conn| {
            let done = conn.transaction(|conn| {
                lock_streets(conn, &changes)?;
                let mut saved: Vec<Option<Lead>> = changes.iter().map(|_| None).collect();
                for i in in_lead_order(&changes, |c| c.lead_id) {
                    saved[i] = apply(conn, &changes[i])?;
                }
                if saved.iter().any(Option::is_none) {
                    // All or nothing: one stale lead undoes the others.
                    return Err(Abort::Stale(saved.iter().map(Option::is_none).collect()));
                }
                Ok(saved)
            });
            settle(conn, &changes, done)
        })
        .await
    }

    async fn leads_on_street(
        &self,
        team_id: Option<i64>,
        street_key: String,
        except: i64,
    ) -> StoreResult<Vec<(i64, LeadFields)>> {
        self.read(move |conn| {
            let rows: Vec<(i64, LeadValues)> = conn.load(
                leads::table
                    .filter(leads::dedupe_scope.eq(scope_of(team_id)))
                    .filter(leads::street_key.eq(street_key))
                    .filter(leads::id.ne(except))
                    .select((leads::id, LeadValues::as_select())),
            )?;
            Ok(rows
                .into_iter()
                .map(|(id, mut v)| (id, v.take_fields()))
                .collect())
        })
        .await
    }

    async fn add_note(
        &self,
        lead_id: i64,
        author_id: i64,
        body: String,
        at: DateTime<Utc>,
    ) -> StoreResult<Note> {
        self.write(move |conn| {
            let id = conn.transaction(|conn| insert_note(conn, lead_id, author_id, &body, at))?;
            let mut found = notes_where(&mut ReadConnection::of(conn), lead_id, Some(id), true)?;
            found.pop().ok_or(Error::NotFound)
        })
        .await
    }

    async fn add_notes_once(
        &self,
        notes: Vec<(i64, String)>,
        author_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<u64> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let mut added = 0;
                for (lead_id, body) in &notes {
                    let held: i64 = lead_notes::table
                        .filter(lead_notes::lead_id.eq(lead_id))
                        .filter(lead_notes::body.eq(body))
                        .filter(lead_notes::deleted_at.is_null())
                        .count()
                        .get_result(conn)?;
                    if held == 0 {
                        insert_note(conn, *lead_id, author_id, body, at)?;
                        added += 1;
                    }
                }
                Ok(added)
            })
        })
        .await
    }

    async fn notes(&self, lead_id: i64) -> StoreResult<Vec<Note>> {
        self.read(move |conn| notes_where(conn, lead_id, None, false))
            .await
    }

    async fn find_note(&self, lead_id: i64, note_id: i64) -> StoreResult<Option<Note>> {
        self.read(move |conn| Ok(notes_where(conn, lead_id, Some(note_id), true)?.pop()))
            .await
    }

    async fn delete_note(
        &self,
        lead_id: i64,
        note_id: i64,
        by: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let stamped = diesel::update(
                    lead_notes::table
                        .filter(lead_notes::id.eq(note_id))
                        .filter(lead_notes::lead_id.eq(lead_id))
                        .filter(lead_notes::deleted_at.is_null()),
                )
                .set((
                    lead_notes::deleted_at.eq(Some(to_db(at))),
                    lead_notes::deleted_by.eq(Some(by)),
                ))
                .execute(conn)?;
                if stamped == 1 {
                    let note_deleted = NewActivity {
                        kind: kind::NOTE_DELETED,
                        detail: serde_json::json!({ "note_id": note_id }),
                    };
                    insert_activity(conn, lead_id, Some(by), &[note_deleted], at)?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn contact_summaries(
        &self,
        lead_ids: Vec<i64>,
    ) -> StoreResult<HashMap<i64, ContactSummary>> {
        self.read(move |conn| contact_summaries(conn, &lead_ids))
            .await
    }

    async fn tag_counts(
        &self,
        visible_teams: Option<Vec<i64>>,
        team_id: Option<i64>,
        limit: i64,
    ) -> StoreResult<Vec<TagCount>> {
        self.read(move |conn| tag_counts(conn, &visible_teams, team_id, limit))
            .await
    }

    async fn activity(
        &self,
        lead_id: i64,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<ActivityEntry>, i64)> {
        self.read(move |conn| timeline(conn, lead_id, limit, offset))
            .await
    }
}

/// Writes one change in a transaction of its own (a savepoint inside a group's), and answers
/// for it.
pub(crate) fn save_one(conn: &mut DbConnection, change: &LeadChange) -> QueryResult<ChangeSaved> {
    let one = std::slice::from_ref(change);
    let done = conn.transaction(|conn| {
        lock_streets(conn, one)?;
        apply(conn, change)
    });
    settle(conn, one, done.map(|lead| vec![lead])).map(|mut v| v.remove(0))
}

/// Why a change's transaction was rolled back.
enum Abort {
    /// These changes (by position) met a newer version.
    Stale(Vec<bool>),
    /// The change of this lead would make it the same property as that lead of its scope.
    Taken {
        lead_id: i64,
        holder: i64,
    },
    Db(Error),
}

impl From<Error> for Abort {
    fn from(e: Error) -> Self {
        Abort::Db(e)
    }
}

/// The answers of a transaction of changes: a unique violation means a change took a property
/// another lead holds, and the answer names that lead.
fn settle(
    conn: &mut DbConnection,
    changes: &[LeadChange],
    done: Result<Vec<Option<Lead>>, Abort>,
) -> QueryResult<Vec<ChangeSaved>> {
    match done {
        Ok(leads) => Ok(leads
            .into_iter()
            .map(|lead| lead.map_or(ChangeSaved::Stale, |l| ChangeSaved::Saved(Box::new(l))))
            .collect()),
        Err(Abort::Stale(stale)) => Ok(stale
            .into_iter()
            .map(|s| {
                if s {
                    ChangeSaved::Stale
                } else {
                    ChangeSaved::RolledBack
                }
            })
            .collect()),
        Err(Abort::Taken { lead_id, holder }) => Ok(changes
            .iter()
            .map(|c| {
                if c.lead_id == lead_id {
                    ChangeSaved::Collision(holder)
                } else {
                    ChangeSaved::RolledBack
                }
            })
            .collect()),
        Err(Abort::Db(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info))) => {
            let mut out = Vec::with_capacity(changes.len());
            let mut named = false;
            for change in changes {
                match holder(conn, change)? {
                    Some(other) => {
                        named = true;
                        out.push(ChangeSaved::Collision(other));
                    }
                    None => out.push(ChangeSaved::RolledBack),
                }
            }
            if named {
                Ok(out)
            } else {
                Err(Error::DatabaseError(
                    DatabaseErrorKind::UniqueViolation,
                    info,
                ))
            }
        }
        Err(Abort::Db(e)) => Err(e),
    }
}

/// The lead that holds the property `change` would give its lead, in the scope it would put
/// it in.
fn holder(conn: &mut DbConnection, change: &LeadChange) -> QueryResult<Option<i64>> {
    let (team_id, address_key): (Option<i64>, Option<String>) = leads::table
        .find(change.lead_id)
        .select((leads::team_id, leads::address_key))
        .first(conn)?;
    let team_id = change.team.or(team_id);
    let key = match change.fields.as_ref().and_then(|f| f.keys.as_ref()) {
        Some(keys) => keys.as_ref().and_then(|k| k.address_key.clone()),
        None => address_key,
    };
    let Some(key) = key else {
        return Ok(None);
    };
    leads::table
        .filter(leads::dedupe_scope.eq(scope_of(team_id)))
        .filter(leads::address_key.eq(key))
        .filter(leads::id.ne(change.lead_id))
        .select(leads::id)
        .first(conn)
        .optional()
}

/// Takes intake's write locks (`lock_for_writing`) for the streets the changes move leads from
/// and to, all in one statement before anything is read or written: a submission of an address
/// a change takes (a new address, a move or a claim into another scope) then waits for the
/// change instead of looking for its lead before it is there, and makes no second lead of the
/// property. Changes of other things (status, assignee, archiving) touch no street and take
/// no lock. The streets are read before the locks; a lead changed in between is stale anyway
/// (the version guard in `apply`).
fn lock_streets(conn: &mut DbConnection, changes: &[LeadChange]) -> QueryResult<()> {
    let moving: Vec<&LeadChange> = changes
        .iter()
        .filter(|c| c.team.is_some() || c.fields.as_ref().is_some_and(|f| f.keys.is_some()))
        .collect();
    if moving.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = moving.iter().map(|c| c.lead_id).collect();
    let mut now_at: HashMap<i64, (Option<i64>, Option<String>)> = HashMap::new();
    for chunk in ids.chunks(IN_LIST_CHUNK) {
        let rows: Vec<(i64, Option<i64>, Option<String>)> = leads::table
            .filter(leads::id.eq_any(chunk))
            .select((leads::id, leads::team_id, leads::street_key))
            .load(conn)?;
        now_at.extend(rows.into_iter().map(|(id, team, key)| (id, (team, key))));
    }
    let mut streets = BTreeSet::new();
    for change in moving {
        let Some((team_id, key)) = now_at.get(&change.lead_id) else {
            continue;
        };
        let new_key = match change.fields.as_ref().and_then(|f| f.keys.as_ref()) {
            Some(keys) => keys.as_ref().map(|k| k.street_key.clone()),
            None => key.clone(),
        };
        let from = key.clone().map(|key| Street {
            team_id: *team_id,
            key,
        });
        let to = new_key.map(|key| Street {
            team_id: change.team.or(*team_id),
            key,
        });
        streets.extend(from.into_iter().chain(to));
    }
    lock_for_writing(conn, &streets)
}

/// Another lead of the scope `change` puts its lead in that is the same property as the address
/// it gives it (`AddressKey::same_property`, the service's rule), read under intake's locks: the
/// service checked before the transaction, and a submission may have made that lead since. Only
/// for changes of address or scope; `row` is the lead before the change.
fn property_holder(
    conn: &mut DbConnection,
    change: &LeadChange,
    row: &LeadRow,
) -> QueryResult<Option<i64>> {
    let key = match change.fields.as_ref().and_then(|f| f.keys.as_ref()) {
        Some(keys) => keys.as_ref().map(|k| k.key.clone()),
        None if change.team.is_some() => row.values.fields().address_key(),
        None => return Ok(None),
    };
    let Some(key) = key else {
        return Ok(None);
    };
    let team_id = change.team.or(row.values.team_id);
    let others: Vec<(i64, LeadValues)> = leads::table
        .filter(leads::dedupe_scope.eq(scope_of(team_id)))
        .filter(leads::street_key.eq(key.street_key()))
        .filter(leads::id.ne(change.lead_id))
        .select((leads::id, LeadValues::as_select()))
        .load(conn)?;
    Ok(others.into_iter().find_map(|(id, values)| {
        values
            .fields()
            .address_key()
            .is_some_and(|other| other.same_property(&key))
            .then_some(id)
    }))
}

/// Applies one change if its lead is still at the version it was made against; None if not.
fn apply(conn: &mut DbConnection, change: &LeadChange) -> Result<Option<Lead>, Abort> {
    let now = to_db(change.at);
    let guard = leads::id
        .eq(change.lead_id)
        .and(leads::version.eq(change.version));
    // The optimistic lock: a lead changed meanwhile matches no row. PostgreSQL locks the row
    // at its version (FOR UPDATE) and raises the version in the change's one UPDATE, so the
    // row gets one new version, not two. SQLite raises it first: a write as the transaction's
    // first statement takes the write lock at once, where a read would be refused the upgrade
    // if another process wrote meanwhile.
    let mut row: LeadRow = match conn {
        DbConnection::Postgres(pg) => {
            let found: Option<LeadRow> = leads::table
                .filter(guard)
                .select(LeadRow::as_select())
                .for_update()
                .first(pg)
                .optional()?;
            let Some(mut row) = found else {
                return Ok(None);
            };
            row.work.version += 1;
            row.values.updated_at = now;
            row
        }
        DbConnection::Sqlite(_) => {
            let raised = kept_update(
                leads::table,
                guard,
                (
                    leads::version.eq(leads::version + 1),
                    leads::updated_at.eq(now),
                ),
            )
            .execute(conn)?;
            if raised == 0 {
                return Ok(None);
            }
            leads::table
                .find(change.lead_id)
                .select(LeadRow::as_select())
                .first(conn)?
        }
    };
    let old_team = row.values.team_id;
    if let Some(holder) = property_holder(conn, change, &row)? {
        return Err(Abort::Taken {
            lead_id: change.lead_id,
            holder,
        });
    }
    // The row as read, when the change rewrites it: to see whether an indexed column moved.
    let before = (change.fields.is_some() || change.team.is_some()).then(|| row.values.clone());
    let values = &mut row.values;
    if let Some(stored) = &change.fields {
        values.set_fields(stored.fields.clone());
        values.lot_size_acres = stored.lot_size_acres;
        if let Some(keys) = &stored.keys {
            values.street_key = keys.as_ref().map(|k| k.street_key.clone());
            values.address_key = keys.as_ref().and_then(|k| k.address_key.clone());
        }
    }
    if let Some(team) = change.team {
        values.team_id = Some(team);
        values.dedupe_scope = scope_of(Some(team));
    }
    let work = &mut row.work;
    if let Some(status) = change.status {
        work.status = status.as_str().to_owned();
    }
    if let Some(assignee) = change.assignee {
        work.assignee_id = assignee;
    }
    if let Some(archived) = change.archived {
        work.archived_at = archived.then_some(now);
    }
    if let Some(day) = change.follow_up {
        work.follow_up_on = day;
    }
    if let Some(marked) = change.do_not_call {
        work.do_not_call = marked;
    }
    if let Some(tags) = &change.tags {
        index_tags(conn, change.lead_id, &stored_tags(&work.tags)?, tags)?;
        work.tags = strings_column(tags);
    }
    if let Some(barred) = &change.barred {
        work.wrong_phones = strings_column(&barred.wrong);
        work.do_not_call_phones = strings_column(&barred.not_to_call);
    }
    // One statement for the rest of the change, in one of three shapes, each kept prepared:
    // preparing an UPDATE of `leads` compiles the triggers its columns wake (search, dashboard).
    // A row whose indexed columns stay as they were is written without them (`unindexed`).
    let work_columns = (
        leads::status.eq(&work.status),
        leads::assignee_id.eq(work.assignee_id),
        leads::archived_at.eq(work.archived_at),
        leads::follow_up_on.eq(work.follow_up_on),
        leads::do_not_call.eq(work.do_not_call),
        leads::tags.eq(&work.tags),
        leads::wrong_phones.eq(&work.wrong_phones),
        leads::do_not_call_phones.eq(&work.do_not_call_phones),
        // The raised version and its time: new on PostgreSQL, as already written on SQLite.
        leads::version.eq(work.version),
    );
    let updated_at = leads::updated_at.eq(row.values.updated_at);
    let this_lead = leads::id.eq(change.lead_id);
    match before {
        Some(before) if row.values.same_indexed_columns(&before) => {
            let values = unindexed_columns!(&row.values);
            kept_update(leads::table, this_lead, (values, work_columns, updated_at))
                .execute(conn)?;
        }
        Some(_) => {
            kept_update(leads::table, this_lead, (&row.values, work_columns)).execute(conn)?;
        }
        None => {
            kept_update(leads::table, this_lead, (work_columns, updated_at)).execute(conn)?;
        }
    }
    insert_activity(
        conn,
        change.lead_id,
        Some(change.actor_id),
        &change.activity,
        change.at,
    )?;
    if let Some(body) = &change.note {
        insert_note(conn, change.lead_id, change.actor_id, body, change.at)?;
    }
    let mut teams: Vec<Option<i64>> = vec![row.values.team_id];
    if old_team != row.values.team_id {
        // The team a lead left hears of it too.
        teams.push(old_team);
    }
    let events = teams
        .into_iter()
        .map(|team_id| Event {
            team_id,
            kind: EventType::LeadUpdated,
            subject: changed_subject(change.lead_id, &change.changes, change.contact),
        })
        .collect();
    emit(conn, events, now)?;
    // The row as written: nothing else writes a lead inside this transaction.
    let mut leads = with_assignees(&mut ReadConnection::of(conn), vec![row.into_lead()?])?;
    Ok(leads.pop().map(Some).ok_or(Error::NotFound)?)
}

/// Stores a note with its `note_added` timeline row; its id.
fn insert_note(
    conn: &mut DbConnection,
    lead_id: i64,
    author_id: i64,
    body: &str,
    at: DateTime<Utc>,
) -> QueryResult<i64> {
    let id: i64 = diesel::insert_into(lead_notes::table)
        .values((
            lead_notes::lead_id.eq(lead_id),
            lead_notes::author_id.eq(author_id),
            lead_notes::body.eq(body),
            lead_notes::created_at.eq(to_db(at)),
        ))
        .returning(lead_notes::id)
        .get_result(conn)?;
    let note_added = NewActivity {
        kind: kind::NOTE_ADDED,
        detail: serde_json::json!({ "note_id": id }),
    };
    insert_activity(conn, lead_id, Some(author_id), &[note_added], at)?;
    Ok(id)
}

/// Clears `user_id`'s assignments on `team_id`'s leads (they left the team), each with its
/// `assigned` timeline row (no actor: the service's own work) and `lead.updated` event.
pub(crate) fn clear_assignments(
    conn: &mut DbConnection,
    team_id: i64,
    user_id: i64,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let ids: Vec<i64> = leads::table
        .filter(leads::team_id.eq(team_id))
        .filter(leads::assignee_id.eq(user_id))
        .select(leads::id)
        .load(conn)?;
    if ids.is_empty() {
        return Ok(());
    }
    for chunk in ids.chunks(IN_LIST_CHUNK) {
        diesel::update(leads::table.filter(leads::id.eq_any(chunk)))
            .set((
                leads::assignee_id.eq(None::<i64>),
                leads::version.eq(leads::version + 1),
                leads::updated_at.eq(to_db(at)),
            ))
            .execute(conn)?;
    }
    let public: Option<String> = users::table
        .find(user_id)
        .select(users::user_id)
        .first(conn)
        .optional()?;
    let mut changes = serde_json::Map::new();
    changes.insert(
        "assignee_id".into(),
        serde_json::json!({"old": public, "new": null}),
    );
    let unassigned = NewActivity {
        kind: kind::ASSIGNED,
        detail: serde_json::json!({"old": user_id, "new": null}),
    };
    for id in &ids {
        insert_activity(conn, *id, None, std::slice::from_ref(&unassigned), at)?;
    }
    let events = ids
        .iter()
        .map(|id| Event {
            team_id: Some(team_id),
            kind: EventType::LeadUpdated,
            subject: changed_subject(*id, &changes, None),
        })
        .collect();
    emit(conn, events, to_db(at))
}

/// A `lead.updated` subject that tells what changed (`webhook::event_subject`): the lead, with
/// `changes` (field -> {old, new}) for the delivery's body when there are any, and a logged
/// contact's `{"outcome"}`.
fn changed_subject(
    lead_id: i64,
    changes: &serde_json::Map<String, serde_json::Value>,
    contact: Option<ContactOutcome>,
) -> String {
    let mut members = BodyMembers::new();
    if !changes.is_empty() {
        members.insert("changes".into(), changes.clone().into());
    }
    if let Some(outcome) = contact {
        members.insert(
            "contact".into(),
            serde_json::json!({ "outcome": outcome.as_str() }),
        );
    }
    event_subject(lead_id, members)
}

/// Names the submission in the `resubmitted_restored` entries of fresh submissions, which get
/// their ids after their leads are written (`written[i]` is the lead of submission `ids[i]`).
pub(crate) fn name_restoring(
    conn: &mut DbConnection,
    written: &[leadhub_domain::lead::record::LeadWritten],
    ids: &[i64],
) -> QueryResult<()> {
    let unnamed = serde_json::json!({ "submission_id": null }).to_string();
    for (w, id) in written.iter().zip(ids).filter(|(w, _)| w.restored) {
        diesel::update(
            lead_activity::table
                .filter(lead_activity::lead_id.eq(w.lead_id))
                .filter(lead_activity::kind.eq(kind::RESUBMITTED_RESTORED))
                .filter(lead_activity::detail.eq(&unnamed)),
        )
        .set(lead_activity::detail.eq(serde_json::json!({ "submission_id": id }).to_string()))
        .execute(conn)?;
    }
    Ok(())
}

/// Writes timeline rows of one lead.
pub(crate) fn insert_activity(
    conn: &mut DbConnection,
    lead_id: i64,
    actor_id: Option<i64>,
    rows: &[NewActivity],
    at: DateTime<Utc>,
) -> QueryResult<()> {
    for row in rows {
        diesel::insert_into(lead_activity::table)
            .values((
                lead_activity::lead_id.eq(lead_id),
                lead_activity::actor_id.eq(actor_id),
                lead_activity::kind.eq(row.kind),
                lead_activity::detail.eq(row.detail.to_string()),
                lead_activity::created_at.eq(to_db(at)),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Fills in the assignees' public ids and e-mails (one query for all the leads).
pub(crate) fn with_assignees(
    conn: &mut ReadConnection<'_>,
    mut leads: Vec<Lead>,
) -> QueryResult<Vec<Lead>> {
    let ids: Vec<i64> = leads
        .iter()
        .filter_map(|l| l.work.assignee_id)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if ids.is_empty() {
        return Ok(leads);
    }
    let people = people(conn, ids)?;
    for lead in &mut leads {
        lead.work.assignee = lead
            .work
            .assignee_id
            .and_then(|id| people.get(&id))
            .map(|p| Assignee {
                id: p.id,
                user_id: p.user_id.clone(),
                email: p.email.clone(),
            });
    }
    Ok(leads)
}

type UserColumns = (i64, String, String, Option<String>, Option<String>);

/// The users of `ids`, as the timeline and notes name them.
fn people(conn: &mut ReadConnection<'_>, ids: Vec<i64>) -> QueryResult<HashMap<i64, ActorRef>> {
    let mut out = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IN_LIST_CHUNK) {
        let rows: Vec<UserColumns> = conn.load(
            users::table
                .filter(users::id.eq_any(chunk.to_vec()))
                .select((
                    users::id,
                    users::user_id,
                    users::email,
                    users::first_name,
                    users::last_name,
                )),
        )?;
        for (id, user_id, email, first, last) in rows {
            let name = [first, last]
                .into_iter()
                .flatten()
                .filter(|s| !s.trim().is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let name = (!name.is_empty()).then_some(name);
            out.insert(
                id,
                ActorRef {
                    id,
                    user_id,
                    email,
                    name,
                },
            );
        }
    }
    Ok(out)
}

type NoteColumns = (
    i64,
    i64,
    i64,
    String,
    chrono::NaiveDateTime,
    Option<chrono::NaiveDateTime>,
);

/// The lead's notes (one when `note_id` is given), newest first; deleted ones only when asked.
fn notes_where(
    conn: &mut ReadConnection<'_>,
    lead_id: i64,
    note_id: Option<i64>,
    with_deleted: bool,
) -> QueryResult<Vec<Note>> {
    let mut query = lead_notes::table
        .filter(lead_notes::lead_id.eq(lead_id))
        .into_boxed();
    if let Some(id) = note_id {
        query = query.filter(lead_notes::id.eq(id));
    }
    if !with_deleted {
        query = query.filter(lead_notes::deleted_at.is_null());
    }
    let rows: Vec<NoteColumns> = conn.load(query.order(lead_notes::id.desc()).select((
        lead_notes::id,
        lead_notes::lead_id,
        lead_notes::author_id,
        lead_notes::body,
        lead_notes::created_at,
        lead_notes::deleted_at,
    )))?;
    let authors = people(conn, rows.iter().map(|r| r.2).collect())?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, lead_id, author_id, body, created_at, deleted_at)| {
            Some(Note {
                id,
                lead_id,
                author: authors.get(&author_id)?.clone(),
                body,
                created_at: from_db(created_at),
                deleted_at: deleted_at.map(from_db),
            })
        })
        .collect())
}

type ActivityColumns = (i64, Option<i64>, String, String, chrono::NaiveDateTime);
type SubmissionColumns = (i64, i64, Option<String>, chrono::NaiveDateTime);

/// The lead's timeline page: its activity rows and its submissions, newest first. Each source
/// is read only as far as the page reaches (`offset + limit` rows), then the two are merged.
fn timeline(
    conn: &mut ReadConnection<'_>,
    lead_id: i64,
    limit: i64,
    offset: i64,
) -> QueryResult<(Vec<ActivityEntry>, i64)> {
    let reach = offset.saturating_add(limit);
    let activity_total: i64 = conn.get_result(
        lead_activity::table
            .filter(lead_activity::lead_id.eq(lead_id))
            .count(),
    )?;
    let submission_total: i64 = conn.get_result(
        submissions::table
            .filter(submissions::result_lead_id.eq(lead_id))
            .filter(submissions::result_action.is_not_null())
            .count(),
    )?;
    let rows: Vec<ActivityColumns> = conn.load(
        lead_activity::table
            .filter(lead_activity::lead_id.eq(lead_id))
            .order((lead_activity::created_at.desc(), lead_activity::id.desc()))
            .limit(reach)
            .select((
                lead_activity::id,
                lead_activity::actor_id,
                lead_activity::kind,
                lead_activity::detail,
                lead_activity::created_at,
            )),
    )?;
    let subs: Vec<SubmissionColumns> = conn.load(
        submissions::table
            .filter(submissions::result_lead_id.eq(lead_id))
            .filter(submissions::result_action.is_not_null())
            .order((submissions::created_at.desc(), submissions::id.desc()))
            .limit(reach)
            .select((
                submissions::id,
                submissions::user_id,
                submissions::result_action,
                submissions::created_at,
            )),
    )?;
    let actors: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.1)
        .chain(subs.iter().map(|s| s.1))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let people = people(conn, actors)?;
    let mut entries: Vec<ActivityEntry> = rows
        .into_iter()
        .map(|(_, actor, kind, detail, at)| ActivityEntry {
            kind,
            detail: serde_json::from_str(&detail).unwrap_or(serde_json::Value::Null),
            actor: actor.and_then(|a| people.get(&a).cloned()),
            at: from_db(at),
        })
        .collect();
    entries.extend(
        subs.into_iter()
            .map(|(id, user, action, at)| ActivityEntry {
                kind: SUBMISSION_KIND.to_owned(),
                detail: serde_json::json!({"submission_id": id, "action": action}),
                actor: people.get(&user).cloned(),
                at: from_db(at),
            }),
    );
    // Stable: at equal times an activity row (the later thing) comes before its submission.
    entries.sort_by_key(|e| std::cmp::Reverse(e.at));
    let page = entries
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(0))
        .collect();
    Ok((page, activity_total + submission_total))
}
