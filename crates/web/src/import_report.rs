//! The reject report of an import: the rejected rows with their line and reason, as CSV, every
//! cell formula-defused. The CLI writes it to a private file; an upload keeps it in memory and
//! stores it with the upload.
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use csv::StringRecord;

use crate::csv_cell::defuse_formula;

/// Where a report goes.
pub enum ReportTarget {
    /// A file named `name` in `dir` (created on the first rejected row).
    Folder { dir: PathBuf, name: String },
    /// Bytes returned with the summary.
    Memory,
}

/// What a finished report left behind.
pub enum ReportOutput {
    None,
    File(PathBuf),
    Memory(Vec<u8>),
}

enum Sink {
    File(File),
    Memory(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Memory(v) => v.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Memory(_) => Ok(()),
        }
    }
}

/// Rejected rows, written as they come.
pub struct Report {
    target: ReportTarget,
    header: StringRecord,
    writer: Option<csv::Writer<Sink>>,
}

impl Report {
    pub fn new(target: ReportTarget, header: StringRecord) -> Report {
        Report {
            target,
            header,
            writer: None,
        }
    }

    /// Writes one rejected row; every cell from the file is defused, as a spreadsheet opens it.
    pub fn reject(&mut self, line: u64, reason: &str, record: &StringRecord) -> anyhow::Result<()> {
        if self.writer.is_none() {
            let sink = match &self.target {
                ReportTarget::Folder { dir, name } => {
                    Sink::File(create_private_file(dir, &dir.join(name))?)
                }
                ReportTarget::Memory => Sink::Memory(Vec::new()),
            };
            let mut writer = csv::Writer::from_writer(sink);
            let mut header = vec!["row".into(), "reason".into()];
            header.extend(self.header.iter().map(defuse_formula));
            writer.write_record(header.iter().map(|cell| cell.as_bytes()))?;
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

    pub fn finish(self) -> anyhow::Result<ReportOutput> {
        let Some(writer) = self.writer else {
            return Ok(ReportOutput::None);
        };
        let sink = writer
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write the report: {}", e.error()))?;
        Ok(match (sink, self.target) {
            (Sink::Memory(bytes), _) => ReportOutput::Memory(bytes),
            (Sink::File(_), ReportTarget::Folder { dir, name }) => {
                ReportOutput::File(dir.join(name))
            }
            (Sink::File(_), ReportTarget::Memory) => ReportOutput::None,
        })
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
