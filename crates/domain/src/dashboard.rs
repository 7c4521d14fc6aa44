//! The home dashboard's figures: live leads (not archived, not merged away) per day, by source,
//! enrichment status and status (the funnel), the person's open leads, what became of recent
//! submissions, and the failed ones. Counted by the store, over what the person may see: the
//! leads of `SubmissionService::visible_filter` and the submissions of
//! `SubmissionService::visible_submissions`.
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use futures_util::future::{try_join4, try_join5};

use crate::clock::{Clock, UtcOffset};
use crate::error::ServiceError;
use crate::lead::record::LeadFilter;
use crate::lead::work::LeadStatus;
use crate::store::StoreResult;
use crate::submission::record::Submission;
use crate::submission::{VisibleLeadFilter, VisibleSubmissions};

/// Days the per-day chart and the submission figures cover, today (UTC) included.
pub const DAYS: u64 = 30;
/// The days of the team page's "Last 7 days" of contacts, today included.
pub const CONTACT_WEEK_DAYS: u64 = 7;

/// Failed submissions listed (the newest); the rest are counted.
pub const FAILED_LISTED: i64 = 10;

/// Live-lead counts; a missing source is counted under `"unknown"`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeadFigures {
    pub total: i64,
    /// Leads created per UTC day since the first day asked for; days without leads are absent.
    pub per_day: BTreeMap<NaiveDate, i64>,
    pub by_source: BTreeMap<String, i64>,
    pub by_enrichment_status: BTreeMap<String, i64>,
    pub by_status: BTreeMap<String, i64>,
}

impl LeadFigures {
    /// Counts `n` leads of this source, enrichment status and status.
    pub fn add(&mut self, source: String, enrichment_status: String, status: String, n: i64) {
        self.total += n;
        *self.by_source.entry(source).or_insert(0) += n;
        *self
            .by_enrichment_status
            .entry(enrichment_status)
            .or_insert(0) += n;
        *self.by_status.entry(status).or_insert(0) += n;
    }

    /// The funnel: every status in `LeadStatus::NAMES` order (the order a lead moves
    /// through them), zero where none.
    pub fn funnel(&self) -> Vec<(&'static str, i64)> {
        LeadStatus::NAMES
            .iter()
            .map(|s| (*s, self.by_status.get(*s).copied().unwrap_or(0)))
            .collect()
    }
}

/// Submissions by status and, when they reached a lead, by action (`created`, `updated`,
/// `skipped`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubmissionFigures {
    pub total: i64,
    pub by_status: BTreeMap<String, i64>,
    pub by_action: BTreeMap<String, i64>,
}

impl SubmissionFigures {
    /// Submissions that matched a lead already stored: merged into it or identical to it.
    pub fn duplicates(&self) -> i64 {
        ["updated", "skipped"]
            .iter()
            .map(|a| self.by_action.get(*a).copied().unwrap_or(0))
            .sum()
    }
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DashboardRepository: Send + Sync {
    /// Counts over the live leads `filter` finds; `per_day` counts those created from `since`
    /// on.
    async fn lead_figures(
        &self,
        filter: LeadFilter,
        since: DateTime<Utc>,
    ) -> StoreResult<LeadFigures>;
    /// Counts over the visible submissions created from `since` on.
    async fn submission_figures(
        &self,
        visible: VisibleSubmissions,
        since: DateTime<Utc>,
    ) -> StoreResult<SubmissionFigures>;
    /// The live leads `filter` finds that are assigned to `assignee` with an open status
    /// (`OPEN_STATUSES`), counted in one pass with those due by `today` and those nobody has
    /// logged a contact on.
    async fn open_leads_of(
        &self,
        filter: LeadFilter,
        assignee: i64,
        today: NaiveDate,
    ) -> StoreResult<OpenLeads>;
    /// The live leads `filter` finds with an open status, counted by owner (None: nobody).
    async fn open_leads_by_owner(&self, filter: LeadFilter)
        -> StoreResult<Vec<(Option<i64>, i64)>>;
    /// The contacts `actor` (a user's row id) logged from `since` on, on any lead.
    async fn contacts_of(&self, actor: i64, since: DateTime<Utc>) -> StoreResult<i64>;
    /// The contacts logged from `since` on, on the leads of `filter`'s team and visible teams
    /// (its other members are not read), counted by who logged them (the user's row id).
    async fn contacts_by_actor(
        &self,
        filter: LeadFilter,
        since: DateTime<Utc>,
    ) -> StoreResult<Vec<(i64, i64)>>;
    /// The newest `limit` visible failed submissions, and how many there are.
    async fn failed_submissions(
        &self,
        visible: VisibleSubmissions,
        limit: i64,
    ) -> StoreResult<(Vec<Submission>, i64)>;
}

/// One person's open leads (`DashboardRepository::open_leads_of`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpenLeads {
    pub open: i64,
    /// Those whose follow-up day is the given day or earlier.
    pub due: i64,
    /// Those with no contact logged on them.
    pub not_contacted: i64,
}

