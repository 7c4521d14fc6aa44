//! The import use case against mocks: the file (`MockSheetRows`), where rows go
//! (`MockImportDestination`) and the report (`MockImportReport`).
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::*;
use crate::business::{ElementError, ImportOutcome};
use crate::lead::fields::Warning;
use crate::lead::record::LeadAction;
use crate::lead::work::{Assignee, LeadStatus, LeadWork, WorkSet};
use crate::submission::{ElementOutcome, SubmissionStatus};
use crate::test_support::ada;

fn sheet(header: &[&str], rows: Vec<ReadRow>) -> MockSheetRows {
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let rows = Mutex::new(VecDeque::from(rows));
    let mut sheet = MockSheetRows::new();
    sheet.expect_header().return_const(header);
    sheet
        .expect_encoding()
        .return_const("windows-1252".to_owned());
    sheet.expect_bytes_read().return_const(100u64);
    sheet
        .expect_unread_sheets()
        .return_const(Vec::<String>::new());
    sheet.expect_separator().return_const(Some(','));
    sheet
        .expect_next_row()
        .returning(move || Ok(rows.lock().ok().and_then(|mut r| r.pop_front())));
    sheet
}

fn row(n: u64, cells: &[&str]) -> ReadRow {
    ReadRow::Row(SheetRow {
        row: n,
        cells: cells.iter().map(|c| (*c).to_owned()).collect(),
        recoded: Vec::new(),
    })
}

/// A report that keeps its lines.
fn report() -> (MockImportReport, Arc<Mutex<Vec<ReportLine>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = lines.clone();
    let mut report = MockImportReport::new();
    report.expect_write().returning(move |line| {
        kept.lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .push(line.clone());
        Ok(())
    });
    (report, lines)
}

fn progress() -> MockImportProgress {
    let mut p = MockImportProgress::new();
    p.expect_chunk_done().returning(|_, _| true);
    p
}

/// Imports `file` as ada into `destination`, with a report that keeps its lines (returned) and a
/// progress that takes every chunk.
async fn run(
    destination: &MockImportDestination,
    kind: &ImportKind,
    team_id: Option<i64>,
    chunk: usize,
    file: &mut MockSheetRows,
) -> (anyhow::Result<ImportSummary>, Arc<Mutex<Vec<ReportLine>>>) {
    let (mut report, lines) = report();
    let run = ImportRun {
        kind,
        team_id,
        chunk,
        columns: None,
        tags: &[],
        source: None,
    };
    let result = import(destination, &ada(), run, file, &mut report, &mut progress()).await;
    (result, lines)
}

fn outcome(index: usize, action: Option<LeadAction>, warnings: Vec<Warning>) -> ElementOutcome {
    ElementOutcome {
        index,
        submission_id: index as i64 + 1,
        status: SubmissionStatus::Completed,
        lead_id: action.map(|_| 1),
        action,
        warnings,
        error: action.is_none().then(|| "boom".to_owned()),
        lead_changed: matches!(action, Some(LeadAction::Created | LeadAction::Updated)),
    }
}

fn codes(lines: &Arc<Mutex<Vec<ReportLine>>>) -> Vec<(u64, String, String)> {
    lines
        .lock()
        .unwrap()
        .iter()
        .map(|l| (l.row, l.column.clone(), l.code.clone()))
        .collect()
}

