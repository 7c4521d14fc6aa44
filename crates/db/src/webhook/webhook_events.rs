//! Emitting webhook events: one `webhook_events` row per transaction that emits events for a
//! team with a subscribed active endpoint, written in that transaction, so an event exists
//! exactly when what it tells of does. The row lists each event with its `webhook-id` and the
//! endpoints subscribed to it; the delivery worker fans it out to `webhook_deliveries` rows
//! later, in transactions of its own (`fan_out`), off intake's path.
use std::collections::{BTreeSet, HashSet};

use chrono::{NaiveDateTime, Timelike};
use diesel::prelude::*;
use rand::Rng;

use leadhub_domain::webhook::{subscribed, DeliveryStatus, EventType};

use crate::job::job_wakeups::{announce, Work};
use crate::pool::connection::on_backend;
use crate::schema::{batches, webhook_deliveries as wd, webhook_endpoints as we, webhook_events};
use crate::sql::fixed_chunks::for_each_fixed_chunk;
use crate::{DbConnection, IN_LIST_CHUNK};

/// Something that happened to a team's lead, submission or batch (`subject` is its id).
pub(crate) struct Event {
    pub team_id: Option<i64>,
    pub kind: EventType,
    pub subject: String,
}

/// One event as stored in `webhook_events.events`: webhook-id, type, subject, endpoint ids.
type StoredEvent = (String, String, String, Vec<i64>);

/// A new event id (`webhook-id`): `msg_` + 128 random bits in hex.
fn event_id() -> String {
    format!("msg_{:032x}", rand::rng().random::<u128>())
}

/// An endpoint's stored `events` list; None, logged as an error, when it cannot be read (such an
/// endpoint gets no events until its events are set again).
pub(crate) fn stored_events(endpoint_id: i64, text: &str) -> Option<Vec<String>> {
    match serde_json::from_str(text) {
        Ok(list) => Some(list),
        Err(e) => {
            tracing::error!(endpoint_id, error = %e, "webhook endpoint's stored events unreadable; it is sent none");
            None
        }
    }
}

/// Writes the row of `events`; events of leads without a team emit nothing. One read of the
/// teams' endpoints, and nothing more when none listens.
pub(crate) fn emit(
    conn: &mut DbConnection,
    events: Vec<Event>,
    at: NaiveDateTime,
) -> QueryResult<()> {
    let teams: BTreeSet<i64> = events.iter().filter_map(|e| e.team_id).collect();
    if teams.is_empty() {
        return Ok(());
    }
    let endpoints: Vec<(i64, i64, String)> = we::table
        .filter(we::team_id.eq_any(teams))
        .filter(we::is_active.eq(true))
        .select((we::id, we::team_id, we::events))
        .load(conn)?;
    if endpoints.is_empty() {
        return Ok(());
    }
    let endpoints: Vec<(i64, i64, Vec<String>)> = endpoints
        .into_iter()
        .filter_map(|(id, team, text)| Some((id, team, stored_events(id, &text)?)))
        .collect();
    let mut stored: Vec<StoredEvent> = Vec::new();
    for e in events {
        let kind = e.kind.as_str();
        let listening: Vec<i64> = endpoints
            .iter()
            .filter(|(_, team, listens)| Some(*team) == e.team_id && subscribed(listens, kind))
            .map(|(id, _, _)| *id)
            .collect();
        if !listening.is_empty() {
            stored.push((event_id(), kind.to_owned(), e.subject, listening));
        }
    }
    if stored.is_empty() {
        return Ok(());
    }
    let text = serde_json::to_string(&stored)
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
    diesel::insert_into(webhook_events::table)
        .values((
            webhook_events::events.eq(text),
            webhook_events::occurred_at.eq(at),
        ))
        .execute(conn)?;
    announce(conn, Work::WebhookEvents)?;
    Ok(())
}

