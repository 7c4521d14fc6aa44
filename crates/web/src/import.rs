//! `leadhub import leads|businesses FILE.csv` and the pages' uploads: CSV through the same
//! services as the API.
//!
//! The file is streamed row by row (never held in memory by the CLI) and processed in chunks;
//! each row is read into the API's own request types (`SubmittedLead`, `BusinessInput`) with
//! their rules, so a row is rejected for the same reasons a request element would be, and the
//! rest of its chunk is imported.
//! Rejected rows go to a report CSV (`import_report.rs`) with their line number and reason.
use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use csv::StringRecord;
use serde::Deserialize;
use serde_json::{Map, Value};

use leadhub_domain::business::{BusinessService, ImportRequest, RelationshipType};
use leadhub_domain::lead::fields::STRING_FIELDS as LEAD_STRING_FIELDS;
use leadhub_domain::lead::record::LeadAction;
use leadhub_domain::submission::{SubmissionRequest, SubmissionService};
use leadhub_domain::user::User;

pub use crate::import_file::{import_csv, reports_dir, stdout_is_terminal, ImportSettings};
use crate::import_report::{Report, ReportOutput, ReportTarget};
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
    pub fn name(&self) -> &'static str {
        match self {
            ImportKind::Leads => "leads",
            ImportKind::Businesses { .. } => "businesses",
        }
    }

    pub fn columns(&self) -> Vec<&'static str> {
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

    /// Column i of a file with this header feeds field `columns[i]` (None: not a field of ours);
    /// a header without any known column is refused.
    fn field_columns(&self, header: &StringRecord) -> Result<Vec<Option<&'static str>>, String> {
        let known = self.columns();
        let columns: Vec<Option<&'static str>> = header
            .iter()
            .map(|h| {
                let h = h.trim_start_matches('\u{feff}').trim().to_ascii_lowercase();
                known.iter().find(|k| **k == h).copied()
            })
            .collect();
        if columns.iter().all(Option::is_none) {
            return Err(format!(
                "no column named like a {} field (expected some of: {})",
                self.name(),
                known.join(", ")
            ));
        }
        Ok(columns)
    }
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
    /// The report, when it was kept in memory (`ReportTarget::Memory`).
    pub report_csv: Option<Vec<u8>>,
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

/// Told how an import goes, after each chunk.
#[async_trait]
pub trait ImportProgress: Send {
    async fn chunk_done(&mut self, bytes_done: u64, summary: &ImportSummary);
}

/// One CSV to import: where its bytes come from, their size, and a name for messages.
pub struct ImportSource<R> {
    pub reader: R,
    pub size: u64,
    pub name: String,
}

/// How to import a source.
pub struct ImportRun<'a> {
    pub kind: &'a ImportKind,
    /// Applies to every row (a lead row's own `team_id` column overrides it).
    pub team_id: Option<i64>,
    pub chunk: usize,
    pub report: ReportTarget,
}

/// One row waiting in a chunk: where it came from and what it says.
struct PendingRow {
    line: u64,
    record: StringRecord,
    value: Value,
}

/// Why an uploaded file cannot be imported at all, as a sentence for the page; `None`: it can.
/// Rows are judged one by one by the import itself, as for the CLI.
pub fn refuse_file(bytes: &[u8], kind: &ImportKind) -> Option<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("The file is empty.".into());
    }
    if bytes.contains(&0) {
        return Some(
            "This is not a CSV file: it holds binary data (a spreadsheet? Save it as \"CSV UTF-8\")."
                .into(),
        );
    }
    if std::str::from_utf8(bytes).is_err() {
        return Some(
            "The file is not UTF-8 text (perhaps Latin-1 or UTF-16). Save it as \"CSV UTF-8\" and upload it again."
                .into(),
        );
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let header = match reader.headers() {
        Ok(header) => header.clone(),
        Err(e) => return Some(format!("This is not a CSV file: {e}.")),
    };
    if let Err(problem) = kind.field_columns(&header) {
        return Some(format!("The file's first line has {problem}."));
    }
    match reader.records().next() {
        None => Some("The file has a header but no rows.".into()),
        Some(_) => None,
    }
}

/// Streams `source` through the services as `user`, chunk by chunk.
pub async fn import_from<R: Read + Send>(
    services: ImportServices<'_>,
    user: &User,
    source: ImportSource<R>,
    run: ImportRun<'_>,
    progress: &mut dyn ImportProgress,
) -> anyhow::Result<ImportSummary> {
    let started = Instant::now();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(source.reader);
    let header = reader
        .headers()
        .context("cannot read the CSV header")?
        .clone();
    let columns = run
        .kind
        .field_columns(&header)
        .map_err(|problem| anyhow::anyhow!("{} has {problem}", source.name))?;
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
    let mut report = Report::new(run.report, header.clone());
    let chunk_size = run.chunk.max(1);
    let mut chunk: Vec<PendingRow> = Vec::with_capacity(chunk_size);
    let mut record = StringRecord::new();
    loop {
        let more = match reader.read_record(&mut record) {
            Ok(more) => more,
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => {
                return Err(anyhow::Error::new(e).context(format!("cannot read {}", source.name)));
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
            match run.kind {
                ImportKind::Leads => {
                    import_leads(
                        services.submissions,
                        user,
                        run.team_id,
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
                        team_id: run.team_id,
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
            progress
                .chunk_done(reader.position().byte(), &summary)
                .await;
        }
        if !more {
            break;
        }
    }
    match report.finish()? {
        ReportOutput::None => {}
        ReportOutput::File(path) => summary.report = Some(path),
        ReportOutput::Memory(bytes) => summary.report_csv = Some(bytes),
    }
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
