//! `leadhub import leads|businesses FILE.csv`: CSV files through the same services as the API.
//!
//! The file is streamed row by row (never held in memory) and processed in chunks; each row is read
//! into the API's own request types (`SubmittedLead`, `BusinessInput`) with their rules, so a row
//! is rejected for the same reasons a request element would be, and the rest of its chunk is
//! imported.
//! Rejected rows go to a report CSV under `<data dir>/reports/` with their line number and reason.
use std::collections::BTreeSet;
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use csv::StringRecord;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Deserialize;
use serde_json::{Map, Value};

use leadhub_domain::business::{BusinessService, ImportRequest, RelationshipType};
use leadhub_domain::lead::fields::STRING_FIELDS as LEAD_STRING_FIELDS;
use leadhub_domain::lead::record::LeadAction;
use leadhub_domain::submission::{SubmissionRequest, SubmissionService};
use leadhub_domain::user::User;

use crate::csv_cell::defuse_formula;
use crate::routes::business_views::BusinessInput;
use crate::routes::lead_body::SubmittedLead;

/// Rows per chunk: one batch through the service, one transaction.
pub const DEFAULT_CHUNK: usize = 500;

/// What to import.
#[derive(Debug, Clone)]
pub enum ImportKind {
    Leads,
    Businesses {
        relationship_type: RelationshipType,
        skip_duplicates: bool,
        auto_categorize: bool,
    },
}

impl ImportKind {
    fn name(&self) -> &'static str {
        match self {
            ImportKind::Leads => "leads",
            ImportKind::Businesses { .. } => "businesses",
        }
    }

    fn columns(&self) -> Vec<&'static str> {
        match self {
            ImportKind::Leads => {
                let mut c = LEAD_STRING_FIELDS.to_vec();
                c.extend(["bedrooms", "latitude", "longitude", "team_id"]);
                c
            }
            ImportKind::Businesses { .. } => {
                let mut c = leadhub_domain::business::model::STRING_FIELDS.to_vec();
                c.extend(["rating", "review_count"]);
                c
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct ImportSettings {
    pub file: PathBuf,
    pub kind: ImportKind,
    /// Applies to every row (a lead row's own `team_id` column overrides it).
    pub team_id: Option<i64>,
    pub reports_dir: PathBuf,
    pub chunk: usize,
    /// A progress bar (a terminal) or progress lines on stderr.
    pub progress_bar: bool,
}

/// The figures printed at the end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportSummary {
    pub rows: u64,
    pub created: u64,
    pub updated: u64,
    pub skipped: u64,
    pub rejected: u64,
    /// Rows kept (as submissions) but not stored as leads because of an unexpected error.
    pub failed: u64,
    pub unknown_columns: Vec<String>,
    pub report: Option<PathBuf>,
    pub elapsed: Duration,
}

impl ImportSummary {
    /// The summary as printed on stdout, one `name: value` per line.
    pub fn render(&self) -> String {
        let mut out = format!(
            "rows: {}\ncreated: {}\nupdated: {}\nskipped: {}\nrejected: {}\nfailed: {}\n",
            self.rows, self.created, self.updated, self.skipped, self.rejected, self.failed
        );
        if let Some(report) = &self.report {
            out.push_str(&format!("report: {}\n", report.display()));
        }
        out
    }
}

/// The services an import runs through (the API's own).
pub struct ImportServices<'a> {
    pub submissions: &'a SubmissionService,
    pub businesses: &'a BusinessService,
}

/// Rejected rows, written as they come; the file is created on the first one.
struct Report {
    dir: PathBuf,
    name: String,
    header: StringRecord,
    writer: Option<csv::Writer<File>>,
    path: Option<PathBuf>,
}

impl Report {
    /// Writes one rejected row; every cell from the file is defused, as a spreadsheet opens it.
    fn reject(&mut self, line: u64, reason: &str, record: &StringRecord) -> anyhow::Result<()> {
        if self.writer.is_none() {
            let path = self.dir.join(&self.name);
            let mut writer = csv::Writer::from_writer(create_private_file(&self.dir, &path)?);
            let mut header = vec!["row".into(), "reason".into()];
            header.extend(self.header.iter().map(defuse_formula));
            writer.write_record(header.iter().map(|cell| cell.as_bytes()))?;
            self.path = Some(path);
            self.writer = Some(writer);
        }
        if let Some(writer) = &mut self.writer {
            let line = line.to_string();
            let mut row = vec![line.as_str().into(), defuse_formula(reason)];
            row.extend(record.iter().map(defuse_formula));
            writer.write_record(row.iter().map(|cell| cell.as_bytes()))?;
        }
        Ok(())
    }

