//! Rows written as an Excel workbook (`.xlsx`), for the people who open an export in Excel.
//!
//! A CSV file opened in Excel loses data: Excel reads every cell that looks like a number as one,
//! so the ZIP `02134` shows as `2134` and the phone `+15125550100` as `1.51256E+10`, and saving the
//! sheet again keeps the damage. In a workbook each cell carries its type: text cells stay text
//! (and are never run as formulas, so no apostrophe guard is needed), numbers are numbers.
//!
//! The workbook is written in `rust_xlsxwriter`'s constant-memory mode: a row goes to a temporary
//! file as soon as the next one starts, so memory stays flat however many rows there are, and
//! `finish` zips the parts into any writer as a stream.
use std::io::Write;

use rust_xlsxwriter::{Format, Workbook, Worksheet};

use crate::cell::undo_defuse;

pub use rust_xlsxwriter::XlsxError;

/// Rows in one Excel worksheet, its header row included.
pub const EXCEL_ROWS: u32 = 1_048_576;

/// Columns in one Excel worksheet (A to XFD).
pub const EXCEL_COLUMNS: u16 = 16_384;

/// The most a cell holds in Excel, in UTF-16 code units (what Excel counts as characters).
pub const EXCEL_CELL_CHARS: usize = 32_767;

/// An export being written: a header row, then rows a cell at a time, left to right. A sheet that
/// is full continues on a new one (`Leads (2)`, ...) that starts with the header again.
pub struct WorkbookExport {
    workbook: Workbook,
    name: String,
    header: Vec<String>,
    rows_per_sheet: u32,
    sheets: usize,
    row: u32,
    column: u16,
    cut_cells: u64,
}

impl WorkbookExport {
    /// A workbook whose sheets are called `name` and start with `header`.
    pub fn new(name: &str, header: &[&str]) -> Result<Self, XlsxError> {
        Self::with_rows_per_sheet(name, header, EXCEL_ROWS)
    }

    /// As `new`, with sheets of `rows_per_sheet` rows (header included) instead of Excel's
    /// limit: what tests use to see a sheet fill up without writing a million rows.
    pub fn with_rows_per_sheet(
        name: &str,
        header: &[&str],
        rows_per_sheet: u32,
    ) -> Result<Self, XlsxError> {
        let mut export = WorkbookExport {
            workbook: Workbook::new(),
            name: name.to_owned(),
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows_per_sheet: rows_per_sheet.clamp(2, EXCEL_ROWS),
            sheets: 0,
            row: 0,
            column: 0,
            cut_cells: 0,
        };
        export.add_sheet()?;
        Ok(export)
    }

    /// Starts the next sheet: its name, the header in bold, frozen above the rows, and columns
    /// wide enough for their titles.
    fn add_sheet(&mut self) -> Result<(), XlsxError> {
        let number = self.sheets + 1;
        let name = match number {
            1 => self.name.clone(),
            n => format!("{} ({n})", self.name),
        };
        let bold = Format::new().set_bold();
        let sheet = self.workbook.add_worksheet_with_constant_memory()?;
        sheet.set_name(name)?;
        for (column, title) in (0..EXCEL_COLUMNS).zip(&self.header) {
            // Titles are short; a width of at least 12 keeps dates and phones readable.
            let width = title.chars().count().max(10) + 2;
            sheet.set_column_width(column, u16::try_from(width).unwrap_or(u16::MAX))?;
            sheet.write_string_with_format(0, column, title, &bold)?;
        }
        sheet.set_freeze_panes(1, 0)?;
        self.sheets = number;
        self.row = 1;
        self.column = 0;
        Ok(())
    }

    /// The sheet the next cell goes on (a new one when the current is full), and the cell's row
    /// and column there.
    fn next_cell(&mut self) -> Result<(&mut Worksheet, u32, u16), XlsxError> {
        if self.row >= self.rows_per_sheet {
            self.add_sheet()?;
        }
        let (row, column) = (self.row, self.column);
        let sheet = self.workbook.worksheet_from_index(self.sheets - 1)?;
        Ok((sheet, row, column))
    }

