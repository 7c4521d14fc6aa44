//! A stored lead and the repository port that keeps leads.
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::lead::fields::{LeadFields, Warning};
use crate::lead::nearby::Circle;
use crate::lead::normalize::NormalizedLead;
use crate::lead::search::{LeadSort, SearchText};
use crate::lead::work::{ArchiveFilter, AssigneeFilter, LeadWork, Person, StatusFilter};
use crate::store::StoreResult;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeocodeInfo {
    pub source: String,
    #[serde(rename = "match")]
    pub match_type: String,
    pub matched_address: Option<String>,
}

impl GeocodeInfo {
    /// Whether the place is only the ZIP code's centre (`enrich::ZIP_CENTROID`).
    pub fn is_zip_centroid(&self) -> bool {
        self.match_type == crate::enrich::ZIP_CENTROID
    }
}

/// Where a lead stands with geocoding and appraisal; stored and sent in snake case (`pending_retry`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum EnrichmentStatus {
    /// Every stage that applies ran and found something.
    Complete,
    /// The stages ran, but one found nothing (no match, no parcel).
    Partial,
    /// A stage failed or timed out; it will be tried again.
    PendingRetry,
    /// The retries outlasted `LEADHUB_ENRICHMENT_GIVE_UP_SECS`; only "Enrich again" tries again.
    GaveUp,
    /// No stage applied (no address, or enrichment not configured).
    Skipped,
}

impl EnrichmentStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lead {
    pub id: i64,
    pub team_id: Option<i64>,
    pub fields: LeadFields,
    /// The USPS Publication 28 street line the duplicate check compares (`123 N MAIN ST #4`).
    pub address_standardized: Option<String>,
    pub lot_size_acres: Option<f64>,
    pub geocode: Option<GeocodeInfo>,
    pub county_fips: Option<String>,
    pub appraisal: Option<serde_json::Value>,
    pub enrichment_status: EnrichmentStatus,
    pub submission_count: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Status, owner, version, archive and merge marks.
    pub work: LeadWork,
}

/// One lead to write: created, or merged into the same property within `team_id`'s scope.
#[derive(Debug, Clone)]
pub struct LeadWrite {
    pub team_id: Option<i64>,
    pub user_id: i64,
    pub lead: NormalizedLead,
    /// The submission this write answers: its outcome is recorded in the same transaction as
    /// the lead, and a submission already final is not applied again (exactly once).
    pub submission_id: Option<i64>,
    /// Geocoding or appraisal is configured: a lead that needs it is marked `pending_retry`
    /// and a retry job is queued with the write, so a crash cannot lose the enrichment.
    pub enrich_later: bool,
    /// The submission names the lead's owner: a new lead is not given in turn.
    pub owner_chosen: bool,
}

/// What a submission did to its lead; stored and sent as `created`, `updated`, `skipped`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum LeadAction {
    Created,
    Updated,
    Skipped,
}

