//! Leads: the submitted fields, the rules that reject, normalise and merge them.
pub mod fields;
pub mod merge;
pub mod normalize;
pub mod record;
pub mod validate;

pub use fields::{LeadFields, Warning};
pub use merge::{merge_into, MergeOutcome};
pub use normalize::{normalize, NormalizedLead};
pub use validate::validate_lead;
