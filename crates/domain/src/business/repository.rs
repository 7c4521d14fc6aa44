//! The port that keeps businesses.
use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::business::model::{Business, BusinessStatus, NewBusiness, RelationshipType};
pub use crate::business::patch::BusinessPatch;
use crate::lead::search::SearchText;
use crate::store::StoreResult;

/// One import, stored in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct BusinessImport {
    pub team_id: Option<i64>,
    pub user_id: i64,
    pub relationship_type: RelationshipType,
    /// true: a duplicate (`DuplicateKeys::same_business`, within the team or the unassigned
    /// businesses, stored or earlier in this import) is not stored; false: stored anyway.
    pub skip_duplicates: bool,
    pub businesses: Vec<NewBusiness>,
    pub now: DateTime<Utc>,
}

/// What became of one business of an import, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportedBusiness {
    Created(i64),
    /// Not stored: the same business as this stored one.
    Duplicate(i64),
}

/// Filters of `GET /api/v1/lead-sources/businesses`; `visible_teams` None means every team (an admin).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessFilter {
    pub visible_teams: Option<Vec<i64>>,
    pub team_id: Option<i64>,
    pub relationship_type: Option<RelationshipType>,
    /// Compared case-insensitively.
    pub industry: Option<String>,
    pub status: Option<BusinessStatus>,
    /// Upper case.
    pub state: Option<String>,
    /// A substring of the name, website or city (any case), or of the phone's digits.
    pub q: Option<SearchText>,
}

/// Counts by value; a missing industry or state is counted under `"unknown"`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessStatistics {
    pub total: i64,
    pub by_relationship_type: BTreeMap<String, i64>,
    pub by_industry: BTreeMap<String, i64>,
    pub by_state: BTreeMap<String, i64>,
    pub by_status: BTreeMap<String, i64>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait BusinessRepository: Send + Sync {
    /// Stores an import in one transaction, in order; returns one outcome per business. Two
    /// concurrent imports into one scope never both store the same business.
    async fn import_businesses(&self, import: BusinessImport)
        -> StoreResult<Vec<ImportedBusiness>>;
    async fn find_business(&self, id: i64) -> StoreResult<Option<Business>>;
    async fn list_businesses(
        &self,
        filter: BusinessFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Business>, i64)>;
    /// Applies the patch (`BusinessPatch::applied_to`) in one transaction; None when the
    /// business does not exist.
    async fn update_business(
        &self,
        id: i64,
        patch: BusinessPatch,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Business>>;
    async fn business_statistics(&self, filter: BusinessFilter) -> StoreResult<BusinessStatistics>;
}
