//! `TeamRepository` over `teams`, `team_members` and `team_invites`.
use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::store::StoreResult;
use leadhub_domain::team::{
    AcceptOutcome, Invite, InviteDetails, Member, MembershipSummary, NewInvite, Role, Team,
    TeamRepository, TeamSummary,
};
use leadhub_domain::user::{NewUser, User};

use crate::lead::lead_writes::retry_on_conflict;
use crate::schema::{leads, team_invites, team_members, teams, users};
use crate::sql::error::{stored_word, Rollback};
use crate::sql::simple::{first_as, Counts};
use crate::sql::time::{from_db, to_db};
use crate::team::users::{insert_user, UserRow};
use crate::{Database, DbConnection, ReadConnection};

#[derive(Queryable, Selectable)]
#[diesel(table_name = teams)]
struct TeamRow {
    id: i64,
    name: String,
    description: Option<String>,
    is_active: bool,
    created_at: NaiveDateTime,
}

impl From<TeamRow> for Team {
    fn from(r: TeamRow) -> Self {
        Team {
            id: r.id,
            name: r.name,
            description: r.description,
            is_active: r.is_active,
            created_at: from_db(r.created_at),
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = team_members)]
struct MemberRow {
    id: i64,
    role: String,
    is_active: bool,
    joined_at: NaiveDateTime,
    takes_new_leads: bool,
    new_lead_turn: Option<i64>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = team_invites)]
struct InviteRow {
    id: i64,
    team_id: i64,
    email: String,
    role: String,
    invited_by: i64,
    created_at: NaiveDateTime,
    expires_at: NaiveDateTime,
    used_at: Option<NaiveDateTime>,
    revoked_at: Option<NaiveDateTime>,
}

/// The membership row of `user_id` in `team_id`.
#[diesel::dsl::auto_type]
pub(crate) fn membership(team_id: i64, user_id: i64) -> _ {
    team_members::table
        .filter(team_members::team_id.eq(team_id))
        .filter(team_members::user_id.eq(user_id))
}

/// A member's role as stored in `team_members.role`.
fn member_role(s: &str) -> QueryResult<Role> {
    stored_word("team_members.role", s)
}

fn full_name(u: &User) -> String {
    u.display_name()
}

fn invite(r: InviteRow, inviter: Option<User>) -> QueryResult<Invite> {
    Ok(Invite {
        id: r.id,
        team_id: r.team_id,
        email: r.email,
        role: stored_word("team_invites.role", &r.role)?,
        created_at: from_db(r.created_at),
        expires_at: from_db(r.expires_at),
        used_at: r.used_at.map(from_db),
        revoked_at: r.revoked_at.map(from_db),
        invited_by: inviter
            .as_ref()
            .map(|u| u.user_id.clone())
            .unwrap_or_default(),
        invited_by_name: inviter.as_ref().map(full_name).unwrap_or_default(),
    })
}

fn load_user(conn: &mut ReadConnection<'_>, id: i64) -> QueryResult<Option<User>> {
    first_as::<UserRow, _, _>(conn, users::table.find(id).select(UserRow::as_select()))
}

fn insert_member(
    conn: &mut DbConnection,
    team_id: i64,
    user_id: i64,
    role: Role,
    at: NaiveDateTime,
) -> QueryResult<()> {
    diesel::insert_into(team_members::table)
        .values((
            team_members::team_id.eq(team_id),
            team_members::user_id.eq(user_id),
            team_members::role.eq(role.as_str()),
            team_members::is_active.eq(true),
            team_members::joined_at.eq(at),
        ))
        .execute(conn)
        .map(drop)
}

