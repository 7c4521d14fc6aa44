//! The contacts logged on leads, read from their `contact_logged` timeline entries: summed up
//! for a list's page or a lead's page, by lead (`lead_activity_contacts_by_lead`); counted by
//! who logged them for a team's page (through `lead_activity_contacts`, by time). A list's
//! filters `contacted`, `last_contact_before` and `contacted_since` read the newest one's time
//! kept on the lead; `contacted_by` reads the entries, by time.
use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::count_star;
use diesel::prelude::*;

use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::lead::work::{kind, ContactOutcome, ContactSummary, Person};

use crate::lead::lead_search::LeadCondition;
use crate::schema::{lead_activity, leads};
use crate::sql::narrow_to_teams;
use crate::sql::time::{from_db, to_db};
use crate::team::users::row_id_of;
use crate::{ReadConnection, IN_LIST_CHUNK};

/// Each of `lead_ids`' contacts summed up; a lead without any is left out.
pub(crate) fn contact_summaries(
    conn: &mut ReadConnection<'_>,
    lead_ids: &[i64],
) -> QueryResult<HashMap<i64, ContactSummary>> {
    let mut entries: HashMap<i64, Vec<_>> = HashMap::new();
    for chunk in lead_ids.chunks(IN_LIST_CHUNK) {
        let rows: Vec<(i64, i64, String, NaiveDateTime)> = conn.load(
            contact_entries()
                .filter(lead_activity::lead_id.eq_any(chunk.to_vec()))
                .select((
                    lead_activity::lead_id,
                    lead_activity::id,
                    lead_activity::detail,
                    lead_activity::created_at,
                )),
        )?;
        for (lead_id, id, detail, at) in rows {
            entries
                .entry(lead_id)
                .or_default()
                .push((from_db(at), id, outcome_of(&detail)));
        }
    }
    Ok(entries
        .into_iter()
        .filter_map(|(lead_id, e)| Some((lead_id, ContactSummary::of(e)?)))
        .collect())
}

/// The outcome a `contact_logged` entry's detail (`{"outcome": "..."}`) names.
fn outcome_of(detail: &str) -> Option<ContactOutcome> {
    let detail: serde_json::Value = serde_json::from_str(detail).ok()?;
    ContactOutcome::parse(detail.get("outcome")?.as_str()?)
}

/// The contacts logged from `since` on, on the leads of `filter`'s team and visible teams, by
/// who logged them (the user's row id).
pub(crate) fn contacts_by_actor(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    since: DateTime<Utc>,
) -> QueryResult<Vec<(i64, i64)>> {
    let mut q = contact_entries()
        .inner_join(leads::table)
        .filter(lead_activity::created_at.ge(to_db(since)))
        .group_by(lead_activity::actor_id)
        .select((lead_activity::actor_id, count_star()))
        .into_boxed();
    narrow_to_teams!(q, leads::team_id, &filter.visible_teams, filter.team_id);
    let rows: Vec<(Option<i64>, i64)> = conn.load(q)?;
    // Only a person logs a contact: an entry without an actor is none of theirs.
    Ok(rows
        .into_iter()
        .filter_map(|(actor, n)| Some((actor?, n)))
        .collect())
}

/// The contacts `actor` logged from `since` on: the contacts of that time through
/// `lead_activity_contacts`, theirs among them; no lead is read.
pub(crate) fn contacts_of(
    conn: &mut ReadConnection<'_>,
    actor: i64,
    since: DateTime<Utc>,
) -> QueryResult<i64> {
    conn.get_result(
        contact_entries()
            .filter(lead_activity::created_at.ge(to_db(since)))
            .filter(lead_activity::actor_id.eq(actor))
            .count(),
    )
}

/// A list's `contacted_since` filter without `contacted_by`: the leads with a contact logged at
/// `since` (the start of a day) or later, by anyone: the newest contact is then that late.
pub(crate) fn contacted_since(since: DateTime<Utc>) -> LeadCondition {
    Box::new(leads::last_contact_at.assume_not_null().ge(to_db(since)))
}

/// A list's `contacted_by` filter: the leads `by` logged a contact on, from `since` on when set.
/// The contacts of that time (through `lead_activity_contacts`), theirs among them, name the
/// leads: an uncorrelated `IN`, like `contacts_of`'s count.
pub(crate) fn contacted_by(by: &Person, since: Option<DateTime<Utc>>) -> LeadCondition {
    // No contact is older than the epoch: one query shape with a day or without.
    let since = to_db(since.unwrap_or(DateTime::UNIX_EPOCH));
    // Written out twice rather than boxed: a boxed subselect cannot be sent through the
    // MultiConnection backend.
    macro_rules! leads_contacted_by {
        ($actor:expr) => {
            Box::new(
                leads::id.eq_any(
                    contact_entries()
                        .filter(lead_activity::created_at.ge(since))
                        .filter($actor)
                        .select(lead_activity::lead_id),
                ),
            )
        };
    }
    match by {
        Person::User(id) => leads_contacted_by!(lead_activity::actor_id.eq(*id)),
        Person::PublicId(public) => {
            leads_contacted_by!(lead_activity::actor_id.eq_any(row_id_of(public.clone())))
        }
        // Made `User` by the service before it gets here; alone it names nobody.
        Person::Me => Box::new(leads::id.ne(leads::id)),
    }
}

/// The timeline's `contact_logged` entries: the rows the partial indexes
/// `lead_activity_contacts` (by time) and `lead_activity_contacts_by_lead` (by lead) hold.
#[diesel::dsl::auto_type]
fn contact_entries() -> _ {
    let contact_logged: &'static str = kind::CONTACT_LOGGED;
    lead_activity::table.filter(lead_activity::kind.eq(contact_logged))
}

/// A list's `contacted` filter as a condition on the lead: whether a contact was ever logged on
/// it, read from `leads.last_contact_at`, which the timeline's triggers keep (the baseline
/// migration, both backends): a lead merged into another brings its contacts along (the
/// merge moves its timeline, the triggers sum both leads up again), and no writer has to know
/// of it. The contacted leads are in the partial index `leads_contacted`, newest first.
pub(crate) fn contacted(ever: bool) -> LeadCondition {
    if ever {
        Box::new(leads::last_contact_at.is_not_null())
    } else {
        Box::new(leads::last_contact_at.is_null())
    }
}

/// A list's `last_contact_before` filter: the leads with a logged contact, none of them at
/// `since` (the start of a day) or later.
pub(crate) fn quiet_since(since: DateTime<Utc>) -> LeadCondition {
    let since = to_db(since);
    // A lead never contacted (NULL) is not before any day: `NULL < day` is not true.
    Box::new(leads::last_contact_at.assume_not_null().lt(since))
}
