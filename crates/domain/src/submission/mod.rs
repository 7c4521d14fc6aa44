//! Lead submissions: the pipeline (validate -> normalise -> dedupe -> geocode -> enrich -> store)
//! and the records it keeps.
mod enrichment;
pub mod record;
mod service;

pub use enrichment::Enricher;
pub use record::*;
pub use service::{
    BatchOutcome, ElementOutcome, PendingWork, SubmissionError, SubmissionRequest,
    SubmissionService,
};
