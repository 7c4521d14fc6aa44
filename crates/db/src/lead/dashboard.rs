//! `DashboardRepository`: the dashboard's counts over the leads or submissions a person may see.
//! The lead counts come from the rollup `lead_daily_counts` (`daily_counts`) when it can answer
//! the filter, else from GROUP BY queries over the live leads themselves.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::{case_when, count_star, sql, sum};
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Integer, Text};

use leadhub_domain::lead::work::OPEN_STATUSES;

use leadhub_domain::dashboard::{DashboardRepository, LeadFigures, OpenLeads, SubmissionFigures};
use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::store::StoreResult;
use leadhub_domain::submission::{Submission, VisibleSubmissions};

use crate::lead::contacts::{contacts_by_actor, contacts_of};
use crate::lead::daily_counts::{rolled_up_figures, RollupFilter};
use crate::lead::leads::narrow_leads;
use crate::lead::submissions::SubmissionRow;
use crate::schema::{leads, submissions};
use crate::sql::error::stored_rows;
use crate::sql::time::to_db;
use crate::{Database, ReadConnection};

/// A lead's creation day (UTC) as `YYYY-MM-DD` text, alike on both backends.
fn created_day() -> SqlLiteral<Text> {
    sql::<Text>("CAST(date(leads.created_at) AS TEXT)")
}

/// `q` limited to the submissions of `visible`: all, or one's own and one's teams'.
macro_rules! visible_submissions {
    ($query:expr, $visible:expr) => {{
        let visible: &VisibleSubmissions = $visible;
        let mut q = $query;
        if let Some(teams) = visible.teams() {
            q = q.filter(
                submissions::user_id
                    .eq(visible.user_id())
                    .or(submissions::team_id.eq_any(teams.to_vec())),
            );
        }
        q
    }};
}

fn lead_figures(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    since: DateTime<Utc>,
) -> QueryResult<LeadFigures> {
    if let Some(rollup) = RollupFilter::of(filter) {
        return rolled_up_figures(conn, &rollup, since);
    }
    counted_figures(conn, filter, since)
}

/// The figures counted from the leads themselves: for the filters the rollup cannot answer, and
/// the recount the tests compare the rollup with.
pub(crate) fn counted_figures(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    since: DateTime<Utc>,
) -> QueryResult<LeadFigures> {
    // One scan counts by source, enrichment status and status at once.
    let groups: Vec<(Option<String>, String, String, i64)> = conn.load(narrow_leads!(
        leads::table
            .group_by((leads::source, leads::enrichment_status, leads::status))
            .select((
                leads::source,
                leads::enrichment_status,
                leads::status,
                count_star(),
            ))
            .into_boxed(),
        filter,
        conn.backend()
    ))?;
    let mut figures = LeadFigures::default();
    for (source, enrichment, status, n) in groups {
        let source = source.unwrap_or_else(|| "unknown".to_owned());
        figures.add(source, enrichment, status, n);
    }
    let days: Vec<(String, i64)> = conn.load(
        narrow_leads!(
            leads::table
                .group_by(created_day())
                .select((created_day(), count_star()))
                .into_boxed(),
            filter,
            conn.backend()
        )
        .filter(leads::created_at.ge(to_db(since))),
    )?;
    figures.per_day = days
        .into_iter()
        .filter_map(|(day, n)| Some((day.parse::<NaiveDate>().ok()?, n)))
        .collect();
    Ok(figures)
}

fn open_leads_of(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    assignee: i64,
    today: NaiveDate,
) -> QueryResult<OpenLeads> {
    let due = case_when::<_, _, Integer>(leads::follow_up_on.le(today), 1).otherwise(0);
    let not_contacted =
        case_when::<_, _, Integer>(leads::last_contact_at.is_null(), 1).otherwise(0);
    // One pass: `leads_assignee_status` finds one person's open leads, not every visible one,
    // and each is counted as due or not contacted while it is read.
    let (open, due, not_contacted): (i64, Option<i64>, Option<i64>) = conn.get_result(
        narrow_leads!(
            leads::table
                .select((count_star(), sum(due), sum(not_contacted)))
                .into_boxed(),
            filter,
            conn.backend()
        )
        .filter(leads::assignee_id.eq(assignee))
        .filter(leads::status.eq_any(OPEN_STATUSES.to_vec())),
    )?;
    Ok(OpenLeads {
        open,
        due: due.unwrap_or(0),
        not_contacted: not_contacted.unwrap_or(0),
    })
}

