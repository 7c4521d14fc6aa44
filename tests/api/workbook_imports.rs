//! A lead list saved from Excel as a workbook (`.xlsx`), not as CSV: typed cells (ZIP codes and phones
//! typed as numbers, date cells, numbers, a formula, an error), a formatted empty row and a shifted one,
//! imported through the CLI's path and through the upload page with the same outcome; and the
//! workbooks the upload form refuses, each with its reason.
use reqwest::StatusCode;
use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook, Worksheet};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::team;
use crate::lead_uploads::{count, imported, upload_named};
use crate::messy_imports::import_file;
use crate::pages::sign_in;

backend_tests!(
    a_workbook_imports_alike_through_the_cli_and_the_upload,
    workbooks_that_cannot_be_imported_are_refused_on_the_form,
);

const HEADER: [&str; 11] = [
    "Owner First",
    "Owner Last",
    "Site Address",
    "City",
    "State",
    "Zip",
    "Phone",
    "Issued",
    "Beds",
    "Latitude",
    "Longitude",
];

fn header(sheet: &mut Worksheet) {
    for (c, h) in HEADER.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
}

/// The workbook as Excel would save it, its sheet named "Leads".
fn workbook() -> Vec<u8> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("Leads").unwrap();
    header(sheet);
    let date = Format::new().set_num_format("m/d/yyyy");
    let stamp = Format::new().set_num_format("m/d/yyyy h:mm");
    let row = |sheet: &mut Worksheet, r: u32, texts: [&str; 5]| {
        for (c, t) in texts.iter().enumerate() {
            sheet.write_string(r, c as u16, *t).unwrap();
        }
    };
    // Row 2: a Massachusetts ZIP and a phone typed as numbers (the ZIP's zero lost), a date cell.
    row(sheet, 1, ["Ann", "Lee", "1 Beacon St", "Boston", "MA"]);
    sheet.write_number(1, 5, 2134).unwrap();
    sheet.write_number(1, 6, 6_175_550_100_f64).unwrap();
    let issued = ExcelDateTime::from_ymd(2025, 1, 5).unwrap();
    sheet
        .write_datetime_with_format(1, 7, &issued, &date)
        .unwrap();
    sheet.write_number(1, 8, 3).unwrap();
    sheet.write_number(1, 9, 42.3555).unwrap();
    sheet.write_number(1, 10, -71.0602).unwrap();
    // Row 3: the city a formula's value, a date with a time.
    row(sheet, 2, ["Bob", "Ray", "2 Congress Ave", "", "TX"]);
    let city = Formula::new("=\"Aus\"&\"tin\"").set_result("Austin");
    sheet.write_formula(2, 3, city).unwrap();
    sheet.write_number(2, 5, 78701).unwrap();
    sheet.write_string(2, 6, "(512) 555-0101").unwrap();
    let at = ExcelDateTime::from_ymd(2025, 2, 3)
        .unwrap()
        .and_hms(9, 30, 0)
        .unwrap();
    sheet.write_datetime_with_format(2, 7, &at, &stamp).unwrap();
    // Row 4: formatted, empty: no row. Row 5: a cell right of the header: shifted, rejected.
    sheet.write_blank(3, 2, &Format::new().set_bold()).unwrap();
    row(sheet, 4, ["Cy", "Doe", "3 Elm St", "Austin", "TX"]);
    sheet.write_string(4, 11, "stray").unwrap();
    // Row 6: TRUE where a number belongs, an error where the phone is.
    row(sheet, 5, ["Di", "Fox", "4 Oak Ln", "Austin", "Texas"]);
    sheet.write_number(5, 5, 78702).unwrap();
    sheet
        .write_formula(5, 6, Formula::new("=NA()").set_result("#N/A"))
        .unwrap();
    sheet.write_boolean(5, 8, true).unwrap();
    book.save_to_buffer().unwrap()
}

/// The lead at `address` among a page of leads.
pub(crate) fn lead<'a>(leads: &'a Value, address: &str) -> &'a Value {
    leads["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["address"] == address)
        .unwrap_or_else(|| panic!("{address} in {leads}"))
}

