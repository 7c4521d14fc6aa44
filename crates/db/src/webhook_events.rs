//! Emitting webhook events: one outbox row per subscribed active endpoint of the event's team,
//! written in the caller's transaction, so an event exists exactly when what it tells of does.
use std::collections::BTreeSet;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use rand::Rng;

use leadhub_domain::webhook::{subscribed, DeliveryStatus, EventType};

use crate::connection::on_backend;
use crate::fixed_chunks::for_each_fixed_chunk;
use crate::schema::{batches, webhook_deliveries as wd, webhook_endpoints as we};
use crate::DbConnection;

/// Something that happened to a team's lead, submission or batch (`subject` is its id).
pub(crate) struct Event {
    pub team_id: Option<i64>,
    pub kind: EventType,
    pub subject: String,
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
    event_type: &'static str,
    subject: Option<String>,
    occurred_at: NaiveDateTime,
    status: &'static str,
    attempts: i32,
    next_attempt_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

/// A new event id (`webhook-id`): `msg_` + 128 random bits in hex.
fn event_id() -> String {
    format!("msg_{:032x}", rand::rng().random::<u128>())
}

/// Writes the deliveries of `events`; events of leads without a team emit nothing. One read of
/// the teams' endpoints, and nothing more when none listens.
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
        .map(|(id, team, events)| (id, team, serde_json::from_str(&events).unwrap_or_default()))
        .collect();
    let mut rows = Vec::new();
    for e in events {
        let kind = e.kind.as_str();
        let id = event_id();
        for (endpoint_id, _, _) in endpoints
            .iter()
            .filter(|(_, team, listens)| Some(*team) == e.team_id && subscribed(listens, kind))
        {
            rows.push(DeliveryValues {
                endpoint_id: *endpoint_id,
                event_id: id.clone(),
                event_type: kind,
                subject: Some(e.subject.clone()),
                occurred_at: at,
                status: DeliveryStatus::Pending.as_str(),
                attempts: 0,
                next_attempt_at: Some(at),
                created_at: at,
                updated_at: at,
            });
        }
    }
    for_each_fixed_chunk!(rows, chunk => {
        on_backend!(conn, c => diesel::insert_into(wd::table).values(chunk).execute(c))?;
    });
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
