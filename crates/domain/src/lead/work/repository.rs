//! The port that stores the work on leads: changes with their timeline rows, notes, the timeline.
use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Map, Value};

use crate::lead::barred::BarredNumbers;
use crate::lead::fields::LeadFields;
use crate::lead::record::Lead;
use crate::lead::work::contact::{ContactOutcome, ContactSummary};
use crate::lead::work::edit::AddressKeys;
use crate::lead::work::model::{ActivityEntry, LeadStatus, NewActivity, Note};
use crate::lead::work::team_tags::TagCount;
use crate::store::StoreResult;

/// New field values of a lead, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFields {
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    /// Some when the address key changes (`None` inside: the lead has no key any more).
    pub keys: Option<Option<AddressKeys>>,
}

/// One change of one lead, applied only while the lead is still at `version`.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadChange {
    pub lead_id: i64,
    /// The version the change was made against.
    pub version: i64,
    pub actor_id: i64,
    pub at: DateTime<Utc>,
    pub fields: Option<StoredFields>,
    pub status: Option<LeadStatus>,
    pub assignee: Option<Option<i64>>,
    /// The new follow-up day (None inside: cleared).
    pub follow_up: Option<Option<NaiveDate>>,
    /// The do-not-call mark set (true) or taken off (false).
    pub do_not_call: Option<bool>,
    /// The lead's new tags, sorted, each once.
    pub tags: Option<Vec<String>>,
    /// The lead's new barred numbers (`LeadWork::barred`).
    pub barred: Option<BarredNumbers>,
    /// A move (or a claim): the new team.
    pub team: Option<i64>,
    /// Archive (true) or restore (false).
    pub archived: Option<bool>,
    /// A note stored with the change (with its `note_added` timeline row).
    pub note: Option<String>,
    /// A logged contact: `lead.updated` names its outcome beside the changes.
    pub contact: Option<ContactOutcome>,
    /// The timeline rows of the change.
    pub activity: Vec<NewActivity>,
    /// Field -> {"old", "new"}: what `lead.updated` tells its receivers.
    pub changes: Map<String, Value>,
}

impl LeadChange {
    /// Whether it leaves the lead as it is: every part of a change that changes something
    /// writes a timeline row, but for a note, which writes its own. Such a change is not
    /// saved: saving raises the version and tells `lead.updated`'s receivers of nothing.
    pub fn changes_nothing(&self) -> bool {
        self.activity.is_empty() && self.note.is_none()
    }
}

/// How a change ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeSaved {
    /// Applied; the lead as it is now.
    Saved(Box<Lead>),
    /// The lead's version moved on meanwhile (or the lead is gone): nothing applied.
    Stale,
    /// Another lead holds the property in the lead's (new) scope: its id; nothing applied.
    Collision(i64),
    /// Fine itself, but rolled back with a change of the same transaction that failed.
    RolledBack,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LeadWorkRepository: Send + Sync {
    /// Applies the change in one transaction with its timeline rows and its `lead.updated`
    /// event, raising the version by one and stamping `updated_at`.
    async fn save_change(&self, change: LeadChange) -> StoreResult<ChangeSaved>;
    /// Applies every change in one transaction, or none: when one is not `Saved`, everything
    /// is rolled back and the answers say which failed.
    async fn save_changes(&self, changes: Vec<LeadChange>) -> StoreResult<Vec<ChangeSaved>>;
    /// The leads (not merged away) of `team_id`'s duplicate scope on `street_key`, but
    /// `except`: each with its fields, for the same-property rule.
    async fn leads_on_street(
        &self,
        team_id: Option<i64>,
        street_key: String,
        except: i64,
    ) -> StoreResult<Vec<(i64, LeadFields)>>;
    /// Stores a note with its `note_added` timeline row.
    async fn add_note(
        &self,
        lead_id: i64,
        author_id: i64,
        body: String,
        at: DateTime<Utc>,
    ) -> StoreResult<Note>;
    /// Stores each `(lead, text)` note by `author_id` with its `note_added` timeline row, in one
    /// transaction, except where the lead already has a note (not deleted) with that very text:
    /// an import run twice adds its notes once. How many were stored.
    async fn add_notes_once(
        &self,
        notes: Vec<(i64, String)>,
        author_id: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<u64>;
    /// The lead's notes not deleted, newest first.
    async fn notes(&self, lead_id: i64) -> StoreResult<Vec<Note>>;
    async fn find_note(&self, lead_id: i64, note_id: i64) -> StoreResult<Option<Note>>;
    /// Stamps the note deleted, with its `note_deleted` timeline row.
    async fn delete_note(
        &self,
        lead_id: i64,
        note_id: i64,
        by: i64,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// The contacts logged on each of `lead_ids` (its `contact_logged` entries), by lead id; a
    /// lead without any is left out.
    async fn contact_summaries(
        &self,
        lead_ids: Vec<i64>,
    ) -> StoreResult<HashMap<i64, ContactSummary>>;
    /// How many live leads (not archived, not merged away) carry each tag: those of
    /// `visible_teams` (None: every team; a list: those teams and the unassigned leads), of
    /// `team_id` alone when given. Most first, then by tag, at most `limit` tags.
    async fn tag_counts(
        &self,
        visible_teams: Option<Vec<i64>>,
        team_id: Option<i64>,
        limit: i64,
    ) -> StoreResult<Vec<TagCount>>;
    /// The lead's timeline, newest first: its activity rows and its submissions; with the
    /// number of entries.
    async fn activity(
        &self,
        lead_id: i64,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<ActivityEntry>, i64)>;
}