/// Everything the dashboard shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Dashboard {
    pub leads: LeadFigures,
    /// One entry per day of the last `DAYS`, oldest first, zero where nothing was created.
    pub days: Vec<(NaiveDate, i64)>,
    pub submissions: SubmissionFigures,
    pub failed: Vec<Submission>,
    pub failed_total: i64,
    /// The viewer's open leads: assigned to them, status in `OPEN_STATUSES`.
    pub my_open: i64,
    /// Those of them whose follow-up day has come (the person's today, or earlier).
    pub my_due: i64,
    /// Those of them nobody has logged a contact on yet: the calls still to make.
    pub my_not_contacted: i64,
    /// The contacts the viewer logged today (their day).
    pub my_contacts_today: i64,
}

/// One owner's share of a team's open leads (`DashboardService::workload`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Workload {
    /// Open leads (status in `OPEN_STATUSES`).
    pub open: i64,
    /// Those of them whose follow-up day has come (today or earlier).
    pub due: i64,
    /// Contacts this person logged on these leads today and in the last 7 days (today
    /// included), whoever works the leads. Days are those of the person looking.
    pub contacts_today: i64,
    pub contacts_week: i64,
}

/// Built with a struct literal from its ports.
pub struct DashboardService {
    pub figures: Arc<dyn DashboardRepository>,
    pub clock: Arc<dyn Clock>,
}

impl DashboardService {
    /// The figures over these leads and submissions (made by `SubmissionService`, whose
    /// visibility rules they carry).
    ///
    /// The person's own figures (due follow-ups, contacts logged today) count their day, where
    /// `offset` puts it; the per-day chart and the submission figures count UTC days, as the
    /// store buckets them.
    pub async fn dashboard(
        &self,
        leads: VisibleLeadFilter,
        submissions: VisibleSubmissions,
        offset: UtcOffset,
    ) -> Result<Dashboard, ServiceError> {
        let now = self.clock.now();
        let today = now.date_naive();
        let first = today.checked_sub_days(Days::new(DAYS - 1)).unwrap_or(today);
        let since = first.and_time(chrono::NaiveTime::MIN).and_utc();
        let viewer = submissions.user_id();
        let leads = leads.into_filter();
        let own_day = offset.day_at(now);
        // Five reads on pooled connections at once: the page waits for the slowest.
        let (lead_figures, mine, submission_figures, (failed, failed_total), my_contacts_today) =
            try_join5(
                self.figures.lead_figures(leads.clone(), since),
                self.figures.open_leads_of(leads, viewer, own_day.date),
                self.figures.submission_figures(submissions.clone(), since),
                self.figures.failed_submissions(submissions, FAILED_LISTED),
                self.figures.contacts_of(viewer, own_day.began(0)),
            )
            .await?;
        let days = first
            .iter_days()
            .take_while(|d| *d <= today)
            .map(|d| (d, lead_figures.per_day.get(&d).copied().unwrap_or(0)))
            .collect();
        Ok(Dashboard {
            leads: lead_figures,
            days,
            submissions: submission_figures,
            failed,
            failed_total,
            my_open: mine.open,
            my_due: mine.due,
            my_not_contacted: mine.not_contacted,
            my_contacts_today,
        })
    }