    /// Whether the next cell is within Excel's columns. A cell with a value past them is
    /// dropped (Excel could not open the file otherwise) and counted in `cut_cells`.
    fn within_columns(&mut self, has_value: bool) -> bool {
        let within = self.column < EXCEL_COLUMNS;
        if !within && has_value {
            self.cut_cells += 1;
        }
        within
    }

    /// The next cell, as text. Text over Excel's limit is cut to it; `cut_cells` counts how
    /// often.
    pub fn text(&mut self, value: &str) -> Result<(), XlsxError> {
        if !self.within_columns(!value.is_empty()) {
            return Ok(());
        }
        let value = match fitting_prefix(value) {
            Some(prefix) => {
                self.cut_cells += 1;
                prefix
            }
            None => value,
        };
        if !value.is_empty() {
            let (sheet, row, column) = self.next_cell()?;
            sheet.write_string(row, column, value)?;
        }
        self.column += 1;
        Ok(())
    }

    /// The next cell, as a number. A value that is not finite (Excel has no such number) is
    /// written as its text.
    pub fn number(&mut self, value: f64) -> Result<(), XlsxError> {
        if !value.is_finite() {
            return self.text(&value.to_string());
        }
        if !self.within_columns(true) {
            return Ok(());
        }
        let (sheet, row, column) = self.next_cell()?;
        sheet.write_number(row, column, value)?;
        self.column += 1;
        Ok(())
    }

    /// The next cell, left empty.
    pub fn empty(&mut self) {
        if self.within_columns(false) {
            self.column += 1;
        }
    }

    /// Ends the row: the next cell starts the next one.
    pub fn end_row(&mut self) -> Result<(), XlsxError> {
        // A row may be wholly empty: it still takes its place on the sheet.
        self.next_cell()?;
        self.row += 1;
        self.column = 0;
        Ok(())
    }

    /// How many cells were cut or dropped to fit Excel's limits so far.
    pub fn cut_cells(&self) -> u64 {
        self.cut_cells
    }

    /// Writes the workbook into `out` as it zips it (`out` needs no seeking: a response body's
    /// channel will do). Each sheet's header gets Excel's filter buttons over its rows, so a
    /// list can be narrowed by city or status in Excel at once.
    pub fn finish(mut self, out: impl Write + Send) -> Result<(), XlsxError> {
        if let Some(last_column) = self.header.len().checked_sub(1) {
            // A header wider than Excel's columns has its filter over the columns Excel has.
            let last_column = u16::try_from(last_column)
                .unwrap_or(u16::MAX)
                .min(EXCEL_COLUMNS - 1);
            for sheet in 0..self.sheets {
                let last_row = if sheet + 1 == self.sheets {
                    self.row - 1
                } else {
                    self.rows_per_sheet - 1
                };
                let worksheet = self.workbook.worksheet_from_index(sheet)?;
                worksheet.autofilter(0, 0, last_row, last_column)?;
            }
        }
        self.workbook.save_to_writer(out)
    }
}

/// A CSV file leadhub wrote (an import's report) as a workbook of one sheet called `name`: every
/// cell text, without the formula guard's apostrophe, so its ZIPs and phones survive being fixed
/// in Excel. Rows may be wider than the header, as the report's are.
pub fn csv_as_workbook(csv: &[u8], name: &str, out: impl Write + Send) -> anyhow::Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv);
    let mut records = reader.records();
    let header = records.next().transpose()?.unwrap_or_default();
    let titles: Vec<&str> = header.iter().map(undo_defuse).collect();
    let mut workbook = WorkbookExport::new(name, &titles)?;
    for record in records {
        for cell in record?.iter() {
            workbook.text(undo_defuse(cell))?;
        }
        workbook.end_row()?;
    }
    Ok(workbook.finish(out)?)
}

/// The longest prefix of `value` that fits in an Excel cell, or None when all of it fits.
fn fitting_prefix(value: &str) -> Option<&str> {
    // Each char is one or two UTF-16 units, so a string of at most this many bytes fits.
    if value.len() <= EXCEL_CELL_CHARS {
        return None;
    }
    let mut units = 0;
    for (at, c) in value.char_indices() {
        units += c.len_utf16();
        if units > EXCEL_CELL_CHARS {
            return Some(&value[..at]);
        }
    }
    None
}

#[cfg(test)]
#[path = "workbook_export_tests.rs"]
mod tests;
