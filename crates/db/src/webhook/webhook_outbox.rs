//! `WebhookOutbox`: the delivery worker's side of `webhook_deliveries`.
//!
//! A claim moves the deliveries' `next_attempt_at` to the end of a hold, in one statement per
//! backend (PostgreSQL skips rows another process holds locked): a worker that dies leaves them
//! due again when the hold ends, so a delivery is never lost, and may be sent twice.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamp};

use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::{
    AttemptRecord, Deactivated, DeliveryStatus, DueDelivery, WebhookOutbox,
};

use crate::schema::{
    team_members, teams, users, webhook_deliveries as wd, webhook_endpoints as we,
};
use crate::sql::numbered;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection};

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

type DueRow = (
    i64,
    i64,
    String,
    String,
    Option<String>,
    Option<String>,
    NaiveDateTime,
    i32,
    String,
    String,
    Option<String>,
    Option<NaiveDateTime>,
);

#[async_trait]
impl WebhookOutbox for Database {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        held_until: DateTime<Utc>,
        limit: i64,
        busy: Vec<i64>,
    ) -> StoreResult<Vec<DueDelivery>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let lock = match conn {
                    DbConnection::Postgres(_) => "FOR UPDATE OF d SKIP LOCKED",
                    DbConnection::Sqlite(_) => "",
                };
                // Ids are integers: written into the statement, they cannot inject anything.
                let busy = if busy.is_empty() {
                    String::new()
                } else {
                    let list: Vec<String> = busy.iter().map(i64::to_string).collect();
                    format!("AND d.endpoint_id NOT IN ({}) ", list.join(","))
                };
                let sql = format!(
                    "UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $1 WHERE id IN \
                     (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id \
                      WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND e.is_active {busy}\
                      ORDER BY d.next_attempt_at, d.id LIMIT $3 {lock}) RETURNING id"
                );
                let sql = numbered(conn, &sql);
                let ids: Vec<i64> = diesel::sql_query(sql)
                    .bind::<Timestamp, _>(to_db(now))
                    .bind::<Timestamp, _>(to_db(held_until))
                    .bind::<BigInt, _>(limit)
                    .get_results::<Claimed>(conn)?
                    .into_iter()
                    .map(|c| c.id)
                    .collect();
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let rows: Vec<DueRow> = wd::table
                    .inner_join(we::table)
                    .filter(wd::id.eq_any(ids))
                    .order(wd::id.asc())
                    .select((
                        wd::id,
                        wd::endpoint_id,
                        wd::event_id,
                        wd::event_type,
                        wd::payload,
                        wd::subject,
                        wd::occurred_at,
                        wd::attempts,
                        we::url,
                        we::secret,
                        we::previous_secret,
                        we::previous_until,
                    ))
                    .load(conn)?;
                let now = to_db(now);
                Ok(rows
                    .into_iter()
                    .map(|r| {
                        let mut secrets = vec![r.9];
                        if let (Some(old), Some(until)) = (r.10, r.11) {
                            if until > now {
                                secrets.push(old);
                            }
                        }
                        DueDelivery {
                            id: r.0,
                            endpoint_id: r.1,
                            event_id: r.2,
                            event_type: r.3,
                            payload: r.4,
                            subject: r.5,
                            occurred_at: from_db(r.6),
                            attempts: r.7,
                            url: r.8,
                            secrets,
                        }
                    })
                    .collect())
            })
        })
        .await
    }

    async fn release(&self, delivery_ids: Vec<i64>, at: DateTime<Utc>) -> StoreResult<()> {
        self.write(move |conn| {
            diesel::update(
                wd::table
                    .filter(wd::id.eq_any(delivery_ids))
                    .filter(wd::status.eq(DeliveryStatus::Pending.as_str())),
            )
            .set(wd::next_attempt_at.eq(Some(to_db(at))))
            .execute(conn)
            .map(drop)
        })
        .await
    }

    async fn fan_out(&self, limit: i64) -> StoreResult<usize> {
        self.write(move |conn| {
            conn.transaction(|conn| crate::webhook::webhook_events::fan_out(conn, limit))
        })
        .await
    }

    async fn record_attempts(&self, records: Vec<(i64, AttemptRecord)>) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let now = to_db(Utc::now());
                for (delivery_id, record) in records {
                    diesel::update(wd::table.find(delivery_id))
                        .set((
                            wd::status.eq(record.status.as_str()),
                            wd::attempts.eq(record.attempts),
                            wd::last_status.eq(record.last_status),
                            wd::last_error.eq(record.last_error),
                            wd::next_attempt_at.eq(record.next_attempt_at.map(to_db)),
                            wd::delivered_at.eq(record.delivered_at.map(to_db)),
                            wd::updated_at.eq(now),
                        ))
                        .execute(conn)?;
                    if let Some(payload) = record.payload {
                        diesel::update(wd::table.find(delivery_id).filter(wd::payload.is_null()))
                            .set(wd::payload.eq(Some(payload)))
                            .execute(conn)?;
                    }
                }
                Ok(())
            })
        })
        .await
    }

    async fn deactivate_if_failing(
        &self,
        endpoint_id: i64,
        since: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Deactivated>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let last_ok: Option<NaiveDateTime> = wd::table
                    .filter(wd::endpoint_id.eq(endpoint_id))
                    .select(diesel::dsl::max(wd::delivered_at))
                    .first(conn)?;
                let mut failing = wd::table
                    .filter(wd::endpoint_id.eq(endpoint_id))
                    .filter(wd::delivered_at.is_null())
                    .filter(wd::attempts.gt(0))
                    .into_boxed();
                if let Some(ok) = last_ok {
                    failing = failing.filter(wd::created_at.gt(ok));
                }
                let oldest: Option<NaiveDateTime> = failing
                    .select(diesel::dsl::min(wd::created_at))
                    .first(conn)?;
                let Some(oldest) = oldest.filter(|o| *o < to_db(since)) else {
                    return Ok(None);
                };
                let changed =
                    diesel::update(we::table.find(endpoint_id).filter(we::is_active.eq(true)))
                        .set((we::is_active.eq(false), we::updated_at.eq(to_db(at))))
                        .execute(conn)?;
                if changed == 0 {
                    return Ok(None);
                }
                let (team_id, url): (i64, String) = we::table
                    .find(endpoint_id)
                    .select((we::team_id, we::url))
                    .first(conn)?;
                let team_name: String =
                    teams::table.find(team_id).select(teams::name).first(conn)?;
                let owner_email: Option<String> = team_members::table
                    .inner_join(users::table)
                    .filter(team_members::team_id.eq(team_id))
                    .filter(team_members::role.eq("owner"))
                    .select(users::email)
                    .first(conn)
                    .optional()?;
                Ok(Some(Deactivated {
                    team_name,
                    url,
                    owner_email,
                    failing_since: from_db(oldest),
                }))
            })
        })
        .await
    }
}