    /// The open leads of these by owner (the user's row id; None for nobody): one grouped read,
    /// for orderings by load that need no due counts.
    pub async fn open_by_owner(
        &self,
        leads: VisibleLeadFilter,
    ) -> Result<HashMap<Option<i64>, i64>, ServiceError> {
        let open = self
            .figures
            .open_leads_by_owner(leads.into_filter())
            .await?;
        Ok(open.into_iter().collect())
    }

    /// Who works how many of these leads (a team's, on its page): the open ones and the due
    /// ones by owner (the user's row id; None for the leads nobody works), and the contacts
    /// each person logged on them today and in the last 7 days. People with none of these
    /// are not listed. "Today" is the day of the person looking, where `offset` puts it.
    pub async fn workload(
        &self,
        leads: VisibleLeadFilter,
        offset: UtcOffset,
    ) -> Result<BTreeMap<Option<i64>, Workload>, ServiceError> {
        let leads = leads.into_filter();
        let day = offset.day_at(self.clock.now());
        let due = LeadFilter {
            follow_up_by: Some(day.date),
            ..leads.clone()
        };
        let (open, due, contacts_today, contacts_week) = try_join4(
            self.figures.open_leads_by_owner(leads.clone()),
            self.figures.open_leads_by_owner(due),
            self.figures.contacts_by_actor(leads.clone(), day.began(0)),
            self.figures
                .contacts_by_actor(leads, day.began(CONTACT_WEEK_DAYS - 1)),
        )
        .await?;
        let mut by_owner: BTreeMap<Option<i64>, Workload> = BTreeMap::new();
        for (owner, n) in open {
            by_owner.entry(owner).or_default().open = n;
        }
        for (owner, n) in due {
            by_owner.entry(owner).or_default().due = n;
        }
        for (actor, n) in contacts_today {
            by_owner.entry(Some(actor)).or_default().contacts_today = n;
        }
        for (actor, n) in contacts_week {
            by_owner.entry(Some(actor)).or_default().contacts_week = n;
        }
        Ok(by_owner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::MockClock;
    use crate::submission::VisibleSubmissions;

    /// The service over `repo` with its clock standing at `now` (RFC 3339).
    fn service_at(repo: MockDashboardRepository, now: &'static str) -> DashboardService {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .returning(move || DateTime::parse_from_rfc3339(now).unwrap().to_utc());
        DashboardService {
            figures: Arc::new(repo),
            clock: Arc::new(clock),
        }
    }

    #[tokio::test]
    async fn workload_counts_open_and_due_leads_by_owner_and_contacts_by_who_logged_them() {
        let mut repo = MockDashboardRepository::new();
        repo.expect_open_leads_by_owner()
            .withf(|f| f.follow_up_by.is_none() && f.team_id == Some(7))
            .returning(|_| Ok(vec![(None, 5), (Some(1), 3), (Some(2), 1)]));
        repo.expect_open_leads_by_owner()
            .withf(|f| f.follow_up_by == "2026-03-06".parse().ok() && f.team_id == Some(7))
            .returning(|_| Ok(vec![(Some(1), 2)]));
        repo.expect_contacts_by_actor()
            .withf(|f, since| {
                f.team_id == Some(7) && since.to_rfc3339() == "2026-03-05T22:00:00+00:00"
            })
            .returning(|_, _| Ok(vec![(2, 4)]));
        repo.expect_contacts_by_actor()
            .withf(|f, since| {
                f.team_id == Some(7) && since.to_rfc3339() == "2026-02-27T22:00:00+00:00"
            })
            .returning(|_, _| Ok(vec![(2, 9), (3, 1)]));
        // 23:00 UTC is 01:00 the next day for a person at UTC+2: their day began at 22:00 UTC.
        let service = service_at(repo, "2026-03-05T23:00:00Z");
        let team = LeadFilter {
            team_id: Some(7),
            ..LeadFilter::default()
        };
        let athens = UtcOffset::from_minutes(120).unwrap();
        let load = service
            .workload(VisibleLeadFilter::trusted(team), athens)
            .await
            .unwrap();
        let w = |open, due, contacts_today, contacts_week| Workload {
            open,
            due,
            contacts_today,
            contacts_week,
        };
        assert_eq!(
            load.into_iter().collect::<Vec<_>>(),
            [
                (None, w(5, 0, 0, 0)),
                (Some(1), w(3, 2, 0, 0)),
                (Some(2), w(1, 0, 4, 9)),
                (Some(3), w(0, 0, 0, 1))
            ]
        );
    }

    #[tokio::test]
    async fn thirty_days_oldest_first_with_the_missing_ones_zero() {
        let mut repo = MockDashboardRepository::new();
        repo.expect_lead_figures()
            .withf(|_, since| since.to_rfc3339() == "2026-02-04T00:00:00+00:00")
            .returning(|_, _| {
                let day = |s: &str| s.parse::<NaiveDate>().unwrap();
                Ok(LeadFigures {
                    total: 9,
                    per_day: [(day("2026-02-04"), 2), (day("2026-03-05"), 3)].into(),
                    ..LeadFigures::default()
                })
            });
        repo.expect_submission_figures()
            .returning(|_, _| Ok(SubmissionFigures::default()));
        repo.expect_failed_submissions()
            .withf(|_, limit| *limit == FAILED_LISTED)
            .returning(|_, _| Ok((Vec::new(), 0)));
        repo.expect_open_leads_of()
            .withf(|f, viewer, today| {
                f.follow_up_by.is_none()
                    && f.contacted.is_none()
                    && *viewer == VisibleSubmissions::everything().user_id()
                    && *today == "2026-03-04".parse::<NaiveDate>().unwrap()
            })
            .times(1)
            .returning(|_, _, _| {
                Ok(OpenLeads {
                    open: 4,
                    due: 1,
                    not_contacted: 2,
                })
            });
        let viewer = VisibleSubmissions::everything().user_id();
        repo.expect_contacts_of()
            .withf(move |actor, since| {
                *actor == viewer && since.to_rfc3339() == "2026-03-04T11:00:00+00:00"
            })
            .returning(|_, _| Ok(3));
        // 10:00 UTC is 23:00 the day before at UTC-11: the person's figures count their 4th,
        // the chart its UTC days up to the 5th.
        let service = service_at(repo, "2026-03-05T10:00:00Z");
        let d = service
            .dashboard(
                VisibleLeadFilter::everything(),
                VisibleSubmissions::everything(),
                UtcOffset::from_minutes(-660).unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(d.days.len(), 30);
        assert_eq!(d.days[0].1, 2);
        assert_eq!(d.days[29], ("2026-03-05".parse().unwrap(), 3));
        assert_eq!(d.days.iter().map(|(_, n)| n).sum::<i64>(), 5);
        assert_eq!(d.my_open, 4);
        assert_eq!(d.my_due, 1, "due by the person's day");
        assert_eq!(d.my_not_contacted, 2, "none logged yet");
        assert_eq!(d.my_contacts_today, 3, "the viewer's own of their day");
    }

    #[test]
    fn the_funnel_lists_every_status_in_order() {
        let mut figures = LeadFigures::default();
        figures.add("web".into(), "complete".into(), "won".into(), 2);
        figures.add("web".into(), "pending".into(), "new".into(), 3);
        assert_eq!(
            figures.funnel(),
            [
                ("new", 3),
                ("contacted", 0),
                ("qualified", 0),
                ("won", 2),
                ("lost", 0)
            ]
        );
        assert_eq!(figures.total, 5);
        assert_eq!(figures.by_source["web"], 5);
    }

    #[test]
    fn duplicates_are_the_merged_and_the_identical() {
        let figures = SubmissionFigures {
            total: 10,
            by_status: BTreeMap::new(),
            by_action: [
                ("created".into(), 5),
                ("updated".into(), 2),
                ("skipped".into(), 1),
            ]
            .into(),
        };
        assert_eq!(figures.duplicates(), 3);
    }
}
