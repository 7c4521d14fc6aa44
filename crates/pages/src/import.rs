//! The pages' uploads: whether an uploaded file (CSV or an Excel workbook) can be imported at all,
//! and whether its columns need a person's choice first, judged with the spreadsheet adapter
//! (`leadhub_spreadsheet`) before it is stored; and what the columns step shows of a stored file.
//! The import itself is the CLI's run (`leadhub_spreadsheet::import_sheet`), in the upload job
//! (`upload_import`).
use std::io::Cursor;

use leadhub_domain::import::{map_header, ColumnMap, ReadRow, SheetRows};
use leadhub_spreadsheet::{open_sheet, Sheet};

pub use leadhub_domain::import::{ImportKind, DEFAULT_CHUNK};

/// What an uploaded file that can be imported needs before its import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileCheck {
    /// Its header names every column: import it.
    Ready,
    /// Some header names no field of ours, or names one only as a guess: ask which field each
    /// column feeds.
    ChooseColumns,
}

/// Whether an uploaded file can be imported; Err: why not, as a sentence for the page. The rows
/// are judged by the import itself, as for the CLI.
pub fn check_file(bytes: &[u8], kind: &ImportKind) -> Result<FileCheck, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("The file is empty.".into());
    }
    let mut sheet = opened(bytes)?;
    // In a CSV file NUL bytes are text only in UTF-16; anywhere else they mean a binary file.
    if let Sheet::Csv(csv) = &sheet {
        if bytes.contains(&0) && !csv.is_utf16() {
            return Err(
                "This file cannot be imported: neither a CSV file nor an Excel workbook (.xlsx): it holds binary data."
                    .into(),
            );
        }
    }
    let check = match map_header(kind, &mut sheet) {
        Ok(map) if map.unsure() => FileCheck::ChooseColumns,
        Ok(_) => FileCheck::Ready,
        // A header further down, or another sheet of a workbook, is for the person to fix in
        // the file: choosing fields for the wrong row's cells would import nonsense.
        Err(no) if no.layout => return Err(format!("The file has {}.", no.problem)),
        // No header we know: the person says what each column is. The rows read looking for a
        // header further down are gone, so the rows are looked for from the top again.
        Err(_) => {
            sheet = opened(bytes)?;
            FileCheck::ChooseColumns
        }
    };
    loop {
        match sheet.next_row() {
            Ok(Some(ReadRow::Row(row))) if row.cells.iter().all(|c| c.trim().is_empty()) => {}
            Ok(Some(_)) => return Ok(check),
            Ok(None) => return Err("The file has a header but no rows.".into()),
            Err(e) => return Err(format!("This file cannot be imported: {e:#}.")),
        }
    }
}

fn opened(bytes: &[u8]) -> Result<Sheet, String> {
    open_sheet(Cursor::new(bytes.to_vec()))
        .map_err(|e| format!("This file cannot be imported: {e:#}."))
}

/// How many rows the columns step shows of each column.
pub const SAMPLE_ROWS: usize = 3;

/// One column of a stored file as the columns step shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ColumnPreview {
    pub header: String,
    /// Its first non-blank cells, up to `SAMPLE_ROWS`.
    pub samples: Vec<String>,
    /// The field its header names, if any: what the form offers first.
    pub field: Option<&'static str>,
    /// Its header names no field, or one only as a guess: the step asks about it first.
    pub asked: bool,
    /// The header of the phone column whose numbers it flags do not call (`number_flags`).
    pub flags: Option<String>,
}

/// The header row of a stored file with a few cells of each column, and the field each header
/// names; Err: why the file cannot be read (it was read when it was uploaded, so only a file
/// changed since).
pub fn preview(bytes: &[u8], kind: &ImportKind) -> Result<Vec<ColumnPreview>, String> {
    let mut sheet = opened(bytes)?;
    let headers = sheet.header();
    let map = ColumnMap::read(kind, &headers);
    let mut columns: Vec<ColumnPreview> = headers
        .into_iter()
        .enumerate()
        .map(|(i, header)| ColumnPreview {
            header,
            samples: Vec::new(),
            field: map.feeds(i),
            asked: map.asks_about(i),
            flags: map.flagged_phone(i).map(str::to_owned),
        })
        .collect();
    // Rows are read until each column has its samples, or a bounded number were read.
    for _ in 0..SAMPLE_ROWS * 20 {
        let row = match sheet.next_row() {
            Ok(Some(ReadRow::Row(row))) => row,
            Ok(Some(ReadRow::Unreadable { .. })) => continue,
            Ok(None) | Err(_) => break,
        };
        for (column, cell) in columns.iter_mut().zip(row.cells) {
            if column.samples.len() < SAMPLE_ROWS && !cell.trim().is_empty() {
                column.samples.push(cell);
            }
        }
        if columns.iter().all(|c| c.samples.len() == SAMPLE_ROWS) {
            break;
        }
    }
    Ok(columns)
}

/// The header row of a stored file, as the import reads it.
pub fn headers(bytes: &[u8]) -> Result<Vec<String>, String> {
    Ok(opened(bytes)?.header())
}
