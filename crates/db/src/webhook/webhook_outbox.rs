//! `WebhookOutbox`: the delivery worker's side of `webhook_deliveries`.
//!
//! The worker first lists the endpoints with due deliveries (`due_endpoints`, a read), shares its
//! free slots among them, then claims so many of each endpoint's oldest due deliveries. A claim
//! moves their `next_attempt_at` to the end of a hold (PostgreSQL skips rows another process holds
//! locked): a worker that dies leaves them due again when the hold ends, so a delivery is never
//! lost, and may be sent twice.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Timestamp};

use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::{
    AttemptRecord, Deactivated, DeliveryStatus, DueDelivery, DueEndpoint, WebhookOutbox,
};

use crate::schema::{
    team_members, teams, users, webhook_deliveries as wd, webhook_endpoints as we,
};
use crate::sql::numbered;
use crate::sql::time::{from_db, to_db};
use crate::{Database, DbConnection};

/// When an endpoint's oldest pending delivery is due: one probe of
/// `webhook_deliveries_endpoint_due` per endpoint, however long a backlog is.
const OLDEST_PENDING: &str = "(SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d \
     WHERE d.endpoint_id = webhook_endpoints.id AND d.status = 'pending')";

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

type DueRow = (
    i64,
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
    async fn due_endpoints(
        &self,
        now: DateTime<Utc>,
        skip_endpoints: Vec<i64>,
        skip_teams: Vec<i64>,
        limit: i64,
    ) -> StoreResult<Vec<DueEndpoint>> {
        self.read(move |conn| {
            let rows: Vec<(i64, i64)> = conn.load(
                we::table
                    .filter(we::is_active.eq(true))
                    .filter(we::id.ne_all(skip_endpoints))
                    .filter(we::team_id.ne_all(skip_teams))
                    .filter(
                        sql::<Bool>(OLDEST_PENDING)
                            .sql(" <= ")
                            .bind::<Timestamp, _>(to_db(now)),
                    )
                    .order(sql::<Nullable<Timestamp>>(OLDEST_PENDING))
                    .then_order_by(we::id.asc())
                    .limit(limit)
                    .select((we::id, we::team_id)),
            )?;
            Ok(rows
                .into_iter()
                .map(|(endpoint_id, team_id)| DueEndpoint {
                    endpoint_id,
                    team_id,
                })
                .collect())
        })
        .await
    }

    async fn claim(
        &self,
        now: DateTime<Utc>,
        held_until: DateTime<Utc>,
        take: Vec<(i64, i64)>,
    ) -> StoreResult<Vec<DueDelivery>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let lock = match conn {
                    DbConnection::Postgres(_) => "FOR UPDATE OF d SKIP LOCKED",
                    DbConnection::Sqlite(_) => "",
                };
                let sql = numbered(
                    conn,
                    &format!(
                        "UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $1 WHERE id IN \
                         (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id \
                          WHERE d.endpoint_id = $3 AND d.status = 'pending' AND d.next_attempt_at <= $1 \
                          AND e.is_active ORDER BY d.next_attempt_at, d.id LIMIT $4 {lock}) RETURNING id"
                    ),
                );
                // One statement per endpoint (at most one per free slot), each an index range.
                let mut ids = Vec::new();
                for (endpoint_id, count) in take {
                    let claimed = diesel::sql_query(&sql)
                        .bind::<Timestamp, _>(to_db(now))
                        .bind::<Timestamp, _>(to_db(held_until))
                        .bind::<BigInt, _>(endpoint_id)
                        .bind::<BigInt, _>(count)
                        .get_results::<Claimed>(conn)?;
                    ids.extend(claimed.into_iter().map(|c| c.id));
                }
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
                        we::team_id,
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
                        let mut secrets = vec![r.10];
                        if let (Some(old), Some(until)) = (r.11, r.12) {
                            if until > now {
                                secrets.push(old);
                            }
                        }
                        DueDelivery {
                            id: r.0,
                            endpoint_id: r.1,
                            team_id: r.2,
                            event_id: r.3,
                            event_type: r.4,
                            payload: r.5,
                            subject: r.6,
                            occurred_at: from_db(r.7),
                            attempts: r.8,
                            url: r.9,
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