async fn a_workbook_imports_alike_through_the_cli_and_the_upload(app: TestApp) {
    let bytes = workbook();
    let alice = app.user("alice@example.com").await;
    let cli_team = team(&app, "By CLI", &alice).await;
    let page_team = team(&app, "By upload", &alice).await;

    let (summary, report) = import_file(&app, &alice, cli_team, &bytes).await;
    let render = summary.render();
    assert_eq!(
        (summary.rows, summary.created, summary.rejected),
        (4, 3, 1),
        "{render}"
    );
    assert_eq!(summary.encoding, "Excel workbook (.xlsx), sheet \"Leads\"");
    assert!(summary
        .mapping
        .contains(&("Issued".to_owned(), "permit_date".to_owned())));
    let report = std::fs::read_to_string(report.expect("a report")).unwrap();
    // The rejected row by the sheet's own number; the error and TRUE cells are warnings.
    assert!(report.contains("\n5,,,shifted_row,"), "{report}");
    assert!(report.contains("\n6,Phone,#N/A,invalid_phone,"), "{report}");
    assert!(report.contains("\n6,Beds,TRUE,invalid_number,"), "{report}");

    let (_, leads) = app
        .get(&format!("/api/v1/leads?team_id={cli_team}"), &alice.key)
        .await;
    let ann = lead(&leads, "1 Beacon St");
    assert_eq!(ann["zip_code"], "02134", "{ann}");
    assert_eq!(ann["primary_phone"], "+16175550100", "{ann}");
    assert_eq!(ann["permit_date"], "2025-01-05", "{ann}");
    assert_eq!(ann["bedrooms"], 3, "{ann}");
    assert_eq!(
        (ann["latitude"].clone(), ann["longitude"].clone()),
        (json!(42.3555), json!(-71.0602)),
        "{ann}"
    );
    let bob = lead(&leads, "2 Congress Ave");
    assert_eq!(bob["city"], "Austin", "{bob}");
    assert_eq!(bob["zip_code"], "78701", "{bob}");
    assert_eq!(bob["permit_date"], "2025-02-03", "{bob}");
    assert_eq!(bob["primary_phone"], "+15125550101", "{bob}");
    let di = lead(&leads, "4 Oak Ln");
    assert_eq!(di["state"], "TX", "{di}");
    assert_eq!(di["primary_phone"], Value::Null, "{di}");
    assert_eq!(di["bedrooms"], Value::Null, "{di}");

    // The upload page: the same workbook, the same counts, and where it was read from.
    let mut b = sign_in(&app, "alice@example.com").await;
    let done = imported(&mut b, page_team, &bytes, "leads.xlsx").await;
    assert_eq!(
        [
            count(&done, "rows"),
            count(&done, "created"),
            count(&done, "rejected")
        ],
        [4, 3, 1],
        "{}",
        done.body
    );
    assert!(
        done.body
            .contains("Read as Excel workbook (.xlsx), sheet &quot;Leads&quot;"),
        "{}",
        done.body
    );
    let (_, leads) = app
        .get(&format!("/api/v1/leads?team_id={page_team}"), &alice.key)
        .await;
    assert_eq!(lead(&leads, "1 Beacon St")["zip_code"], "02134");
}

async fn workbooks_that_cannot_be_imported_are_refused_on_the_form(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Sales", &alice).await;
    let mut b = sign_in(&app, "alice@example.com").await;

    let mut only_header = Workbook::new();
    header(only_header.add_worksheet());
    let mut unknown = Workbook::new();
    let sheet = unknown.add_worksheet();
    sheet.write_string(0, 0, "colour").unwrap();
    sheet.write_string(1, 0, "blue").unwrap();
    let mut titled = Workbook::new();
    let sheet = titled.add_worksheet();
    sheet
        .write_string(0, 0, "Permits issued in November")
        .unwrap();
    for (c, h) in ["Permit #", "Site Address"].iter().enumerate() {
        sheet.write_string(3, c as u16, *h).unwrap();
        sheet.write_string(4, c as u16, "x").unwrap();
    }
    let mut covered = Workbook::new();
    covered
        .add_worksheet()
        .set_name("Read me")
        .unwrap()
        .write_string(0, 0, "Fill in the Leads sheet")
        .unwrap();
    header(covered.add_worksheet().set_name("Leads").unwrap());
    let xls = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0\0\0".to_vec();
    let whole = workbook();
    let torn = whole[..whole.len() / 2].to_vec();
    let [only_header, unknown, titled, covered] =
        [only_header, unknown, titled, covered].map(|mut book| book.save_to_buffer().unwrap());
    let cases = [
        (
            "old.xls",
            xls,
            "an Excel 97-2003 workbook (.xls): open it and save it as",
        ),
        (
            "torn.xlsx",
            torn,
            "cannot be imported: not a readable zip archive",
        ),
        ("header.xlsx", only_header, "a header but no rows"),
        (
            "titled.xlsx",
            titled,
            "but row 4 names 2 (Permit #, Site Address): delete",
        ),
        (
            "covered.xlsx",
            covered,
            "not &quot;Leads&quot;: move the sheet to import to the front",
        ),
    ];
    for (name, bytes, message) in cases {
        let page = upload_named(&mut b, "/leads/import", team_id, None, &bytes, name).await;
        assert_eq!(
            page.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{name}: {}",
            page.body
        );
        assert!(
            page.body.contains(message),
            "{name}: {message}: {}",
            page.body
        );
    }
    // A header naming nothing of ours is no refusal: its columns are chosen (upload_columns.rs).
    let sent = upload_named(
        &mut b,
        "/leads/import",
        team_id,
        None,
        &unknown,
        "colours.xlsx",
    )
    .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let page = b.get(sent.location()).await;
    assert!(page.body.contains("id=\"column-choice\""), "{}", page.body);
}
