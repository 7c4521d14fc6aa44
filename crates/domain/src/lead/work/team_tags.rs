//! A team's tags as a whole: how many leads carry each (the tags page, `GET /api/v1/tags`), and
//! one tag renamed or taken off every lead the person sees that carries it, so "storm2026" and
//! "storm 2026" become one tag again (docs/working-leads.md "Tags").
use crate::lead::record::{LeadCursor, LeadFilter};
use crate::team_access::visible_teams;
use crate::user::User;

use super::model::ArchiveFilter;
use super::service::{invalid, BulkSet, LeadWorkError, LeadWorkService, WorkResult};
use super::tags::{parse_tag, TagEdit};
use super::BULK_MAX_IDS;

/// Most tags one list names: a team's words, not everything ever typed.
pub const TAG_LIST_MAX: i64 = 500;

/// A tag and how many leads carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagCount {
    pub tag: String,
    pub leads: i64,
}

/// What a rename (or a removal) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retagged {
    /// The leads changed, archived ones among them.
    pub leads: usize,
}

impl LeadWorkService {
    /// The tags on the leads `user` sees (of `team_id` alone when given), the leads not archived,
    /// each with how many carry it: most first, then by tag; at most `TAG_LIST_MAX`.
    pub async fn tag_counts(&self, user: &User, team_id: Option<i64>) -> WorkResult<Vec<TagCount>> {
        let visible = visible_teams(self.memberships.as_ref(), user).await?;
        Ok(self.work.tag_counts(visible, team_id, TAG_LIST_MAX).await?)
    }

    /// Takes `from` off every lead `user` sees that carries it (of `team_id` alone when given),
    /// archived leads too, and puts `to` on each instead (None: just takes it off). Each lead is
    /// changed as the bulk change changes it (the same checks, a `tags_changed` timeline row,
    /// `lead.updated`), a thousand leads a transaction: a refusal stops the rename there, and
    /// running it again finishes it.
    pub async fn retag(
        &self,
        user: &User,
        team_id: Option<i64>,
        from: &str,
        to: Option<&str>,
    ) -> WorkResult<Retagged> {
        let from = parse_tag(from)
            .map_err(|problem| invalid(&["from".into()], "value_error", problem.message()))?;
        let to = to
            .map(parse_tag)
            .transpose()
            .map_err(|problem| invalid(&["to".into()], "value_error", problem.message()))?;
        if to.as_ref() == Some(&from) {
            return Ok(Retagged::default());
        }
        let set = BulkSet {
            tags: Some(TagEdit {
                set: None,
                add: to.into_iter().collect(),
                remove: [from.clone()].into(),
            }),
            ..BulkSet::default()
        };
        let visible = visible_teams(self.memberships.as_ref(), user).await?;
        let mut changed = 0;
        for archive in [ArchiveFilter::Active, ArchiveFilter::Archived] {
            let filter = LeadFilter {
                visible_teams: visible.clone(),
                team_id,
                tags: vec![from.clone()],
                archive,
                ..LeadFilter::default()
            };
            // Newest first, on from the last lead changed: a lead tagged `from` again meanwhile
            // (an import) is not gone back to, so the rename ends.
            let mut after = None;
            loop {
                let leads = self
                    .leads
                    .list_leads_after(filter.clone(), after, BULK_MAX_IDS as i64)
                    .await?;
                let Some(last) = leads.last() else { break };
                after = Some(LeadCursor::of(last));
                let ids: Vec<i64> = leads.iter().map(|lead| lead.id).collect();
                self.bulk_each(user, &ids, |_| &set)
                    .await
                    .map_err(|e| stopped(e, changed))?;
                changed += ids.len();
            }
        }
        Ok(Retagged { leads: changed })
    }
}

/// A refusal of one thousand-lead step, said of the whole rename: how far it got.
fn stopped(e: LeadWorkError, changed: usize) -> LeadWorkError {
    match e {
        LeadWorkError::Invalid(problems) => {
            let why = problems.first().map_or("", |p| p.msg.as_str());
            LeadWorkError::Conflict {
                detail: format!(
                    "{} leads could not take the change ({why}); {changed} leads were changed \
                     before. Try again to finish.",
                    problems.len()
                ),
                lead_id: None,
            }
        }
        other => other,
    }
}
