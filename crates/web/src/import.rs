//! `leadhub import leads|businesses FILE` (CSV or .xlsx): the glue around the import run the pages' uploads
//! share (`leadhub_spreadsheet::import_sheet`: the domain's import use case over the spreadsheet
//! adapter); this module only opens the file, picks where the report goes and shows progress on a
//! terminal.
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressStyle};

use leadhub_domain::import::{
    choose_by_header, ImportDestination, ImportProgress, ImportRun, ImportSummary, SheetRows,
};
use leadhub_domain::user::User;
use leadhub_spreadsheet::{import_sheet, open_sheet, ImportStopped, ReportOutput, ReportTarget};

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
    /// `(HEADER, FIELD)`: the column named HEADER feeds FIELD ("" for none), whatever its header
    /// says (`--column`); the other columns as their headers name them.
    pub columns: Vec<(String, String)>,
    /// Tags (stored form) added to every lead the file creates or merges into (`--tag`).
    pub tags: Vec<String>,
    /// The source of each lead row without its own (`--source`, as `file_source` keeps it).
    pub source: Option<String>,
}

/// Imports `settings.file` as `user` (the CLI); the summary and where the report went.
pub async fn import_spreadsheet(
    destination: &dyn ImportDestination,
    user: &User,
    settings: &ImportSettings,
) -> anyhow::Result<(ImportSummary, Option<PathBuf>)> {
    let file = File::open(&settings.file)
        .with_context(|| format!("cannot open {}", settings.file.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let sheet =
        open_sheet(file).with_context(|| format!("cannot read {}", settings.file.display()))?;
    let columns = if settings.columns.is_empty() {
        None
    } else {
        let choices = choose_by_header(&settings.kind, &sheet.header(), &settings.columns)
            .map_err(|problem| anyhow::anyhow!("--column: {problem}"))?;
        Some(choices)
    };
    let report = ReportTarget::Folder {
        dir: settings.reports_dir.clone(),
        name: format!(
            "import-{}-{}.csv",
            settings.kind.name(),
            chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f")
        ),
    };
    let run = ImportRun {
        kind: &settings.kind,
        team_id: settings.team_id,
        chunk: settings.chunk,
        columns: columns.as_deref(),
        tags: &settings.tags,
        source: settings.source.as_deref(),
    };
    let mut progress = TerminalProgress::new(settings.progress_bar, size);
    let listening = tokio::spawn(stop_on_signal(progress.stop.clone()));
    let imported = import_sheet(destination, user, run, sheet, report, &mut progress).await;
    listening.abort();
    if let Some(bar) = progress.bar {
        bar.finish_and_clear();
    }
    let (summary, report) = imported.map_err(|stopped| match stopped {
        ImportStopped::Import(cause) => cause.context(settings.file.display().to_string()),
        ImportStopped::Report(cause) => cause,
    })?;
    let report = match report {
        ReportOutput::File(path) => Some(path),
        ReportOutput::None | ReportOutput::Memory(_) => None,
    };
    Ok((summary, report))
}

/// SIGINT (Ctrl-C) or SIGTERM asks the import to stop after the chunk being stored, so that it
/// ends with its summary and report rather than killed halfway through a chunk.
async fn stop_on_signal(stop: Arc<AtomicBool>) {
    let interrupted = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let terminated = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => term.recv().await,
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminated = std::future::pending::<Option<()>>();
    tokio::select! {
        _ = interrupted => {}
        _ = terminated => {}
    }
    stop.store(true, Ordering::SeqCst);
    eprintln!("leadhub: stopping once the rows being stored are settled");
}

/// The CLI's progress: a bar on a terminal, else a line on stderr every 5 seconds.
struct TerminalProgress {
    bar: Option<ProgressBar>,
    size: u64,
    last_note: Instant,
    /// Set by a signal: the import ends after the chunk being stored.
    stop: Arc<AtomicBool>,
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
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

#[async_trait]
impl ImportProgress for TerminalProgress {
    async fn chunk_done(&mut self, done: u64, summary: &ImportSummary) -> bool {
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
        !self.stop.load(Ordering::SeqCst)
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
