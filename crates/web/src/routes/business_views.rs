//! The JSON shapes of business requests and answers.
use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use leadhub_domain::business::{Business, BusinessStatistics, ImportOutcome};

use crate::time::iso;

/// One business of an import. Only `name` is required; a bad element (no name, a state that is not
/// a US code, rating outside 0..=5, negative review_count, a wrong JSON type) is reported in
/// `errors` by index and the rest are imported.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct BusinessInputSchema {
    #[schema(example = "Joe's Plumbing LLC", max_length = 255)]
    name: String,
    /// Stored as E.164 (`+15125550100`) when it has 10 digits (or 11 starting with 1), else as given.
    #[schema(example = "(512) 555-0100", max_length = 255)]
    phone: Option<String>,
    #[schema(example = "https://joesplumbing.com", max_length = 255)]
    website: Option<String>,
    #[schema(max_length = 255)]
    address: Option<String>,
    #[schema(example = "Austin", max_length = 255)]
    city: Option<String>,
    /// US state, DC or territory code, any case.
    #[schema(example = "TX", max_length = 255)]
    state: Option<String>,
    #[schema(max_length = 255)]
    zip_code: Option<String>,
    /// With auto_categorize, mapped to a canonical slug (plumbing, hvac, roofing, electrical,
    /// real_estate, solar, landscaping, pest_control, pools, painting, general_contractor).
    #[schema(example = "Plumbing Services", max_length = 255)]
    industry: Option<String>,
    #[schema(minimum = 0, maximum = 5, example = 4.7)]
    rating: Option<f64>,
    #[schema(minimum = 0, example = 132)]
    review_count: Option<i64>,
}

/// `POST /api/v1/lead-sources/import`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ImportRequestSchema {
    #[schema(min_items = 1, max_items = 1000)]
    businesses: Vec<BusinessInputSchema>,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    #[schema(default = "prospect", example = "lead_buyer")]
    relationship_type: Option<String>,
    /// true: a business already stored (or earlier in this import) with the same normalised name
    /// in the same city and state, the same phone or the same website domain is skipped.
    #[schema(default = true)]
    skip_duplicates: Option<bool>,
    /// true: map the industry to a canonical slug, or infer a missing one from name and website.
    #[schema(default = true)]
    auto_categorize: Option<bool>,
    /// Imports into this team (the caller must be a member of it); absent: unassigned.
    team_id: Option<i64>,
}

/// A rejected element of an import.
#[derive(Serialize, ToSchema)]
pub struct ImportErrorView {
    /// Zero-based position in `businesses`.
    pub index: usize,
    #[schema(example = "state: \"XX\" is not a US state, DC or territory code")]
    pub detail: String,
}

/// An element skipped as a duplicate.
#[derive(Serialize, ToSchema)]
pub struct SkippedView {
    pub index: usize,
    /// The stored business it duplicates.
    pub duplicate_of: i64,
}

/// The answer to an import.
#[derive(Serialize, ToSchema)]
pub struct ImportResult {
    pub imported_count: usize,
    pub skipped_count: usize,
    pub error_count: usize,
    /// Ids of the new businesses, in element order.
    pub imported_ids: Vec<i64>,
    pub errors: Vec<ImportErrorView>,
    pub skipped: Vec<SkippedView>,
}

impl From<&ImportOutcome> for ImportResult {
    fn from(o: &ImportOutcome) -> Self {
        ImportResult {
            imported_count: o.imported.len(),
            skipped_count: o.skipped.len(),
            error_count: o.errors.len(),
            imported_ids: o.imported.iter().map(|(_, id)| *id).collect(),
            errors: o
                .errors
                .iter()
                .map(|e| ImportErrorView {
                    index: e.index,
                    detail: e.detail.clone(),
                })
                .collect(),
            skipped: o
                .skipped
                .iter()
                .map(|(index, id)| SkippedView {
                    index: *index,
                    duplicate_of: *id,
                })
                .collect(),
        }
    }
}

/// A stored business: the imported fields plus what the service keeps.
#[derive(Serialize, ToSchema)]
pub struct BusinessView {
    pub id: i64,
    pub name: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub industry: Option<String>,
    pub rating: Option<f64>,
    pub review_count: Option<i64>,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    pub relationship_type: String,
    /// prospect (on import), active or inactive.
    pub status: String,
    pub team_id: Option<i64>,
    pub created_at: String,
    pub updated_at: String,
}

impl From<&Business> for BusinessView {
    fn from(b: &Business) -> Self {
        BusinessView {
            id: b.id,
            name: b.name.clone(),
            phone: b.phone.clone(),
            website: b.website.clone(),
            address: b.address.clone(),
            city: b.city.clone(),
            state: b.state.clone(),
            zip_code: b.zip_code.clone(),
            industry: b.industry.clone(),
            rating: b.rating,
            review_count: b.review_count,
            relationship_type: b.relationship_type.clone(),
            status: b.status.clone(),
            team_id: b.team_id,
            created_at: iso(b.created_at),
            updated_at: iso(b.updated_at),
        }
    }
}

/// A page of businesses.
#[derive(Serialize, ToSchema)]
pub struct BusinessPage {
    pub items: Vec<BusinessView>,
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// `PATCH /api/v1/lead-sources/businesses/{id}`: absent fields stay as they are.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct BusinessPatchSchema {
    /// prospect, active or inactive.
    #[schema(example = "active")]
    status: Option<String>,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    relationship_type: Option<String>,
    /// Stored as given; null or "" clears it.
    industry: Option<String>,
}

/// Counts over the businesses the caller can see; each `by_*` maps a value to its count (a missing
/// industry or state counts as "unknown").
#[derive(Serialize, ToSchema)]
pub struct StatisticsView {
    pub total: i64,
    #[schema(example = json!({"lead_buyer": 3, "prospect": 10}))]
    pub by_relationship_type: BTreeMap<String, i64>,
    #[schema(example = json!({"plumbing": 7, "hvac": 5, "unknown": 1}))]
    pub by_industry: BTreeMap<String, i64>,
    #[schema(example = json!({"TX": 12, "OK": 1}))]
    pub by_state: BTreeMap<String, i64>,
    #[schema(example = json!({"prospect": 11, "active": 2}))]
    pub by_status: BTreeMap<String, i64>,
}

impl From<BusinessStatistics> for StatisticsView {
    fn from(s: BusinessStatistics) -> Self {
        StatisticsView {
            total: s.total,
            by_relationship_type: s.by_relationship_type,
            by_industry: s.by_industry,
            by_state: s.by_state,
            by_status: s.by_status,
        }
    }
}
