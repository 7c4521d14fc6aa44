//! What lies ahead for a lead's enrichment, in its API view (`lead::enrichment_retry`).
use serde::Serialize;

use leadhub_domain::lead::enrichment_retry::EnrichmentOutlook;
use leadhub_http::time::iso;

/// Present while a lead is `pending_retry` (when it is tried next) or `gave_up` (when and why).
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct EnrichmentView {
    /// When geocoding and appraisal are tried again; null once the retries gave up.
    pub next_try_at: Option<String>,
    /// When the retries gave up; null while they go on. `POST /api/v1/leads/{id}/enrich`
    /// tries again.
    pub gave_up_at: Option<String>,
    /// What held the lead back the last time it was tried, in words
    /// (`census: could not be reached`); null before the first background try.
    pub last_reason: Option<String>,
}

impl From<EnrichmentOutlook> for EnrichmentView {
    fn from(o: EnrichmentOutlook) -> Self {
        EnrichmentView {
            next_try_at: o.next_try_at.map(iso),
            gave_up_at: o.gave_up_at.map(iso),
            last_reason: o.last_reason,
        }
    }
}
