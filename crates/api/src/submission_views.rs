//! The JSON shapes of submission and lead answers.
use serde::Serialize;
use serde_json::Value;

use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::{LeadFields, Warning};
use leadhub_domain::submission::{BatchSummary, ElementOutcome, Submission, SubmissionStatus};
use leadhub_http::time::iso;

use crate::lead_body::LeadSubmission;
use crate::page::page_type;

#[derive(Serialize, schemars::JsonSchema, Clone)]
pub struct WarningView {
    /// The field it is about, e.g. "primary_phone".
    pub field: String,
    /// e.g. "invalid_phone".
    pub code: String,
    pub message: String,
}

pub fn warnings(w: &[Warning]) -> Vec<WarningView> {
    w.iter()
        .map(|w| WarningView {
            field: w.field.clone(),
            code: w.code.clone(),
            message: w.message.clone(),
        })
        .collect()
}

/// The answer to a single submission.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct SingleResult {
    pub id: i64,
    /// completed, duplicate or failed.
    pub status: String,
    pub result_lead_id: Option<i64>,
    /// created, updated or skipped; null when failed.
    pub result_action: Option<String>,
    pub validation_warnings: Vec<WarningView>,
    pub error: Option<String>,
}

impl From<&ElementOutcome> for SingleResult {
    fn from(e: &ElementOutcome) -> Self {
        SingleResult {
            id: e.submission_id,
            status: e.status.as_str().to_owned(),
            result_lead_id: e.lead_id,
            result_action: e.action.map(|a| a.as_str().to_owned()),
            validation_warnings: warnings(&e.warnings),
            error: e.error.clone(),
        }
    }
}

/// One element of a batch answer.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ElementResult {
    pub index: usize,
    /// success (created or updated), duplicate (skipped), failed, or pending (deferred).
    pub status: String,
    pub lead_id: Option<i64>,
    pub action: Option<String>,
    pub submission_id: i64,
    pub validation_warnings: Vec<WarningView>,
    pub error: Option<String>,
}

fn element_status(s: SubmissionStatus) -> &'static str {
    match s {
        SubmissionStatus::Completed => "success",
        SubmissionStatus::Duplicate => "duplicate",
        SubmissionStatus::Failed => "failed",
        SubmissionStatus::Pending | SubmissionStatus::Processing => "pending",
    }
}

/// The answer to a batch.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BatchResult {
    pub batch_id: String,
    pub total: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub duplicates: usize,
    pub pending: usize,
    pub results: Vec<ElementResult>,
    pub processing_time_ms: u64,
}

impl BatchResult {
    pub fn new(batch_id: String, elements: &[ElementOutcome], processing_time_ms: u64) -> Self {
        let results: Vec<ElementResult> = elements
            .iter()
            .map(|e| ElementResult {
                index: e.index,
                status: element_status(e.status).to_owned(),
                lead_id: e.lead_id,
                action: e.action.map(|a| a.as_str().to_owned()),
                submission_id: e.submission_id,
                validation_warnings: warnings(&e.warnings),
                error: e.error.clone(),
            })
            .collect();
        let count = |s: &str| results.iter().filter(|r| r.status == s).count();
        BatchResult {
            batch_id,
            total: results.len(),
            succeeded: count("success"),
            failed: count("failed"),
            duplicates: count("duplicate"),
            pending: count("pending"),
            results,
            processing_time_ms,
        }
    }
}

/// A submission's processing status.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct SubmissionStatusView {
    pub id: i64,
    pub batch_id: Option<String>,
    /// pending, processing, completed, failed or duplicate.
    pub status: String,
    pub result_lead_id: Option<i64>,
    pub result_action: Option<String>,
    pub validation_warnings: Vec<WarningView>,
    pub error: Option<String>,
    pub created_at: String,
    pub processed_at: Option<String>,
}

impl From<&Submission> for SubmissionStatusView {
    fn from(s: &Submission) -> Self {
        SubmissionStatusView {
            id: s.id,
            batch_id: s.batch_id.clone(),
            status: s.status.as_str().to_owned(),
            result_lead_id: s.result_lead_id,
            result_action: s.result_action.map(|a| a.as_str().to_owned()),
            validation_warnings: warnings(&s.validation_warnings),
            error: s.error.clone(),
            created_at: iso(s.created_at),
            processed_at: s.processed_at.map(iso),
        }
    }
}

/// A batch's progress.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BatchStatusView {
    pub batch_id: String,
    pub total: i64,
    pub pending: i64,
    pub succeeded: i64,
    pub duplicates: i64,
    pub failed: i64,
    pub created_at: String,
    pub completed_at: Option<String>,
}

