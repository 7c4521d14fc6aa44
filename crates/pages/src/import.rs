//! `leadhub import leads|businesses FILE.csv` and the pages' uploads: the glue around the domain's import
//! use case (`leadhub_domain::import`) and the spreadsheet adapter (`leadhub_spreadsheet`). Both paths read
//! with the same reader, clean with the same rules and write the same report; this module only opens the
//! file, picks where the report goes and shows progress on a terminal.
use std::fs::File;
use std::io::{Cursor, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressStyle};

use leadhub_domain::import::{
    import, ColumnMap, ImportDestination, ImportProgress, ImportRun, ImportSummary, ReadRow,
    SheetRows,
};
use leadhub_domain::user::User;
use leadhub_spreadsheet::{CsvReport, CsvSheet, ReportOutput, ReportTarget};

pub use leadhub_domain::import::{ImportKind, DEFAULT_CHUNK};

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

/// Imports `settings.file` as `user` (the CLI); the summary and where the report went.
pub async fn import_csv(
    destination: &dyn ImportDestination,
    user: &User,
    settings: &ImportSettings,
) -> anyhow::Result<(ImportSummary, Option<PathBuf>)> {
    let file = File::open(&settings.file)
        .with_context(|| format!("cannot open {}", settings.file.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut sheet =
        CsvSheet::open(file).with_context(|| format!("cannot read {}", settings.file.display()))?;
    let mut report = CsvReport::new(
        ReportTarget::Folder {
            dir: settings.reports_dir.clone(),
            name: format!(
                "import-{}-{}.csv",
                settings.kind.name(),
                chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f")
            ),
        },
        sheet.header(),
    );
    let run = ImportRun {
        kind: &settings.kind,
        team_id: settings.team_id,
        chunk: settings.chunk,
    };
    let mut progress = TerminalProgress::new(settings.progress_bar, size);
    let summary = import(
        destination,
        user,
        run,
        &mut sheet,
        &mut report,
        &mut progress,
    )
    .await;
    if let Some(bar) = progress.bar {
        bar.finish_and_clear();
    }
    let summary = summary.with_context(|| settings.file.display().to_string())?;
    let report = match report.finish()? {
        ReportOutput::File(path) => Some(path),
        ReportOutput::None | ReportOutput::Memory(_) => None,
    };
    Ok((summary, report))
}

/// Imports a file held in memory (an upload); the summary and the report's bytes, if any.
pub async fn import_bytes(
    destination: &dyn ImportDestination,
    user: &User,
    content: Vec<u8>,
    run: ImportRun<'_>,
    progress: &mut dyn ImportProgress,
) -> anyhow::Result<(ImportSummary, Option<Vec<u8>>)> {
    let mut sheet = CsvSheet::open(Cursor::new(content))?;
    let mut report = CsvReport::new(ReportTarget::Memory, sheet.header());
    let summary = import(destination, user, run, &mut sheet, &mut report, progress).await?;
    let report = match report.finish()? {
        ReportOutput::Memory(bytes) => Some(bytes),
        ReportOutput::None | ReportOutput::File(_) => None,
    };
    Ok((summary, report))
}

/// Why an uploaded file cannot be imported at all, as a sentence for the page; `None`: it can. The
/// rows are judged by the import itself, as for the CLI.
pub fn refuse_file(bytes: &[u8], kind: &ImportKind) -> Option<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("The file is empty.".into());
    }
    let mut sheet = match CsvSheet::open(Cursor::new(bytes.to_vec())) {
        Ok(sheet) => sheet,
        Err(e) => return Some(format!("This is not a CSV file: {e:#}.")),
    };
    // NUL bytes are text only in UTF-16; anywhere else they mean a binary file (a spreadsheet).
    if bytes.contains(&0) && !sheet.encoding().starts_with("UTF-16") {
        return Some(
            "This is not a CSV file: it holds binary data (a spreadsheet? Save it as CSV).".into(),
        );
    }
    if let Err(problem) = ColumnMap::new(kind, &sheet.header()) {
        return Some(format!("The file's first line has {problem}."));
    }
    loop {
        match sheet.next_row() {
            Ok(Some(ReadRow::Row(row))) if row.cells.iter().all(|c| c.trim().is_empty()) => {}
            Ok(Some(_)) => return None,
            Ok(None) => return Some("The file has a header but no rows.".into()),
            Err(e) => return Some(format!("This is not a CSV file: {e:#}.")),
        }
    }
}

/// The CLI's progress: a bar on a terminal, else a line on stderr every 5 seconds.
struct TerminalProgress {
    bar: Option<ProgressBar>,
    size: u64,
    last_note: Instant,
}

impl TerminalProgress {
    fn new(bar: bool, size: u64) -> TerminalProgress {
        let bar = bar.then(|| {
            let bar = ProgressBar::new(size);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        TerminalProgress {
            bar,
            size,
            last_note: Instant::now(),
        }
    }
}

#[async_trait]
impl ImportProgress for TerminalProgress {
    async fn chunk_done(&mut self, done: u64, summary: &ImportSummary) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(format!("{} rows", summary.rows));
            }
            None if self.last_note.elapsed() >= Duration::from_secs(5) => {
                self.last_note = Instant::now();
                eprintln!(
                    "leadhub: {} rows ({}%), created {}, updated {}, skipped {}, rejected {}, warnings {}",
                    summary.rows,
                    (done * 100).checked_div(self.size).unwrap_or(100),
                    summary.created,
                    summary.updated,
                    summary.skipped,
                    summary.rejected,
                    summary.warnings
                );
            }
            None => {}
        }
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
