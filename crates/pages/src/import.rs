//! The pages' uploads: whether an uploaded file (CSV or an Excel workbook) can be imported at all, judged with the
//! spreadsheet adapter (`leadhub_spreadsheet`) before it is stored. The import itself is the CLI's
//! run (`leadhub_spreadsheet::import_sheet`), in the upload job (`upload_import`).
use std::io::Cursor;

use leadhub_domain::import::{map_header, ReadRow, SheetRows};
use leadhub_spreadsheet::{open_sheet, Sheet};

pub use leadhub_domain::import::{ImportKind, DEFAULT_CHUNK};

/// Why an uploaded file cannot be imported at all, as a sentence for the page; `None`: it can. The
/// rows are judged by the import itself, as for the CLI.
pub fn refuse_file(bytes: &[u8], kind: &ImportKind) -> Option<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("The file is empty.".into());
    }
    let mut sheet = match open_sheet(Cursor::new(bytes.to_vec())) {
        Ok(sheet) => sheet,
        Err(e) => return Some(format!("This file cannot be imported: {e:#}.")),
    };
    // In a CSV file NUL bytes are text only in UTF-16; anywhere else they mean a binary file.
    if let Sheet::Csv(csv) = &sheet {
        if bytes.contains(&0) && !csv.encoding().starts_with("UTF-16") {
            return Some(
                "This is neither a CSV file nor an Excel workbook (.xlsx): it holds binary data."
                    .into(),
            );
        }
    }
    if let Err(problem) = map_header(kind, &mut sheet) {
        return Some(format!("The file has {problem}."));
    }
    loop {
        match sheet.next_row() {
            Ok(Some(ReadRow::Row(row))) if row.cells.iter().all(|c| c.trim().is_empty()) => {}
            Ok(Some(_)) => return None,
            Ok(None) => return Some("The file has a header but no rows.".into()),
            Err(e) => return Some(format!("This file cannot be imported: {e:#}.")),
        }
    }
}
