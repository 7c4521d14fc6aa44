//! `leadhub import leads|businesses FILE.csv`: a file on disk through `import::import_from`, its
//! report written to a private file under `<data dir>/reports/`, progress on the terminal.
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressStyle};

use leadhub_domain::user::User;

use crate::import::{
    import_from, ImportKind, ImportProgress, ImportRun, ImportServices, ImportSource, ImportSummary,
};
use crate::import_report::ReportTarget;

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

/// Streams `settings.file` through the services as `user` (the CLI).
pub async fn import_csv(
    services: ImportServices<'_>,
    user: &User,
    settings: &ImportSettings,
) -> anyhow::Result<ImportSummary> {
    let file = File::open(&settings.file)
        .with_context(|| format!("cannot open {}", settings.file.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let source = ImportSource {
        reader: file,
        size,
        name: settings.file.display().to_string(),
    };
    let run = ImportRun {
        kind: &settings.kind,
        team_id: settings.team_id,
        chunk: settings.chunk,
        report: ReportTarget::Folder {
            dir: settings.reports_dir.clone(),
            name: format!(
                "import-{}-{}.csv",
                settings.kind.name(),
                chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f")
            ),
        },
    };
    let mut progress = TerminalProgress::new(settings.progress_bar, size);
    let summary = import_from(services, user, source, run, &mut progress).await;
    if let Some(bar) = progress.bar {
        bar.finish_and_clear();
    }
    let summary = summary?;
    if !summary.unknown_columns.is_empty() {
        eprintln!(
            "leadhub: ignored unknown column(s): {}",
            summary.unknown_columns.join(", ")
        );
    }
    Ok(summary)
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
                    "leadhub: {} rows ({}%), created {}, updated {}, skipped {}, rejected {}",
                    summary.rows,
                    (done * 100).checked_div(self.size).unwrap_or(100),
                    summary.created,
                    summary.updated,
                    summary.skipped,
                    summary.rejected
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
