//! `WebhookRepository` over `webhook_endpoints` and `webhook_deliveries`.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::{
    Creator, Delivery, DeliveryStatus, EndpointChanges, NewEndpoint, WebhookEndpoint,
    WebhookRepository,
};

use crate::job::job_wakeups::{announce, Work};
use crate::schema::{teams, users, webhook_deliveries as wd, webhook_endpoints as we};
use crate::sql::error::{stored_rows, stored_word};
use crate::sql::time::{from_db, to_db};
use crate::webhook::webhook_events::stored_events;
use crate::{Database, DbConnection};

#[derive(Queryable, Selectable)]
#[diesel(table_name = we)]
struct EndpointRow {
    id: i64,
    team_id: i64,
    url: String,
    events: String,
    description: Option<String>,
    is_active: bool,
    created_at: NaiveDateTime,
}

/// The creator's columns, from `users` joined on `created_by`.
type CreatorRow = Option<(i64, String, String)>;

fn endpoint_of((r, creator): (EndpointRow, CreatorRow)) -> WebhookEndpoint {
    WebhookEndpoint {
        id: r.id,
        team_id: r.team_id,
        events: stored_events(r.id, &r.events).unwrap_or_default(),
        url: r.url,
        description: r.description,
        is_active: r.is_active,
        created_at: from_db(r.created_at),
        created_by: creator.map(|(id, user_id, email)| Creator { id, user_id, email }),
    }
}

/// `webhook_endpoints` with each one's creator, when known (a left join: older endpoints have none).
macro_rules! with_creators {
    () => {
        we::table.left_join(users::table.on(we::created_by.eq(users::id.nullable())))
    };
}

/// The columns `endpoint_of` reads.
macro_rules! endpoint_columns {
    () => {
        (
            EndpointRow::as_select(),
            (users::id, users::user_id, users::email).nullable(),
        )
    };
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = wd)]
struct DeliveryRow {
    id: i64,
    endpoint_id: i64,
    event_id: String,
    event_type: String,
    status: String,
    attempts: i32,
    last_status: Option<i32>,
    last_error: Option<String>,
    next_attempt_at: Option<NaiveDateTime>,
    delivered_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

impl TryFrom<DeliveryRow> for Delivery {
    type Error = diesel::result::Error;

