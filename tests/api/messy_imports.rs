//! Spreadsheets as people really write them (issue 27): a lead file with a BOM, CRLF line ends, one
//! Windows-1252 row in UTF-8, formula cells, `Texas` for TX, `cell` as the phone type, `three` bedrooms,
//! phones and dates in many forms, bad cells of every kind, a shifted row and a row with no field,
//! imported through the CLI's path and through the upload page with the same outcome; and an export that
//! imports back into an empty database as the same rows.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;

use leadhub_domain::enrich::Geocoder;
use leadhub_domain::import::{ImportKind, ImportServices, ImportSummary};
use leadhub_geocode::ZipCentroidGeocoder;
use leadhub_tests::{backend_tests, TestApp, TestDatabase, TestUser};
use leadhub_web::import::{import_spreadsheet, ImportSettings, DEFAULT_CHUNK};

use crate::helpers::{batch_ok, team};
use crate::lead_pages::fetch_csv;
use crate::lead_uploads::{count, imported};
use crate::pages::{assert_shows, sign_in};

backend_tests!(
    a_messy_file_imports_alike_through_the_cli_and_the_upload,
    an_export_imports_back_as_the_same_rows,
    an_export_geocoded_by_us_imports_back_geocoded_alike,
    files_separated_by_tabs_or_semicolons_import_as_their_csv_twin,
    the_condos_of_a_property_list_stay_leads_of_their_own,
);

/// A property list gives the unit a column of its own (PropStream's `Unit #`) and the first owner
/// `Owner 1 First Name`: two condos of one building are two leads, each with its owner, and the
/// same file again merges into them, as a unit written into the address does; so does an appraisal
/// roll's street in parts.
async fn the_condos_of_a_property_list_stay_leads_of_their_own(app: TestApp) {
    let ann = app.user("ann@example.com").await;
    let team_id = team(&app, "Condos", &ann).await;
    let file = "Address,Unit #,City,State,Zip,Owner 1 First Name,Owner 1 Last Name\n\
        100 Congress Ave,5,Austin,TX,78701,Jane,Doe\n\
        100 Congress Ave,6,Austin,TX,78701,Raj,Patel\n";
    let (summary, _) = import_file(&app, &ann, team_id, file.as_bytes()).await;
    assert_eq!(
        (summary.created, summary.updated),
        (2, 0),
        "{}",
        summary.render()
    );
    let (_, page) = app.get("/api/v1/leads?sort=created_at", &ann.key).await;
    let leads: Vec<(&str, &str, &str)> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let text = |f: &str| l[f].as_str().unwrap_or_default();
            (
                text("address_standardized"),
                text("first_name"),
                text("last_name"),
            )
        })
        .collect();
    assert_eq!(
        leads,
        [
            ("100 CONGRESS AVE #5", "Jane", "Doe"),
            ("100 CONGRESS AVE #6", "Raj", "Patel")
        ]
    );
    let sent = json!({"team_id": team_id, "leads": [{"address": "100 Congress Ave Unit 6",
        "city": "Austin", "state": "TX", "zip_code": "78701", "first_name": "Raj"}]});
    batch_ok(&app, &ann.key, sent).await;
    let (summary, _) = import_file(&app, &ann, team_id, file.as_bytes()).await;
    let merged = (summary.created, summary.skipped + summary.updated);
    assert_eq!(merged, (0, 2), "{}", summary.render());
    let (_, page) = app.get("/api/v1/leads", &ann.key).await;
    assert_eq!(page["total"], 2, "{page}");
    // An appraisal roll keeps the street in parts: unit 5 is Jane's lead, unit 7 a new one.
    let roll = "Situs Street Number,Situs Street Name,Situs Street Suffix,Situs Unit,Situs City,Situs Zip\n\
        100,Congress,Ave,5,Austin,78701\n\
        100,Congress,Ave,7,Austin,78701\n";
    let (summary, _) = import_file(&app, &ann, team_id, roll.as_bytes()).await;
    let counts = (summary.created, summary.skipped + summary.updated);
    assert_eq!(counts, (1, 1), "{}", summary.render());
    let (_, page) = app.get("/api/v1/leads?q=congress", &ann.key).await;
    assert_eq!(page["total"], 3, "{page}");
}

