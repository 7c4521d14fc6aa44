//! Lead submissions: the pipeline (validate -> normalise -> dedupe -> geocode -> enrich -> store)
//! and the records it keeps.
mod enrichment;
pub mod record;
mod service;
#[cfg(test)]
mod service_tests;

pub use enrichment::{Enriched, Enricher, Setback};
pub use record::*;
pub use service::{
    BatchOutcome, ElementOutcome, HistoryEntry, PendingWork, SubmissionError, SubmissionRequest,
    SubmissionService, VisibleLeadFilter, VisibleSubmissions, NO_FIELD,
};
