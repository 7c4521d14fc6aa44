//! `SubmissionRepository`: submissions kept verbatim, batch counters, idempotent answers.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{exists, not};
use diesel::prelude::*;

use leadhub_domain::jobs::{NewJob, PROCESS_SUBMISSIONS};
use leadhub_domain::lead::record::{LeadAction, LeadWrite};
use leadhub_domain::lead::Warning;
use leadhub_domain::store::{StoreError, StoreResult};
use leadhub_domain::submission::{
    BatchSummary, IdempotencyClaim, IdempotentAnswer, NewBatch, NewSubmission, PendingWork,
    StoredAndWritten, StoredForClaim, Submission, SubmissionOutcome, SubmissionRepository,
    SubmissionStatus,
};

use crate::job::jobs::insert_jobs;
use crate::lead::fresh_submissions::insert_fresh_with_leads;
use crate::lead::submission_rows::{close_finished_batches, insert_batch, insert_submission_rows};
use crate::pool::connection::on_backend;
use crate::schema::{batches, idempotency_keys, submissions};
use crate::sql::error::{stored_rows, stored_word};
use crate::sql::time::{from_db, to_db};
use crate::webhook::webhook_events::{emit, Event};
use crate::{Database, IN_LIST_CHUNK};
use leadhub_domain::webhook::EventType;

/// `response_status` of an idempotency key whose first request is still running.
const RUNNING: i32 = 0;
/// The claim of `key` by `user_id` while its first request runs: what completing and releasing
/// it act on, so an answered claim is never rewritten or dropped by them.
#[diesel::dsl::auto_type(no_type_alias)]
fn running_claim<'a>(user_id: i64, key: &'a str) -> _ {
    let running: i32 = RUNNING;
    idempotency_keys::table
        .filter(idempotency_keys::user_id.eq(user_id))
        .filter(idempotency_keys::idempotency_key.eq(key))
        .filter(idempotency_keys::response_status.eq(running))
}
/// Submissions per deferred job: small enough that a crash repeats little work, large enough
/// that each job's transaction is worth its overhead.
const JOB_CHUNK: usize = 100;

#[derive(Queryable, Selectable)]
#[diesel(table_name = submissions)]
pub(crate) struct SubmissionRow {
    id: i64,
    batch_id: Option<String>,
    batch_index: Option<i32>,
    user_id: i64,
    team_id: Option<i64>,
    raw_json: String,
    status: String,
    result_lead_id: Option<i64>,
    result_action: Option<String>,
    validation_warnings: String,
    error: Option<String>,
    created_at: NaiveDateTime,
    processed_at: Option<NaiveDateTime>,
}

impl TryFrom<SubmissionRow> for Submission {
    type Error = diesel::result::Error;