    fn try_from(r: DeliveryRow) -> Result<Self, Self::Error> {
        Ok(Delivery {
            id: r.id,
            endpoint_id: r.endpoint_id,
            event_id: r.event_id,
            event_type: r.event_type,
            status: stored_word("webhook_deliveries.status", &r.status)?,
            attempts: r.attempts,
            last_status: r.last_status,
            last_error: r.last_error,
            next_attempt_at: r.next_attempt_at.map(from_db),
            delivered_at: r.delivered_at.map(from_db),
            created_at: from_db(r.created_at),
        })
    }
}

/// `T`'s columns for a RETURNING clause: `as_returning()` does not carry through the
/// MultiConnection to the backend that runs the statement, a plain column list does.
fn columns<T: Selectable<<crate::DbConnection as Connection>::Backend>>() -> T::SelectExpression {
    T::construct_selection()
}

fn events_text(events: &[String]) -> String {
    serde_json::to_string(events).unwrap_or_else(|_| "[]".into())
}

#[async_trait]
impl WebhookRepository for Database {
    async fn create_endpoint(
        &self,
        new: NewEndpoint,
        secret: String,
        at_most: i64,
    ) -> StoreResult<Option<WebhookEndpoint>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                // PostgreSQL: two requests for one team take turns on its row, so both cannot
                // count 19 and insert. SQLite's writers already take turns.
                if let DbConnection::Postgres(c) = conn {
                    teams::table
                        .find(new.team_id)
                        .select(teams::id)
                        .for_update()
                        .first::<i64>(c)
                        .optional()?;
                }
                let count: i64 = we::table
                    .filter(we::team_id.eq(new.team_id))
                    .count()
                    .get_result(conn)?;
                if count >= at_most {
                    return Ok(None);
                }
                let at = to_db(new.created_at);
                let id: i64 = diesel::insert_into(we::table)
                    .values((
                        we::team_id.eq(new.team_id),
                        we::url.eq(&new.url),
                        we::events.eq(events_text(&new.events)),
                        we::description.eq(&new.description),
                        we::is_active.eq(new.is_active),
                        we::secret.eq(&secret),
                        we::created_at.eq(at),
                        we::updated_at.eq(at),
                        we::created_by.eq(new.created_by.as_ref().map(|c| c.id)),
                    ))
                    .returning(we::id)
                    .get_result(conn)?;
                with_creators!()
                    .filter(we::id.eq(id))
                    .select(endpoint_columns!())
                    .first(conn)
                    .map(|row| Some(endpoint_of(row)))
            })
        })
        .await
    }

    async fn endpoints(&self, team_id: i64) -> StoreResult<Vec<WebhookEndpoint>> {
        self.read(move |conn| {
            conn.load(
                with_creators!()
                    .filter(we::team_id.eq(team_id))
                    .order(we::id.asc())
                    .select(endpoint_columns!()),
            )
            .map(|rows| rows.into_iter().map(endpoint_of).collect())
        })
        .await
    }

    async fn find_endpoint(
        &self,
        team_id: i64,
        endpoint_id: i64,
    ) -> StoreResult<Option<WebhookEndpoint>> {
        self.read(move |conn| {
            conn.first(
                with_creators!()
                    .filter(we::id.eq(endpoint_id))
                    .filter(we::team_id.eq(team_id))
                    .select(endpoint_columns!()),
            )
            .optional()
            .map(|r| r.map(endpoint_of))
        })
        .await
    }

    async fn update_endpoint(
        &self,
        endpoint_id: i64,
        changes: EndpointChanges,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        // One UPDATE: a change left out (None) sets nothing.
        self.write(move |conn| {
            diesel::update(we::table.find(endpoint_id))
                .set((
                    we::updated_at.eq(to_db(at)),
                    changes.url.map(|url| we::url.eq(url)),
                    changes.events.map(|e| we::events.eq(events_text(&e))),
                    changes.description.map(|d| we::description.eq(d)),
                    changes.is_active.map(|active| we::is_active.eq(active)),
                ))
                .execute(conn)
                .map(drop)
        })
        .await
    }

    async fn delete_endpoint(&self, endpoint_id: i64) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                diesel::delete(wd::table.filter(wd::endpoint_id.eq(endpoint_id))).execute(conn)?;
                diesel::delete(we::table.find(endpoint_id))
                    .execute(conn)
                    .map(drop)
            })
        })
        .await
    }

    async fn rotate_secret(
        &self,
        endpoint_id: i64,
        secret: String,
        previous_until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let current: String = we::table.find(endpoint_id).select(we::secret).first(conn)?;
                diesel::update(we::table.find(endpoint_id))
                    .set((
                        we::secret.eq(secret),
                        we::previous_secret.eq(Some(current)),
                        we::previous_until.eq(Some(to_db(previous_until))),
                        we::updated_at.eq(to_db(at)),
                    ))
                    .execute(conn)
                    .map(drop)
            })
        })
        .await
    }

    async fn deliveries(
        &self,
        endpoint_id: i64,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Delivery>, i64)> {
        self.read(move |conn| {
            let total: i64 =
                conn.get_result(wd::table.filter(wd::endpoint_id.eq(endpoint_id)).count())?;
            let rows: Vec<DeliveryRow> = conn.load(
                wd::table
                    .filter(wd::endpoint_id.eq(endpoint_id))
                    .order(wd::id.desc())
                    .limit(limit)
                    .offset(offset)
                    .select(DeliveryRow::as_select()),
            )?;
            Ok((stored_rows(rows)?, total))
        })
        .await
    }

    async fn retry_delivery(
        &self,
        endpoint_id: i64,
        delivery_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Delivery>> {
        let retried = self
            .write(move |conn| {
                let Some(row) = diesel::update(
                    wd::table
                        .find(delivery_id)
                        .filter(wd::endpoint_id.eq(endpoint_id)),
                )
                .set((
                    wd::status.eq(DeliveryStatus::Pending.as_str()),
                    wd::next_attempt_at.eq(Some(to_db(at))),
                    wd::updated_at.eq(to_db(at)),
                ))
                .returning(columns::<DeliveryRow>())
                .get_result::<DeliveryRow>(conn)
                .optional()?
                else {
                    return Ok(None);
                };
                announce(conn, Work::WebhookEvents)?;
                Delivery::try_from(row).map(Some)
            })
            .await?;
        Ok(retried)
    }

    async fn enqueue(
        &self,
        endpoint_id: i64,
        event_id: String,
        event_type: String,
        payload: String,
        at: DateTime<Utc>,
    ) -> StoreResult<Delivery> {
        let delivery = self
            .write(move |conn| {
                let at = to_db(at);
                let row = diesel::insert_into(wd::table)
                    .values((
                        wd::endpoint_id.eq(endpoint_id),
                        wd::event_id.eq(event_id),
                        wd::event_type.eq(event_type),
                        wd::payload.eq(Some(payload)),
                        wd::occurred_at.eq(at),
                        wd::status.eq(DeliveryStatus::Pending.as_str()),
                        wd::attempts.eq(0),
                        wd::next_attempt_at.eq(Some(at)),
                        wd::created_at.eq(at),
                        wd::updated_at.eq(at),
                    ))
                    .returning(columns::<DeliveryRow>())
                    .get_result::<DeliveryRow>(conn)?;
                announce(conn, Work::WebhookEvents)?;
                Delivery::try_from(row)
            })
            .await?;
        Ok(delivery)
    }
}
