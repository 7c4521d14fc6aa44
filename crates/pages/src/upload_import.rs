//! The `import_upload` job: a file uploaded from the pages, imported by the CLI's run
//! (`leadhub_spreadsheet::import_sheet`: the domain's import use case over the spreadsheet
//! adapter) as the person who uploaded it, into the team they chose. Progress is written to the
//! upload after every chunk; the summary and the report at the end.
//!
//! A worker that dies mid-import leaves the upload `running`; when the job's lease runs out it
//! runs again from the first row (rows already imported then merge as duplicates). An import
//! that fails (a row's chunk cannot be written, the team was left meanwhile) marks the upload
//! `failed` with the reason and is not retried, since a second run would count differently.
use std::io::Cursor;
use std::sync::Arc;

use async_trait::async_trait;

use leadhub_domain::business::BusinessService;
use leadhub_domain::import::{ImportProgress, ImportRun, ImportServices, ImportSummary};
use leadhub_domain::jobs::Job;
use leadhub_domain::lead::work::LeadWorkService;
use leadhub_domain::submission::SubmissionService;
use leadhub_domain::upload::{
    chosen_columns, file_tags, import_kind, lead_source, FinishedUpload, Upload, UploadCounts,
    UploadStatus, UploadStore,
};
use leadhub_domain::user::UserRepository;
use leadhub_domain::Clock;
use leadhub_spreadsheet::{import_sheet, open_sheet, ImportStopped, ReportOutput, ReportTarget};

use crate::import::DEFAULT_CHUNK;

pub struct UploadImports {
    pub uploads: Arc<dyn UploadStore>,
    pub users: Arc<dyn UserRepository>,
    pub submissions: Arc<SubmissionService>,
    pub businesses: Arc<BusinessService>,
    pub lead_work: Arc<LeadWorkService>,
    pub clock: Arc<dyn Clock>,
}

fn counts(s: &ImportSummary) -> UploadCounts {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    UploadCounts {
        rows: n(s.rows),
        created: n(s.created),
        updated: n(s.updated),
        skipped: n(s.skipped),
        rejected: n(s.rejected),
        failed: n(s.failed),
        warnings: n(s.warnings),
    }
}

/// What the upload page shows of a finished import besides its counts.
fn page_summary(s: &ImportSummary) -> serde_json::Value {
    serde_json::json!({
        "encoding": s.encoding,
        "top_reasons": s.top_reasons(5),
        "mapping": s.mapping,
        "notes": s.notes,
        "work": s.work,
        "ignored": s.ignored,
    })
}

/// Writes the progress to the upload, for its status page.
struct StoredProgress<'a> {
    imports: &'a UploadImports,
    id: i64,
}

#[async_trait]
impl ImportProgress for StoredProgress<'_> {
    async fn chunk_done(&mut self, bytes_done: u64, summary: &ImportSummary) -> bool {
        let at = self.imports.clock.now();
        let done = i64::try_from(bytes_done).unwrap_or(i64::MAX);
        if let Err(e) = self
            .imports
            .uploads
            .record_progress(self.id, done, counts(summary), at)
            .await
        {
            tracing::warn!(error = %e, upload = self.id, "upload progress not recorded");
        }
        // An upload runs to its end: a stopping worker's job is leased and taken up again.
        true
    }
}

impl UploadImports {
    /// Runs one `import_upload` job.
    pub async fn run(&self, job: &Job) -> Result<(), String> {
        let id = job
            .payload
            .get("upload_id")
            .and_then(serde_json::Value::as_i64)
            .ok_or_else(|| "bad payload: no upload_id".to_owned())?;
        let store_error = |e: leadhub_domain::store::StoreError| e.to_string();
        let Some(upload) = self.uploads.upload(id).await.map_err(store_error)? else {
            return Ok(());
        };
        // A job runs only for a queued upload; one of an upload still awaiting its columns (none
        // is made for it, so only by hand) waits for them too.
        if !upload.status.is_importing() {
            return Ok(());
        }
        let now = self.clock.now();
        self.uploads
            .record_progress(id, 0, UploadCounts::default(), now)
            .await
            .map_err(store_error)?;
        let (status, (summary, report), error) = match self.import(&upload).await {
            Ok(done) => (UploadStatus::Done, done, None),
            Err(e) => {
                tracing::warn!(
                    error = format!("{e:#}"),
                    upload = id,
                    "upload import failed"
                );
                (
                    UploadStatus::Failed,
                    (ImportSummary::default(), None),
                    Some(format!("{e:#}")),
                )
            }
        };
        self.uploads
            .finish_upload(
                id,
                FinishedUpload {
                    status,
                    counts: counts(&summary),
                    report,
                    summary: (status == UploadStatus::Done).then(|| page_summary(&summary)),
                    error,
                },
                self.clock.now(),
            )
            .await
            .map_err(store_error)
    }

    async fn import(&self, upload: &Upload) -> anyhow::Result<(ImportSummary, Option<Vec<u8>>)> {
        let user = self
            .users
            .find_by_internal_id(upload.user_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("the account that uploaded the file is gone"))?;
        let content = self
            .uploads
            .upload_content(upload.id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("the file is gone"))?;
        let kind = import_kind(upload.kind, &upload.options);
        let columns = chosen_columns(&upload.options);
        let tags = file_tags(&upload.options);
        let source = lead_source(&upload.options);
        let run = ImportRun {
            kind: &kind,
            team_id: Some(upload.team_id),
            chunk: DEFAULT_CHUNK,
            columns: columns.as_deref(),
            tags: &tags,
            source: source.as_deref(),
        };
        let services = ImportServices {
            submissions: self.submissions.clone(),
            businesses: self.businesses.clone(),
            lead_work: self.lead_work.clone(),
            upload_id: Some(upload.id),
        };
        let mut progress = StoredProgress {
            imports: self,
            id: upload.id,
        };
        let sheet = open_sheet(Cursor::new(content))?;
        let (summary, report) = import_sheet(
            &services,
            &user,
            run,
            sheet,
            ReportTarget::Memory,
            &mut progress,
        )
        .await
        .map_err(ImportStopped::into_cause)?;
        let report = match report {
            ReportOutput::Memory(bytes) => Some(bytes),
            ReportOutput::None | ReportOutput::File(_) => None,
        };
        Ok((summary, report))
    }
}
