//! Sharing leads out: a team admin's fresh list given to several people in turn, in one bulk
//! change (docs/working-leads.md "The pages").
use crate::lead::record::Lead;
use crate::user::User;

use super::service::{bulk_shape, invalid, BulkSet, LeadWorkService, WorkResult};

/// At most this many people share one request's leads (a team's sales floor, not a company).
pub const SHARE_MAX_PEOPLE: usize = 100;

impl LeadWorkService {
    /// Gives the leads `ids` to `people` (public user ids) in turn, in the order given: the first
    /// lead to the first person, the second to the second, and round again, so each gets the
    /// same number give or take one. Each assignment is checked as the bulk change checks it
    /// (the person must be an active member of that lead's team); one transaction, all or
    /// nothing.
    pub async fn share_out(
        &self,
        user: &User,
        ids: &[i64],
        people: &[String],
    ) -> WorkResult<Vec<Lead>> {
        if people.is_empty() || people.len() > SHARE_MAX_PEOPLE {
            return Err(invalid(
                &["people".into()],
                "value_error",
                format!("Choose 1 to {SHARE_MAX_PEOPLE} people to share the leads among"),
            ));
        }
        let sets: Vec<BulkSet> = people
            .iter()
            .map(|person| BulkSet {
                assignee: Some(Some(person.clone())),
                ..BulkSet::default()
            })
            .collect();
        bulk_shape(ids, &sets[0])?;
        self.bulk_each(user, ids, |i| &sets[i % sets.len()]).await
    }
}
