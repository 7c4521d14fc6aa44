//! The JSON shapes of submission and lead answers.
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::Warning;
use leadhub_domain::submission::{BatchSummary, ElementOutcome, Submission, SubmissionStatus};

use crate::time::iso;

#[derive(Serialize, ToSchema, Clone)]
pub struct WarningView {
    #[schema(example = "primary_phone")]
    pub field: String,
    #[schema(example = "invalid_phone")]
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
#[derive(Serialize, ToSchema)]
pub struct SingleResult {
    pub id: i64,
    /// completed, duplicate or failed.
    #[schema(example = "completed")]
    pub status: String,
    pub result_lead_id: Option<i64>,
    /// created, updated or skipped; null when failed.
    #[schema(example = "created")]
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
#[derive(Serialize, ToSchema)]
pub struct ElementResult {
    pub index: usize,
    /// success (created or updated), duplicate (skipped), failed, or pending (deferred).
    #[schema(example = "success")]
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
#[derive(Serialize, ToSchema)]
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
#[derive(Serialize, ToSchema)]
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
#[derive(Serialize, ToSchema)]
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

/// A stored lead: every submission field (normalised) plus what the pipeline added.
// Serialize only so that `flatten` is understood: the fields sit at the top level of the answer
// (schemathesis found the document promising a nested `fields` object).
#[derive(ToSchema, Serialize)]
#[allow(dead_code)]
pub struct LeadViewSchema {
    id: i64,
    team_id: Option<i64>,
    #[serde(flatten)]
    fields: super::lead_body::LeadSubmissionSchema,
    lot_size_acres: Option<f64>,
    /// {source, match, matched_address}, or null.
    geocode: Option<Value>,
    /// The county appraisal record, or null.
    appraisal: Option<Value>,
    /// complete, partial, pending_retry or skipped.
    enrichment_status: String,
    submission_count: i32,
    created_at: String,
    updated_at: String,
}

/// Renders a lead: the fields flat, as submitted, plus the pipeline's additions.
pub fn lead_json(lead: &Lead) -> Value {
    let mut out = serde_json::to_value(&lead.fields).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut out {
        map.insert("id".into(), lead.id.into());
        map.insert("team_id".into(), lead.team_id.into());
        map.insert("lot_size_acres".into(), lead.lot_size_acres.into());
        map.insert(
            "geocode".into(),
            lead.geocode
                .as_ref()
                .and_then(|g| serde_json::to_value(g).ok())
                .unwrap_or(Value::Null),
        );
        map.insert(
            "appraisal".into(),
            lead.appraisal.clone().unwrap_or(Value::Null),
        );
        map.insert(
            "enrichment_status".into(),
            lead.enrichment_status.as_str().into(),
        );
        map.insert("submission_count".into(), lead.submission_count.into());
        map.insert("created_at".into(), iso(lead.created_at).into());
        map.insert("updated_at".into(), iso(lead.updated_at).into());
    }
    out
}
