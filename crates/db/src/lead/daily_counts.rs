//! The dashboard's lead counts read from `lead_daily_counts`, the rollup the triggers of
//! migration 15 keep in step with every write to `leads`: a few thousand rows of counts instead
//! of a scan of every visible lead. It answers only filters made of its own columns; the rest
//! are counted from the leads (`dashboard::lead_figures`).
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::BigInt;

use leadhub_domain::dashboard::LeadFigures;
use leadhub_domain::lead::record::{EnrichmentStatus, LeadFilter};
use leadhub_domain::lead::search::source_slug;
use leadhub_domain::lead::work::{ArchiveFilter, StatusFilter};

use crate::schema::lead_daily_counts as counts;
use crate::ReadConnection;

/// What of a `LeadFilter` the rollup can answer: every field is one of its columns.
pub(crate) struct RollupFilter {
    visible_teams: Option<Vec<i64>>,
    team_id: Option<i64>,
    source: Option<String>,
    enrichment_status: Option<EnrichmentStatus>,
    status: Option<StatusFilter>,
}

impl RollupFilter {
    /// Some when the rollup holds the answer to `filter`. The fields are named one by one, with
    /// no `..`, so a field added to `LeadFilter` does not compile here until someone decides
    /// whether the rollup can answer it.
    pub(crate) fn of(filter: &LeadFilter) -> Option<RollupFilter> {
        let LeadFilter {
            visible_teams,
            team_id,
            state,
            city,
            zip_code,
            property_type,
            county,
            permit_status,
            work_type,
            source,
            q,
            enrichment_status,
            created_after,
            created_before,
            sort: _,
            status,
            assignee,
            follow_up_by,
            contacted,
            last_contact_before,
            contacted_by,
            contacted_since,
            has_phone,
            has_email,
            do_not_call,
            tags,
            without_tags,
            archive,
            upload,
            near,
        } = filter;
        let columns_not_in_rollup = state.is_some()
            || upload.is_some()
            || near.is_some()
            || city.is_some()
            || zip_code.is_some()
            || property_type.is_some()
            || county.is_some()
            || permit_status.is_some()
            || work_type.is_some()
            || q.is_some()
            || created_after.is_some()
            || created_before.is_some()
            || assignee.is_some()
            || follow_up_by.is_some()
            || contacted.is_some()
            || last_contact_before.is_some()
            || contacted_by.is_some()
            || contacted_since.is_some()
            || has_phone.is_some()
            || has_email.is_some()
            || do_not_call.is_some()
            || !tags.is_empty()
            || !without_tags.is_empty()
            || *archive != ArchiveFilter::Active
            // The rollup's scope 0 is the unassigned leads; `team_id = 0` names no lead.
            || team_id.is_some_and(|t| t <= 0);
        // A source that slugs to nothing finds no lead there, but would find the rollup's
        // "no source" rows ('') here.
        let source = match source {
            Some(v) => Some(source_slug(v)?),
            None => None,
        };
        (!columns_not_in_rollup).then(|| RollupFilter {
            visible_teams: visible_teams.clone(),
            team_id: *team_id,
            source,
            enrichment_status: *enrichment_status,
            status: *status,
        })
    }
}

/// A boxed query over the rollup (whatever it selects or groups by) limited to the rows of a
/// `RollupFilter`.
macro_rules! narrow_counts {
    ($query:expr, $filter:expr) => {{
        let f: &RollupFilter = $filter;
        let mut q = $query;
        if let Some(teams) = &f.visible_teams {
            // Scope 0 holds the unassigned leads, which every user may see.
            q = q.filter(
                counts::team_scope
                    .eq(0)
                    .or(counts::team_scope.eq_any(teams.clone())),
            );
        }
        if let Some(t) = f.team_id {
            q = q.filter(counts::team_scope.eq(t));
        }
        if let Some(s) = &f.source {
            q = q.filter(counts::source.eq(s.clone()));
        }
        if let Some(e) = f.enrichment_status {
            q = q.filter(counts::enrichment_status.eq(e.as_str()));
        }
        if let Some(s) = f.status {
            q = q.filter(counts::status.eq_any(s.statuses()));
        }
        q
    }};
}

/// `SUM(n)` as a BIGINT on both backends (PostgreSQL's sum of a bigint is a numeric), 0 over
/// no rows.
fn total() -> diesel::expression::SqlLiteral<BigInt> {
    sql::<BigInt>("CAST(COALESCE(SUM(lead_daily_counts.n), 0) AS BIGINT)")
}

/// How many live leads `filter` finds, from the rollup: the lead list's exact `total` without
/// reading an index entry per lead (every visible lead is a million entries at a million leads).
pub(crate) fn rolled_up_count(
    conn: &mut ReadConnection<'_>,
    filter: &RollupFilter,
) -> QueryResult<i64> {
    conn.get_result(narrow_counts!(
        counts::table.select(total()).into_boxed(),
        filter
    ))
}

/// The figures of `filter`'s live leads from the rollup; `per_day` from `since`'s day on.
pub(crate) fn rolled_up_figures(
    conn: &mut ReadConnection<'_>,
    filter: &RollupFilter,
    since: DateTime<Utc>,
) -> QueryResult<LeadFigures> {
    let groups: Vec<(String, String, String, i64)> = conn.load(narrow_counts!(
        counts::table
            .group_by((counts::source, counts::enrichment_status, counts::status))
            .select((
                counts::source,
                counts::enrichment_status,
                counts::status,
                total(),
            ))
            .into_boxed(),
        filter
    ))?;
    let mut figures = LeadFigures::default();
    for (source, enrichment, status, n) in groups {
        if n == 0 {
            continue;
        }
        let source = if source.is_empty() {
            "unknown".to_owned()
        } else {
            source
        };
        figures.add(source, enrichment, status, n);
    }
    // Text days compare in date order (`YYYY-MM-DD`).
    let first_day = since.date_naive().format("%Y-%m-%d").to_string();
    let days: Vec<(String, i64)> = conn.load(
        narrow_counts!(
            counts::table
                .group_by(counts::day)
                .select((counts::day, total()))
                .into_boxed(),
            filter
        )
        .filter(counts::day.ge(first_day)),
    )?;
    figures.per_day = days
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .filter_map(|(day, n)| Some((day.parse::<NaiveDate>().ok()?, n)))
        .collect();
    Ok(figures)
}
