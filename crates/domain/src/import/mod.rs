//! Importing a spreadsheet of leads or businesses: one use case for the CLI and the browser upload.
//!
//! The file is read by an adapter (`SheetRows`: decoding, CSV); this module maps its header (`columns`),
//! cleans each row's cells into the API's values (`cells`, `rows`; a sheet's totals line, a shifted row
//! and a decimal comma are the file's ways, `reading`), rejects only the rows nothing can be kept of, sends the rest through the API's own services in chunks (`ImportDestination`), and writes one
//! report line per rejected row and per warning (`ImportReport`) while counting what happened
//! (`ImportSummary`).
use std::collections::HashMap;

use async_trait::async_trait;

use crate::business::{ImportOutcome, ImportRequest, RelationshipType};
use crate::lead::work::{ImportedWork, LeadWork, WorkSet};
use crate::submission::{ElementOutcome, SubmissionRequest};
use crate::user::User;

pub mod cells;
pub mod columns;
mod reading;
pub mod rows;
mod service;
#[cfg(test)]
mod service_tests;
mod street_columns;
mod summary;
mod verbatim;

pub use columns::{
    choose_by_header, map_header, ColumnMap, NoHeader, ASSIGNEE, BUSINESS_ALIASES, FOLLOW_UP,
    FULL_NAME, LEAD_ALIASES, LEAD_STATUS, NOTES, REPORT_COLUMNS,
};
pub use service::{import, ImportRun, ImportServices, DEFAULT_CHUNK};
pub use summary::ImportSummary;

/// The source a person gives a whole file of leads (the upload form's "Source of these leads",
/// `--source`): the lead channel, in the form a lead keeps it (`Storm List` -> `storm_list`);
/// None when blank. Err (for a person) when too long or without a letter or digit.
pub fn file_source(given: &str) -> Result<Option<String>, String> {
    let given = given.trim();
    if given.is_empty() {
        return Ok(None);
    }
    let limit = crate::lead::fields::max_len("source");
    if given.chars().count() > limit {
        return Err(format!("the source is longer than {limit} characters"));
    }
    crate::lead::search::source_slug(given)
        .map(Some)
        .ok_or_else(|| "the source has no letter or digit (give one such as storm list)".to_owned())
}

/// What to import.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportKind {
    Leads,
    Businesses {
        relationship_type: RelationshipType,
        skip_duplicates: bool,
        auto_categorize: bool,
    },
}

impl ImportKind {
    pub fn name(&self) -> &'static str {
        match self {
            ImportKind::Leads => "leads",
            ImportKind::Businesses { .. } => "businesses",
        }
    }

    /// The field names a file's columns may carry, in order.
    pub fn columns(&self) -> Vec<&'static str> {
        self.aliases().iter().map(|(field, _)| *field).collect()
    }

    /// What a person may choose for a column (the upload's columns step, the CLI's `--column`):
    /// the fields, and for leads a phone or e-mail slot each row leaves empty and a line of the
    /// row's note, which any number of columns may feed (`ColumnMap::spares`, `note_lines`).
    pub fn choices(&self) -> Vec<&'static str> {
        let mut choices = self.columns();
        if matches!(self, ImportKind::Leads) {
            choices.extend(columns::SPARES.map(|(name, _)| name));
            choices.push(columns::NOTE_LINE);
        }
        choices
    }

    /// Each field with the other header forms that name it.
    pub fn aliases(&self) -> &'static [(&'static str, &'static [&'static str])] {
        match self {
            ImportKind::Leads => LEAD_ALIASES,
            ImportKind::Businesses { .. } => BUSINESS_ALIASES,
        }
    }
}

/// One data row of a file: its spreadsheet row number (the header is row 1) and its cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SheetRow {
    pub row: u64,
    pub cells: Vec<String>,
    /// The cells that were not text in the file's encoding and were read in another, each as
    /// `(column, encoding)`: a row pasted from Excel on Windows into a UTF-8 file is
    /// windows-1252. Each gets a warning (`recoded_cell`). Empty for nearly every row.
    pub recoded: Vec<(usize, &'static str)>,
}

