//! Leads: the submitted fields, the rules that reject, normalise and merge them.
pub mod barred;
pub mod enrichment_retry;
pub mod fields;
pub mod merge;
pub mod merge_leads;
pub mod nearby;
pub mod normalize;
pub mod plan;
pub mod record;
pub mod saved_views;
pub mod search;
pub mod work;

pub use barred::{Bar, BarredNumbers};
pub use fields::{LeadFields, Warning};
pub use merge::{merge_into, MergeOutcome};
pub use normalize::{normalize, NormalizedLead};
