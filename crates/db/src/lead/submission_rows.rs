//! Submission and batch rows as the write paths insert and close them: shared by the
//! repository (`submissions.rs`), fresh submissions and the lead writer, none of which needs
//! the others for it.
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::submission::{NewBatch, NewSubmission};

use crate::lead::outcomes::Outcome;
use crate::schema::{batches, submissions};
use crate::sql::fixed_chunks::insert_returning_ids;
use crate::sql::time::to_db;
use crate::sql::unnest::unnest_insert_returning_ids;
use crate::DbConnection;

/// Stamps `completed_at` on each of these batches whose submissions are all final.
pub(crate) fn close_finished_batches(
    conn: &mut DbConnection,
    batch_ids: impl IntoIterator<Item = String>,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mut closed = Vec::new();
    for id in batch_ids {
        let open: i64 = submissions::table
            .filter(submissions::batch_id.eq(&id))
            .filter(submissions::status.eq_any(["pending", "processing"]))
            .count()
            .get_result(conn)?;
        if open == 0 {
            let changed = diesel::update(
                batches::table
                    .find(&id)
                    .filter(batches::completed_at.is_null()),
            )
            .set(batches::completed_at.eq(Some(now)))
            .execute(conn)?;
            if changed > 0 {
                closed.push(id);
            }
        }
    }
    crate::webhook::webhook_events::batches_completed(conn, closed, now)
}

/// Stores a batch's own row; `completed_at` when every submission is stored final with it.
pub(crate) fn insert_batch(
    conn: &mut DbConnection,
    b: &NewBatch,
    completed_at: Option<NaiveDateTime>,
) -> QueryResult<()> {
    diesel::insert_into(batches::table)
        .values((
            batches::id.eq(&b.id),
            batches::user_id.eq(b.user_id),
            batches::team_id.eq(b.team_id),
            batches::total.eq(b.total),
            batches::process_immediately.eq(b.process_immediately),
            batches::created_at.eq(to_db(b.created_at)),
            batches::completed_at.eq(completed_at),
            batches::idempotency_key_id.eq(b.idempotency_key_id),
            batches::upload_id.eq(b.upload_id),
        ))
        .execute(conn)
        .map(drop)
}

/// A submission as inserted: every column but the id and `error`.
#[derive(Insertable)]
#[diesel(
    table_name = submissions,
    treat_none_as_null = true,
    treat_none_as_default_value = false
)]
struct SubmissionValues {
    batch_id: Option<String>,
    batch_index: Option<i32>,
    user_id: i64,
    team_id: Option<i64>,
    raw_json: String,
    status: &'static str,
    result_lead_id: Option<i64>,
    result_action: Option<&'static str>,
    validation_warnings: String,
    processed_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    idempotency_key_id: Option<i64>,
}

/// Inserts submissions verbatim, each final when it comes with its outcome (its lead written in
/// this transaction, at `processed_at`: `None` when none comes with one) and as its own `status`
/// says otherwise; returns their ids in the order given. On SQLite every row has the same
/// columns, so each fixed-size INSERT (fixed_chunks.rs) is one prepared statement per
/// connection; on PostgreSQL all rows go in one statement, as column arrays (unnest.rs).
pub(crate) fn insert_submission_rows(
    conn: &mut DbConnection,
    new: impl Iterator<Item = (NewSubmission, Option<Outcome>)>,
    processed_at: Option<NaiveDateTime>,
) -> QueryResult<Vec<i64>> {
    let rows: Vec<SubmissionValues> = new
        .map(|(s, outcome)| {
            let (status, result_lead_id, result_action, validation_warnings, processed_at) =
                match outcome {
                    Some(o) => (
                        o.status,
                        Some(o.lead_id),
                        Some(o.action),
                        o.warnings,
                        processed_at,
                    ),
                    None => (s.status.as_str(), None, None, "[]".to_owned(), None),
                };
            SubmissionValues {
                batch_id: s.batch_id,
                batch_index: s.batch_index,
                user_id: s.user_id,
                team_id: s.team_id,
                raw_json: s.raw_json,
                status,
                result_lead_id,
                result_action,
                validation_warnings,
                processed_at,
                created_at: to_db(s.created_at),
                idempotency_key_id: s.idempotency_key_id,
            }
        })
        .collect();
    match conn {
        DbConnection::Postgres(pg) if rows.len() > 1 => {
            use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};
            Ok(unnest_insert_returning_ids!(pg, "submissions", rows, [
                batch_id: Nullable<Text>, batch_index: Nullable<Integer>, user_id: BigInt,
                team_id: Nullable<BigInt>, raw_json: Text, status: Text,
                result_lead_id: Nullable<BigInt>, result_action: Nullable<Text>,
                validation_warnings: Text, processed_at: Nullable<Timestamp>,
                created_at: Timestamp, idempotency_key_id: Nullable<BigInt>,
            ]))
        }
        _ => Ok(insert_returning_ids!(
            conn,
            submissions::table,
            submissions::id,
            rows
        )),
    }
}
