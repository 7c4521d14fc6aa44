//! Cells of the CSV files leadhub writes, made safe to open in a spreadsheet (the rule lives with the
//! spreadsheet adapter, which the import report shares).
pub use leadhub_spreadsheet::cell::defuse_formula;
