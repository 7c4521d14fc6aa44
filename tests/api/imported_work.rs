//! The working state a spreadsheet brings (docs/imports.md): the leads an upload creates get the
//! file's status, owner and follow-up day, set by the uploader under the page's rules; a lead
//! that existed keeps the team's; an owner who cannot work a lead is left out, the status set.
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{join, team};
use crate::lead_pages::{batch, lead};
use crate::lead_uploads::{count, finished, upload};
use crate::lead_work::send;
use crate::pages::sign_in;
use crate::workbook_imports::lead as by_address;

backend_tests!(
    a_sales_sheet_brings_its_working_state_to_the_leads_it_creates,
    rows_with_only_tags_are_not_counted_as_working_state_set,
    a_sheet_imported_again_keeps_each_leads_version_and_says_only_what_it_left_aside,
);

/// A salesperson's sheet: a won lead of Bob's, a lead that exists already (9 Elm Street), a
/// lead given to someone outside the team, and one at a stage of the team's own process.
const SHEET: &str = "\
address,city,state,zip_code,Lead Status,Assigned To,Next Call
1 Main St,Austin,TX,78701,Won,Bob@Example.com,
9 Elm Street,Austin,TX,78701,Lost,bob@example.com,12/8/2026
2 Oak Ave,Austin,TX,78701,contacted,mallory@example.com,12/9/2026
3 Pine Rd,Austin,TX,78701,Proposal Sent,,
";

async fn a_sales_sheet_brings_its_working_state_to_the_leads_it_creates(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Alpha", &alice).await;
    let bob = app.user("bob@example.com").await;
    join(&app, team_id, &bob).await;
    app.user("mallory@example.com").await;
    let mut existing = lead(9, "Austin", "permits");
    existing["team_id"] = json!(team_id);
    batch(&app, &alice, vec![existing]).await;

    let mut b = sign_in(&app, "alice@example.com").await;
    let sent = upload(&mut b, "/leads/import", team_id, None, SHEET.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "created"), 3, "{}", done.body);
    assert_eq!(count(&done, "work"), 1, "{}", done.body);
    assert_eq!(count(&done, "warnings"), 5, "{}", done.body);
    assert!(
        done.body.contains("<code>work_not_set</code>: 4"),
        "{}",
        done.body
    );

    let (status, leads) = app.get("/api/v1/leads?limit=100", &alice.key).await;
    assert_eq!(status, StatusCode::OK, "{leads}");
    let won = by_address(&leads, "1 Main St");
    assert_eq!(won["status"], "won", "{won}");
    assert_eq!(won["assignee_id"], bob.user.user_id.as_str(), "{won}");
    // The lead that existed keeps the team's status and owner.
    let kept = by_address(&leads, "9 Elm Street");
    assert_eq!(kept["status"], "new", "{kept}");
    assert_eq!(kept["assignee_id"], Value::Null, "{kept}");
    assert_eq!(kept["follow_up_on"], Value::Null, "{kept}");
    // Mallory is in no team of the lead: the status is set, the owner left out.
    let contacted = by_address(&leads, "2 Oak Ave");
    assert_eq!(contacted["status"], "contacted", "{contacted}");
    assert_eq!(contacted["follow_up_on"], "2026-12-09", "{contacted}");
    assert_eq!(contacted["assignee_id"], Value::Null, "{contacted}");

    let report = b.get(&format!("{}/report", sent.location())).await;
    let lines: Vec<&str> = report.body.lines().collect();
    // Each cell of the lead that existed that says otherwise than the lead, under its column.
    let kept = [
        "3,Lead Status,Lost,work_not_set,\"the lead existed: its status stays new, as the team has it\"",
        "3,Assigned To,bob@example.com,work_not_set,\"the lead existed: it stays without an owner,",
        "3,Next Call,12/8/2026,work_not_set,\"the lead existed: it stays without a follow-up day,",
        "4,Assigned To,mallory@example.com,work_not_set,the owner was left out",
    ];
    for (line, start) in lines[1..].iter().zip(kept) {
        assert!(line.starts_with(start), "{}", report.body);
    }
    assert!(
        lines[5].starts_with("5,Lead Status,Proposal Sent,invalid_status,")
            && lines[5].contains("kept in the lead's note"),
        "{}",
        report.body
    );
    // The stage that is no status is where the person working the lead reads it.
    let staged = by_address(&leads, "3 Pine Rd");
    assert_eq!(staged["status"], "new", "{staged}");
    let (_, notes) = app
        .get(&format!("/api/v1/leads/{}/notes", staged["id"]), &alice.key)
        .await;
    assert_eq!(
        notes["items"][0]["body"], "Lead Status: Proposal Sent",
        "{notes}"
    );
    // Each set lead's timeline says who set what.
    let id = won["id"].as_i64().unwrap();
    let (_, timeline) = app
        .get(&format!("/api/v1/leads/{id}/activity"), &alice.key)
        .await;
    let kinds: Vec<&str> = timeline["items"]
        .as_array()
        .map(|items| items.iter().filter_map(|e| e["kind"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        kinds.contains(&"status_changed") && kinds.contains(&"assigned"),
        "{timeline}"
    );
}

/// The summary's "Status, owner or follow-up set" counts the rows that set one of those: a row
/// whose only change is its tags (or its do-not-call mark), on a lead it created or merged into,
/// is not among them (docs/imports.md).
async fn rows_with_only_tags_are_not_counted_as_working_state_set(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Alpha", &alice).await;
    let mut existing = lead(9, "Austin", "permits");
    existing["team_id"] = json!(team_id);
    batch(&app, &alice, vec![existing]).await;
    let sheet = "\
address,city,state,zip_code,Lead Status,Tags,DNC
1 Main St,Austin,TX,78701,Won,hot,
2 Oak Ave,Austin,TX,78701,,hot,
3 Pine Rd,Austin,TX,78701,,,yes
4 Cedar Ln,Austin,TX,78701,,,
9 Elm Street,Austin,TX,78701,,mailer,
";
    let mut b = sign_in(&app, "alice@example.com").await;
    let sent = upload(&mut b, "/leads/import", team_id, None, sheet.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "created"), 4, "{}", done.body);
    assert_eq!(
        count(&done, "merged") + count(&done, "skipped"),
        1,
        "{}",
        done.body
    );
    assert_eq!(
        count(&done, "work"),
        1,
        "only 1 Main St's status: {}",
        done.body
    );

    // The tags and the mark were set all the same.
    let (_, leads) = app.get("/api/v1/leads?limit=100", &alice.key).await;
    assert_eq!(by_address(&leads, "2 Oak Ave")["tags"], json!(["hot"]));
    assert_eq!(
        by_address(&leads, "9 Elm Street")["tags"],
        json!(["mailer"])
    );
    assert_eq!(by_address(&leads, "3 Pine Rd")["do_not_call"], true);
}