impl LeadAction {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LeadWritten {
    pub lead_id: i64,
    pub action: LeadAction,
    /// Merge warnings (`contact_slots_full`).
    pub warnings: Vec<Warning>,
    /// Enrichment is to look at the lead now (`lead::plan::needs_enrichment`).
    pub to_enrich: bool,
    /// This write merged into an archived lead and restored it (docs/working-leads.md).
    pub restored: bool,
    /// The lead ends the batch otherwise than it began it (`lead::plan::ElementPlan`).
    pub lead_changed: bool,
}

/// Filters of `GET /api/v1/leads`; `visible_teams` None means every team (an admin). Text
/// filters are compared case-insensitively and trimmed (docs/search.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeadFilter {
    pub visible_teams: Option<Vec<i64>>,
    pub team_id: Option<i64>,
    pub state: Option<String>,
    pub city: Option<String>,
    pub zip_code: Option<String>,
    pub property_type: Option<String>,
    pub county: Option<String>,
    pub permit_status: Option<String>,
    pub work_type: Option<String>,
    /// A slug (`search::source_slug`), as stored.
    pub source: Option<String>,
    pub q: Option<SearchText>,
    pub enrichment_status: Option<EnrichmentStatus>,
    pub created_after: Option<DateTime<Utc>>,
    pub created_before: Option<DateTime<Utc>>,
    /// The order of a list (an export is always newest first).
    pub sort: LeadSort,
    pub status: Option<StatusFilter>,
    pub assignee: Option<AssigneeFilter>,
    /// Leads with a follow-up day on or before this one (the leads due by then).
    pub follow_up_by: Option<chrono::NaiveDate>,
    /// `Some(false)`: the leads nobody has logged a contact on yet; `Some(true)`: those with one.
    pub contacted: Option<bool>,
    /// The leads gone quiet: a contact logged, but none at this instant or later (the start of
    /// a day: UTC's for the API, the person's own on the pages).
    pub last_contact_before: Option<DateTime<Utc>>,
    /// The leads with a contact logged by this person (from `contacted_since` on, when set): the
    /// leads behind a count of someone's contacts.
    pub contacted_by: Option<Person>,
    /// The leads with a contact logged at this instant or later (the start of a day), by anyone
    /// or by `contacted_by`.
    pub contacted_since: Option<DateTime<Utc>>,
    /// `Some(true)`: the leads with a phone number (any of the five); `Some(false)`: those with
    /// none, the ones to find a number for.
    pub has_phone: Option<bool>,
    /// `Some(false)`: the leads one may call (no do-not-call mark); `Some(true)`: the marked ones.
    pub do_not_call: Option<bool>,
    /// The leads carrying every one of these tags (stored form, `tags::parse_tag`); none: any
    /// lead.
    pub tags: Vec<String>,
    /// The leads carrying none of these tags (stored form): "storm 2026, not mailed yet".
    pub without_tags: Vec<String>,
    /// `Some(true)`: the leads with an e-mail address (any of the three); `Some(false)`: none.
    pub has_email: Option<bool>,
    /// Archived leads or the others; leads merged away are never listed.
    pub archive: ArchiveFilter,
    /// The leads whose coordinates are in this circle (`nearby`); a lead without coordinates
    /// is never near anything.
    pub near: Option<Circle>,
    /// The leads a browser upload created or updated (a submission of one of its batches
    /// names the lead), when the upload's team is one of `visible_teams`.
    pub upload: Option<i64>,
}

/// Where a keyset page of leads (newest first) continues: after this lead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeadCursor {
    pub created_at: DateTime<Utc>,
    pub id: i64,
}

impl LeadCursor {
    pub fn of(lead: &Lead) -> LeadCursor {
        LeadCursor {
            created_at: lead.created_at,
            id: lead.id,
        }
    }
}

/// The result of enrichment, written back onto a lead.
#[derive(Debug, Clone, PartialEq)]
pub struct EnrichmentUpdate {
    pub lead_id: i64,
    pub coordinates: Option<(f64, f64)>,
    pub geocode: Option<GeocodeInfo>,
    pub county_fips: Option<String>,
    pub appraisal: Option<serde_json::Value>,
    pub status: EnrichmentStatus,
    /// Whether a geocoder or the appraisal source was asked: the timeline says so and
    /// `lead.enriched` is sent. A status settled without asking anyone is stored quietly.
    pub looked_up: bool,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LeadRepository: Send + Sync {
    /// Plans and applies the writes, in one transaction: the adapter reads the stored leads of
    /// the writes' streets under its write lock, plans with `lead::plan` (the domain's one
    /// duplicate and merge rule; a fake repository calls it too) and stores what it planned.
    /// Planning inside the transaction is what keeps it duplicate-safe: within one scope a
    /// property never becomes two leads, whatever other writers do at the same time. Each write's submission
    /// gets its outcome in the same transaction; `None` for a submission that was already final.
    /// Shared, not owned: the caller keeps the writes (to retry them one by one) without a copy.
    async fn write_leads(
        &self,
        writes: std::sync::Arc<Vec<LeadWrite>>,
    ) -> StoreResult<Vec<Option<LeadWritten>>>;
    async fn find_lead(&self, id: i64) -> StoreResult<Option<Lead>>;
    async fn find_leads(&self, ids: Vec<i64>) -> StoreResult<Vec<Lead>>;
    async fn list_leads(
        &self,
        filter: LeadFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Lead>, i64)>;
    /// Up to `limit` leads matching `filter` that come after `after` (newest first), without a
    /// count: for reading every match in chunks.
    async fn list_leads_after(
        &self,
        filter: LeadFilter,
        after: Option<LeadCursor>,
        limit: i64,
    ) -> StoreResult<Vec<Lead>>;
    /// Stores what enrichment found, with an `enriched` timeline row per lead (`actor`: the
    /// person who asked for the run, None for the service's own runs).
    async fn save_enrichment(
        &self,
        updates: Vec<EnrichmentUpdate>,
        actor: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
}