#[async_trait]
impl TeamRepository for Database {
    async fn create_team(
        &self,
        name: String,
        description: Option<String>,
        owner: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<Team> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let now = to_db(at);
                let id = diesel::insert_into(teams::table)
                    .values((
                        teams::name.eq(&name),
                        teams::description.eq(&description),
                        teams::is_active.eq(true),
                        teams::created_by.eq(owner),
                        teams::created_at.eq(now),
                        teams::updated_at.eq(now),
                    ))
                    .returning(teams::id)
                    .get_result::<i64>(conn)?;
                insert_member(conn, id, owner, Role::Owner, now)?;
                Ok(Team {
                    id,
                    name,
                    description,
                    is_active: true,
                    created_at: at,
                })
            })
        })
        .await
    }

    async fn find_team(&self, team_id: i64) -> StoreResult<Option<Team>> {
        self.find_first::<TeamRow, _, _>(teams::table.find(team_id).select(TeamRow::as_select()))
            .await
    }

    async fn team_summaries(
        &self,
        only: Option<Vec<i64>>,
        user_id: i64,
    ) -> StoreResult<Vec<TeamSummary>> {
        self.read(move |conn| {
            let mut query = teams::table
                .select(TeamRow::as_select())
                .order((teams::created_at.desc(), teams::id.desc()))
                .into_boxed();
            if let Some(ids) = &only {
                query = query.filter(teams::id.eq_any(ids.clone()));
            }
            let rows: Vec<TeamRow> = conn.load(query)?;
            let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
            let members = Counts::load(
                conn,
                team_members::table
                    .filter(team_members::team_id.eq_any(&ids))
                    .filter(team_members::is_active.eq(true))
                    .group_by(team_members::team_id)
                    .select((team_members::team_id, diesel::dsl::count_star())),
            )?;
            // The team's live leads, as the lead list and the dashboard count them: an
            // archived lead and one merged into another are in no list (docs/merging-leads.md).
            let lead_counts = Counts::load(
                conn,
                leads::table
                    .filter(leads::team_id.eq_any(&ids))
                    .filter(leads::archived_at.is_null())
                    .filter(leads::merged_into_id.is_null())
                    .group_by(leads::team_id)
                    .select((leads::team_id, diesel::dsl::count_star())),
            )?;
            let roles: HashMap<i64, Role> = conn
                .load::<_, (i64, String)>(
                    team_members::table
                        .filter(team_members::team_id.eq_any(&ids))
                        .filter(team_members::user_id.eq(user_id))
                        .filter(team_members::is_active.eq(true))
                        .select((team_members::team_id, team_members::role)),
                )?
                .into_iter()
                .map(|(team_id, role)| Ok((team_id, member_role(&role)?)))
                .collect::<QueryResult<_>>()?;
            Ok(rows
                .into_iter()
                .map(|r| TeamSummary {
                    member_count: members.of(&r.id),
                    lead_count: lead_counts.of(&Some(r.id)),
                    my_role: roles.get(&r.id).copied(),
                    team: Team::from(r),
                })
                .collect())
        })
        .await
    }

    async fn update_team(
        &self,
        team_id: i64,
        name: Option<String>,
        description: Option<Option<String>>,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                if let Some(name) = &name {
                    diesel::update(teams::table.find(team_id))
                        .set(teams::name.eq(name))
                        .execute(conn)?;
                }
                if let Some(description) = &description {
                    diesel::update(teams::table.find(team_id))
                        .set(teams::description.eq(description))
                        .execute(conn)?;
                }
                diesel::update(teams::table.find(team_id))
                    .set(teams::updated_at.eq(to_db(at)))
                    .execute(conn)
                    .map(drop)
            })
        })
        .await
    }

    async fn deactivate_team(&self, team_id: i64, at: DateTime<Utc>) -> StoreResult<()> {
        self.execute(
            diesel::update(teams::table.find(team_id))
                .set((teams::is_active.eq(false), teams::updated_at.eq(to_db(at)))),
        )
        .await
    }

    async fn members(&self, team_id: i64) -> StoreResult<Vec<Member>> {
        self.read(move |conn| {
            let rows: Vec<(MemberRow, UserRow)> = conn.load(
                team_members::table
                    .inner_join(users::table)
                    .filter(team_members::team_id.eq(team_id))
                    .order((team_members::joined_at.asc(), team_members::id.asc()))
                    .select((MemberRow::as_select(), UserRow::as_select())),
            )?;
            rows.into_iter()
                .map(|(m, user)| {
                    let user = User::from(user);
                    Ok(Member {
                        id: m.id,
                        user_internal_id: user.id,
                        user_name: full_name(&user),
                        user_id: user.user_id,
                        user_email: user.email,
                        role: member_role(&m.role)?,
                        is_active: m.is_active,
                        joined_at: from_db(m.joined_at),
                        takes_new_leads: m.takes_new_leads,
                        new_lead_turn: m.new_lead_turn,
                    })
                })
                .collect()
        })
        .await
    }

    async fn set_takes_new_leads(
        &self,
        team_id: i64,
        user_internal_id: i64,
        takes: bool,
    ) -> StoreResult<()> {
        self.execute(
            diesel::update(membership(team_id, user_internal_id))
                .set(team_members::takes_new_leads.eq(takes)),
        )
        .await
    }

    async fn set_member_role(
        &self,
        team_id: i64,
        user_internal_id: i64,
        new_role: Role,
    ) -> StoreResult<()> {
        self.execute(
            diesel::update(membership(team_id, user_internal_id))
                .set(team_members::role.eq(new_role.as_str())),
        )
        .await
    }

    async fn remove_member(&self, team_id: i64, user_internal_id: i64) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                diesel::delete(membership(team_id, user_internal_id)).execute(conn)?;
                // Who leaves a team stops working its leads (docs/working-leads.md).
                crate::lead::lead_work::clear_assignments(
                    conn,
                    team_id,
                    user_internal_id,
                    chrono::Utc::now(),
                )
            })
        })
        .await
    }

    async fn memberships_of(&self, user_id: i64) -> StoreResult<Vec<MembershipSummary>> {
        self.read(move |conn| {
            let rows: Vec<(i64, String, String, bool, NaiveDateTime)> = conn.load(
                team_members::table
                    .inner_join(teams::table)
                    .filter(team_members::user_id.eq(user_id))
                    .filter(team_members::is_active.eq(true))
                    .order((team_members::joined_at.desc(), team_members::id.desc()))
                    .select((
                        teams::id,
                        teams::name,
                        team_members::role,
                        teams::is_active,
                        team_members::joined_at,
                    )),
            )?;
            rows.into_iter()
                .map(|(team_id, team_name, r, is_active, joined_at)| {
                    Ok(MembershipSummary {
                        team_id,
                        team_name,
                        role: member_role(&r)?,
                        is_active,
                        joined_at: from_db(joined_at),
                    })
                })
                .collect()
        })
        .await
    }

    async fn create_invite(&self, new: NewInvite) -> StoreResult<Invite> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let now = to_db(new.created_at);
                // A re-invite replaces the pending one: its link answers 410 from now on.
                diesel::update(
                    team_invites::table
                        .filter(team_invites::team_id.eq(new.team_id))
                        .filter(team_invites::email.eq(&new.email))
                        .filter(team_invites::used_at.is_null())
                        .filter(team_invites::revoked_at.is_null()),
                )
                .set(team_invites::revoked_at.eq(Some(now)))
                .execute(conn)?;
                let id = diesel::insert_into(team_invites::table)
                    .values((
                        team_invites::team_id.eq(new.team_id),
                        team_invites::email.eq(&new.email),
                        team_invites::role.eq(new.role.as_str()),
                        team_invites::token_hash.eq(&new.token_hash),
                        team_invites::invited_by.eq(new.invited_by),
                        team_invites::created_at.eq(now),
                        team_invites::expires_at.eq(to_db(new.expires_at)),
                    ))
                    .returning(team_invites::id)
                    .get_result::<i64>(conn)?;
                let row = team_invites::table
                    .find(id)
                    .select(InviteRow::as_select())
                    .first(conn)?;
                let inviter = load_user(&mut ReadConnection::of(conn), new.invited_by)?;
                invite(row, inviter)
            })
        })
        .await
    }

    async fn pending_invites(&self, team_id: i64, now: DateTime<Utc>) -> StoreResult<Vec<Invite>> {
        self.read(move |conn| {
            let rows: Vec<InviteRow> = conn.load(
                team_invites::table
                    .filter(team_invites::team_id.eq(team_id))
                    .filter(team_invites::used_at.is_null())
                    .filter(team_invites::revoked_at.is_null())
                    .filter(team_invites::expires_at.gt(to_db(now)))
                    .order((team_invites::created_at.desc(), team_invites::id.desc()))
                    .select(InviteRow::as_select()),
            )?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                let inviter = load_user(conn, r.invited_by)?;
                out.push(invite(r, inviter)?);
            }
            Ok(out)
        })
        .await
    }

    async fn revoke_invite(
        &self,
        team_id: i64,
        invite_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.write(move |conn| {
            diesel::update(
                team_invites::table
                    .filter(team_invites::id.eq(invite_id))
                    .filter(team_invites::team_id.eq(team_id))
                    .filter(team_invites::used_at.is_null())
                    .filter(team_invites::revoked_at.is_null()),
            )
            .set(team_invites::revoked_at.eq(Some(to_db(at))))
            .execute(conn)
            .map(|n| n > 0)
        })
        .await
    }

    async fn find_invite(&self, token_hash: &str) -> StoreResult<Option<InviteDetails>> {
        let hash = token_hash.to_owned();
        self.read(move |conn| {
            let Some(row) = conn
                .first(
                    team_invites::table
                        .filter(team_invites::token_hash.eq(&hash))
                        .select(InviteRow::as_select()),
                )
                .optional()?
            else {
                return Ok(None);
            };
            let team: TeamRow =
                conn.first(teams::table.find(row.team_id).select(TeamRow::as_select()))?;
            let inviter = load_user(conn, row.invited_by)?;
            Ok(Some(InviteDetails {
                invite: invite(row, inviter)?,
                team_name: team.name,
                team_description: team.description,
                team_is_active: team.is_active,
            }))
        })
        .await
    }

    async fn accept_invite(
        &self,
        token_hash: &str,
        new_user: Option<NewUser>,
        at: DateTime<Utc>,
    ) -> StoreResult<AcceptOutcome> {
        let hash = token_hash.to_owned();
        self.write(move |conn| {
            let run = |conn: &mut DbConnection| match conn
                .transaction(|conn| accept_in(conn, &hash, new_user.as_ref(), at))
            {
                Ok(outcome) => Ok(outcome),
                Err(Rollback::Because(outcome)) => Ok(*outcome),
                Err(Rollback::Db(e)) => Err(e),
            };
            // Two invites of one new address accepted at once both create its user: the one
            // that meets the unique e-mail runs again and finds the user.
            let first = run(conn);
            retry_on_conflict(first, || run(conn))
        })
        .await
    }
}

