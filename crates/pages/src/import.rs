//! The pages' uploads: the glue around the domain's import use case (`leadhub_domain::import`) and the
//! spreadsheet adapter (`leadhub_spreadsheet`) for a file held in memory. The CLI (`leadhub import`,
//! `leadhub_web::import`) reads with the same reader, cleans with the same rules and writes the same
//! report; only where the file comes from and where the report goes differ.
use std::io::Cursor;

use leadhub_domain::import::{
    import, ColumnMap, ImportDestination, ImportProgress, ImportRun, ImportSummary, ReadRow,
    SheetRows,
};
use leadhub_domain::user::User;
use leadhub_spreadsheet::{CsvReport, CsvSheet, ReportOutput, ReportTarget};

pub use leadhub_domain::import::{ImportKind, DEFAULT_CHUNK};

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
