//! `LeadMergeService`: who may merge which leads, and the answer.
use std::sync::Arc;

use crate::clock::Clock;
use crate::error::{FieldError, LocPart};
use crate::lead::merge_leads::{
    check_pair, LeadMerge, LeadMergeRepository, MergeRefusal, MergeSide,
};
use crate::lead::record::Lead;
use crate::lead::work::LeadWorkError;
use crate::store::store_errors_are_unexpected;
use crate::team_access::{may_see_team, MembershipRepository};
use crate::user::User;

/// Why a merge did not happen. The web layer picks the status codes.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Unknown, or not visible to the caller (the same answer, so ids reveal nothing).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The request names leads that cannot be merged (the same lead, different teams).
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    /// The leads' state forbids it now (one was merged away, the address is taken).
    #[error("conflict: {0}")]
    Conflict(String),
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

store_errors_are_unexpected!(MergeError);

/// A merge's refusal among the other refusals of working a lead (the lead page answers them
/// alike); a conflict names no other lead, the request already names both.
impl From<MergeError> for LeadWorkError {
    fn from(e: MergeError) -> Self {
        match e {
            MergeError::NotFound(thing) => LeadWorkError::NotFound(thing),
            MergeError::Invalid(problems) => LeadWorkError::Invalid(problems),
            MergeError::Conflict(detail) => LeadWorkError::Conflict {
                detail,
                lead_id: None,
            },
            MergeError::Unexpected(cause) => LeadWorkError::Unexpected(cause),
        }
    }
}

impl From<MergeRefusal> for MergeError {
    fn from(r: MergeRefusal) -> Self {
        let into_field = |kind: &str, msg: &str| {
            MergeError::Invalid(vec![FieldError::body(
                &[LocPart::from("into")],
                kind,
                msg.to_owned(),
            )])
        };
        match r {
            MergeRefusal::SameLead => {
                into_field("value_error", "A lead cannot be merged into itself")
            }
            MergeRefusal::TeamsDiffer => into_field(
                "value_error",
                "Both leads must belong to the same team, or both to none",
            ),
            MergeRefusal::AlreadyMerged { id, into } => {
                MergeError::Conflict(format!("Lead {id} was already merged into lead {into}"))
            }
            MergeRefusal::AddressTaken { lead_id } => MergeError::Conflict(format!(
                "The merged address is that of lead {lead_id}; merge that lead too"
            )),
        }
    }
}

/// Merges leads for the people who may work them.
pub struct LeadMergeService {
    pub merges: Arc<dyn LeadMergeRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub clock: Arc<dyn Clock>,
}

impl LeadMergeService {
    /// Merges lead `id` into lead `into` (the survivor) for `user`, who must see both: a member
    /// of their team (any role) or a platform admin; for unassigned leads, any user, since
    /// every user sees them. Answers the survivor as stored.
    pub async fn merge(&self, user: &User, id: i64, into: i64) -> Result<Lead, MergeError> {
        let merged = self.visible(user, id).await?;
        let survivor = self.visible(user, into).await?;
        check_pair(&merged, &survivor)?;
        let merge = LeadMerge {
            merged_id: id,
            survivor_id: into,
            actor_id: user.id,
            at: self.clock.now(),
        };
        Ok(self.merges.merge_leads(merge).await??)
    }

    /// The lead, if `user` may see it: the rule of `GET /api/v1/leads/{id}` (contract 3.5).
    async fn visible(&self, user: &User, id: i64) -> Result<MergeSide, MergeError> {
        let side = self
            .merges
            .merge_side(id)
            .await?
            .ok_or(MergeError::NotFound("Lead"))?;
        let sees = match side.lead.team_id {
            None => true,
            Some(team) => may_see_team(self.memberships.as_ref(), user, team).await?,
        };
        if sees {
            Ok(side)
        } else {
            Err(MergeError::NotFound("Lead"))
        }
    }
}
