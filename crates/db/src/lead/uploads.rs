//! `UploadStore` over the `uploads` table: the file's bytes, the import's progress and its reject
//! report. The upload and its import job are inserted in one transaction, as are an upload's chosen
//! columns and the job of an upload that awaited them.
use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use leadhub_domain::store::StoreResult;
use leadhub_domain::upload::{
    import_job, FinishedUpload, NewUpload, Upload, UploadCounts, UploadStatus, UploadStore,
};

use crate::job::jobs::insert_jobs;
use crate::schema::uploads;
use crate::sql::error::stored_word;
use crate::sql::time::{from_db, to_db};
use crate::Database;

#[derive(Queryable, Selectable)]
#[diesel(table_name = uploads)]
struct UploadRow {
    id: i64,
    kind: String,
    team_id: i64,
    user_id: i64,
    file_name: String,
    options: String,
    size: i64,
    status: String,
    bytes_done: i64,
    rows_read: i64,
    created: i64,
    updated: i64,
    skipped: i64,
    rejected: i64,
    failed: i64,
    error: Option<String>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    warnings: i64,
    summary: Option<String>,
}

type UploadWithReport = (UploadRow, bool);

fn upload_of((r, has_report): UploadWithReport) -> QueryResult<Upload> {
    Ok(Upload {
        id: r.id,
        kind: stored_word("uploads.kind", &r.kind)?,
        team_id: r.team_id,
        user_id: r.user_id,
        file_name: r.file_name,
        options: serde_json::from_str(&r.options).unwrap_or(serde_json::Value::Null),
        size: r.size,
        status: stored_word("uploads.status", &r.status)?,
        bytes_done: r.bytes_done,
        counts: UploadCounts {
            rows: r.rows_read,
            created: r.created,
            updated: r.updated,
            skipped: r.skipped,
            rejected: r.rejected,
            failed: r.failed,
            warnings: r.warnings,
        },
        summary: r.summary.and_then(|s| serde_json::from_str(&s).ok()),
        error: r.error,
        has_report,
        created_at: from_db(r.created_at),
        updated_at: from_db(r.updated_at),
    })
}

#[async_trait]
impl UploadStore for Database {
    async fn create_upload(&self, new: NewUpload, at: DateTime<Utc>) -> StoreResult<i64> {
        let status = if new.awaiting_columns {
            UploadStatus::AwaitingColumns
        } else {
            UploadStatus::Queued
        };
        let id = self
            .write(move |conn| {
                conn.transaction(|conn| {
                    let now = to_db(at);
                    let id = diesel::insert_into(uploads::table)
                        .values((
                            uploads::kind.eq(new.kind.as_str()),
                            uploads::team_id.eq(new.team_id),
                            uploads::user_id.eq(new.user_id),
                            uploads::file_name.eq(&new.file_name),
                            uploads::options.eq(new.options.to_string()),
                            uploads::size.eq(new.content.len() as i64),
                            uploads::content.eq(&new.content),
                            uploads::status.eq(status.as_str()),
                            uploads::created_at.eq(now),
                            uploads::updated_at.eq(now),
                        ))
                        .returning(uploads::id)
                        .get_result::<i64>(conn)?;
                    if status == UploadStatus::Queued {
                        insert_jobs(conn, &[import_job(id, at)], now)?;
                    }
                    Ok(id)
                })
            })
            .await?;
        Ok(id)
    }

    async fn upload(&self, id: i64) -> StoreResult<Option<Upload>> {
        self.read(move |conn| {
            conn.first(
                uploads::table
                    .find(id)
                    .select((UploadRow::as_select(), uploads::report.is_not_null())),
            )
            .optional()?
            .map(upload_of)
            .transpose()
        })
        .await
    }

    async fn team_uploads(&self, team_ids: Vec<i64>, limit: i64) -> StoreResult<Vec<Upload>> {
        self.read(move |conn| {
            conn.load::<_, UploadWithReport>(
                uploads::table
                    .filter(uploads::team_id.eq_any(team_ids))
                    .order((uploads::created_at.desc(), uploads::id.desc()))
                    .limit(limit)
                    .select((UploadRow::as_select(), uploads::report.is_not_null())),
            )?
            .into_iter()
            .map(upload_of)
            .collect()
        })
        .await
    }

    async fn upload_content(&self, id: i64) -> StoreResult<Option<Vec<u8>>> {
        self.read(move |conn| {
            conn.first(uploads::table.find(id).select(uploads::content))
                .optional()
        })
        .await
    }

    async fn upload_report(&self, id: i64) -> StoreResult<Option<Vec<u8>>> {
        self.read(move |conn| {
            conn.first(uploads::table.find(id).select(uploads::report))
                .optional()
                .map(Option::flatten)
        })
        .await
    }

    async fn queue_with_columns(
        &self,
        id: i64,
        options: serde_json::Value,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                let now = to_db(at);
                let awaiting = uploads::status.eq(UploadStatus::AwaitingColumns.as_str());
                let changed = diesel::update(uploads::table.find(id).filter(awaiting))
                    .set((
                        uploads::options.eq(options.to_string()),
                        uploads::status.eq(UploadStatus::Queued.as_str()),
                        uploads::updated_at.eq(now),
                    ))
                    .execute(conn)?;
                if changed == 1 {
                    insert_jobs(conn, &[import_job(id, at)], now)?;
                }
                Ok(changed == 1)
            })
        })
        .await
    }

    async fn discard_awaiting(&self, id: i64) -> StoreResult<bool> {
        let awaiting = uploads::status.eq(UploadStatus::AwaitingColumns.as_str());
        self.write(move |conn| {
            let gone = diesel::delete(uploads::table.find(id).filter(awaiting)).execute(conn)?;
            Ok(gone == 1)
        })
        .await
    }

    async fn record_progress(
        &self,
        id: i64,
        bytes_done: i64,
        counts: UploadCounts,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.execute(diesel::update(uploads::table.find(id)).set((
            uploads::status.eq(UploadStatus::Running.as_str()),
            uploads::bytes_done.eq(bytes_done),
            counted(counts),
            uploads::updated_at.eq(to_db(at)),
        )))
        .await
    }

    async fn finish_upload(
        &self,
        id: i64,
        finished: FinishedUpload,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.execute(diesel::update(uploads::table.find(id)).set((
            uploads::status.eq(finished.status.as_str()),
            counted(finished.counts),
            uploads::report.eq(finished.report),
            uploads::summary.eq(finished.summary.map(|s| s.to_string())),
            uploads::error.eq(finished.error),
            uploads::updated_at.eq(to_db(at)),
        )))
        .await
    }
}

/// The count columns' new values.
#[allow(clippy::type_complexity)]
fn counted(
    c: UploadCounts,
) -> (
    diesel::dsl::Eq<uploads::rows_read, i64>,
    diesel::dsl::Eq<uploads::created, i64>,
    diesel::dsl::Eq<uploads::updated, i64>,
    diesel::dsl::Eq<uploads::skipped, i64>,
    diesel::dsl::Eq<uploads::rejected, i64>,
    diesel::dsl::Eq<uploads::failed, i64>,
    diesel::dsl::Eq<uploads::warnings, i64>,
) {
    (
        uploads::rows_read.eq(c.rows),
        uploads::created.eq(c.created),
        uploads::updated.eq(c.updated),
        uploads::skipped.eq(c.skipped),
        uploads::rejected.eq(c.rejected),
        uploads::failed.eq(c.failed),
        uploads::warnings.eq(c.warnings),
    )
}
