//! New leads in turn (`domain::team::turns`), in the leads' transaction: the takers of the
//! teams that get new leads are read before the leads are written (on PostgreSQL their rows are
//! locked then, so two writers of one team deal one after the other, and a member leaving
//! waits for the write and then unassigns what it gave them); what `deal` decided is written
//! after the leads are.
use std::collections::BTreeMap;

use chrono::{NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::lead::plan::NewLead;
use leadhub_domain::lead::work::given_mail::{GivenInTurn, GivenTo};
use leadhub_domain::lead::work::kind;
use leadhub_domain::team::turns::{deal, Taker};

use crate::job::jobs::insert_jobs;
use crate::pool::connection::on_backend;
use crate::schema::{lead_activity, leads, team_members, users};
use crate::sql::fixed_chunks::for_each_fixed_chunk;
use crate::team::teams::membership;
use crate::DbConnection;

/// Who gets which new lead: (index among the new leads, owner), and the takers' new turns as
/// (team, user, turn).
#[derive(Debug, Default)]
pub(crate) struct NewLeadOwners {
    owners: Vec<(usize, i64)>,
    turns: Vec<(i64, i64, i64)>,
}

/// Deals the new leads given in turn among their teams' takers.
pub(crate) fn deal_new_leads(
    conn: &mut DbConnection,
    new: &[NewLead],
) -> QueryResult<NewLeadOwners> {
    let mut by_team: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, lead) in new.iter().enumerate() {
        if let (true, Some(team)) = (lead.in_turn, lead.team_id) {
            by_team.entry(team).or_default().push(i);
        }
    }
    if by_team.is_empty() {
        return Ok(NewLeadOwners::default());
    }
    let mut takers = takers_of(conn, by_team.keys().copied().collect())?;
    let mut dealt = NewLeadOwners::default();
    for (team, leads) in by_team {
        let Some(takers) = takers.remove(&team) else {
            continue;
        };
        let given = deal(takers, leads.len());
        dealt.owners.extend(leads.into_iter().zip(given.owners));
        let turns = given.turns.into_iter();
        dealt
            .turns
            .extend(turns.map(|(user, turn)| (team, user, turn)));
    }
    Ok(dealt)
}

/// The active members of active accounts who take these teams' new leads, by team.
fn takers_of(conn: &mut DbConnection, teams: Vec<i64>) -> QueryResult<BTreeMap<i64, Vec<Taker>>> {
    let active_people = users::table
        .filter(users::deactivated_at.is_null())
        .select(users::id);
    let query = team_members::table
        .filter(team_members::team_id.eq_any(teams))
        .filter(team_members::takes_new_leads.eq(true))
        .filter(team_members::is_active.eq(true))
        .filter(team_members::user_id.eq_any(active_people))
        .order(team_members::id)
        .select((
            team_members::team_id,
            team_members::user_id,
            team_members::new_lead_turn,
        ));
    let rows: Vec<(i64, i64, Option<i64>)> = match conn {
        DbConnection::Postgres(pg) => query.for_no_key_update().load(pg)?,
        DbConnection::Sqlite(sqlite) => query.load(sqlite)?,
    };
    let mut takers: BTreeMap<i64, Vec<Taker>> = BTreeMap::new();
    for (team, user_id, last_turn) in rows {
        takers
            .entry(team)
            .or_default()
            .push(Taker { user_id, last_turn });
    }
    Ok(takers)
}

/// Gives the new leads (`ids[i]` is the i-th new lead's id) to their owners, each with an
/// `assigned` entry by nobody (the service gave it), keeps the takers' turns, and queues the
/// e-mail that tells each owner (`GivenInTurn::job`), all in the leads' transaction.
pub(crate) fn give_new_leads(
    conn: &mut DbConnection,
    dealt: NewLeadOwners,
    ids: &[i64],
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mut by_owner: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (i, owner) in dealt.owners {
        by_owner.entry(owner).or_default().extend(ids.get(i));
    }
    if by_owner.is_empty() {
        return Ok(());
    }
    let told = GivenInTurn {
        given: by_owner
            .iter()
            .map(|(owner, leads)| GivenTo {
                user_id: *owner,
                lead_ids: leads.clone(),
            })
            .collect(),
    };
    insert_jobs(conn, &[told.job(Utc::now())], now)?;
    for (owner, leads) in by_owner {
        diesel::update(leads::table.filter(leads::id.eq_any(&leads)))
            .set(leads::assignee_id.eq(owner))
            .execute(conn)?;
        let given = serde_json::json!({"old": null, "new": owner, "in_turn": true}).to_string();
        let entries: Vec<_> = leads
            .iter()
            .map(|lead| {
                (
                    lead_activity::lead_id.eq(*lead),
                    lead_activity::actor_id.eq(None::<i64>),
                    lead_activity::kind.eq(kind::ASSIGNED),
                    lead_activity::detail.eq(given.clone()),
                    lead_activity::created_at.eq(now),
                )
            })
            .collect();
        for_each_fixed_chunk!(entries, chunk => {
            on_backend!(conn, c => diesel::insert_into(lead_activity::table).values(chunk).execute(c))?;
        });
    }
    for (team, user, turn) in dealt.turns {
        diesel::update(membership(team, user))
            .set(team_members::new_lead_turn.eq(turn))
            .execute(conn)?;
    }
    Ok(())
}
