//! CSV uploads from the pages (`/leads/import`, `/businesses/import`, `/uploads/{id}`): the
//! import through the job queue with the CLI's rules, the reject report, refused files, the size
//! cap, CSRF, isolation between teams; and the lead export read back by Python's csv module.
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::helpers::team;
use crate::lead_pages::{batch, fetch_csv, lead};
use crate::pages::{sign_in, Browser, Page};
use crate::upload_columns::choose;
use crate::workbook_exports::first_sheet;

backend_tests!(
    an_upload_imports_with_the_clis_rules_and_reports_rejects,
    bad_files_are_refused_with_a_message,
    a_file_over_the_cap_is_refused,
    an_upload_without_its_csrf_token_is_refused,
    another_teams_upload_is_not_found,
    a_report_wider_than_excel_still_downloads,
    a_queued_upload_survives_a_restart,
    businesses_upload_through_the_same_path,
    the_export_reads_back_with_pythons_csv_module,
    the_forms_source_is_each_leads_without_its_own,
);

/// One good new lead, one duplicate of an existing lead, one with a bad state (dropped, the row
/// kept) and a formula in a cell, one shifted (a cell beyond the header); a column we do not know,
/// so the upload awaits its columns first (`sent_as_named`).
const LEADS: &str = "\
address,city,state,zip_code,first_name,favourite_colour
1 Main St,Austin,TX,78701,Ann,blue
9 Elm Street,Austin,TX,78701,Again,red
2 Oak Ave,Austin,XX,78701,=HYPERLINK(\"http://x\"),green
3 Elm Rd,Austin,TX,78701,=HYPERLINK(\"http://x\"),red,shifted
";

/// Posts `bytes` as the upload form of `path` would, CSRF token first.
pub(crate) async fn upload(
    b: &mut Browser,
    path: &str,
    team_id: i64,
    csrf: Option<&str>,
    bytes: &[u8],
) -> Page {
    upload_named(b, path, team_id, csrf, bytes, "leads.csv").await
}

/// A leads file named `file_name` uploaded into `team_id` and accepted, and its page once the
/// import finished.
pub(crate) async fn imported(b: &mut Browser, team_id: i64, bytes: &[u8], file_name: &str) -> Page {
    let sent = upload_named(b, "/leads/import", team_id, None, bytes, file_name).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    finished(b, sent.location()).await
}

/// `upload` of a file named `file_name`, the name sent as written (as a browser does, not
/// percent-encoded).
pub(crate) async fn upload_named(
    b: &mut Browser,
    path: &str,
    team_id: i64,
    csrf: Option<&str>,
    bytes: &[u8],
    file_name: &str,
) -> Page {
    let token = match csrf {
        Some(token) => token.to_owned(),
        None => b.get(path).await.field("csrf"),
    };
    let form = Form::new()
        .percent_encode_noop()
        .text("csrf", token)
        .text("team_id", team_id.to_string())
        .part(
            "file",
            Part::bytes(bytes.to_vec())
                .file_name(file_name.to_owned())
                .mime_str("text/csv")
                .unwrap(),
        );
    b.post_multipart(path, form).await
}

/// The columns step of the upload at `location` sent as shown, each column feeding what its header
/// names (the unknown ones nothing), as a person who looked and agreed does.
pub(crate) async fn sent_as_named(b: &mut Browser, location: &str) {
    let sent = choose(b, location, &[]).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
}

/// `imported`, for a file with a column we do not know: its columns sent as named on the way.
pub(crate) async fn imported_as_named(
    b: &mut Browser,
    team_id: i64,
    bytes: &[u8],
    file_name: &str,
) -> Page {
    let sent = upload_named(b, "/leads/import", team_id, None, bytes, file_name).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    sent_as_named(b, sent.location()).await;
    finished(b, sent.location()).await
}

/// The status page once the import is over.
pub(crate) async fn finished(b: &mut Browser, location: &str) -> Page {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = b.get(location).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        if !page.body.contains("http-equiv=\"refresh\"") {
            return page;
        }
        assert!(
            Instant::now() < deadline,
            "the import did not finish: {}",
            page.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The figure shown in the summary's `<dd id="count-NAME">`.
pub(crate) fn count(page: &Page, name: &str) -> i64 {
    page.text_after(&format!("id=\"count-{name}\">"), '<')
        .parse()
        .unwrap()
}

/// Each figure of a finished upload's summary, as (name, expected).
pub(crate) fn assert_counts(page: &Page, expected: &[(&str, i64)]) {
    for (name, want) in expected {
        assert_eq!(count(page, name), *want, "{name}: {}", page.body);
    }
}

/// Alice, her team with one lead at 9 Elm Street, and her signed-in browser.
async fn alice_with_a_lead(app: &TestApp) -> (TestUser, i64, Browser) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(app, "Alpha", &alice).await;
    let mut existing = lead(9, "Austin", "permits");
    existing["team_id"] = json!(team_id);
    batch(app, &alice, vec![existing]).await;
    let b = sign_in(app, "alice@example.com").await;
    (alice, team_id, b)
}

async fn an_upload_imports_with_the_clis_rules_and_reports_rejects(app: TestApp) {
    let (alice, team_id, mut b) = alice_with_a_lead(&app).await;
    let form = b.get("/leads").await;
    assert!(form.body.contains("href=\"/leads/import\""));
    let sent = upload(&mut b, "/leads/import", team_id, None, LEADS.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let location = sent.location().to_owned();
    assert!(location.starts_with("/uploads/"), "{location}");
    sent_as_named(&mut b, &location).await;

    let done = finished(&mut b, &location).await;
    assert!(done.body.contains("id=\"upload-summary\""), "{}", done.body);
    let summary = [
        ("rows", 4),
        ("created", 2),
        ("merged", 1),
        ("rejected", 1),
        ("warnings", 1),
    ];
    assert_counts(&done, &summary);
    assert!(
        done.body.contains("<code>invalid_state</code>: 1"),
        "{}",
        done.body
    );
    let report_link = format!("{location}/report");
    assert!(done.body.contains(&format!("href=\"{report_link}\"")));

    let report = b.get(&report_link).await;
    assert_eq!(report.status, StatusCode::OK);
    assert_eq!(report.headers["content-type"], "text/csv; charset=utf-8");
    let mut lines = report.body.lines();
    assert_eq!(
        lines.next(),
        Some(
            "row,column,value,code,message,address,city,state,zip_code,first_name,favourite_colour"
        )
    );
    let warned = lines.next().unwrap();
    assert!(warned.starts_with("4,state,XX,invalid_state,"), "{warned}");
    let rejected = lines.next().unwrap();
    assert!(rejected.starts_with("5,,,shifted_row,"), "{rejected}");
    // The formula in the rejected row is defused, as in the CLI's report.
    assert!(
        rejected.contains("3 Elm Rd,Austin,TX,78701,\"'=HYPERLINK(\"\"http://x\"\")\",red,shifted"),
        "{rejected}"
    );
    assert_eq!(lines.next(), None);
    // The same report for Excel: every cell text, the formula guard's apostrophe gone.
    let (status, _, workbook) = b.download(&format!("{report_link}.xlsx")).await;
    assert_eq!(status, StatusCode::OK);
    let (name, rows, _) = first_sheet(workbook.clone());
    assert_eq!(name, "Report");
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(report.body.as_bytes());
    for (row, record) in rows.iter().zip(csv.records()) {
        let record = record.unwrap();
        let cells: Vec<String> = row.iter().map(ToString::to_string).collect();
        let unguarded = record.iter().map(|c| {
            c.strip_prefix("'=")
                .map_or(c.to_owned(), |r| format!("={r}"))
        });
        assert_eq!(cells[..record.len()], unguarded.collect::<Vec<_>>());
    }
    assert_eq!(rows.len(), 3);
    // Uploaded again as it is, the workbook imports like the CSV report: its own columns ignored,
    // the warning's line (no cells of the file) no row, the shifted row refused again.
    let again = imported_as_named(&mut b, team_id, &workbook, "report.xlsx").await;
    assert_counts(&again, &[("rows", 1), ("created", 0), ("rejected", 1)]);
    assert!(again
        .body
        .contains("Ignored: row, column, value, code, message,"));
    // Fixed in Excel (the shifted cell deleted), the rejected row imports.
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let width = rows[0].iter().take_while(|c| !c.to_string().is_empty());
    let width = width.count();
    for (r, row) in [&rows[0], &rows[2]].into_iter().enumerate() {
        let fixed = row.iter().take(width);
        for (c, cell) in fixed.enumerate() {
            let (r, c) = (u32::try_from(r).unwrap(), u16::try_from(c).unwrap());
            sheet.write_string(r, c, cell.to_string()).unwrap();
        }
    }
    let fixed = book.save_to_buffer().unwrap();
    let fixed = imported_as_named(&mut b, team_id, &fixed, "fixed.xlsx").await;
    assert_counts(&fixed, &[("rows", 1), ("created", 1), ("rejected", 0)]);

    // The leads are in the team, the duplicate merged into the existing one; the fixed row's
    // lead is the fourth, its formula-like first name kept as text.
    let (status, page) = app.get("/api/v1/leads?limit=10", &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["total"], 4, "{page}");
    assert_eq!(page["items"][0]["address"], "3 Elm Rd");
    assert_eq!(page["items"][0]["first_name"], "=HYPERLINK(\"http://x\")");
    assert!(page["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["team_id"] == team_id));
}

async fn bad_files_are_refused_with_a_message(app: TestApp) {
    let (_, team_id, mut b) = alice_with_a_lead(&app).await;
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    // A header naming nothing of ours is no bad file: its columns are chosen (upload_columns.rs).
    let cases: [(&[u8], &str); 5] = [
        (b"", "The file is empty."),
        (png, "neither a CSV file nor an Excel workbook"),
        (b"colour,size\n", "a header but no rows"),
        (b"address,city\n", "a header but no rows"),
        (
            b"Permits issued in November,,\n,,\nPermit #,Site Address,City\nP-1,1 Main St,Austin\n",
            "no column named like a leads field in its first row, but row 3 names 3 (Permit #, Site \
             Address, City): delete the rows above it.",
        ),
    ];
    for (bytes, message) in cases {
        let page = upload(&mut b, "/leads/import", team_id, None, bytes).await;
        assert_eq!(
            page.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{message}: {}",
            page.body
        );
        assert!(page.body.contains(message), "{message}: {}", page.body);
        // The form is shown again, ready for another file.
        assert!(page.body.contains("id=\"upload-form\""));
    }
    // A Windows-1252 file (Excel's "CSV") is no bad file: it is read as the CLI reads it.
    let latin = b"address,city,state\n1 Stra\xdfe,K\xf6ln Caf\xe9,TX\n";
    let done = imported(&mut b, team_id, latin, "leads.csv").await;
    assert_eq!(count(&done, "created"), 1, "{}", done.body);
    assert!(done.body.contains("Read as windows-1252"), "{}", done.body);
    // A team the uploader is not in.
    let other = app.user("mallory@example.com").await;
    let foreign = team(&app, "Other", &other).await;
    let page = upload(&mut b, "/leads/import", foreign, None, LEADS.as_bytes()).await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(
        page.body.contains("Not a member of this team"),
        "{}",
        page.body
    );
    assert_eq!(
        stored_uploads(&app).await,
        1,
        "a refused file is not stored (the Windows-1252 one was not refused)"
    );
}

/// How many uploads are stored.
async fn stored_uploads(app: &TestApp) -> i64 {
    use diesel::QueryDsl;
    app.read_db(|conn| conn.get_result::<_, i64>(leadhub_db::schema::uploads::table.count()))
        .await
}

async fn a_file_over_the_cap_is_refused(app: TestApp) {
    let app = app
        .restart()
        .env("LEADHUB_BODY_LIMIT", "4096")
        .build()
        .await;
    let (_, team_id, mut b) = alice_with_a_lead(&app).await;
    let mut big = String::from("address,city\n");
    while big.len() <= 4096 {
        big.push_str("1 Main St,Austin\n");
    }
    let page = upload(&mut b, "/leads/import", team_id, None, big.as_bytes()).await;
    assert_eq!(page.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(page.body.contains("larger than 4 KB"), "{}", page.body);
    // Far past the cap: still the page, not a reset connection.
    let huge = big.repeat(20);
    let page = upload(&mut b, "/leads/import", team_id, None, huge.as_bytes()).await;
    assert_eq!(page.status, StatusCode::PAYLOAD_TOO_LARGE);
    // Just under it: accepted.
    let page = upload(
        &mut b,
        "/leads/import",
        team_id,
        None,
        &big.as_bytes()[..4000],
    )
    .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
}

async fn an_upload_without_its_csrf_token_is_refused(app: TestApp) {
    let (_, team_id, mut b) = alice_with_a_lead(&app).await;
    for token in ["", "0000"] {
        let page = upload(
            &mut b,
            "/leads/import",
            team_id,
            Some(token),
            LEADS.as_bytes(),
        )
        .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN);
        assert!(page.body.contains("This form could not be accepted"));
    }
    // Another session's token does not fit.
    app.user("bob@example.com").await;
    let mut bob = sign_in(&app, "bob@example.com").await;
    let bobs = bob.get("/leads/import").await.field("csrf");
    let page = upload(
        &mut b,
        "/leads/import",
        team_id,
        Some(&bobs),
        LEADS.as_bytes(),
    )
    .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert_eq!(stored_uploads(&app).await, 0);
}

async fn a_report_wider_than_excel_still_downloads(app: TestApp) {
    let (_, team_id, mut b) = alice_with_a_lead(&app).await;
    // A shifted row of 20,002 cells: the report keeps them all; Excel holds 16,384 columns.
    let wide = format!("address,city\n4 Elm Rd,Austin{}\n", ",x".repeat(20_000));
    let done = imported(&mut b, team_id, wide.as_bytes(), "wide.csv").await;
    assert_counts(&done, &[("rows", 1), ("rejected", 1)]);
    let report = done.text_after("id=\"reject-report\" href=\"", '"');
    let (status, _, workbook) = b.download(&format!("{report}.xlsx")).await;
    assert_eq!(status, StatusCode::OK);
    let (_, rows, _) = first_sheet(workbook);
    assert_eq!(rows[1].len(), 16_384);
    assert_eq!(rows[1][5].to_string(), "4 Elm Rd");
}

async fn another_teams_upload_is_not_found(app: TestApp) {
    let (_, team_id, mut b) = alice_with_a_lead(&app).await;
    let sent = upload(&mut b, "/leads/import", team_id, None, LEADS.as_bytes()).await;
    let location = sent.location().to_owned();
    sent_as_named(&mut b, &location).await;
    finished(&mut b, &location).await;
    assert_eq!(
        b.get(&format!("{location}/report")).await.status,
        StatusCode::OK
    );
    let other_file = b.get(&format!("{location}/report.ods")).await;
    assert_eq!(other_file.status, StatusCode::NOT_FOUND);

    let bob = app.user("bob@example.com").await;
    team(&app, "Beta", &bob).await;
    let mut bob = sign_in(&app, "bob@example.com").await;
    for path in [
        location.clone(),
        format!("{location}/report"),
        format!("{location}/report.xlsx"),
        "/uploads/99999".into(),
        "/uploads/x".into(),
    ] {
        let page = bob.get(&path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!page.body.contains("leads.csv"), "{path}");
    }
    // Bob's list of uploads holds none of Alice's team.
    let list = bob.get("/uploads").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(!list.body.contains(&location), "{}", list.body);
    // A second member of Alice's team sees it, in the list too.
    let carol = app.user("carol@example.com").await;
    crate::helpers::join(&app, team_id, &carol).await;
    let mut carol = sign_in(&app, "carol@example.com").await;
    assert_eq!(carol.get(&location).await.status, StatusCode::OK);
    let list = carol.get("/uploads").await;
    assert!(
        list.body.contains(&format!("href=\"{location}\"")),
        "{}",
        list.body
    );
    assert!(list.body.contains("leads.csv"), "{}", list.body);
}

async fn a_queued_upload_survives_a_restart(app: TestApp) {
    let app = app.restart().env("LEADHUB_WORKERS", "0").build().await;
    let (alice, team_id, mut b) = alice_with_a_lead(&app).await;
    let sent = upload(&mut b, "/leads/import", team_id, None, LEADS.as_bytes()).await;
    let location = sent.location().to_owned();
    sent_as_named(&mut b, &location).await;
    let waiting = b.get(&location).await;
    assert!(
        waiting.body.contains("http-equiv=\"refresh\""),
        "{}",
        waiting.body
    );
    assert!(waiting.body.contains("id=\"upload-progress\""));

    // Nothing of the upload was in memory: a new process with workers imports it.
    let app = app.restart().build().await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let done = finished(&mut b, &location).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    let (_, page) = app.get("/api/v1/leads?limit=10", &alice.key).await;
    assert_eq!(page["total"], 3, "{page}");
}

async fn businesses_upload_through_the_same_path(app: TestApp) {
    let (alice, team_id, mut b) = alice_with_a_lead(&app).await;
    let csv = "name,city,state,website\nAcme Roofing,Austin,TX,https://acme.example\n,Austin,TX,\n";
    let sent = upload(&mut b, "/businesses/import", team_id, None, csv.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let done = finished(&mut b, sent.location()).await;
    assert_counts(&done, &[("created", 1), ("rejected", 1)]);
    let (_, list) = app.get("/api/v1/lead-sources/businesses", &alice.key).await;
    assert_eq!(list["total"], 1, "{list}");
}

async fn the_export_reads_back_with_pythons_csv_module(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut leads: Vec<Value> = (1..=30).map(|i| lead(i, "Austin", "permits")).collect();
    leads.push(
        json!({"address": "7 Formula Way", "city": "Austin", "state": "TX", "zip_code": "78701",
                      "first_name": "Line\nbreak", "last_name": "\"Quoted\", comma",
                      "project_description": "naïve café ✓"}),
    );
    batch(&app, &alice, leads).await;
    let (_, text) = fetch_csv(&app, "/api/v1/leads/export", &alice.key).await;
    let file = std::env::temp_dir().join(format!("leadhub-export-{}.csv", std::process::id()));
    std::fs::write(&file, &text).unwrap();
    let script = "import csv, json, sys\n\
                  with open(sys.argv[1], newline='', encoding='utf-8') as f:\n\
                  \x20   rows = list(csv.DictReader(f))\n\
                  print(json.dumps([[r['id'], r['first_name'], r['last_name'], r['project_description']] for r in rows]))\n";
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_file(&file).ok();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows: Vec<[String; 4]> = serde_json::from_slice(&output.stdout).unwrap();

    let (_, page) = app.get("/api/v1/leads?limit=100", &alice.key).await;
    let api: Vec<[String; 4]> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let text = |name: &str| l[name].as_str().unwrap_or("").to_owned();
            [
                l["id"].to_string(),
                text("first_name"),
                text("last_name"),
                text("project_description"),
            ]
        })
        .collect();
    assert_eq!(rows.len(), 31);
    assert_eq!(rows, api);
}

/// The upload form of leads sent with `source` as its "Source of these leads".
async fn upload_with_source(b: &mut Browser, team_id: i64, source: &str, file: &str) -> Page {
    let csrf = b.get("/leads/import").await.field("csrf");
    let form = Form::new()
        .text("csrf", csrf)
        .text("team_id", team_id.to_string())
        .text("source", source.to_owned())
        .part(
            "file",
            Part::bytes(file.as_bytes().to_vec())
                .file_name("storm.csv")
                .mime_str("text/csv")
                .unwrap(),
        );
    b.post_multipart("/leads/import", form).await
}

async fn the_forms_source_is_each_leads_without_its_own(app: TestApp) {
    let (alice, team_id, mut b) = alice_with_a_lead(&app).await;
    let form = b.get("/leads/import").await;
    assert!(form.body.contains("name=\"source\""), "{}", form.body);
    let file = "Address,City,State,Zip,Source\n\
        1 Oak St,Austin,TX,78701,\n\
        2 Oak St,Austin,TX,78701,Referral\n";
    let refused = upload_with_source(&mut b, team_id, "--", file).await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("no letter or digit"),
        "{}",
        refused.body
    );
    let sent = upload_with_source(&mut b, team_id, "Storm List", file).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    assert!(
        done.body
            .contains("<a href=\"/leads?source=storm_list\">storm_list</a>"),
        "{}",
        done.body
    );
    let address_of = |list: &Value| -> Vec<String> {
        let items = list["items"].as_array().unwrap();
        items
            .iter()
            .map(|l| l["address"].as_str().unwrap().to_owned())
            .collect()
    };
    let (_, storm) = app.get("/api/v1/leads?source=storm_list", &alice.key).await;
    assert_eq!(address_of(&storm), ["1 Oak St"], "{storm}");
    // A row's own source cell wins; the lead from before keeps its own.
    let (_, referral) = app.get("/api/v1/leads?source=referral", &alice.key).await;
    assert_eq!(address_of(&referral), ["2 Oak St"], "{referral}");
    let (_, permits) = app.get("/api/v1/leads?source=permits", &alice.key).await;
    assert_eq!(permits["total"], 1, "{permits}");
}