/// Data rows of the messy file besides the three odd ones (Windows-1252, shifted, no field).
const ROWS: usize = 420;

const STATES: [&str; 5] = ["TX", "Texas", "tex.", "texas", "Lone Star"];
const ZIPS: [&str; 7] = [
    "78701",
    "78702",
    "75201",
    "7520",
    "07520",
    "78701-1234",
    "787O1",
];
const PHONES: [&str; 8] = [
    "(512) 555-0100",
    "512.555.0101",
    "+1 512 555 0102",
    "5125550103",
    "'+15125550104",
    "000-000-0000",
    "555-1234",
    "call me",
];
const PHONE_TYPES: [&str; 6] = ["cell", "Cellular", "home", "land line", "internet", "fax"];
const PROPERTY_TYPES: [&str; 7] = [
    "single family",
    "SFR",
    "condo",
    "office",
    "ranch",
    "lot",
    "castle",
];
const BEDS: [&str; 5] = ["3", "3.0", "three", "1,234", ""];
const DATES: [&str; 5] = [
    "2025-01-05",
    "01/05/2025",
    "Jan 5, 2025",
    "1/5/25",
    "13/45/2025",
];

/// The messy file's bytes and the reasons its import must count (code -> how often).
fn messy_file() -> (Vec<u8>, BTreeMap<String, u64>) {
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    let mut note = |code: &str| *reasons.entry(code.to_owned()).or_default() += 1;
    let mut out: Vec<u8> = b"\xEF\xBB\xBF".to_vec();
    out.extend(
        b"First Name,Last Name,Street Address,City,State,Zip,Phone,Phone Type,E-mail,Property Type,Beds,Permit #,Issued Date,Parcel ID,Notes\r\n",
    );
    let write = |cells: Vec<String>, out: &mut Vec<u8>| {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        w.write_record(&cells).unwrap();
        out.extend(w.into_inner().unwrap());
    };
    for i in 0..ROWS {
        let state_ok = i % 5 != 4;
        if !state_ok {
            note("invalid_state");
        }
        match (ZIPS[i % 7], state_ok) {
            ("7520", true) | ("787O1", _) => note("invalid_zip"),
            ("07520", true) => note("zip_state_mismatch"),
            _ => {}
        }
        if i % 8 >= 5 {
            note("invalid_phone");
        }
        if i % 6 == 5 {
            note("invalid_phone_type");
        }
        if i % 9 == 8 {
            note("invalid_email");
        }
        if i % 7 == 6 {
            note("invalid_property_type");
        }
        if i % 5 == 3 {
            note("invalid_number");
        }
        if i % 5 == 4 {
            note("unparsed_date");
        }
        let first = if i % 50 == 7 {
            "=1+1".to_owned()
        } else {
            format!("Owner{i}")
        };
        let email = if i % 9 == 8 {
            "n/a".to_owned()
        } else {
            format!("owner{i}@example.com")
        };
        let notes = if i % 40 == 3 {
            "=HYPERLINK(\"http://x\",\"y\")"
        } else {
            "call after 5"
        };
        write(
            vec![
                first,
                "Lee".into(),
                format!("{} Main St", 100 + i),
                "Austin".into(),
                STATES[i % 5].into(),
                ZIPS[i % 7].into(),
                PHONES[i % 8].into(),
                PHONE_TYPES[i % 6].into(),
                email,
                PROPERTY_TYPES[i % 7].into(),
                BEDS[i % 5].into(),
                format!("P-{i}"),
                DATES[i % 5].into(),
                format!("APN-{i}"),
                notes.into(),
            ],
            &mut out,
        );
        if i == 100 {
            // A row saved by a Windows program: windows-1252 bytes in a UTF-8 file, read as
            // such, with a warning for each of its two cells that are not UTF-8.
            out.extend(b"Jos\xE9,Pe\xF1a,1 Elm St,Austin,TX,78701,,,,,,,,,\r\n");
            note("recoded_cell");
            note("recoded_cell");
            // A blank spreadsheet line: no row at all.
            out.extend(b",,,,,,,,,,,,,,\r\n");
        }
        if i == 200 {
            out.extend(b"Ann,Lee,2 Elm St,Austin,TX,78701,,,,,,,,,notes,shifted\r\n");
            note("shifted_row");
            out.extend(b",,,,,,,,,,,,,,only a note\r\n");
            note("no_usable_field");
        }
    }
    (out, reasons)
}

