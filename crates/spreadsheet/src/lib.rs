//! Spreadsheet files people upload or import: encodings detected and decoded (`encoding`), CSV read row by
//! row so an undecodable row is rejected alone (`sheet`), and the formula-safe CSV cells (`cell`) and
//! import report (`report`) leadhub writes, and a file's run through the import (`import`), the
//! same for the CLI and the uploads. The import use case itself is the domain's
//! (`leadhub_domain::import`); this crate is its file adapter.
#![forbid(unsafe_code)]

pub mod cell;
pub mod encoding;
pub mod import;
pub mod report;
pub mod sheet;

pub use cell::defuse_formula;
pub use import::{import_sheet, ImportStopped};
pub use report::{CsvReport, ReportOutput, ReportTarget};
pub use sheet::CsvSheet;
