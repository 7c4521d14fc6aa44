//! An opened file run through the domain's import use case (`leadhub_domain::import::import`) with
//! its report written by this crate: the one run the CLI (`leadhub import`) and the pages'
//! uploads share. They differ only in where the file comes from, where the report goes, and how
//! progress shows (a terminal bar, or the upload's row).
use leadhub_domain::import::{
    import, ImportDestination, ImportProgress, ImportRun, ImportSummary, SheetRows,
};
use leadhub_domain::user::User;

use crate::open::Sheet;
use crate::report::{CsvReport, ReportOutput, ReportTarget};

/// Why an import stopped, by stage, so that each caller can say it in its own words (the CLI
/// names the file of an import that stopped).
#[derive(Debug)]
pub enum ImportStopped {
    /// The import itself: no column of ours, the file unreadable further on, a run the
    /// destination refused (`leadhub_domain::import::import`).
    Import(anyhow::Error),
    /// The report could not be finished after every row was imported.
    Report(anyhow::Error),
}

impl ImportStopped {
    /// The cause, whichever stage it came from.
    pub fn into_cause(self) -> anyhow::Error {
        match self {
            ImportStopped::Import(cause) | ImportStopped::Report(cause) => cause,
        }
    }
}

/// Imports every row of `sheet` as `user` into `destination`, writing the report to `report`;
/// the summary and what the report left.
pub async fn import_sheet(
    destination: &dyn ImportDestination,
    user: &User,
    run: ImportRun<'_>,
    mut sheet: Sheet,
    report: ReportTarget,
    progress: &mut dyn ImportProgress,
) -> Result<(ImportSummary, ReportOutput), ImportStopped> {
    let mut report = CsvReport::new(report, sheet.header());
    let summary = import(destination, user, run, &mut sheet, &mut report, progress)
        .await
        .map_err(ImportStopped::Import)?;
    let report = report.finish().map_err(ImportStopped::Report)?;
    Ok((summary, report))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use async_trait::async_trait;
    use leadhub_domain::business::{ImportOutcome, ImportRequest};
    use leadhub_domain::import::ImportKind;
    use leadhub_domain::lead::work::{ImportedWork, WorkSet};
    use leadhub_domain::submission::{ElementOutcome, SubmissionRequest};

    use super::*;

    /// A destination no row may reach: the rows of these files are rejected as read.
    struct Nowhere;

    #[async_trait]
    impl ImportDestination for Nowhere {
        async fn submit_leads(
            &self,
            _: &User,
            _: Vec<SubmissionRequest>,
            _: Option<i64>,
        ) -> anyhow::Result<Vec<ElementOutcome>> {
            anyhow::bail!("no row reaches the destination")
        }

        async fn import_businesses(
            &self,
            _: &User,
            _: ImportRequest,
        ) -> anyhow::Result<ImportOutcome> {
            anyhow::bail!("no row reaches the destination")
        }

        async fn add_notes(&self, _: &User, _: Vec<(i64, String)>) -> anyhow::Result<u64> {
            anyhow::bail!("no row reaches the destination")
        }

        async fn set_work(
            &self,
            _: &User,
            _: Vec<(i64, ImportedWork)>,
        ) -> anyhow::Result<Vec<WorkSet>> {
            anyhow::bail!("no row reaches the destination")
        }
    }

    struct Quiet;

    #[async_trait]
    impl ImportProgress for Quiet {
        async fn chunk_done(&mut self, _: u64, _: &ImportSummary) -> bool {
            true
        }
    }

    async fn import_leads(file: &str) -> Result<(ImportSummary, ReportOutput), ImportStopped> {
        let user = User {
            id: 1,
            user_id: "usr_1".into(),
            email: "ada@example.com".into(),
            first_name: None,
            last_name: None,
            is_admin: true,
            created_at: Default::default(),
            follow_up_digest: true,
            utc_offset: None,
        };
        let run = ImportRun {
            kind: &ImportKind::Leads,
            team_id: None,
            chunk: 10,
            columns: None,
            tags: &[],
            source: None,
        };
        let sheet = crate::open_sheet(Cursor::new(file.as_bytes().to_vec())).unwrap();
        import_sheet(
            &Nowhere,
            &user,
            run,
            sheet,
            ReportTarget::Memory,
            &mut Quiet,
        )
        .await
    }

    #[tokio::test]
    async fn a_rejected_row_is_counted_and_reported() {
        let (summary, report) = import_leads("address\n1 Main St,shifted\n").await.unwrap();
        assert_eq!((summary.rows, summary.rejected), (1, 1));
        let ReportOutput::Memory(bytes) = report else {
            panic!("a report in memory")
        };
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("row,column,value,code,message,address\n2,,,shifted_row,"));
    }

    #[tokio::test]
    async fn a_file_without_a_column_of_ours_stops_the_import() {
        let Err(ImportStopped::Import(cause)) = import_leads("colour\nred\n").await else {
            panic!("stopped at the import")
        };
        assert!(cause.to_string().starts_with("the file has"), "{cause}");
    }
}