/// The summary's counts as the upload page shows them.
fn counts(s: &ImportSummary) -> [u64; 5] {
    [
        s.rows,
        s.created,
        s.updated + s.skipped,
        s.rejected + s.failed,
        s.warnings,
    ]
}

/// Imports `bytes` through the CLI's path (`leadhub import leads`) into `team_id`.
pub(crate) async fn import_file(
    app: &TestApp,
    user: &TestUser,
    team_id: i64,
    bytes: &[u8],
) -> (ImportSummary, Option<PathBuf>) {
    import_tagged(app, user, team_id, bytes, Vec::new()).await
}

/// `import_file` with `leadhub import leads --tag` for each of `tags` (stored form).
pub(crate) async fn import_tagged(
    app: &TestApp,
    user: &TestUser,
    team_id: i64,
    bytes: &[u8],
    tags: Vec<String>,
) -> (ImportSummary, Option<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("leadhub-messy-{}", rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("leads.csv");
    std::fs::write(&file, bytes).unwrap();
    let settings = ImportSettings {
        file,
        kind: ImportKind::Leads,
        team_id: Some(team_id),
        reports_dir: dir.join("reports"),
        chunk: DEFAULT_CHUNK,
        progress_bar: false,
        columns: Vec::new(),
        tags,
        source: None,
    };
    import_spreadsheet(&services(app), &user.user, &settings)
        .await
        .unwrap()
}

/// The app's services as the CLI's import hands them on.
fn services(app: &TestApp) -> ImportServices {
    ImportServices {
        submissions: app.state.submissions.clone(),
        businesses: app.state.businesses.clone(),
        lead_work: app.state.lead_work.clone(),
        upload_id: None,
    }
}

fn rand_suffix() -> u64 {
    use rand::Rng;
    rand::rng().random()
}

async fn a_messy_file_imports_alike_through_the_cli_and_the_upload(app: TestApp) {
    let (bytes, reasons) = messy_file();
    let alice = app.user("alice@example.com").await;
    let cli_team = team(&app, "By CLI", &alice).await;
    let page_team = team(&app, "By upload", &alice).await;

    // The CLI's path.
    let (summary, report) = import_file(&app, &alice, cli_team, &bytes).await;
    let rows = (ROWS + 3) as u64;
    assert_eq!(summary.rows, rows, "{}", summary.render());
    assert_eq!(summary.rejected, 2, "{}", summary.render());
    assert!(summary.created * 100 >= rows * 95, "{}", summary.render());
    assert_eq!(summary.created, ROWS as u64 + 1);
    assert_eq!(summary.encoding, "UTF-8");
    assert_eq!(summary.reasons, reasons, "{}", summary.render());
    let warnings: u64 = reasons.values().sum::<u64>() - 2;
    assert_eq!(summary.warnings, warnings);
    // Each row's note went on its lead.
    assert!(summary
        .mapping
        .contains(&("Notes".to_owned(), "notes".to_owned())));
    assert_eq!(summary.notes, ROWS as u64);
    assert!(summary
        .mapping
        .contains(&("E-mail".to_owned(), "email_1".to_owned())));
    let mut top: Vec<(String, u64)> = reasons.clone().into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(5);
    assert_eq!(summary.top_reasons(5), top);
    let rendered = summary.render();
    for (code, n) in &top {
        assert!(
            rendered.contains(&format!("reason: {code} {n}\n")),
            "{rendered}"
        );
    }

    // Every dropped cell is in the report, with its row, column and value.
    let report = std::fs::read_to_string(report.expect("a report")).unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(report.as_bytes());
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        &header.iter().take(5).collect::<Vec<_>>(),
        &["row", "column", "value", "code", "message"]
    );
    let lines: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(lines.len() as u64, summary.warnings + summary.rejected);
    let mut in_report: BTreeMap<String, u64> = BTreeMap::new();
    for line in &lines {
        *in_report.entry(line[3].to_owned()).or_default() += 1;
    }
    assert_eq!(in_report, reasons);
    assert!(lines
        .iter()
        .any(|l| &l[1] == "Phone" && &l[2] == "call me" && &l[3] == "invalid_phone"));
    assert!(lines
        .iter()
        .any(|l| &l[1] == "Issued Date" && &l[2] == "13/45/2025"));
    assert!(lines
        .iter()
        .any(|l| &l[1] == "Zip" && &l[2] == "7520" && &l[3] == "invalid_zip"));

    // What was stored is the API's values.
    let (_, leads) = app
        .get(
            &format!("/api/v1/leads?team_id={cli_team}&limit=500"),
            &alice.key,
        )
        .await;
    let items = leads["items"].as_array().unwrap();
    assert_eq!(items.len(), ROWS + 1);
    let windows = items.iter().find(|l| l["first_name"] == "José");
    assert_eq!(
        windows.expect("the windows-1252 row's lead")["last_name"],
        "Peña"
    );
    for lead in items.iter().filter(|l| l["first_name"] != "José") {
        let n: usize = lead["address"]
            .as_str()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap()
            - 100;
        let want_state = if n % 5 == 4 { json!(null) } else { json!("TX") };
        assert_eq!(lead["state"], want_state, "{lead}");
        let phone = &lead["primary_phone"];
        if n % 8 >= 5 {
            assert_eq!(phone, &json!(null), "{lead}");
        } else {
            assert_eq!(phone, &json!(format!("+1512555010{}", n % 8)), "{lead}");
        }
        let date = if n % 5 == 4 {
            json!(null)
        } else {
            json!("2025-01-05")
        };
        assert_eq!(lead["permit_date"], date, "{lead}");
        let beds = match n % 5 {
            3 | 4 => json!(null),
            _ => json!(3),
        };
        assert_eq!(lead["bedrooms"], beds, "{lead}");
        if n % 50 == 7 {
            assert_eq!(lead["first_name"], "=1+1");
        }
        if n % 7 == 3 {
            assert_eq!(
                lead["zip_code"],
                if n % 5 == 4 { "07520" } else { "7520" },
                "{lead}"
            );
        }
    }

    // The upload page: the same file, the same counts.
    let mut b = sign_in(&app, "alice@example.com").await;
    let done = imported(&mut b, page_team, &bytes, "leads.csv").await;
    let shown = [
        count(&done, "rows"),
        count(&done, "created"),
        count(&done, "merged")
            + if done.body.contains("count-skipped") {
                count(&done, "skipped")
            } else {
                0
            },
        count(&done, "rejected"),
        count(&done, "warnings"),
    ];
    assert_eq!(shown.map(|n| n as u64), counts(&summary), "{}", done.body);
    for (code, n) in &top {
        assert!(
            done.body.contains(&format!("<code>{code}</code>: {n}")),
            "{}",
            done.body
        );
    }
    assert!(done.body.contains("Read as UTF-8"));
    assert_eq!(count(&done, "notes"), ROWS as i64, "{}", done.body);
    assert!(done
        .body
        .contains("<code>notes</code> <span class=\"muted\">(a note on the row's lead)</span>"));
}

