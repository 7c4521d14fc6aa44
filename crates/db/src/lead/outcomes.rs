//! Recording submissions' outcomes in the leads' transaction: a crash leaves both or neither.
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};

use leadhub_domain::lead::record::{LeadWrite, LeadWritten};
use leadhub_domain::lead::Warning;
use leadhub_domain::submission::SubmissionStatus;

use crate::sql::fixed_chunks::for_each_fixed_chunk;
use crate::DbConnection;

/// What became of a submission whose lead was written, in the columns that record it.
pub(crate) struct Outcome {
    pub status: &'static str,
    pub lead_id: i64,
    pub action: &'static str,
    /// Normalisation's warnings, then the merge's, as JSON.
    pub warnings: String,
}

impl Outcome {
    /// The outcome of the submission that `w` wrote, as `written`.
    pub(crate) fn of(w: &LeadWrite, written: &LeadWritten) -> Self {
        let warnings: Vec<&Warning> = w.lead.warnings.iter().chain(&written.warnings).collect();
        Outcome {
            status: SubmissionStatus::for_action(written.action).as_str(),
            lead_id: written.lead_id,
            action: written.action.as_str(),
            warnings: serde_json::to_string(&warnings).unwrap_or_else(|_| "[]".into()),
        }
    }
}

/// One stored submission's outcome, as `record_outcomes` sends it to the database.
pub(crate) struct OutcomeRow {
    pub id: i64,
    pub outcome: Outcome,
}

/// Every submission's outcome, in as few statements as the backend reads best.
pub(crate) fn record_outcomes(
    conn: &mut DbConnection,
    rows: &[OutcomeRow],
    now: NaiveDateTime,
) -> QueryResult<()> {
    if rows.is_empty() {
        return Ok(());
    }
    match conn {
        DbConnection::Postgres(pg) => on_postgres(pg, rows, now),
        DbConnection::Sqlite(lite) => {
            for_each_fixed_chunk!(rows, chunk => {
                on_sqlite(lite, chunk, now)?;
            });
            Ok(())
        }
    }
}

/// PostgreSQL: one statement, the rows as one JSON parameter read as a table (one round trip).
fn on_postgres(
    pg: &mut diesel::PgConnection,
    rows: &[OutcomeRow],
    now: NaiveDateTime,
) -> QueryResult<()> {
    let json = serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                let o = &r.outcome;
                serde_json::json!({
                    "id": r.id, "status": o.status, "lead_id": o.lead_id,
                    "action": o.action, "warnings": o.warnings,
                })
            })
            .collect(),
    )
    .to_string();
    diesel::sql_query(
        "UPDATE submissions AS s SET status = v.status, result_lead_id = v.lead_id, \
         result_action = v.action, validation_warnings = v.warnings, processed_at = $2 \
         FROM jsonb_to_recordset($1::jsonb) \
           AS v(id bigint, status text, lead_id bigint, action text, warnings text) \
         WHERE s.id = v.id",
    )
    .bind::<Text, _>(json)
    .bind::<Timestamp, _>(now)
    .execute(pg)
    .map(drop)
}

/// SQLite: the rows as bound VALUES, in chunks of at most 500 rows (2,501 binds, far below
/// SQLite's limit). diesel prepares a `sql_query` statement anew on every run, whatever its text,
/// so the fixed sizes bound each statement's length and nothing more. No statement round trips to
/// pay for here, and reading the rows out of JSON (json_each, then json_extract per column) cost
/// a third of the update.
fn on_sqlite(
    lite: &mut diesel::SqliteConnection,
    rows: &[OutcomeRow],
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mut query = diesel::sql_query(sqlite_statement(rows.len()))
        .into_boxed::<diesel::sqlite::Sqlite>()
        .bind::<Timestamp, _>(now);
    for r in rows {
        query = query
            .bind::<BigInt, _>(r.id)
            .bind::<Text, _>(r.outcome.status)
            .bind::<BigInt, _>(r.outcome.lead_id)
            .bind::<Text, _>(r.outcome.action)
            .bind::<Text, _>(r.outcome.warnings.as_str());
    }
    query.execute(lite).map(drop)
}

/// The UPDATE for `rows` outcomes.
fn sqlite_statement(rows: usize) -> String {
    let values = vec!["(?, ?, ?, ?, ?)"; rows].join(", ");
    format!(
        "UPDATE submissions SET status = v.column2, result_lead_id = v.column3, \
         result_action = v.column4, validation_warnings = v.column5, processed_at = ? \
         FROM (VALUES {values}) AS v WHERE submissions.id = v.column1"
    )
}