fn open_leads_by_owner(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
) -> QueryResult<Vec<(Option<i64>, i64)>> {
    conn.load(
        narrow_leads!(
            leads::table
                .group_by(leads::assignee_id)
                .select((leads::assignee_id, count_star()))
                .into_boxed(),
            filter,
            conn.backend()
        )
        .filter(leads::status.eq_any(OPEN_STATUSES.to_vec())),
    )
}

fn submission_figures(
    conn: &mut ReadConnection<'_>,
    visible: &VisibleSubmissions,
    since: DateTime<Utc>,
) -> QueryResult<SubmissionFigures> {
    let rows: Vec<(String, Option<String>, i64)> = conn.load(
        visible_submissions!(
            submissions::table
                .group_by((submissions::status, submissions::result_action))
                .select((
                    submissions::status,
                    submissions::result_action,
                    count_star(),
                ))
                .into_boxed(),
            visible
        )
        .filter(submissions::created_at.ge(to_db(since))),
    )?;
    let mut figures = SubmissionFigures::default();
    for (status, action, n) in rows {
        figures.total += n;
        *figures.by_status.entry(status).or_insert(0) += n;
        if let Some(action) = action {
            *figures.by_action.entry(action).or_insert(0) += n;
        }
    }
    Ok(figures)
}

fn failed_submissions(
    conn: &mut ReadConnection<'_>,
    visible: &VisibleSubmissions,
    limit: i64,
) -> QueryResult<(Vec<Submission>, i64)> {
    let failed = || {
        visible_submissions!(submissions::table.into_boxed(), visible)
            // Written out, not bound: the partial index `submissions_failed` is used only when
            // the query itself says `status = 'failed'`.
            .filter(sql::<Bool>("submissions.status = 'failed'"))
    };
    let total: i64 = conn.get_result(failed().count())?;
    let rows: Vec<SubmissionRow> = conn.load(
        failed()
            .order(submissions::id.desc())
            .limit(limit)
            .select(SubmissionRow::as_select()),
    )?;
    Ok((stored_rows(rows)?, total))
}

#[async_trait]
impl DashboardRepository for Database {
    async fn lead_figures(
        &self,
        filter: LeadFilter,
        since: DateTime<Utc>,
    ) -> StoreResult<LeadFigures> {
        self.read(move |conn| lead_figures(conn, &filter, since))
            .await
    }

    async fn open_leads_of(
        &self,
        filter: LeadFilter,
        assignee: i64,
        today: NaiveDate,
    ) -> StoreResult<OpenLeads> {
        self.read(move |conn| open_leads_of(conn, &filter, assignee, today))
            .await
    }

    async fn open_leads_by_owner(
        &self,
        filter: LeadFilter,
    ) -> StoreResult<Vec<(Option<i64>, i64)>> {
        self.read(move |conn| open_leads_by_owner(conn, &filter))
            .await
    }

    async fn contacts_of(&self, actor: i64, since: DateTime<Utc>) -> StoreResult<i64> {
        self.read(move |conn| contacts_of(conn, actor, since)).await
    }

    async fn contacts_by_actor(
        &self,
        filter: LeadFilter,
        since: DateTime<Utc>,
    ) -> StoreResult<Vec<(i64, i64)>> {
        self.read(move |conn| contacts_by_actor(conn, &filter, since))
            .await
    }

    async fn submission_figures(
        &self,
        visible: VisibleSubmissions,
        since: DateTime<Utc>,
    ) -> StoreResult<SubmissionFigures> {
        self.read(move |conn| submission_figures(conn, &visible, since))
            .await
    }

    async fn failed_submissions(
        &self,
        visible: VisibleSubmissions,
        limit: i64,
    ) -> StoreResult<(Vec<Submission>, i64)> {
        self.read(move |conn| failed_submissions(conn, &visible, limit))
            .await
    }
}
