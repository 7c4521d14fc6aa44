//! Working a lead (issue 29): status, owner, edits, notes, the timeline, archive, team moves,
//! claims and bulk changes. Rules and decisions: docs/working-leads.md.
pub mod contact;
pub mod digest;
pub mod edit;
pub mod given_mail;
mod imported;
pub mod model;
mod numbers;
pub mod repository;
mod service;
#[cfg(test)]
mod service_tests;
mod share_out;
pub mod tags;
pub mod team_tags;

pub use contact::{ContactLog, ContactOutcome, ContactSummary};
pub use edit::{FieldEdit, FieldPatch};
pub use imported::{ImportedWork, KeptWork, WorkSet};
pub use model::*;
pub use repository::{ChangeSaved, LeadChange, LeadWorkRepository, StoredFields};
pub use service::{
    BulkSet, Edited, LeadDesk, LeadPatch, LeadWorkError, LeadWorkService, BULK_MAX_IDS,
    NOTE_MAX_CHARS,
};
pub use share_out::SHARE_MAX_PEOPLE;
pub use tags::{parse_tag, tags_of_field, TagEdit, TagProblem, TAGS_PER_LEAD};
pub use team_tags::{Retagged, TagCount, TAG_LIST_MAX};
