//! `DigestRepository`: who is owed the morning e-mail (follow-ups due, leads given lately), and the records that make each
//! hour's digest job be queued once and each person's day's e-mail go out once
//! (`follow_up_digest_hours`, `follow_up_digests`).
use async_trait::async_trait;
use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use diesel::dsl::{count_star, exists, not};
use diesel::prelude::*;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::jobs::NewJob;
use leadhub_domain::lead::work::digest::{DigestRepository, DueLead, DueLeads, DuePerson};
use leadhub_domain::lead::work::{kind, OPEN_STATUSES};
use leadhub_domain::store::StoreResult;

use crate::job::jobs::insert_jobs;
use crate::pool::connection::on_backend;
use crate::schema::{follow_up_digest_hours, follow_up_digests, lead_activity, leads, users};
use crate::sql::time::to_db;
use crate::{Database, ReadConnection};

diesel::define_sql_function!(fn coalesce(x: diesel::sql_types::Nullable<diesel::sql_types::Integer>, y: diesel::sql_types::Integer) -> diesel::sql_types::Integer);

/// Where a user's day begins, in minutes east of UTC: 0 for one whose browser never said.
#[diesel::dsl::auto_type]
fn offset_of_user() -> _ {
    coalesce(users::utc_offset_minutes, 0_i32)
}

/// The live leads (neither merged away nor archived) in an open status: those the e-mails name.
#[diesel::dsl::auto_type]
fn open_leads() -> _ {
    let open: Vec<&'static str> = OPEN_STATUSES.to_vec();
    leads::table
        .filter(leads::status.eq_any(open))
        .filter(leads::merged_into_id.is_null())
        .filter(leads::archived_at.is_null())
}

/// The open leads whose follow-up day is `day` or earlier (through `leads_follow_up`, which
/// holds only leads with a day).
#[diesel::dsl::auto_type]
fn due_by(day: NaiveDate) -> _ {
    open_leads().filter(leads::follow_up_on.le(day))
}

/// The live leads in an open status, not due by `day` (those are named as due), that someone
/// other than their assignee (or the service) assigned after `since`: the leads of the
/// assignment entries since then (`lead_activity_assigned`, a day's assignments), then each
/// one's entries for who made them.
#[diesel::dsl::auto_type]
fn given_since(since: NaiveDateTime, day: NaiveDate) -> _ {
    let assigned: &'static str = kind::ASSIGNED;
    open_leads()
        .filter(
            leads::id.eq_any(
                lead_activity::table
                    .filter(lead_activity::kind.eq(assigned))
                    .filter(lead_activity::created_at.gt(since))
                    .select(lead_activity::lead_id),
            ),
        )
        .filter(
            leads::follow_up_on
                .is_null()
                .or(leads::follow_up_on.gt(day)),
        )
        .filter(exists(
            lead_activity::table
                .filter(lead_activity::lead_id.eq(leads::id))
                .filter(lead_activity::kind.eq(assigned))
                .filter(lead_activity::created_at.gt(since))
                .filter(
                    lead_activity::actor_id
                        .is_null()
                        .or(lead_activity::actor_id.ne(leads::assignee_id)),
                ),
        ))
}

/// The users whose day begins at `offset_minutes` and who are owed `day`'s e-mail: active,
/// wanting it, not sent it yet.
#[diesel::dsl::auto_type]
fn owed_on(day: NaiveDate, offset_minutes: i32) -> _ {
    users::deactivated_at
        .is_null()
        .and(users::follow_up_digest.eq(true))
        .and(offset_of_user().eq(offset_minutes))
        .and(not(exists(
            follow_up_digests::table
                .filter(follow_up_digests::user_id.eq(users::id))
                .filter(follow_up_digests::day.eq(day)),
        )))
}