/// A row as read: its cells, or why it could not be read (it is rejected; reading goes on) with
/// its cells as far as they could be read, for the report.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadRow {
    Row(SheetRow),
    Unreadable {
        row: u64,
        reason: String,
        cells: Vec<String>,
    },
}

/// The rows of an opened spreadsheet file (an adapter decodes and parses it).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait SheetRows: Send {
    /// The header row's cells.
    fn header(&self) -> Vec<String>;
    /// How the file was read, for the summary: a text file's encoding (`UTF-8`, `UTF-16LE`,
    /// `windows-1252`, ...) and a separator other than the comma (`UTF-8, columns separated by
    /// tabs`), or a workbook's sheet.
    fn encoding(&self) -> String;
    /// The next row, or None at the end. Err only when the file itself cannot be read any further.
    fn next_row(&mut self) -> anyhow::Result<Option<ReadRow>>;
    /// Bytes of the file read so far, for progress.
    fn bytes_read(&self) -> u64;
    /// The parts of the file not read (a workbook's other worksheets), named when the header names
    /// no column of ours.
    fn unread_sheets(&self) -> Vec<String> {
        Vec::new()
    }
    /// The character between a text file's cells (`,`, `;`, tab, `|`); None for a workbook,
    /// whose cells are cells. A semicolon says how numbers are written (`DecimalMark`), and only
    /// a separator can shift a row's cells (`reading`).
    fn separator(&self) -> Option<char> {
        None
    }
}

/// One line of an import's report: a rejected row (`column` empty, `cells` the row as read) or a warning
/// about one cell of a row that was imported.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportLine {
    pub row: u64,
    pub column: String,
    pub value: String,
    pub code: String,
    pub message: String,
    pub cells: Vec<String>,
}

/// Where an import's report goes (an adapter writes it, formula-safe).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait ImportReport: Send {
    fn write(&mut self, line: &ReportLine) -> anyhow::Result<()>;
}

/// Told how an import goes, after each chunk.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ImportProgress: Send {
    /// Answers whether to go on: false ends the import after this chunk (the person running
    /// it asked it to stop); what the rows so far stored stays.
    async fn chunk_done(&mut self, bytes_done: u64, summary: &ImportSummary) -> bool;
}

/// Where imported rows go: the API's own services (`ImportServices`), or a mock in tests.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ImportDestination: Send + Sync {
    /// Leads through the submission pipeline, one batch; the outcome of each request in order.
    async fn submit_leads(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        team_id: Option<i64>,
    ) -> anyhow::Result<Vec<ElementOutcome>>;

    /// Businesses as `POST /api/v1/lead-sources/import` takes them.
    async fn import_businesses(
        &self,
        user: &User,
        request: ImportRequest,
    ) -> anyhow::Result<ImportOutcome>;

    /// The notes of stored lead rows, each `(lead, text)`; how many were added (a text the lead
    /// has already is not added again).
    async fn add_notes(&self, user: &User, notes: Vec<(i64, String)>) -> anyhow::Result<u64>;

    /// The working state of the leads rows created; for each in order, how much was set.
    async fn set_work(
        &self,
        user: &User,
        work: Vec<(i64, ImportedWork)>,
    ) -> anyhow::Result<Vec<WorkSet>>;

    /// The working state of `leads` (that rows merged into) as it is now, by lead id: what the
    /// rows' status, owner and follow-up cells, which set new leads only, are compared with.
    async fn working_state(
        &self,
        user: &User,
        leads: Vec<i64>,
    ) -> anyhow::Result<HashMap<i64, LeadWork>>;
}

#[cfg(test)]
mod tests {
    use super::file_source;

    #[test]
    fn a_files_source_is_kept_as_a_lead_keeps_it() {
        assert_eq!(
            file_source(" Storm List "),
            Ok(Some("storm_list".to_owned()))
        );
        assert_eq!(file_source("referral"), Ok(Some("referral".to_owned())));
        assert_eq!(file_source("  "), Ok(None));
        assert!(file_source("--")
            .unwrap_err()
            .contains("no letter or digit"));
        let long = "s".repeat(256);
        assert!(file_source(&long).unwrap_err().contains("longer than 255"));
    }
}
