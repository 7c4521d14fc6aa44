//! The working state a spreadsheet brings (docs/imports.md): the leads an upload creates get the
//! file's status, owner and follow-up day, set by the uploader under the page's rules; a lead
//! that existed keeps the team's; an owner who cannot work a lead is left out, the status set.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{join, team};
use crate::lead_pages::{batch, lead};
use crate::lead_uploads::{count, finished, upload};
use crate::pages::sign_in;
use crate::workbook_imports::lead as by_address;

backend_tests!(
    a_sales_sheet_brings_its_working_state_to_the_leads_it_creates,
    rows_with_only_tags_are_not_counted_as_working_state_set,
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
    assert_eq!(count(&done, "warnings"), 3, "{}", done.body);
    assert!(
        done.body.contains("<code>work_not_set</code>: 2"),
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
    assert!(
        lines[1].starts_with("3,Lead Status,Lost,work_not_set,\"the lead existed"),
        "{}",
        report.body
    );
    assert!(
        lines[2].starts_with("4,Lead Status,contacted,work_not_set,the owner was left out"),
        "{}",
        report.body
    );
    assert!(
        lines[3].starts_with("5,Lead Status,Proposal Sent,invalid_status,")
            && lines[3].contains("kept in the lead's note"),
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