/// A sheet with tags and a working state, uploaded again (docs/imports.md): the leads existed
/// and carry its tags, so nothing changes: each keeps its version, and an edit sent with the
/// ETag read before is taken (not 412). Uploaded once more with one follow-up day edited, the
/// report names that cell alone, under its column, not the cells that say what the lead has.
async fn a_sheet_imported_again_keeps_each_leads_version_and_says_only_what_it_left_aside(
    app: TestApp,
) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Alpha", &alice).await;
    let sheet = "\
address,city,state,zip_code,Lead Status,Next Call,Tags
1 Main St,Austin,TX,78701,contacted,12/20/2026,storm;hail
2 Oak Ave,Austin,TX,78701,,,vip
";
    let mut b = sign_in(&app, "alice@example.com").await;
    let sent = upload(&mut b, "/leads/import", team_id, None, sheet.as_bytes()).await;
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    let versions = |leads: &Value| -> Vec<(String, Value)> {
        let items = leads["items"].as_array().cloned().unwrap_or_default();
        let mut v: Vec<(String, Value)> = items
            .iter()
            .map(|l| (l["address"].to_string(), l["version"].clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let (_, leads) = app.get("/api/v1/leads?limit=100", &alice.key).await;
    let before = versions(&leads);
    let main_st = by_address(&leads, "1 Main St");
    let etag = format!("\"{}\"", main_st["version"]);

    let sent = upload(&mut b, "/leads/import", team_id, None, sheet.as_bytes()).await;
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "skipped"), 2, "{}", done.body);
    assert_eq!(count(&done, "warnings"), 0, "{}", done.body);
    let (_, leads) = app.get("/api/v1/leads?limit=100", &alice.key).await;
    assert_eq!(versions(&leads), before);
    let path = format!("/api/v1/leads/{}", main_st["id"]);
    let headers = [("If-Match", etag.as_str())];
    let body = json!({"status": "qualified"});
    let (status, _, patched) =
        send(&app, Method::PATCH, &path, &alice.key, &headers, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{patched}");

    let edited = sheet.replace("12/20/2026", "2027-02-01");
    let sent = upload(&mut b, "/leads/import", team_id, None, edited.as_bytes()).await;
    let done = finished(&mut b, sent.location()).await;
    assert_eq!(count(&done, "warnings"), 2, "{}", done.body);
    let report = b.get(&format!("{}/report", sent.location())).await;
    let lines: Vec<&str> = report.body.lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "{}", report.body);
    // The status was moved on meanwhile: the sheet's says otherwise now.
    assert!(
        lines[0].starts_with(
            "2,Lead Status,contacted,work_not_set,\"the lead existed: its status stays qualified,"
        ),
        "{}",
        report.body
    );
    assert!(
        lines[1].starts_with("2,Next Call,2027-02-01,work_not_set,\"the lead existed: its follow-up day stays 2026-12-20,"),
        "{}",
        report.body
    );
}
