//! `DigestRepository`: who is owed the e-mail of follow-ups due, and the records that make each
//! hour's digest job be queued once and each person's day's e-mail go out once
//! (`follow_up_digest_hours`, `follow_up_digests`).
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::{count_star, exists, not};
use diesel::prelude::*;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::dashboard::OPEN_STATUSES;
use leadhub_domain::jobs::NewJob;
use leadhub_domain::lead::work::digest::{DigestRepository, DueLead, DuePerson};
use leadhub_domain::store::StoreResult;

use crate::job::jobs::insert_jobs;
use crate::pool::connection::on_backend;
use crate::schema::{follow_up_digest_hours, follow_up_digests, leads, users};
use crate::sql::time::to_db;
use crate::{Database, ReadConnection};

diesel::define_sql_function!(fn coalesce(x: diesel::sql_types::Nullable<diesel::sql_types::Integer>, y: diesel::sql_types::Integer) -> diesel::sql_types::Integer);

/// Where a user's day begins, in minutes east of UTC: 0 for one whose browser never said.
#[diesel::dsl::auto_type]
fn offset_of_user() -> _ {
    coalesce(users::utc_offset_minutes, 0_i32)
}

/// The live leads in an open status whose follow-up day is `day` or earlier (through
/// `leads_follow_up`, which holds only leads with a day).
#[diesel::dsl::auto_type]
fn due_by(day: NaiveDate) -> _ {
    let open: Vec<&'static str> = OPEN_STATUSES.to_vec();
    leads::table
        .filter(leads::follow_up_on.le(day))
        .filter(leads::status.eq_any(open))
        .filter(leads::merged_into_id.is_null())
        .filter(leads::archived_at.is_null())
}

fn due_follow_ups(
    conn: &mut ReadConnection<'_>,
    day: NaiveDate,
    offset: UtcOffset,
    listed: i64,
) -> QueryResult<Vec<DuePerson>> {
    let sent_today = follow_up_digests::table
        .filter(follow_up_digests::user_id.eq(users::id))
        .filter(follow_up_digests::day.eq(day));
    let people: Vec<(i64, String, i64)> = conn.load(
        due_by(day)
            .inner_join(users::table.on(leads::assignee_id.eq(users::id.nullable())))
            .filter(users::deactivated_at.is_null())
            .filter(users::follow_up_digest.eq(true))
            .filter(offset_of_user().eq(offset.minutes()))
            .filter(not(exists(sent_today)))
            .group_by((users::id, users::email))
            .select((users::id, users::email, count_star()))
            .order(users::id),
    )?;
    let mut owed = Vec::with_capacity(people.len());
    // One short read per person: a few hundred people at most, once a day.
    for (user_id, email, due) in people {
        let rows: Vec<DueRow> = conn.load(
            due_by(day)
                .filter(leads::assignee_id.eq(user_id))
                .order((leads::follow_up_on.asc(), leads::id.asc()))
                .limit(listed)
                .select(DueRow::as_select()),
        )?;
        owed.push(DuePerson {
            user_id,
            email,
            due,
            leads: rows.into_iter().map(|r| r.due_lead(day)).collect(),
        });
    }
    Ok(owed)
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = leads)]
struct DueRow {
    id: i64,
    address: Option<String>,
    city: Option<String>,
    state: Option<String>,
    zip_code: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    status: String,
    follow_up_on: Option<NaiveDate>,
}

impl DueRow {
    fn due_lead(self, day: NaiveDate) -> DueLead {
        let join = |parts: [Option<String>; 3], sep: &str| {
            let parts: Vec<String> = parts.into_iter().flatten().collect();
            (!parts.is_empty()).then(|| parts.join(sep))
        };
        let locality = join([self.city, self.state, self.zip_code], " ");
        DueLead {
            id: self.id,
            address: join([self.address, locality, None], ", ")
                .unwrap_or_else(|| format!("Lead {}", self.id)),
            owner: join([self.first_name, self.last_name, None], " "),
            status: self.status,
            // The filter read only leads with a day; `day` stands in for the impossible none.
            follow_up_on: self.follow_up_on.unwrap_or(day),
        }
    }
}

#[async_trait]
impl DigestRepository for Database {
    async fn queue_digest(&self, hour: DateTime<Utc>, job: NewJob) -> StoreResult<bool> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let now = to_db(job.run_at);
                // The hour's primary key decides between processes that see it together.
                let first = on_backend!(conn, c => diesel::insert_into(follow_up_digest_hours::table)
                    .values((
                        follow_up_digest_hours::hour.eq(to_db(hour)),
                        follow_up_digest_hours::queued_at.eq(now),
                    ))
                    .on_conflict_do_nothing()
                    .execute(c))?
                    == 1;
                if first {
                    insert_jobs(conn, &[job], now)?;
                }
                Ok(first)
            })
        })
        .await
    }

    async fn digest_offsets(&self) -> StoreResult<Vec<UtcOffset>> {
        let stored: Vec<i32> = self
            .read(|conn| {
                conn.load(
                    users::table
                        .filter(users::deactivated_at.is_null())
                        .filter(users::follow_up_digest.eq(true))
                        .select(offset_of_user())
                        .distinct(),
                )
            })
            .await?;
        // Only `set_utc_offset` writes the column, with offsets in use; none is dropped here.
        Ok(stored
            .into_iter()
            .filter_map(UtcOffset::from_minutes)
            .collect())
    }

    async fn due_follow_ups(
        &self,
        day: NaiveDate,
        offset: UtcOffset,
        listed: i64,
    ) -> StoreResult<Vec<DuePerson>> {
        self.read(move |conn| due_follow_ups(conn, day, offset, listed))
            .await
    }

    async fn claim_digest(
        &self,
        user_id: i64,
        day: NaiveDate,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.write(move |conn| {
            let inserted = on_backend!(conn, c => diesel::insert_into(follow_up_digests::table)
                .values((
                    follow_up_digests::user_id.eq(user_id),
                    follow_up_digests::day.eq(day),
                    follow_up_digests::sent_at.eq(to_db(at)),
                ))
                .on_conflict_do_nothing()
                .execute(c))?;
            Ok(inserted == 1)
        })
        .await
    }

    async fn release_digest(&self, user_id: i64, day: NaiveDate) -> StoreResult<()> {
        self.write(move |conn| {
            diesel::delete(follow_up_digests::table.find((user_id, day))).execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn set_wants_digest(&self, user_id: i64, wanted: bool) -> StoreResult<()> {
        self.write(move |conn| {
            diesel::update(users::table.find(user_id))
                .set(users::follow_up_digest.eq(wanted))
                .execute(conn)?;
            Ok(())
        })
        .await?;
        // The user as read a moment ago carries the switch to the next page (pool/recent.rs).
        self.recent_users.update(|u| {
            if u.id == user_id {
                u.follow_up_digest = wanted;
            }
        });
        Ok(())
    }

    async fn set_utc_offset(&self, user_id: i64, offset: UtcOffset) -> StoreResult<()> {
        self.write(move |conn| {
            diesel::update(users::table.find(user_id))
                .set(users::utc_offset_minutes.eq(offset.minutes()))
                .execute(conn)?;
            Ok(())
        })
        .await?;
        self.recent_users.update(|u| {
            if u.id == user_id {
                u.utc_offset = Some(offset);
            }
        });
        Ok(())
    }
}