/// Leads whose cells a spreadsheet could misread: formulas, signs, a ZIP with a leading zero,
/// phones in E.164 with an extension, a line break, a tab.
pub(crate) fn round_trip_leads() -> serde_json::Value {
    json!([
        {"address": "1 Main St", "city": "Austin", "state": "TX", "zip_code": "78701",
         "first_name": "=HYPERLINK(\"http://x\")", "last_name": "-Lee", "primary_phone": "(512) 555-0100",
         "phone_2": "+44 20 7946 0958", "primary_phone_type": "mobile", "email_1": "ann@example.com",
         "latitude": 30.25, "longitude": -97.75, "bedrooms": 3, "permit_date": "Jan 5, 2025",
         "lot_size": "0.25 acres", "property_type": "residential", "project_description": "@roof, \"new\"\nline two",
         "source": "permit_scrape", "related_url": "https://example.com/p/1"},
        {"address": "2 Oak Ave Apt 4", "city": "Boston", "state": "MA", "zip_code": "2134",
         "primary_phone": "617-555-0100;ext=12", "county": "+Suffolk", "bedrooms": 0},
        {"address": "3 Elm Rd", "city": "Dallas", "state": "TX", "zip_code": "07520", "mail_state": "NJ",
         "parcel_number": "-12-34", "work_type": "\tTab"},
    ])
}