/// `batch.completed` for these batches, with their teams.
pub(crate) fn batches_completed(
    conn: &mut DbConnection,
    ids: Vec<String>,
    at: NaiveDateTime,
) -> QueryResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let teams: Vec<(String, Option<i64>)> = batches::table
        .filter(batches::id.eq_any(ids))
        .select((batches::id, batches::team_id))
        .load(conn)?;
    let events = teams
        .into_iter()
        .map(|(id, team_id)| Event {
            team_id,
            kind: EventType::BatchCompleted,
            subject: id,
        })
        .collect();
    emit(conn, events, at)
}

#[derive(Insertable)]
#[diesel(
    table_name = wd,
    treat_none_as_null = true,
    treat_none_as_default_value = false
)]
struct DeliveryValues {
    endpoint_id: i64,
    event_id: String,
    event_type: String,
    subject: Option<String>,
    occurred_at: NaiveDateTime,
    status: &'static str,
    attempts: i32,
    next_attempt_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

/// Turns up to `limit` event rows, oldest first, into one pending delivery per (event, endpoint
/// that still exists) and deletes them, in the caller's transaction; returns the rows taken.
/// PostgreSQL skips rows another process is fanning out.
pub(crate) fn fan_out(conn: &mut DbConnection, limit: i64) -> QueryResult<usize> {
    let query = webhook_events::table
        .order(webhook_events::id.asc())
        .limit(limit)
        .select((
            webhook_events::id,
            webhook_events::events,
            webhook_events::occurred_at,
        ));
    let rows: Vec<(i64, String, NaiveDateTime)> = match conn {
        DbConnection::Postgres(c) => query.for_update().skip_locked().load(c)?,
        DbConnection::Sqlite(c) => query.load(c)?,
    };
    if rows.is_empty() {
        return Ok(0);
    }
    let mut events = Vec::new();
    for (id, text, at) in &rows {
        match serde_json::from_str::<Vec<StoredEvent>>(text) {
            Ok(list) => events.extend(list.into_iter().map(|e| (e, *at))),
            // Only a hand-edited row can get here; it is logged whole rather than kept forever.
            Err(e) => {
                tracing::error!(row = id, error = %e, events = %text, "webhook events row unreadable; dropped")
            }
        }
    }
    let wanted: BTreeSet<i64> = events
        .iter()
        .flat_map(|((_, _, _, endpoints), _)| endpoints.iter().copied())
        .collect();
    let wanted: Vec<i64> = wanted.into_iter().collect();
    let mut existing = HashSet::new();
    for chunk in wanted.chunks(IN_LIST_CHUNK) {
        let found: Vec<i64> = we::table
            .filter(we::id.eq_any(chunk))
            .select(we::id)
            .load(conn)?;
        existing.extend(found);
    }
    let now = crate::sql::time::to_db(chrono::Utc::now());
    let mut deliveries = Vec::new();
    for ((event_id, kind, subject, endpoints), at) in events {
        for endpoint_id in endpoints.into_iter().filter(|e| existing.contains(e)) {
            deliveries.push(DeliveryValues {
                endpoint_id,
                event_id: event_id.clone(),
                event_type: kind.clone(),
                subject: Some(subject.clone()),
                occurred_at: at,
                status: DeliveryStatus::Pending.as_str(),
                attempts: 0,
                // Due now: the worker asks with whole seconds (`SystemClock`), so an event's
                // fraction of a second would leave it waiting for the next poll (5 s).
                next_attempt_at: Some(at.with_nanosecond(0).unwrap_or(at)),
                created_at: at,
                updated_at: now,
            });
        }
    }
    for_each_fixed_chunk!(deliveries, chunk => {
        on_backend!(conn, c => diesel::insert_into(wd::table).values(chunk).execute(c))?;
    });
    let ids: Vec<i64> = rows.iter().map(|(id, _, _)| *id).collect();
    diesel::delete(webhook_events::table.filter(webhook_events::id.eq_any(ids))).execute(conn)?;
    Ok(rows.len())
}
