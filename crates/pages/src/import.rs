//! The pages' uploads: whether an uploaded file can be imported at all, judged with the
//! spreadsheet adapter (`leadhub_spreadsheet`) before it is stored. The import itself is the CLI's
//! run (`leadhub_spreadsheet::import_sheet`), in the upload job (`upload_import`).
use std::io::Cursor;

use leadhub_domain::import::{ColumnMap, ReadRow, SheetRows};
use leadhub_spreadsheet::CsvSheet;

pub use leadhub_domain::import::{ImportKind, DEFAULT_CHUNK};

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