async fn an_export_imports_back_as_the_same_rows(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    batch_ok(&app, &alice.key, json!({"leads": round_trip_leads()})).await;
    let (_, first) = fetch_csv(&app, "/api/v1/leads/export", &alice.key).await;
    assert!(
        first.contains(",+15125550100,mobile,+442079460958,"),
        "{first}"
    );
    assert!(first.contains(",+16175550100;ext=12,"), "{first}");
    assert!(first.contains(",-97.75,"), "{first}");
    assert!(!first.contains("'+1"), "{first}");
    assert!(first.contains("'=HYPERLINK"), "{first}");
    let second = import_elsewhere(&app, "export.csv", first.as_bytes(), 3).await;
    assert_eq!(rows_aside_ids(&first), rows_aside_ids(&second));
}

/// Coordinates a geocoder of ours found (here ZIP centroids, coarse) come back from an export as
/// found again by the geocoder, not as the source's own: the same geocode columns and status.
async fn an_export_geocoded_by_us_imports_back_geocoded_alike(app: TestApp) {
    let geocoder: Arc<dyn Geocoder> = Arc::new(ZipCentroidGeocoder);
    let app = app.restart().geocoder(Some(geocoder.clone())).build().await;
    let alice = app.user("alice@example.com").await;
    let lead =
        json!({"address": "5 Pine St", "city": "Austin", "state": "TX", "zip_code": "78701"});
    batch_ok(&app, &alice.key, json!({"leads": [lead]})).await;
    let (_, first) = fetch_csv(&app, "/api/v1/leads/export", &alice.key).await;
    assert!(first.contains(",zip,zip_centroid,"), "{first}");
    let other = TestDatabase::create(app.db.backend).unwrap();
    let other = TestApp::builder(other)
        .geocoder(Some(geocoder))
        .build()
        .await;
    let second = import_into(&other, "export.csv", first.as_bytes(), 1).await;
    assert_eq!(rows_aside_ids(&first), rows_aside_ids(&second));
}

/// Imports `bytes`, saved as `file_name`, into an empty database of `app`'s backend (as another
/// deployment would) and answers that database's CSV export. Every row (`rows`) must be created.
pub(crate) async fn import_elsewhere(
    app: &TestApp,
    file_name: &str,
    bytes: &[u8],
    rows: u64,
) -> String {
    let other = TestApp::start(TestDatabase::create(app.db.backend).unwrap()).await;
    import_into(&other, file_name, bytes, rows).await
}

/// `import_elsewhere` into `other`, an empty database set up as the test needs.
async fn import_into(other: &TestApp, file_name: &str, bytes: &[u8], rows: u64) -> String {
    let bob = other.user("bob@example.com").await;
    let dir = std::env::temp_dir().join(format!("leadhub-roundtrip-{}", rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file_name), bytes).unwrap();
    let settings = ImportSettings {
        file: dir.join(file_name),
        kind: ImportKind::Leads,
        team_id: None,
        reports_dir: dir.join("reports"),
        chunk: DEFAULT_CHUNK,
        progress_bar: false,
        columns: Vec::new(),
        tags: Vec::new(),
        source: None,
    };
    let (summary, _) = import_spreadsheet(&services(other), &bob.user, &settings)
        .await
        .unwrap();
    assert_eq!(
        (summary.created, summary.rejected),
        (rows, 0),
        "{}",
        summary.render()
    );
    fetch_csv(other, "/api/v1/leads/export", &bob.key).await.1
}

