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
    use leadhub_domain::lead::record::LeadAction;
    use leadhub_domain::lead::work::{ImportedWork, LeadWork, WorkSet};
    use leadhub_domain::submission::{ElementOutcome, SubmissionRequest, SubmissionStatus};

    use super::*;

    /// A destination that keeps the leads it is sent and creates each.
    #[derive(Default)]
    struct Recording {
        leads: std::sync::Mutex<Vec<SubmissionRequest>>,
    }

    #[async_trait]
    impl ImportDestination for Recording {
        async fn submit_leads(
            &self,
            _: &User,
            requests: Vec<SubmissionRequest>,
            _: Option<i64>,
        ) -> anyhow::Result<Vec<ElementOutcome>> {
            let mut leads = self.leads.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
            let outcomes = (0..requests.len())
                .map(|index| {
                    let id = (leads.len() + index + 1) as i64;
                    ElementOutcome {
                        index,
                        submission_id: id,
                        status: SubmissionStatus::Completed,
                        lead_id: Some(id),
                        action: Some(LeadAction::Created),
                        warnings: Vec::new(),
                        error: None,
                        lead_changed: true,
                    }
                })
                .collect();
            leads.extend(requests);
            Ok(outcomes)
        }

        async fn import_businesses(
            &self,
            _: &User,
            _: ImportRequest,
        ) -> anyhow::Result<ImportOutcome> {
            anyhow::bail!("no business here")
        }

        async fn add_notes(&self, _: &User, notes: Vec<(i64, String)>) -> anyhow::Result<u64> {
            Ok(notes.len() as u64)
        }

        async fn set_work(
            &self,
            _: &User,
            work: Vec<(i64, ImportedWork)>,
        ) -> anyhow::Result<Vec<WorkSet>> {
            Ok(vec![WorkSet::All; work.len()])
        }

        async fn working_state(
            &self,
            _: &User,
            _: Vec<i64>,
        ) -> anyhow::Result<std::collections::HashMap<i64, LeadWork>> {
            Ok(Default::default())
        }
    }

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

        async fn working_state(
            &self,
            _: &User,
            _: Vec<i64>,
        ) -> anyhow::Result<std::collections::HashMap<i64, LeadWork>> {
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

    /// An administrator importing leads in chunks of 10, with no team, tags or source.
    fn ada_importing_leads() -> (User, ImportRun<'static>) {
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
        (user, run)
    }

    async fn import_leads(file: &str) -> Result<(ImportSummary, ReportOutput), ImportStopped> {
        let (user, run) = ada_importing_leads();
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

    /// Imports the leads of `file` into a `Recording`: the summary, the report and the leads sent.
    async fn import_file(file: &[u8]) -> (ImportSummary, String, Vec<SubmissionRequest>) {
        let (user, run) = ada_importing_leads();
        let destination = Recording::default();
        let sheet = crate::open_sheet(Cursor::new(file.to_vec())).unwrap();
        let report = ReportTarget::Memory;
        let (summary, report) = import_sheet(&destination, &user, run, sheet, report, &mut Quiet)
            .await
            .unwrap();
        // No line, no report.
        let report = match report {
            ReportOutput::Memory(report) => report,
            ReportOutput::None => Vec::new(),
            ReportOutput::File(path) => panic!("a report in memory, not {path:?}"),
        };
        let leads = destination.leads.into_inner().unwrap();
        (summary, String::from_utf8(report).unwrap(), leads)
    }

    /// Each report line's row, column, value and code.
    fn report_lines(report: &str) -> Vec<[String; 4]> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(report.as_bytes());
        reader
            .records()
            .map(|line| {
                let line = line.unwrap();
                [0, 1, 2, 3].map(|i| line[i].to_owned())
            })
            .collect()
    }

    #[tokio::test]
    async fn a_row_shifted_by_an_unquoted_comma_is_rejected_though_its_last_cell_is_empty() {
        let file = b"Owner,Address,City,State,Zip,Phone,Notes\r\n\
            Smith, Mary,1301 Robin Rd,Austin,TX,78703,512-555-0101,\r\n\
            Jones, Al,1302 Robin Rd,Austin,TX,78703,512-555-0102,gate code\r\n\
            Mary Lee,1303 Robin Rd,Austin,TX,78703,512-555-0103,\r\n\
            Roe, Ann,1304 Robin Rd,Austin,TX,78703,512-555-0104,\r\n";
        let (summary, report, leads) = import_file(file).await;
        assert_eq!((summary.rows, summary.rejected, summary.created), (4, 3, 1));
        let codes: Vec<_> = report_lines(&report)
            .into_iter()
            .map(|[row, _, _, code]| (row, code))
            .collect();
        let shifted = |row: &str| (row.to_owned(), "shifted_row".to_owned());
        assert_eq!(codes, [shifted("2"), shifted("3"), shifted("5")]);
        assert!(report.contains("'Austin' as State"), "{report}");
        // Row 5 fits its columns as shifted, but is wider than the row before it.
        assert!(report.contains("the 7 of most rows before it"), "{report}");
        assert_eq!(leads.len(), 1);
        assert_eq!(leads[0].fields.address.as_deref(), Some("1303 Robin Rd"));
    }

    #[tokio::test]
    async fn rows_that_end_with_a_separator_the_header_lacks_are_imported() {
        let file = b"Owner,Address,City,State,Zip\n\
            Mary Smith,1301 Robin Rd,Austin,TX,78703,\n\
            Al Jones,1302 Robin Rd,Austin,Lone Star,78703,\n\
            Ann Roe,1303 Robin Rd,Austin,TX,78703,,\n";
        let (summary, report, leads) = import_file(file).await;
        // A state that is no state is dropped as in any file; a row wider still is shifted.
        assert_eq!((summary.created, summary.rejected), (2, 1), "{report}");
        let lines = report_lines(&report);
        assert_eq!(
            lines[0][1..],
            ["State", "Lone Star", "invalid_state"].map(String::from)
        );
        assert_eq!(lines[1][3], "shifted_row");
        let cities: Vec<_> = leads.iter().map(|l| l.fields.city.as_deref()).collect();
        assert_eq!(cities, [Some("Austin"), Some("Austin")]);
    }

    #[tokio::test]
    async fn a_windows_1252_row_in_a_utf8_file_is_imported_with_a_warning() {
        let file = b"Owner,Address,City,State,Zip\n\
            Jos\xC3\xA9 Utf,801 Lark St,Austin,TX,78703\n\
            Ren\xE9e Latin,802 Lark St,Austin,TX,78703\n";
        let (summary, report, leads) = import_file(file).await;
        assert_eq!((summary.created, summary.rejected), (2, 0), "{report}");
        assert_eq!(leads[1].fields.first_name.as_deref(), Some("Renée"));
        let lines = report_lines(&report);
        let want = ["3", "Owner", "Renée Latin", "recoded_cell"].map(String::from);
        assert_eq!(lines, [want]);
        assert!(report.contains("read as windows-1252"), "{report}");
    }

    #[tokio::test]
    async fn a_semicolon_files_numbers_have_a_decimal_comma() {
        let file = b"Name;Street;City;State;ZIP;Lot Size;Latitude;Longitude\r\n\
            Carla Eu;1501 Dove St;Boston;MA;02134;0,5 acres;42,3611;-71,0601\r\n\
            Dirk Eu;1502 Dove St;Boston;MA;02134;21.780 sqft;42,3612;-71,0602\r\n";
        let (summary, report, leads) = import_file(file).await;
        assert_eq!((summary.created, summary.rejected), (2, 0), "{report}");
        let read: Vec<_> = leads
            .iter()
            .map(|l| {
                let f = &l.fields;
                (f.lot_size.as_deref(), f.latitude, f.longitude)
            })
            .collect();
        assert_eq!(
            read,
            [
                (Some("0.5 acres"), Some(42.3611), Some(-71.0601)),
                (Some("21780 sqft"), Some(42.3612), Some(-71.0602))
            ]
        );
        // The thousands dot could be a decimal point elsewhere: read the file's way, and said.
        let lines = report_lines(&report);
        let want = ["3", "Lot Size", "21.780 sqft", "ambiguous_number"].map(String::from);
        assert_eq!(lines, [want]);
        // A comma file's `21.780` is 21.78, as ever.
        let file = b"Street,Lot Size,Latitude,Longitude\n1 Elm St,21.780 sqft,42.36,-71.06\n";
        let (_, report, leads) = import_file(file).await;
        assert_eq!(leads[0].fields.lot_size.as_deref(), Some("21.780 sqft"));
        assert!(report_lines(&report).is_empty(), "{report}");
    }

    #[tokio::test]
    async fn a_sheets_totals_line_is_reported_not_imported() {
        let file = b"Owner,Address,City,State,Zip,Phone,,,\r\n\
            Carl Stone,401 Birch Ln,Houston,TX,77002,713-555-0401,,,\r\n\
            ,,,,,,,,\r\n\
            Eve Hill,403 Birch Ln,Houston,TX,77002,713-555-0403,,,\r\n\
            Total,,,,,2,,,\r\n";
        let (summary, report, leads) = import_file(file).await;
        assert_eq!((summary.rows, summary.created, summary.rejected), (3, 2, 1));
        let lines = report_lines(&report);
        assert_eq!(lines[0][..], ["5", "", "", "totals_row"].map(String::from));
        assert!(
            report.contains(",Total,,,,,2,"),
            "the line's cells: {report}"
        );
        assert!(leads
            .iter()
            .all(|l| l.fields.first_name.as_deref() != Some("Total")));
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
