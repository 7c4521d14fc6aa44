//! A deferred batch is authorised when it is queued and again when its job runs: a
//! submitter who left the team, or a team deactivated in between, gets the
//! batch's submissions failed with the reason, and no lead is written.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, batch_path, poll};
use crate::teams::{add_member, create_team_id, remove_member};

/// The same database with no job workers, so that a deferred batch stays queued while the test
/// changes who may do what.
async fn without_workers(app: TestApp) -> TestApp {
    app.restart().env("LEADHUB_WORKERS", "0").build().await
}

async fn with_workers(app: TestApp) -> TestApp {
    app.restart().build().await
}

async fn defer(app: &TestApp, key: &str, team: i64, street: &str) -> Value {
    let body = batch_ok(
        app,
        key,
        json!({"team_id": team, "process_immediately": false, "leads": [
            {"address": format!("1 {street}"), "city": "Austin", "state": "TX"},
            {"address": format!("2 {street}"), "city": "Austin", "state": "TX"},
        ]}),
    )
    .await;
    assert_eq!(body["pending"], 2);
    body
}

async fn deferred_work_is_authorised_again_when_it_runs(app: TestApp) {
    let app = without_workers(app).await;
    let [owner, leaver, stayer, closing] =
        app.users(["owner", "leaver", "stayer", "closing"]).await;
    let team = create_team_id(&app, &owner.key, "Crew").await;
    let other = create_team_id(&app, &closing.key, "Closing").await;
    add_member(&app, &owner.key, team, &leaver, "member").await;
    add_member(&app, &owner.key, team, &stayer, "member").await;

    let left = defer(&app, &leaver.key, team, "Left St").await;
    let kept = defer(&app, &stayer.key, team, "Kept St").await;
    let closed = defer(&app, &closing.key, other, "Closed St").await;
    remove_member(&app, &owner.key, team, &leaver).await;
    let (status, _) = app
        .delete(&format!("/api/teams/{other}"), &closing.key)
        .await;
    assert_eq!(status, StatusCode::OK);

    let app = with_workers(app).await;
    for (batch, key, expected) in [
        (&left, &leaver.key, Some("Not a member of this team")),
        (&kept, &stayer.key, None),
        (&closed, &closing.key, Some("Team is inactive")),
    ] {
        let done = poll(&app, &batch_path(batch), key, |b| b["pending"] == 0).await;
        for element in batch["results"].as_array().unwrap() {
            let id = element["submission_id"].as_i64().unwrap();
            let (_, status) = app
                .get(&format!("/api/v1/submissions/status/{id}"), key)
                .await;
            match expected {
                Some(reason) => {
                    assert_eq!(status["status"], "failed", "{status}");
                    assert!(status["result_lead_id"].is_null());
                    let error = status["error"].as_str().unwrap();
                    assert!(error.contains(reason), "{error}");
                }
                None => assert_eq!(status["status"], "completed", "{status}"),
            }
        }
        let failed = if expected.is_some() { 2 } else { 0 };
        assert_eq!(done["failed"], failed, "{done}");
    }
    let (_, leads) = app.get("/api/v1/leads", &owner.key).await;
    assert_eq!(leads["total"], 2, "only the stayer's leads: {leads}");
}

backend_tests!(deferred_work_is_authorised_again_when_it_runs);