#[tokio::test]
async fn every_row_is_imported_or_reported_and_the_summary_counts_it() {
    let mut file = sheet(
        &["Street", "State", "Phone", "Beds", "Notes"],
        vec![
            row(2, &["1 Main St", "Texas", "512-555-0100", "three", "x"]),
            row(3, &["", "", "", "", ""]),
            ReadRow::Unreadable {
                row: 4,
                reason: "not UTF-16LE".into(),
                cells: vec!["\u{fffd}x".into()],
            },
            row(
                5,
                &["2 Main St", "Lone Star", "call me", "3", "y", "shifted"],
            ),
            row(6, &["", "", "", "", "only notes"]),
            row(7, &["3 Main St", "TX", "000-000-0000", "101", ""]),
        ],
    );
    let mut destination = MockImportDestination::new();
    destination
        .expect_submit_leads()
        .withf(|_, requests, team| {
            *team == Some(4)
                && requests.len() == 2
                && requests[0].fields.state.as_deref() == Some("TX")
                && requests[0].fields.bedrooms == Some(3)
                && requests[0].raw_json.contains("\"Notes\":\"x\"")
                && requests[1].fields.bedrooms.is_none()
        })
        .times(1)
        .returning(|_, _, _| {
            Ok(vec![
                outcome(0, Some(LeadAction::Created), Vec::new()),
                outcome(
                    1,
                    Some(LeadAction::Updated),
                    vec![Warning::new("primary_phone", "invalid_phone", "dropped")],
                ),
            ])
        });
    // The first row's note goes on its lead; a row with only a note is no lead (row 6).
    destination
        .expect_add_notes()
        .withf(|_, notes| notes == &[(1, "x".to_owned())])
        .times(1)
        .returning(|_, _| Ok(1));
    let kind = ImportKind::Leads;
    let (summary, lines) = run(&destination, &kind, Some(4), 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!(
        (
            summary.rows,
            summary.created,
            summary.updated,
            summary.rejected,
            summary.warnings,
            summary.notes,
        ),
        (5, 1, 1, 3, 2, 1)
    );
    assert_eq!(summary.encoding, "windows-1252");
    assert!(summary.ignored.is_empty(), "{:?}", summary.ignored);
    assert_eq!(
        codes(&lines),
        [
            (4, "".into(), "unreadable_row".into()),
            (5, "".into(), "shifted_row".into()),
            (6, "".into(), "no_usable_field".into()),
            (7, "Beds".into(), "invalid_number".into()),
            (7, "Phone".into(), "invalid_phone".into()),
        ]
    );
    let line = &lines.lock().unwrap()[4];
    assert_eq!(line.value, "000-000-0000");
    assert_eq!(summary.top_reasons(2)[0].1, 1);
}

#[tokio::test]
async fn notes_that_cannot_be_stored_are_reported_and_the_leads_stay() {
    let mut file = sheet(
        &["Street", "Comments"],
        vec![
            row(2, &["1 Main St", "call after 5"]),
            row(3, &["2 Main St", ""]),
        ],
    );
    let mut destination = MockImportDestination::new();
    destination.expect_submit_leads().returning(|_, _, _| {
        Ok(vec![
            outcome(0, Some(LeadAction::Created), Vec::new()),
            outcome(1, Some(LeadAction::Created), Vec::new()),
        ])
    });
    destination
        .expect_add_notes()
        .times(1)
        .returning(|_, _| Err(anyhow::anyhow!("database is locked")));
    let (summary, lines) = run(&destination, &ImportKind::Leads, None, 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!(
        (summary.created, summary.notes, summary.warnings),
        (2, 0, 1)
    );
    assert_eq!(
        codes(&lines),
        [(2, "Comments".into(), "note_not_added".into())]
    );
    let line = &lines.lock().unwrap()[0];
    assert_eq!(line.value, "call after 5");
    assert!(
        line.message.contains("database is locked"),
        "{}",
        line.message
    );
}

#[tokio::test]
async fn the_leads_rows_create_get_their_status_and_owner_and_merged_leads_keep_theirs() {
    let cells = [
        ["1 Main St", "won", "sam@example.com"],
        ["2 Main St", "lost", ""],
        ["3 Main St", "contacted", "nobody@example.com"],
        ["4 Main St", "", ""],
    ];
    let rows = (2..).zip(&cells).map(|(n, c)| row(n, c)).collect();
    let mut file = sheet(&["Street", "Lead Status", "Assigned To"], rows);
    let mut destination = MockImportDestination::new();
    destination.expect_submit_leads().returning(|_, _, _| {
        let mut outcomes: Vec<ElementOutcome> = (0..4)
            .map(|i| outcome(i, Some(LeadAction::Created), Vec::new()))
            .collect();
        outcomes[1].action = Some(LeadAction::Updated);
        for (i, o) in outcomes.iter_mut().enumerate() {
            o.lead_id = Some(10 + i as i64);
        }
        Ok(outcomes)
    });
    destination
        .expect_set_work()
        .withf(|_, work| {
            work.len() == 2
                && work[0].0 == 10
                && work[0].1.status == Some(LeadStatus::Won)
                && work[0].1.assignee_email.as_deref() == Some("sam@example.com")
                && work[1].0 == 12
        })
        .times(1)
        .returning(|_, _| {
            Ok(vec![
                WorkSet::All,
                WorkSet::OwnerLeftOut("no account has the address x@example.com".into()),
            ])
        });
    // The lead row 3 merged into is new, not lost as the row says.
    destination
        .expect_working_state()
        .withf(|_, leads| leads == &[11])
        .times(1)
        .returning(|_, _| Ok([(11, LeadWork::default())].into()));
    let (summary, lines) = run(&destination, &ImportKind::Leads, None, 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!((summary.created, summary.updated, summary.work), (3, 1, 1));
    assert_eq!(
        codes(&lines),
        [
            (3, "Lead Status".into(), "work_not_set".into()),
            (4, "Assigned To".into(), "work_not_set".into()),
        ]
    );
    let lines = lines.lock().unwrap();
    assert!(
        lines[0].message.contains("the lead existed"),
        "{}",
        lines[0].message
    );
    assert_eq!(
        lines[1].message,
        "the owner was left out: no account has the address x@example.com"
    );
}

/// A lead export imported again with one follow-up day edited: the leads existed, so their
/// working state stays; only the cell that says otherwise than its lead is reported, under its
/// own column, not the rows whose cells say what their leads have.
#[tokio::test]
async fn a_merged_rows_cells_are_reported_only_where_they_differ_from_the_lead() {
    let cells = [
        ["1 Main St", "contacted", "rep@roof.test", "12/20/2026"],
        ["2 Main St", "contacted", "REP@roof.test", "2027-02-01"],
        ["3 Main St", "won", "mgr@roof.test", ""],
    ];
    let rows = (2..).zip(&cells).map(|(n, c)| row(n, c)).collect();
    let header = ["Street", "Lead Status", "Assigned To", "Next Call"];
    let mut file = sheet(&header, rows);
    let mut destination = MockImportDestination::new();
    destination.expect_submit_leads().returning(|_, _, _| {
        Ok((0..3)
            .map(|i| ElementOutcome {
                lead_id: Some(10 + i as i64),
                ..outcome(i, Some(LeadAction::Skipped), Vec::new())
            })
            .collect())
    });
    destination
        .expect_working_state()
        .withf(|_, leads| leads == &[10, 11, 12])
        .times(1)
        .returning(|_, _| {
            let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 20);
            let worked = |status, email: &str| LeadWork {
                status,
                assignee: Some(Assignee {
                    id: 5,
                    user_id: "usr_5".into(),
                    email: email.into(),
                }),
                follow_up_on: day,
                ..LeadWork::default()
            };
            Ok([
                (10, worked(LeadStatus::Contacted, "rep@roof.test")),
                (11, worked(LeadStatus::Contacted, "rep@roof.test")),
                (12, worked(LeadStatus::Qualified, "rep@roof.test")),
            ]
            .into())
        });
    let (summary, lines) = run(&destination, &ImportKind::Leads, None, 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!((summary.skipped, summary.work, summary.warnings), (3, 0, 3));
    let lines = lines.lock().unwrap();
    let said: Vec<(u64, &str, &str, &str)> = lines
        .iter()
        .map(|l| (l.row, l.column.as_str(), l.value.as_str(), l.code.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            (3, "Next Call", "2027-02-01", "work_not_set"),
            (4, "Lead Status", "won", "work_not_set"),
            (4, "Assigned To", "mgr@roof.test", "work_not_set"),
        ]
    );
    assert_eq!(
        lines[0].message,
        "the lead existed: its follow-up day stays 2026-12-20, as the team has it"
    );
    assert_eq!(
        lines[2].message,
        "the lead existed: rep@roof.test still works it, as the team has it"
    );
}

/// The same property in two spellings, imported again: the merges rewrite the address and
/// write it back (`updated` each, as the API answers), the lead ends as it was, and the summary
/// counts them skipped.
#[tokio::test]
async fn a_merge_that_left_its_lead_as_it_was_counts_as_skipped() {
    let rows = vec![
        row(2, &["123 N Main St Apt 4"]),
        row(3, &["123 North Main Street #4"]),
        row(4, &["123 N Main St Apt 4"]),
        row(5, &["77 Fifth Ave", "3"]),
    ];
    let mut file = sheet(&["address", "beds"], rows);
    let mut destination = MockImportDestination::new();
    destination.expect_submit_leads().returning(|_, _, _| {
        let mut outcomes = vec![
            outcome(0, Some(LeadAction::Skipped), Vec::new()),
            outcome(1, Some(LeadAction::Updated), Vec::new()),
            outcome(2, Some(LeadAction::Updated), Vec::new()),
            outcome(3, Some(LeadAction::Updated), Vec::new()),
        ];
        outcomes[1].lead_changed = false;
        outcomes[2].lead_changed = false;
        Ok(outcomes)
    });
    let (summary, _) = run(&destination, &ImportKind::Leads, None, 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!(
        (summary.created, summary.updated, summary.skipped),
        (0, 1, 3)
    );
}

#[tokio::test]
async fn rows_go_in_chunks_and_a_later_refusal_rejects_its_chunk_only() {
    let rows = (2..=6)
        .map(|n| row(n, &[&format!("{n} Main St")]))
        .collect();
    let mut file = sheet(&["address"], rows);
    let mut destination = MockImportDestination::new();
    let calls = Arc::new(Mutex::new(0));
    let seen = calls.clone();
    destination
        .expect_submit_leads()
        .times(3)
        .returning(move |_, requests, _| {
            let mut n = seen.lock().unwrap();
            *n += 1;
            if *n == 2 {
                anyhow::bail!("database gone");
            }
            Ok((0..requests.len())
                .map(|i| outcome(i, Some(LeadAction::Created), Vec::new()))
                .collect())
        });
    let kind = ImportKind::Leads;
    let (summary, lines) = run(&destination, &kind, None, 2, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!((summary.created, summary.rejected), (3, 2));
    assert_eq!(
        codes(&lines),
        [
            (4, "".into(), "not_imported".into()),
            (5, "".into(), "not_imported".into())
        ]
    );
}

#[tokio::test]
async fn a_refusal_before_any_row_is_the_runs() {
    let mut file = sheet(&["address"], vec![row(2, &["1 Main St"])]);
    let mut destination = MockImportDestination::new();
    destination
        .expect_submit_leads()
        .returning(|_, _, _| Err(anyhow::anyhow!("team: not a member")));
    let kind = ImportKind::Leads;
    let (result, _) = run(&destination, &kind, Some(9), 500, &mut file).await;
    assert!(result.is_err());
}

#[tokio::test]
async fn a_file_without_a_column_of_ours_is_refused_before_any_row_goes_anywhere() {
    // A row naming one field (`City`) is no header to point at: it may be data.
    let mut file = sheet(
        &["foo"],
        vec![row(2, &["City", "Austin"]), row(3, &["bar"])],
    );
    // No expectation: any row sent would fail the test.
    let destination = MockImportDestination::new();
    let kind = ImportKind::Leads;
    let (result, _) = run(&destination, &kind, None, 500, &mut file).await;
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with("the file has no column named like a leads field (expected"),
        "{message}"
    );
}

#[tokio::test]
async fn a_workbooks_other_sheets_are_named_when_the_first_has_no_header() {
    let mut file = MockSheetRows::new();
    file.expect_header()
        .return_const(vec!["How to fill in this workbook".to_owned()]);
    file.expect_unread_sheets()
        .return_const(vec!["Leads".to_owned(), "Lists".to_owned()]);
    file.expect_next_row().returning(|| Ok(None));
    let destination = MockImportDestination::new();
    let (result, _) = run(&destination, &ImportKind::Leads, None, 500, &mut file).await;
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.ends_with(
            "; only its first sheet is read, not \"Leads\", \"Lists\": move the sheet to import to \
             the front"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_header_below_a_title_is_pointed_at_not_guessed() {
    let mut file = sheet(
        &["Building permits issued, November"],
        vec![
            row(2, &[""]),
            row(3, &["Permit #", "Site Address", "City", "Colour"]),
            row(4, &["P-1", "1 Main St", "Austin", "red"]),
        ],
    );
    let destination = MockImportDestination::new();
    let kind = ImportKind::Leads;
    let (result, _) = run(&destination, &kind, None, 500, &mut file).await;
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        message,
        "the file has no column named like a leads field in its first row, but row 3 names 3 \
         (Permit #, Site Address, City): delete the rows above it"
    );
}

#[tokio::test]
async fn the_columns_a_person_chose_feed_their_fields_whatever_the_headers_say() {
    // "Prop Addr" names nothing of ours and "Status" is a lead's status here, not a permit's.
    let mut file = sheet(
        &["Prop Addr", "Status", "Own Nm"],
        vec![row(
            2,
            &["1 Main St, Austin, TX 78701", "Called", "SMITH JOHN A"],
        )],
    );
    let mut destination = MockImportDestination::new();
    destination
        .expect_submit_leads()
        .withf(|_, requests, _| {
            let fields = &requests[0].fields;
            requests.len() == 1
                && fields.address.as_deref() == Some("1 Main St")
                && fields.zip_code.as_deref() == Some("78701")
                && fields.permit_status.is_none()
                && fields.last_name.as_deref() == Some("SMITH")
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![outcome(0, Some(LeadAction::Created), Vec::new())]));
    let choices = [Some("address".to_owned()), None, Some(FULL_NAME.to_owned())];
    let run = ImportRun {
        kind: &ImportKind::Leads,
        team_id: None,
        chunk: 500,
        columns: Some(&choices),
        tags: &[],
        source: None,
    };
    let (mut report, _) = report();
    let summary = import(
        &destination,
        &ada(),
        run,
        &mut file,
        &mut report,
        &mut progress(),
    )
    .await
    .unwrap();
    assert_eq!(summary.created, 1);
    assert_eq!(summary.ignored, ["Status"]);
    assert_eq!(
        summary.mapping,
        [
            ("Prop Addr".to_owned(), "address".to_owned()),
            ("Own Nm".to_owned(), FULL_NAME.to_owned())
        ]
    );
}

#[tokio::test]
async fn businesses_keep_rows_whose_cells_were_dropped() {
    let mut file = sheet(
        &["Company", "Rating", "Reviews"],
        vec![
            row(2, &["Acme", "four", "1,234"]),
            row(3, &["", "great", "5"]),
            row(4, &["Bolt", "9", ""]),
        ],
    );
    let mut destination = MockImportDestination::new();
    destination
        .expect_import_businesses()
        .withf(|_, request| {
            request.elements.len() == 3
                && matches!(&request.elements[0], Ok(b) if b.rating == Some(4.0) && b.review_count == Some(1234))
        })
        .times(1)
        .returning(|_, _| {
            Ok(ImportOutcome {
                imported: vec![(0, 10), (2, 11)],
                skipped: Vec::new(),
                errors: vec![ElementError { index: 1, detail: "name: Field required".into() }],
            })
        });
    let kind = ImportKind::Businesses {
        relationship_type: crate::business::RelationshipType::Prospect,
        skip_duplicates: true,
        auto_categorize: true,
    };
    let (summary, lines) = run(&destination, &kind, None, 500, &mut file).await;
    let summary = summary.unwrap();
    assert_eq!(
        (summary.created, summary.rejected, summary.warnings),
        (2, 1, 1)
    );
    assert_eq!(
        codes(&lines),
        [
            (3, "".into(), "refused".into()),
            (4, "Rating".into(), "invalid_number".into())
        ]
    );
}
