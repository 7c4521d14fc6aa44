//! The leads page's Excel download (`/leads/export.xlsx`): the CSV export's rows, each cell typed
//! so that Excel keeps it (a ZIP's leading zero, a phone, a formula-like text as text), and a
//! workbook that imports back into an empty database as the same rows.
use std::io::Cursor;

use calamine::{open_workbook_from_rs, Data, Reader, Xlsx};
use reqwest::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, team};
use crate::lead_pages::fetch_csv;
use crate::messy_imports::{import_elsewhere, round_trip_leads, rows_aside_ids};
use crate::pages::{sign_in, Browser};

backend_tests!(
    the_excel_export_holds_the_csv_rows_with_typed_cells,
    the_excel_export_follows_the_page_filter_and_visibility,
);

/// The first sheet's name and rows, and how many sheets the workbook has.
pub(crate) fn first_sheet(bytes: Vec<u8>) -> (String, Vec<Vec<Data>>, usize) {
    let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes)).unwrap();
    let names = book.sheet_names();
    let first = book.worksheet_range_at(0).unwrap().unwrap();
    let rows = first.rows().map(<[Data]>::to_vec).collect();
    (names[0].clone(), rows, names.len())
}

/// The CSV export's cells as the workbook holds them: text without the formula guard's `'`
/// (a workbook's text cell is never run), numbers as numbers.
fn as_workbook_cell(header: &str, csv: &str) -> Data {
    const NUMBERS: &str =
        "id team_id bedrooms latitude longitude lot_size_acres submission_count contact_count";
    if csv.is_empty() {
        Data::Empty
    } else if NUMBERS.split(' ').any(|n| n == header) {
        Data::Float(csv.parse().unwrap())
    } else {
        let unguarded = csv
            .strip_prefix('\'')
            .filter(|rest| rest.starts_with(['=', '+', '-', '@', '\t', '\r']));
        Data::String(unguarded.unwrap_or(csv).to_owned())
    }
}

async fn the_excel_export_holds_the_csv_rows_with_typed_cells(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    batch_ok(&app, &alice.key, json!({"leads": round_trip_leads()})).await;
    let (_, csv) = fetch_csv(&app, "/api/v1/leads/export", &alice.key).await;

    let mut browser = sign_in(&app, "alice@example.com").await;
    let list = browser.get("/leads").await.body;
    assert!(list.contains("href=\"/leads/export.xlsx\""), "{list}");
    let (status, headers, bytes) = browser.download("/leads/export.xlsx").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[CONTENT_TYPE],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert!(headers[CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("leads.xlsx"));

    let (name, rows, sheets) = first_sheet(bytes.clone());
    assert_eq!((name.as_str(), sheets), ("Leads", 1));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let want: Vec<Vec<Data>> =
        std::iter::once(header.iter().map(|h| Data::String(h.into())).collect())
            .chain(reader.records().map(|record| {
                header
                    .iter()
                    .zip(record.unwrap().iter())
                    .map(|(h, cell)| as_workbook_cell(h, cell))
                    .collect()
            }))
            .collect();
    assert_eq!(rows.len(), 4);
    // calamine trims trailing empty cells off the sheet's range only where every row has them.
    let width = rows[0].len();
    assert_eq!(width, header.len());
    assert_eq!(rows, want);

    // What Excel would mangle from a CSV file stays as the lead holds it.
    let column = |title: &str| header.iter().position(|h| h == title).unwrap();
    let boston = rows
        .iter()
        .find(|r| r[column("city")] == Data::String("Boston".into()));
    let boston = boston.unwrap();
    assert_eq!(boston[column("zip_code")], Data::String("02134".into()));
    assert_eq!(
        boston[column("primary_phone")],
        Data::String("+16175550100;ext=12".into())
    );
    assert_eq!(boston[column("county")], Data::String("+Suffolk".into()));
    assert_eq!(boston[column("bedrooms")], Data::Float(0.0));

    // Into an empty database: the same rows as the CSV export's.
    let second = import_elsewhere(&app, "leads.xlsx", &bytes, 3).await;
    assert_eq!(rows_aside_ids(&csv), rows_aside_ids(&second));
}

async fn the_excel_export_follows_the_page_filter_and_visibility(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let bob = app.user("bob@example.com").await;
    batch_ok(&app, &alice.key, json!({"leads": round_trip_leads()})).await;
    let bobs_team = team(&app, "Bob's", &bob).await;
    let bobs =
        json!([{"address": "9 Hidden Way", "city": "Austin", "state": "TX", "team_id": bobs_team}]);
    batch_ok(&app, &bob.key, json!({"leads": bobs})).await;

    let mut browser = sign_in(&app, "alice@example.com").await;
    let filtered = browser.get("/leads?city=austin").await;
    assert!(filtered
        .body
        .contains("href=\"/leads/export.xlsx?city=austin\""));
    let (status, _, bytes) = browser.download("/leads/export.xlsx?city=austin").await;
    assert_eq!(status, StatusCode::OK);
    let rows = first_sheet(bytes).1;
    let address = rows[0]
        .iter()
        .position(|h| *h == Data::String("address".into()));
    let address = address.unwrap();
    let addresses: Vec<&Data> = rows[1..].iter().map(|r| &r[address]).collect();
    assert_eq!(addresses, [&Data::String("1 Main St".into())]);

    // Nothing matches: the header alone, still a workbook Excel opens.
    let (_, _, bytes) = browser.download("/leads/export.xlsx?city=Nowhere").await;
    assert_eq!(first_sheet(bytes).1.len(), 1);

    let (status, _, _) = browser
        .download("/leads/export.xlsx?created_after=soon")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, headers, _) = Browser::new(&app).download("/leads/export.xlsx").await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert!(headers.contains_key("location"));
}
