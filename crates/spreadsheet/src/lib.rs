//! Spreadsheet files people upload or import: a file opened by what it holds (`open`), CSV text in
//! the encoding `encoding` detects, its cells separated as `separator` finds, read row by row so
//! a UTF-8 file's windows-1252 cell is read as such and an undecodable row is rejected alone
//! (`sheet`), an Excel workbook's first worksheet (`workbook`), and the formula-safe CSV cells
//! (`cell`) and import report (`report`) leadhub writes, the Excel workbook of an export
//! (`workbook_export`), and a file's run through the import
//! (`import`), the same for the CLI and the uploads. The import use case itself is the domain's
//! (`leadhub_domain::import`); this crate is its file adapter.
#![forbid(unsafe_code)]

pub mod cell;
pub mod encoding;
pub mod import;
pub mod open;
pub mod report;
mod separator;
pub mod sheet;
pub mod workbook;
pub mod workbook_export;

pub use cell::defuse_formula;
pub use import::{import_sheet, ImportStopped};
pub use open::{open_sheet, Sheet};
pub use report::{CsvReport, ReportOutput, ReportTarget};
pub use sheet::CsvSheet;
pub use workbook::WorkbookSheet;
