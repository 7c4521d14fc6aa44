//! Businesses that buy or supply leads: the industry table, the duplicate rule, the element rules
//! of an import, the repository port and `BusinessService`.
pub mod duplicate;
pub mod industry;
pub mod model;
pub mod patch;
pub mod repository;
mod service;
#[cfg(test)]
mod service_tests;

pub use duplicate::{name_key, DuplicateKeys};
pub use industry::{canonical_industry, categorize, industry_slugs, infer_industry};
pub use model::{
    element_problems, Business, BusinessFields, BusinessStatus, NewBusiness, RelationshipType,
};
pub use patch::{changes, PatchedBusiness};
pub use repository::{
    BusinessFilter, BusinessImport, BusinessPatch, BusinessRepository, BusinessStatistics,
    ImportedBusiness,
};
pub use service::{
    BusinessError, BusinessService, ElementError, ImportElement, ImportOutcome, ImportRequest,
};
