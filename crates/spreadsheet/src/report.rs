//! An import's report as CSV: `row, column, value, code, message`, then the file's own columns. A rejected
//! row carries its cells (fix them in the report and import it again: the report's columns are ignored
//! then); a warning names the cell. Every cell is formula-safe. The CLI writes it to a private file; an
//! upload keeps it in memory and stores it with the upload.
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use leadhub_domain::import::{ImportReport, ReportLine};

use crate::cell::defuse_formula;

/// The report's own columns, before the file's.
pub const REPORT_HEADER: [&str; 5] = ["row", "column", "value", "code", "message"];

/// Where a report goes.
pub enum ReportTarget {
    /// A file named `name` in `dir` (created with the first line).
    Folder { dir: PathBuf, name: String },
    /// Bytes returned by `finish`.
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

/// A report, written line by line as the import goes.
pub struct CsvReport {
    target: ReportTarget,
    header: Vec<String>,
    writer: Option<csv::Writer<Sink>>,
}

impl CsvReport {
    /// A report for a file whose header is `header`.
    pub fn new(target: ReportTarget, header: Vec<String>) -> CsvReport {
        CsvReport {
            target,
            header,
            writer: None,
        }
    }

    fn writer(&mut self) -> anyhow::Result<&mut csv::Writer<Sink>> {
        if self.writer.is_none() {
            let sink = match &self.target {
                ReportTarget::Folder { dir, name } => {
                    Sink::File(create_private_file(dir, &dir.join(name))?)
                }
                ReportTarget::Memory => Sink::Memory(Vec::new()),
            };
            // Every line has as many cells as the header, however wide its row was.
            let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(sink);
            let header = REPORT_HEADER
                .iter()
                .map(|h| (*h).into())
                .chain(self.header.iter().map(|h| defuse_formula(h)));
            writer.write_record(header.map(|c| c.into_owned()))?;
            self.writer = Some(writer);
        }
        self.writer.as_mut().context("the report is not open")
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

impl ImportReport for CsvReport {
    fn write(&mut self, line: &ReportLine) -> anyhow::Result<()> {
        let width = self.header.len();
        let row = line.row.to_string();
        let own = [
            row.as_str(),
            &line.column,
            &line.value,
            &line.code,
            &line.message,
        ];
        let cells: Vec<String> = own
            .into_iter()
            .map(|c| defuse_formula(c).into_owned())
            .chain(line.cells.iter().map(|c| defuse_formula(c).into_owned()))
            .collect();
        let writer = self.writer()?;
        // A warning line has no cells of its own: it is padded to the header's width, so every line of
        // the report has the same number of fields (a CSV reader may insist on it).
        let pad = (REPORT_HEADER.len() + width).saturating_sub(cells.len());
        writer.write_record(
            cells
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat_n("", pad)),
        )?;
        Ok(())
    }
}

/// Creates `path` (and its folder `dir` when missing) readable by this user only: the report holds the
/// rows' personal data. A folder that exists keeps its mode.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(row: u64, column: &str, value: &str, code: &str, cells: &[&str]) -> ReportLine {
        ReportLine {
            row,
            column: column.into(),
            value: value.into(),
            code: code.into(),
            message: "why".into(),
            cells: cells.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    #[test]
    fn lines_are_formula_safe_and_as_wide_as_the_header() {
        let mut report =
            CsvReport::new(ReportTarget::Memory, vec!["address".into(), "=bad".into()]);
        report
            .write(&line(2, "", "", "shifted_row", &["1 Main St", "=1+1", "x"]))
            .unwrap();
        report
            .write(&line(3, "phone", "+15125550100", "invalid_phone", &[]))
            .unwrap();
        let ReportOutput::Memory(bytes) = report.finish().unwrap() else {
            panic!("memory")
        };
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(
            text,
            "row,column,value,code,message,address,'=bad\n\
             2,,,shifted_row,why,1 Main St,'=1+1,x\n\
             3,phone,+15125550100,invalid_phone,why,,\n"
        );
    }

    #[test]
    fn nothing_written_leaves_no_report() {
        let report = CsvReport::new(ReportTarget::Memory, vec!["a".into()]);
        assert!(matches!(report.finish().unwrap(), ReportOutput::None));
    }
}