fn owed_digests(
    conn: &mut ReadConnection<'_>,
    day: NaiveDate,
    offset: UtcOffset,
    given_since_at: DateTime<Utc>,
    listed: i64,
) -> QueryResult<Vec<DuePerson>> {
    let since = to_db(given_since_at);
    let owner = || users::table.on(leads::assignee_id.eq(users::id.nullable()));
    let owed_today = || owed_on(day, offset.minutes());
    let per_person = (users::id, users::email, count_star());
    let due: Vec<(i64, String, i64)> = conn.load(
        due_by(day)
            .inner_join(owner())
            .filter(owed_today())
            .group_by((users::id, users::email))
            .select(per_person),
    )?;
    let given: Vec<(i64, String, i64)> = conn.load(
        given_since(since, day)
            .inner_join(owner())
            .filter(owed_today())
            .group_by((users::id, users::email))
            .select(per_person),
    )?;
    // Each person's two counts, `[due, given]`.
    let mut people: BTreeMap<i64, (String, [i64; 2])> = BTreeMap::new();
    for (part, counts) in [due, given].into_iter().enumerate() {
        for (user_id, email, count) in counts {
            people.entry(user_id).or_insert((email, [0, 0])).1[part] = count;
        }
    }
    let mut owed = Vec::with_capacity(people.len());
    // Short reads per person: a few hundred people at most, once a day.
    for (user_id, (email, [due, given])) in people {
        let theirs = leads::assignee_id.eq(user_id);
        let due = named(due, || {
            conn.load(
                due_by(day)
                    .filter(theirs)
                    .order((leads::follow_up_on.asc(), leads::id.asc()))
                    .limit(listed)
                    .select(DueRow::as_select()),
            )
        })?;
        let given = named(given, || {
            conn.load(
                given_since(since, day)
                    .filter(theirs)
                    .order(leads::id.desc())
                    .limit(listed)
                    .select(DueRow::as_select()),
            )
        })?;
        owed.push(DuePerson {
            user_id,
            email,
            due,
            given,
        });
    }
    Ok(owed)
}

/// One part of the e-mail: its count, and the leads it names (`read` runs only when it counts
/// some).
fn named(count: i64, read: impl FnOnce() -> QueryResult<Vec<DueRow>>) -> QueryResult<DueLeads> {
    let first = if count == 0 {
        Vec::new()
    } else {
        read()?.into_iter().map(DueRow::due_lead).collect()
    };
    Ok(DueLeads { count, first })
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
    fn due_lead(self) -> DueLead {
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
            follow_up_on: self.follow_up_on,
        }
    }
}

/// `DigestRepository::given_in_turn`.
fn given_in_turn(
    conn: &mut ReadConnection<'_>,
    user_id: i64,
    lead_ids: &[i64],
    listed: i64,
) -> QueryResult<Option<DuePerson>> {
    let email: Vec<String> = conn.load(
        users::table
            .find(user_id)
            .filter(users::deactivated_at.is_null())
            .filter(users::follow_up_digest.eq(true))
            .select(users::email),
    )?;
    let Some(email) = email.into_iter().next() else {
        return Ok(None);
    };
    let still_theirs = || {
        open_leads()
            .filter(leads::id.eq_any(lead_ids))
            .filter(leads::assignee_id.eq(user_id))
    };
    let count: i64 = conn.get_result(still_theirs().count())?;
    let given = named(count, || {
        conn.load(
            still_theirs()
                .order(leads::id.desc())
                .limit(listed)
                .select(DueRow::as_select()),
        )
    })?;
    Ok(Some(DuePerson {
        user_id,
        email,
        due: DueLeads::default(),
        given,
    }))
}

#[async_trait]
impl DigestRepository for Database {
    async fn given_in_turn(
        &self,
        user_id: i64,
        lead_ids: Vec<i64>,
        listed: i64,
    ) -> StoreResult<Option<DuePerson>> {
        self.read(move |conn| given_in_turn(conn, user_id, &lead_ids, listed))
            .await
    }

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

    async fn owed_digests(
        &self,
        day: NaiveDate,
        offset: UtcOffset,
        given_since: DateTime<Utc>,
        listed: i64,
    ) -> StoreResult<Vec<DuePerson>> {
        self.read(move |conn| owed_digests(conn, day, offset, given_since, listed))
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