impl From<&BatchSummary> for BatchStatusView {
    fn from(b: &BatchSummary) -> Self {
        BatchStatusView {
            batch_id: b.batch_id.clone(),
            total: b.total,
            pending: b.pending,
            succeeded: b.succeeded,
            duplicates: b.duplicates,
            failed: b.failed,
            created_at: iso(b.created_at),
            completed_at: b.completed_at.map(iso),
        }
    }
}

/// A stored lead: every submission field (normalised), flat, plus what the pipeline added.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct LeadView {
    pub id: i64,
    pub team_id: Option<i64>,
    #[serde(flatten)]
    #[schemars(with = "LeadSubmission")]
    pub fields: LeadFields,
    /// The USPS Publication 28 street line the duplicate check compares: number, street and
    /// units by their identifier (`123 N MAIN ST #4`); null without a readable address.
    pub address_standardized: Option<String>,
    pub lot_size_acres: Option<f64>,
    /// {source, match, matched_address}, or null.
    pub geocode: Option<Value>,
    /// The county appraisal record, or null.
    pub appraisal: Option<Value>,
    /// complete, partial, pending_retry, gave_up or skipped.
    pub enrichment_status: String,
    /// While `pending_retry` or `gave_up` (a single lead's view): the next try, or when the
    /// retries gave up, and the last reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enrichment: Option<crate::enrichment_views::EnrichmentView>,
    pub submission_count: i32,
    pub created_at: String,
    pub updated_at: String,
    /// new, contacted, qualified, won or lost.
    pub status: String,
    /// The public id (`usr_...`) of the user working the lead, or null.
    pub assignee_id: Option<String>,
    /// The day to contact the lead next (`YYYY-MM-DD`), or null.
    pub follow_up_on: Option<String>,
    /// The owner must not be called: the call lists leave the lead out.
    pub do_not_call: bool,
    /// The lead's tags, lower case, sorted.
    pub tags: Vec<String>,
    /// Numbers a contact was logged on as a wrong number (E.164, oldest first): taken off the
    /// lead's phones, and never added back by a submission or an import.
    pub wrong_phones: Vec<String>,
    /// Numbers not to call (E.164, oldest first): one the owner asked not to be called at
    /// (`POST /api/v1/leads/{id}/do-not-call-phones`), or one an imported file's per-number flag
    /// named (`Phone 1 DNC` beside `Phone 1`). Taken off the lead's phones, and never added back
    /// by a submission or an import.
    pub do_not_call_phones: Vec<String>,
    /// Raised by every change; the `ETag` of `GET /api/v1/leads/{id}` is this number, quoted.
    pub version: i64,
    /// When the lead was archived, or null.
    pub archived_at: Option<String>,
    /// The lead this one was merged into, or null.
    pub merged_into_id: Option<i64>,
}

impl LeadView {
    /// The view with what lies ahead for the lead's enrichment (a single lead's view).
    pub fn with_enrichment(
        mut self,
        outlook: Option<leadhub_domain::lead::enrichment_retry::EnrichmentOutlook>,
    ) -> LeadView {
        self.enrichment = outlook.map(Into::into);
        self
    }
}

impl From<Lead> for LeadView {
    fn from(lead: Lead) -> Self {
        LeadView {
            id: lead.id,
            team_id: lead.team_id,
            geocode: lead
                .geocode
                .as_ref()
                .and_then(|g| serde_json::to_value(g).ok()),
            lot_size_acres: lead.lot_size_acres,
            address_standardized: lead.address_standardized,
            appraisal: lead.appraisal,
            enrichment_status: lead.enrichment_status.as_str().to_owned(),
            enrichment: None,
            submission_count: lead.submission_count,
            created_at: iso(lead.created_at),
            updated_at: iso(lead.updated_at),
            status: lead.work.status.as_str().to_owned(),
            assignee_id: lead.work.assignee.map(|a| a.user_id),
            follow_up_on: lead.work.follow_up_on.map(|d| d.to_string()),
            do_not_call: lead.work.do_not_call,
            tags: lead.work.tags,
            wrong_phones: lead.work.barred.wrong,
            do_not_call_phones: lead.work.barred.not_to_call,
            version: lead.work.version,
            archived_at: lead.work.archived_at.map(iso),
            merged_into_id: lead.work.merged_into_id,
            fields: lead.fields,
        }
    }
}

page_type! {
    /// A page of leads.
    LeadPage of LeadView
}
