//! Manual merge of two leads a person knows are one property (issue 29, point 6):
//! `POST /api/v1/leads/{id}/merge` with `{"into": survivor}`. The duplicate check is
//! precision-first (contract 3.3), so a typo'd street makes a second lead; merging is how a
//! person puts them back together.
//!
//! The rules are pure (`check_pair`, `combine`) so the store can apply them again on the rows it
//! has locked; the service checks visibility first (outsiders get 404, as for `GET`).
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::lead::record::Lead;
use crate::store::StoreResult;

mod combine;
mod service;

pub use combine::{combine, FieldChange, PropertyKeys, SurvivorUpdate};
pub use service::{LeadMergeService, MergeError};

#[cfg(test)]
mod combine_tests;
#[cfg(test)]
mod service_tests;

/// A lead as a merge sees it: the lead, and the lead it was merged into already, if it was.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeSide {
    pub lead: Lead,
    pub merged_into_id: Option<i64>,
}

/// One merge to apply: `merged_id` goes into `survivor_id`, done by `actor_id` at `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeadMerge {
    pub merged_id: i64,
    pub survivor_id: i64,
    pub actor_id: i64,
    pub at: DateTime<Utc>,
}

/// Why two leads cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeRefusal {
    /// A lead cannot be merged into itself.
    SameLead,
    /// One of the two was merged into another lead before: merging it again would hide that
    /// lead's data twice over. The caller is told where it went instead of following the chain
    /// silently, so nobody merges into a lead they did not pick.
    AlreadyMerged { id: i64, into: i64 },
    /// The two leads belong to different teams (or one to none): a merge never moves a lead
    /// across teams; moving is a separate, admin-only act.
    TeamsDiffer,
    /// The survivor's address, filled from the merged lead, names a property another lead of
    /// the same scope already holds.
    AddressTaken { lead_id: i64 },
}

/// Refuses the pair when the rules say no: the same lead, a lead merged away already, or
/// different teams.
pub fn check_pair(merged: &MergeSide, survivor: &MergeSide) -> Result<(), MergeRefusal> {
    if merged.lead.id == survivor.lead.id {
        return Err(MergeRefusal::SameLead);
    }
    for side in [merged, survivor] {
        if let Some(into) = side.merged_into_id {
            return Err(MergeRefusal::AlreadyMerged {
                id: side.lead.id,
                into,
            });
        }
    }
    if merged.lead.team_id != survivor.lead.team_id {
        return Err(MergeRefusal::TeamsDiffer);
    }
    Ok(())
}

/// Where merges are stored.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LeadMergeRepository: Send + Sync {
    /// The lead with this id and its merge state, if it exists.
    async fn merge_side(&self, id: i64) -> StoreResult<Option<MergeSide>>;
    /// Applies `merge` in one transaction: locks and reads both leads, refuses the pair with
    /// `check_pair` (another writer may have merged one since the service looked), writes
    /// `combine`'s survivor (version raised), moves the merged lead's submissions, notes and
    /// activity to the survivor, adds its submission count, marks it merged (its address keys
    /// cleared), records one `merged` activity row and sends `lead.updated`. Answers the
    /// survivor as stored.
    async fn merge_leads(&self, merge: LeadMerge) -> StoreResult<Result<Lead, MergeRefusal>>;
}

/// The webhook event subject of a merge's `lead.updated` (`webhook::event_subject`): the
/// survivor, with `changes` (field -> {old, new}) and `merged_id` for the delivery's body.
pub fn merged_event_subject(
    survivor_id: i64,
    merged_id: i64,
    changes: &std::collections::BTreeMap<String, FieldChange>,
) -> String {
    let mut members = crate::webhook::BodyMembers::new();
    members.insert("changes".into(), serde_json::json!(changes));
    members.insert("merged_id".into(), merged_id.into());
    crate::webhook::event_subject(survivor_id, members)
}