    fn try_from(r: SubmissionRow) -> Result<Self, Self::Error> {
        let result_action: Option<LeadAction> = r
            .result_action
            .as_deref()
            .map(|a| stored_word("submissions.result_action", a))
            .transpose()?;
        Ok(Submission {
            id: r.id,
            batch_id: r.batch_id,
            batch_index: r.batch_index,
            user_id: r.user_id,
            team_id: r.team_id,
            raw_json: r.raw_json,
            status: stored_word("submissions.status", &r.status)?,
            result_lead_id: r.result_lead_id,
            result_action,
            validation_warnings: serde_json::from_str::<Vec<Warning>>(&r.validation_warnings)
                .unwrap_or_default(),
            error: r.error,
            created_at: from_db(r.created_at),
            processed_at: r.processed_at.map(from_db),
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = batches)]
struct BatchRow {
    id: String,
    user_id: i64,
    team_id: Option<i64>,
    total: i32,
    created_at: NaiveDateTime,
    completed_at: Option<NaiveDateTime>,
}

#[async_trait]
impl SubmissionRepository for Database {
    async fn insert_submissions(
        &self,
        batch: Option<NewBatch>,
        mut new: Vec<NewSubmission>,
    ) -> StoreResult<Vec<i64>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                if let Some(b) = &batch {
                    insert_batch(conn, b, None)?;
                }
                let created_at = new.first().map_or_else(Utc::now, |s| s.created_at);
                let mut deferred = Vec::new();
                for (i, s) in new.iter_mut().enumerate() {
                    if let Some(fields) = s.deferred.take() {
                        deferred.push((i, s.user_id, s.team_id, *fields));
                    }
                }
                // None comes with an outcome: they are all still to be processed.
                let ids = insert_submission_rows(conn, new.into_iter().map(|s| (s, None)), None)?;
                if !deferred.is_empty() {
                    let mut work = deferred
                        .into_iter()
                        .map(|(i, user_id, team_id, fields)| (ids[i], user_id, team_id, fields))
                        .peekable();
                    let mut jobs: Vec<NewJob> = Vec::new();
                    while work.peek().is_some() {
                        let items = PendingWork(work.by_ref().take(JOB_CHUNK).collect());
                        jobs.push(NewJob::now(
                            PROCESS_SUBMISSIONS,
                            serde_json::to_value(&items).unwrap_or_default(),
                            created_at,
                        ));
                    }
                    insert_jobs(conn, &jobs, to_db(created_at))?;
                }
                Ok(ids)
            })
        })
        .await
    }

    async fn store_fresh_and_plan_leads(
        &self,
        batch: Option<NewBatch>,
        submissions: Vec<NewSubmission>,
        writes: std::sync::Arc<Vec<LeadWrite>>,
    ) -> StoreResult<StoredAndWritten> {
        if submissions.len() != writes.len() {
            return Err(StoreError::Unexpected(anyhow::anyhow!(
                "{} submissions came with {} lead writes",
                submissions.len(),
                writes.len()
            )));
        }
        let stored = self
            .write(move |conn| insert_fresh_with_leads(conn, batch.as_ref(), submissions, &writes))
            .await?;
        // The leads' failure was lived through (the submissions are stored open), so `write`
        // saw none: a full storage there is noted here.
        if let Err(error) = &stored.leads {
            self.note_storage_error(error);
        }
        Ok(stored)
    }

    async fn finish_submissions(&self, outcomes: Vec<SubmissionOutcome>) -> StoreResult<()> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let mut batch_ids = std::collections::BTreeSet::new();
                let mut failed = Vec::new();
                for o in &outcomes {
                    let warnings =
                        serde_json::to_string(&o.warnings).unwrap_or_else(|_| "[]".into());
                    let (batch_id, team_id): (Option<String>, Option<i64>) =
                        diesel::update(submissions::table.find(o.id))
                            .set((
                                submissions::status.eq(o.status.as_str()),
                                submissions::result_lead_id.eq(o.lead_id),
                                submissions::result_action.eq(o.action.map(|a| a.as_str())),
                                submissions::validation_warnings.eq(warnings),
                                submissions::error.eq(&o.error),
                                submissions::processed_at.eq(Some(to_db(o.processed_at))),
                            ))
                            .returning((submissions::batch_id, submissions::team_id))
                            .get_result(conn)?;
                    batch_ids.extend(batch_id);
                    if o.status == SubmissionStatus::Failed {
                        failed.push(Event {
                            team_id,
                            kind: EventType::SubmissionFailed,
                            subject: o.id.to_string(),
                        });
                    }
                }
                if let Some(now) = outcomes.first().map(|o| to_db(o.processed_at)) {
                    emit(conn, failed, now)?;
                    close_finished_batches(conn, batch_ids, now)?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn find_submission(&self, id: i64) -> StoreResult<Option<Submission>> {
        self.read(move |conn| {
            conn.first(
                submissions::table
                    .find(id)
                    .select(SubmissionRow::as_select()),
            )
            .optional()
            .and_then(|r| r.map(Submission::try_from).transpose())
        })
        .await
    }

    async fn submissions_of_lead(&self, lead_id: i64, limit: i64) -> StoreResult<Vec<Submission>> {
        self.read(move |conn| {
            let rows: Vec<SubmissionRow> = conn.load(
                submissions::table
                    .filter(submissions::result_lead_id.eq(lead_id))
                    .order((submissions::created_at.desc(), submissions::id.desc()))
                    .limit(limit)
                    .select(SubmissionRow::as_select()),
            )?;
            stored_rows(rows)
        })
        .await
    }

    async fn find_submissions(&self, ids: Vec<i64>) -> StoreResult<Vec<Submission>> {
        self.read(move |conn| {
            let mut out = Vec::with_capacity(ids.len());
            for chunk in ids.chunks(IN_LIST_CHUNK) {
                let rows: Vec<SubmissionRow> = conn.load(
                    submissions::table
                        .filter(submissions::id.eq_any(chunk))
                        .select(SubmissionRow::as_select()),
                )?;
                for row in rows {
                    out.push(Submission::try_from(row)?);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn find_batch(&self, batch_id: &str) -> StoreResult<Option<BatchSummary>> {
        let batch_id = batch_id.to_owned();
        self.read(move |conn| {
            let Some(b) = conn
                .first(batches::table.find(&batch_id).select(BatchRow::as_select()))
                .optional()?
            else {
                return Ok(None);
            };
            let counts: Vec<(String, i64)> = conn.load(
                submissions::table
                    .filter(submissions::batch_id.eq(&batch_id))
                    .group_by(submissions::status)
                    .select((submissions::status, diesel::dsl::count_star())),
            )?;
            let count = |names: &[&str]| -> i64 {
                counts
                    .iter()
                    .filter(|(s, _)| names.contains(&s.as_str()))
                    .map(|(_, n)| n)
                    .sum()
            };
            let pending = count(&["pending", "processing"]);
            // Two workers finishing a batch's last jobs at once each see the other's
            // submissions as open and neither stamps the batch; the last processing time is
            // the completion time then.
            let completed_at = match (b.completed_at, pending) {
                (Some(at), _) => Some(at),
                (None, 0) => conn.first::<_, Option<NaiveDateTime>>(
                    submissions::table
                        .filter(submissions::batch_id.eq(&batch_id))
                        .select(diesel::dsl::max(submissions::processed_at)),
                )?,
                (None, _) => None,
            };
            Ok(Some(BatchSummary {
                batch_id: b.id,
                user_id: b.user_id,
                team_id: b.team_id,
                total: i64::from(b.total),
                pending,
                succeeded: count(&["completed"]),
                duplicates: count(&["duplicate"]),
                failed: count(&["failed"]),
                created_at: from_db(b.created_at),
                completed_at: completed_at.map(from_db),
            }))
        })
        .await
    }

    async fn claim_idempotent(
        &self,
        user_id: i64,
        key: &str,
        request_hash: &str,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
        abandoned_before: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim> {
        let key = key.to_owned();
        let request_hash = request_hash.to_owned();
        self.write(move |conn| {
            conn.transaction(|conn| {
                let this_key = idempotency_keys::user_id
                    .eq(user_id)
                    .and(idempotency_keys::idempotency_key.eq(&key));
                // A claim still running that stored nothing was abandoned by its process; one
                // whose batch or submission exists committed, and its answer can be rebuilt.
                let stored_nothing =
                    not(exists(batches::table.filter(
                        batches::idempotency_key_id.eq(idempotency_keys::id.nullable()),
                    )))
                    .and(not(exists(submissions::table.filter(
                        submissions::idempotency_key_id.eq(idempotency_keys::id.nullable()),
                    ))));
                diesel::delete(
                    idempotency_keys::table.filter(this_key).filter(
                        idempotency_keys::created_at.lt(to_db(stale_before)).or(
                            idempotency_keys::response_status
                                .eq(RUNNING)
                                .and(idempotency_keys::created_at.lt(to_db(abandoned_before)))
                                .and(stored_nothing),
                        ),
                    ),
                )
                .execute(conn)?;
                let row = (
                    idempotency_keys::user_id.eq(user_id),
                    idempotency_keys::idempotency_key.eq(&key),
                    idempotency_keys::request_hash.eq(&request_hash),
                    idempotency_keys::response_status.eq(RUNNING),
                    idempotency_keys::response_body.eq(""),
                    idempotency_keys::created_at.eq(to_db(now)),
                );
                // The unique (user_id, idempotency_key) decides between concurrent twins.
                let inserted = on_backend!(conn, c => diesel::insert_into(idempotency_keys::table)
                    .values(&row)
                    .on_conflict_do_nothing()
                    .execute(c))?;
                let (id, request_hash, status, body, created_at) = idempotency_keys::table
                    .filter(this_key)
                    .select((
                        idempotency_keys::id,
                        idempotency_keys::request_hash,
                        idempotency_keys::response_status,
                        idempotency_keys::response_body,
                        idempotency_keys::created_at,
                    ))
                    .first::<(i64, String, i32, String, NaiveDateTime)>(conn)?;
                if inserted == 1 {
                    return Ok(IdempotencyClaim::Claimed(id));
                }
                Ok(IdempotencyClaim::Taken(IdempotentAnswer {
                    id,
                    request_hash,
                    answer: (status != RUNNING)
                        .then(|| (u16::try_from(status).unwrap_or(200), body)),
                    created_at: from_db(created_at),
                }))
            })
        })
        .await
    }

    async fn complete_idempotent(
        &self,
        user_id: i64,
        key: &str,
        status: u16,
        body: String,
    ) -> StoreResult<()> {
        let key = key.to_owned();
        self.write(move |conn| {
            diesel::update(running_claim(user_id, &key))
                .set((
                    idempotency_keys::response_status.eq(i32::from(status)),
                    idempotency_keys::response_body.eq(body),
                ))
                .execute(conn)
                .map(drop)
        })
        .await
    }

    async fn stored_for_claim(&self, claim_id: i64) -> StoreResult<Option<StoredForClaim>> {
        self.read(move |conn| {
            let batch_id: Option<String> = conn
                .first(
                    batches::table
                        .filter(batches::idempotency_key_id.eq(claim_id))
                        .select(batches::id),
                )
                .optional()?;
            if let Some(batch_id) = batch_id {
                let rows: Vec<SubmissionRow> = conn.load(
                    submissions::table
                        .filter(submissions::batch_id.eq(&batch_id))
                        .order(submissions::batch_index)
                        .select(SubmissionRow::as_select()),
                )?;
                return Ok(Some(StoredForClaim::Batch {
                    batch_id,
                    submissions: stored_rows(rows)?,
                }));
            }
            let single: Option<SubmissionRow> = conn
                .first(
                    submissions::table
                        .filter(submissions::idempotency_key_id.eq(claim_id))
                        .select(SubmissionRow::as_select()),
                )
                .optional()?;
            Ok(single
                .map(Submission::try_from)
                .transpose()?
                .map(StoredForClaim::Single))
        })
        .await
    }

    async fn release_idempotent(&self, user_id: i64, key: &str) -> StoreResult<()> {
        let key = key.to_owned();
        self.write(move |conn| {
            diesel::delete(running_claim(user_id, &key))
                .execute(conn)
                .map(drop)
        })
        .await
    }
}