    fn finish(mut self) -> anyhow::Result<Option<PathBuf>> {
        if let Some(writer) = &mut self.writer {
            writer.flush()?;
        }
        Ok(self.path)
    }
}

/// Creates `path` (and its folder `dir` when missing) readable by this user only: the report
/// holds the rejected rows' personal data. A folder that exists keeps its mode.
fn create_private_file(dir: &Path, path: &Path) -> anyhow::Result<File> {
    let mut folders = std::fs::DirBuilder::new();
    folders.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folders, 0o700);
    folders
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    file.open(path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// One row waiting in a chunk: where it came from and what it says.
struct PendingRow {
    line: u64,
    record: StringRecord,
    value: Value,
}

/// Streams `settings.file` through the services as `user`.
pub async fn import_csv(
    services: ImportServices<'_>,
    user: &User,
    settings: &ImportSettings,
) -> anyhow::Result<ImportSummary> {
    let started = Instant::now();
    let file = File::open(&settings.file)
        .with_context(|| format!("cannot open {}", settings.file.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(file);
    let header = reader
        .headers()
        .context("cannot read the CSV header")?
        .clone();
    let known = settings.kind.columns();
    // Column i of the file feeds field `columns[i]` (None: not a field of ours).
    let columns: Vec<Option<&'static str>> = header
        .iter()
        .map(|h| {
            let h = h.trim_start_matches('\u{feff}').trim().to_ascii_lowercase();
            known.iter().find(|k| **k == h).copied()
        })
        .collect();
    let mut summary = ImportSummary {
        unknown_columns: header
            .iter()
            .zip(&columns)
            .filter(|(_, c)| c.is_none())
            .map(|(h, _)| h.to_owned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        ..ImportSummary::default()
    };
    if !summary.unknown_columns.is_empty() {
        eprintln!(
            "leadhub: ignoring unknown column(s): {}",
            summary.unknown_columns.join(", ")
        );
    }
    if columns.iter().all(Option::is_none) {
        anyhow::bail!(
            "{} has no column named like a {} field (expected some of: {})",
            settings.file.display(),
            settings.kind.name(),
            known.join(", ")
        );
    }
    let mut report = Report {
        dir: settings.reports_dir.clone(),
        name: format!(
            "import-{}-{}.csv",
            settings.kind.name(),
            chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f")
        ),
        header: header.clone(),
        writer: None,
        path: None,
    };
    let bar = settings.progress_bar.then(|| {
        let bar = ProgressBar::new(size);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let chunk_size = settings.chunk.max(1);
    let mut chunk: Vec<PendingRow> = Vec::with_capacity(chunk_size);
    let mut record = StringRecord::new();
    let mut last_note = Instant::now();
    loop {
        let more = match reader.read_record(&mut record) {
            Ok(more) => more,
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => {
                return Err(anyhow::Error::new(e)
                    .context(format!("cannot read {}", settings.file.display())));
            }
            Err(e) => {
                // A row that is not valid UTF-8 (or not CSV) is rejected; reading goes on.
                summary.rows += 1;
                summary.rejected += 1;
                let line = e.position().map_or(0, csv::Position::line);
                report.reject(line, &format!("unreadable row: {e}"), &StringRecord::new())?;
                continue;
            }
        };
        if more {
            summary.rows += 1;
            let line = record.position().map_or(0, csv::Position::line);
            let mut object = Map::new();
            for (value, column) in record.iter().zip(&columns) {
                if let Some(name) = column {
                    if !value.trim().is_empty() {
                        object.insert((*name).to_owned(), Value::String(value.to_owned()));
                    }
                }
            }
            chunk.push(PendingRow {
                line,
                record: record.clone(),
                value: Value::Object(object),
            });
        }
        if chunk.len() >= chunk_size || (!more && !chunk.is_empty()) {
            let rows = std::mem::take(&mut chunk);
            match &settings.kind {
                ImportKind::Leads => {
                    import_leads(
                        services.submissions,
                        user,
                        settings.team_id,
                        rows,
                        &mut summary,
                        &mut report,
                    )
                    .await?
                }
                ImportKind::Businesses {
                    relationship_type,
                    skip_duplicates,
                    auto_categorize,
                } => {
                    let request = ImportRequest {
                        elements: Vec::new(),
                        relationship_type: *relationship_type,
                        skip_duplicates: *skip_duplicates,
                        auto_categorize: *auto_categorize,
                        team_id: settings.team_id,
                    };
                    import_businesses(
                        services.businesses,
                        user,
                        request,
                        rows,
                        &mut summary,
                        &mut report,
                    )
                    .await?
                }
            }
            let done = reader.position().byte();
            match &bar {
                Some(bar) => {
                    bar.set_position(done);
                    bar.set_message(format!("{} rows", summary.rows));
                }
                None if last_note.elapsed() >= Duration::from_secs(5) => {
                    last_note = Instant::now();
                    eprintln!(
                        "leadhub: {} rows ({}%), created {}, updated {}, skipped {}, rejected {}",
                        summary.rows,
                        (done * 100).checked_div(size).unwrap_or(100),
                        summary.created,
                        summary.updated,
                        summary.skipped,
                        summary.rejected
                    );
                }
                None => {}
            }
        }
        if !more {
            break;
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    summary.report = report.finish()?;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

async fn import_leads(
    service: &SubmissionService,
    user: &User,
    team_id: Option<i64>,
    rows: Vec<PendingRow>,
    summary: &mut ImportSummary,
    report: &mut Report,
) -> anyhow::Result<()> {
    let mut accepted: Vec<PendingRow> = Vec::with_capacity(rows.len());
    let mut requests: Vec<SubmissionRequest> = Vec::with_capacity(rows.len());
    for mut row in rows {
        let reason = match SubmittedLead::from_row(std::mem::take(&mut row.value)) {
            Ok(lead) => {
                let problems = lead.problems(Vec::new());
                if problems.is_empty() {
                    requests.push(lead.into_request(team_id));
                    accepted.push(row);
                    continue;
                }
                reasons(&problems)
            }
            Err(e) => format!("unreadable row: {e}"),
        };
        summary.rejected += 1;
        report.reject(row.line, &reason, &row.record)?;
    }
    if requests.is_empty() {
        return Ok(());
    }
    let outcome = service
        .submit_batch(user, requests, team_id, true, None)
        .await
        .map_err(|e| anyhow::anyhow!(describe_submission_error(e)))?;
    for (element, row) in outcome.elements.iter().zip(&accepted) {
        match element.action {
            Some(LeadAction::Created) => summary.created += 1,
            Some(LeadAction::Updated) => summary.updated += 1,
            Some(LeadAction::Skipped) => summary.skipped += 1,
            // Failed: the submission is kept; the row goes to the report so it can be retried.
            None => {
                summary.failed += 1;
                let reason = element
                    .error
                    .as_deref()
                    .unwrap_or("the lead could not be stored");
                report.reject(row.line, reason, &row.record)?;
            }
        }
    }
    Ok(())
}

async fn import_businesses(
    service: &BusinessService,
    user: &User,
    mut request: ImportRequest,
    rows: Vec<PendingRow>,
    summary: &mut ImportSummary,
    report: &mut Report,
) -> anyhow::Result<()> {
    request.elements = rows
        .iter()
        .map(|r| {
            BusinessInput::deserialize(&r.value)
                .map_err(|e| e.to_string())
                .and_then(BusinessInput::into_element)
        })
        .collect();
    let outcome = service.import(user, request).await.map_err(|e| {
        use leadhub_domain::business::BusinessError;
        match e {
            BusinessError::Forbidden(reason) => anyhow::anyhow!("--team-id: {reason}"),
            other => anyhow::Error::new(other),
        }
    })?;
    summary.created += outcome.imported.len() as u64;
    summary.skipped += outcome.skipped.len() as u64;
    summary.rejected += outcome.errors.len() as u64;
    for error in &outcome.errors {
        if let Some(row) = rows.get(error.index) {
            report.reject(row.line, &error.detail, &row.record)?;
        }
    }
    Ok(())
}

/// "field: message; ..." for a person.
fn reasons(problems: &[leadhub_domain::error::FieldError]) -> String {
    use leadhub_domain::error::LocPart;
    problems
        .iter()
        .map(|p| {
            let field = p
                .loc
                .iter()
                .filter_map(|l| match l {
                    LocPart::Field(f) => Some(f.as_str()),
                    LocPart::Index(_) => None,
                })
                .collect::<Vec<_>>()
                .join(".");
            format!("{field}: {}", p.msg)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn describe_submission_error(e: leadhub_domain::submission::SubmissionError) -> String {
    use leadhub_domain::submission::SubmissionError;
    match e {
        SubmissionError::Forbidden(reason) => format!("team_id: {reason}"),
        SubmissionError::NotFound(thing) => format!("{thing} not found"),
        SubmissionError::Invalid(problems) => reasons(&problems),
        SubmissionError::Unexpected(cause) => format!("{cause:#}"),
    }
}

/// Whether progress should be a bar: only when stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// `<data dir>/reports`.
pub fn reports_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("reports")
}
