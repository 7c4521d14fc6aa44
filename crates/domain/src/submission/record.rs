//! Submissions as stored: every one kept verbatim with its outcome.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::lead::fields::{LeadFields, Warning};
use crate::lead::record::{LeadAction, LeadWrite, LeadWritten};
use crate::store::StoreResult;

/// Stored and sent as `pending`, `processing`, `completed`, `failed`, `duplicate`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum SubmissionStatus {
    Pending,
    Processing,
    Completed,
    Failed,
    Duplicate,
}

impl SubmissionStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The submission status that goes with a lead action.
    pub fn for_action(action: LeadAction) -> SubmissionStatus {
        match action {
            LeadAction::Created | LeadAction::Updated => SubmissionStatus::Completed,
            LeadAction::Skipped => SubmissionStatus::Duplicate,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewSubmission {
    pub batch_id: Option<String>,
    pub batch_index: Option<i32>,
    pub user_id: i64,
    pub team_id: Option<i64>,
    /// The element exactly as submitted (JSON text).
    pub raw_json: String,
    /// Set for a deferred submission: the validated fields its job will process (the raw JSON
    /// may hold lax values such as `"bedrooms": "3"` that only the HTTP layer knows how to
    /// read). A submission processed now carries none: nothing would read them. Boxed, because
    /// a submission processed now is moved from thread to thread with its lead's write.
    pub deferred: Option<Box<LeadFields>>,
    pub status: SubmissionStatus,
    pub created_at: DateTime<Utc>,
    /// The `Idempotency-Key` claim a single submission answers for.
    pub idempotency_key_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    pub id: i64,
    pub batch_id: Option<String>,
    pub batch_index: Option<i32>,
    pub user_id: i64,
    pub team_id: Option<i64>,
    pub raw_json: String,
    pub status: SubmissionStatus,
    pub result_lead_id: Option<i64>,
    pub result_action: Option<LeadAction>,
    pub validation_warnings: Vec<Warning>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub processed_at: Option<DateTime<Utc>>,
}

/// The final state of one submission.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmissionOutcome {
    pub id: i64,
    pub status: SubmissionStatus,
    pub lead_id: Option<i64>,
    pub action: Option<LeadAction>,
    pub warnings: Vec<Warning>,
    pub error: Option<String>,
    pub processed_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewBatch {
    pub id: String,
    pub user_id: i64,
    pub team_id: Option<i64>,
    pub total: i32,
    pub process_immediately: bool,
    pub created_at: DateTime<Utc>,
    /// The `Idempotency-Key` claim the batch answers for.
    pub idempotency_key_id: Option<i64>,
    /// The browser upload whose rows the batch carries (`/leads?upload=`); None otherwise.
    pub upload_id: Option<i64>,
}

/// A batch with its counters, computed from its submissions.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSummary {
    pub batch_id: String,
    pub user_id: i64,
    pub team_id: Option<i64>,
    pub total: i64,
    pub pending: i64,
    pub succeeded: i64,
    pub duplicates: i64,
    pub failed: i64,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
}

/// What a request that held an `Idempotency-Key` stored.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredForClaim {
    Single(Submission),
    Batch {
        batch_id: String,
        submissions: Vec<Submission>,
    },
}

/// The first request that carried an `Idempotency-Key`, and its answer once it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct IdempotentAnswer {
    /// The claim's id.
    pub id: i64,
    pub request_hash: String,
    /// (HTTP status, JSON body); `None` while the first request is still running.
    pub answer: Option<(u16, String)>,
    pub created_at: DateTime<Utc>,
}

/// What `SubmissionRepository::store_fresh_and_plan_leads` did: every submission is stored, and its lead
/// written or not.
#[derive(Debug)]
pub struct StoredAndWritten {
    /// The submissions' ids, in the order given.
    pub ids: Vec<i64>,
    /// One result per submission when the leads were written, each submission then stored
    /// final with its outcome; otherwise why not, the submissions then stored open.
    pub leads: StoreResult<Vec<LeadWritten>>,
}

/// What claiming an `Idempotency-Key` found.
#[derive(Debug, Clone, PartialEq)]
pub enum IdempotencyClaim {
    /// The key is now this request's: run it, then `complete_idempotent` or
    /// `release_idempotent`.
    Claimed(i64),
    /// An earlier request holds the key.
    Taken(IdempotentAnswer),
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SubmissionRepository: Send + Sync {
    /// Stores the batch (when given) and the submissions in one transaction; returns their ids
    /// in order. The `process_submissions` jobs for the deferred ones are queued in the same
    /// transaction, so a stored pending submission always has its job.
    async fn insert_submissions(
        &self,
        batch: Option<NewBatch>,
        submissions: Vec<NewSubmission>,
    ) -> StoreResult<Vec<i64>>;
    /// Fresh submissions processed now, in one transaction: the leads of `writes` (`writes[i]`
    /// is the lead of `submissions[i]`; no `submission_id`) are planned and written as
    /// `LeadRepository::write_leads` plans and writes them, in a savepoint, then the batch (when given) and
    /// every submission, verbatim, with its outcome. Should the leads' write fail, the savepoint
    /// is rolled back and the submissions are stored all the same, open, with that error
    /// returned beside their ids: nothing is stored only when the transaction itself fails, and
    /// then it returns an error.
    async fn store_fresh_and_plan_leads(
        &self,
        batch: Option<NewBatch>,
        submissions: Vec<NewSubmission>,
        writes: std::sync::Arc<Vec<LeadWrite>>,
    ) -> StoreResult<StoredAndWritten>;
    /// Records outcomes; a batch whose submissions are all final gets its `completed_at`.
    async fn finish_submissions(&self, outcomes: Vec<SubmissionOutcome>) -> StoreResult<()>;
    async fn find_submission(&self, id: i64) -> StoreResult<Option<Submission>>;
    async fn find_submissions(&self, ids: Vec<i64>) -> StoreResult<Vec<Submission>>;
    async fn find_batch(&self, batch_id: &str) -> StoreResult<Option<BatchSummary>>;
    /// The newest `limit` submissions whose outcome is lead `lead_id`, newest first.
    async fn submissions_of_lead(&self, lead_id: i64, limit: i64) -> StoreResult<Vec<Submission>>;
    /// Takes the key for a request with `request_hash` (`Claimed` with the claim's id), unless
    /// an earlier request holds it. A holder from before `stale_before` (its 24 hours are over),
    /// or one still running since before `abandoned_before` that stored nothing (its process
    /// died before its transaction), gives the key up.
    async fn claim_idempotent(
        &self,
        user_id: i64,
        key: &str,
        request_hash: &str,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
        abandoned_before: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim>;
    /// Stores the answer of the request that claimed the key.
    async fn complete_idempotent(
        &self,
        user_id: i64,
        key: &str,
        status: u16,
        body: String,
    ) -> StoreResult<()>;
    /// Gives up a claim whose request failed, so that a retry runs it again.
    async fn release_idempotent(&self, user_id: i64, key: &str) -> StoreResult<()>;
    /// What the request holding claim `claim_id` stored, in its own transaction: its single
    /// submission or its batch with every submission in element order; `None` when it stored
    /// nothing (yet).
    async fn stored_for_claim(&self, claim_id: i64) -> StoreResult<Option<StoredForClaim>>;
}