/// Accepting an invite, in the caller's transaction (see `accept_invite`). An outcome that
/// refuses the accept rolls the transaction back with it: the invite stays unspent.
fn accept_in(
    conn: &mut DbConnection,
    hash: &str,
    new_user: Option<&NewUser>,
    at: DateTime<Utc>,
) -> Result<AcceptOutcome, Rollback<Box<AcceptOutcome>>> {
    let now = to_db(at);
    // Spend first: of two concurrent accepts exactly one changes the row.
    let spent = diesel::update(
        team_invites::table
            .filter(team_invites::token_hash.eq(&hash))
            .filter(team_invites::used_at.is_null())
            .filter(team_invites::revoked_at.is_null())
            .filter(team_invites::expires_at.gt(now)),
    )
    .set(team_invites::used_at.eq(Some(now)))
    .execute(conn)?;
    if spent == 0 {
        return Ok(AcceptOutcome::Gone);
    }
    let row: InviteRow = team_invites::table
        .filter(team_invites::token_hash.eq(&hash))
        .select(InviteRow::as_select())
        .first(conn)?;
    let team: TeamRow = teams::table
        .find(row.team_id)
        .select(TeamRow::as_select())
        .first(conn)?;
    if !team.is_active {
        return Err(Rollback::Because(Box::new(AcceptOutcome::TeamInactive)));
    }
    let existing = users::table
        .filter(users::email.eq(&row.email))
        .select(UserRow::as_select())
        .first(conn)
        .optional()?;
    let user = match (existing, new_user) {
        (Some(u), _) => User::from(u),
        (None, None) => return Err(Rollback::Because(Box::new(AcceptOutcome::NamesRequired))),
        (None, Some(n)) => insert_user(
            conn,
            // Only the names come from the accepting person; the rest is the invite's or fixed.
            NewUser {
                id: (),
                user_id: n.user_id.clone(),
                email: row.email.clone(),
                first_name: n.first_name.clone(),
                last_name: n.last_name.clone(),
                is_admin: false,
                created_at: at,
                follow_up_digest: true,
                utc_offset: None,
            },
        )?,
    };
    let already: i64 = team_members::table
        .filter(team_members::team_id.eq(row.team_id))
        .filter(team_members::user_id.eq(user.id))
        .count()
        .get_result(conn)?;
    if already == 0 {
        let role = stored_word("team_invites.role", &row.role)?;
        insert_member(conn, row.team_id, user.id, role, now)?;
    }
    diesel::update(team_invites::table.find(row.id))
        .set(team_invites::used_by.eq(Some(user.id)))
        .execute(conn)?;
    Ok(AcceptOutcome::Accepted {
        user,
        team_id: team.id,
        team_name: team.name,
    })
}