/// The export's rows by address, without the columns that name this database's ids and times.
pub(crate) fn rows_aside_ids(text: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            let cells: Vec<(String, String)> = header
                .iter()
                .zip(r.iter())
                .filter(|(h, _)| !["id", "team_id", "created_at", "updated_at"].contains(h))
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect();
            (r[2].to_owned(), cells)
        })
        .collect()
}

/// A lead list's rows, with a comma and a semicolon inside cells.
const SEPARATED_ROWS: [[&str; 5]; 3] = [
    ["Owner Name", "Address", "City", "Zip", "Notes"],
    [
        "Smith, John",
        "12 Oak St",
        "Austin",
        "78701",
        "call after 5; not Sundays",
    ],
    ["Peña, José", "3 Elm Rd", "Dallas", "75201", "roof, 2004"],
];

/// `SEPARATED_ROWS` written with `separator`, quoted where a cell needs it.
fn separated(separator: u8) -> String {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(separator)
        .from_writer(Vec::new());
    for row in SEPARATED_ROWS {
        writer.write_record(row).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

/// The leads of `team_id` as the columns of `SEPARATED_ROWS` hold them, by address.
async fn separated_leads(app: &TestApp, user: &TestUser, team_id: i64) -> Vec<serde_json::Value> {
    let (_, leads) = app
        .get(&format!("/api/v1/leads?team_id={team_id}"), &user.key)
        .await;
    let mut leads: Vec<serde_json::Value> = leads["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            json!([
                l["first_name"],
                l["last_name"],
                l["address"],
                l["city"],
                l["zip_code"]
            ])
        })
        .collect();
    leads.sort_by_key(|l| l[2].to_string());
    leads
}

/// Excel saves "Unicode Text" as UTF-16 with tabs and "CSV" with semicolons where the decimal
/// mark is a comma: each imports as the comma file of the same rows would, and says how it was read.
async fn files_separated_by_tabs_or_semicolons_import_as_their_csv_twin(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in separated(b'\t').encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    // é and ñ are the same byte in windows-1252 as their code point.
    let windows_1252: Vec<u8> = separated(b';')
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    let files = [
        ("comma", separated(b',').into_bytes(), "UTF-8"),
        ("tab", utf16.clone(), "UTF-16LE, columns separated by tabs"),
        (
            "semicolon",
            windows_1252,
            "windows-1252, columns separated by semicolons",
        ),
        (
            "bar",
            separated(b'|').into_bytes(),
            "UTF-8, columns separated by vertical bars",
        ),
    ];
    let mut by_cli = Vec::new();
    for (name, bytes, read_as) in files {
        let team_id = team(&app, name, &alice).await;
        let (summary, _) = import_file(&app, &alice, team_id, &bytes).await;
        assert_eq!(summary.encoding, read_as);
        assert_eq!(
            (summary.created, summary.rejected),
            (2, 0),
            "{name}: {}",
            summary.render()
        );
        assert_eq!(summary.notes, 2, "{name}");
        by_cli.push(separated_leads(&app, &alice, team_id).await);
    }
    assert_eq!(
        by_cli[0],
        [
            json!(["John", "Smith", "12 Oak St", "Austin", "78701"]),
            json!(["José", "Peña", "3 Elm Rd", "Dallas", "75201"]),
        ]
    );
    assert!(by_cli.iter().all(|leads| *leads == by_cli[0]), "{by_cli:?}");

    // The upload page reads it alike and says so.
    let page_team = team(&app, "By upload", &alice).await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let done = imported(&mut b, page_team, &utf16, "leads.csv").await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    assert_shows(
        &done.body,
        &["Read as UTF-16LE, columns separated by tabs."],
    );
    assert_eq!(separated_leads(&app, &alice, page_team).await, by_cli[0]);
}
