//! Webhook deliveries end to end: a real receiver (Python, verifying every signature with the
//! `standardwebhooks` library from PyPI) gets each event type; a receiver that answers 500 twice
//! gets the event on the third attempt; one that hangs is cut at 15 s and holds nobody else.
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::python::Receiver;
use leadhub_tests::{backend_tests, TestApp};

use crate::enrichment::geocoder_chain;
use crate::helpers::{batch_ok, batch_path, poll, submit};
use crate::teams::team_of;
use crate::webhooks::create_webhook;

backend_tests!(
    every_event_arrives_signed_retried_and_unheld,
    a_process_without_workers_sends_no_webhooks,
    a_lead_moved_away_is_told_to_its_old_team_without_its_new_state,
    an_intake_event_goes_out_at_once_not_at_the_next_poll
);

/// The app again sending webhooks to 127.0.0.1 on a short schedule, without job workers (an
/// API-only process).
async fn without_workers(app: TestApp) -> TestApp {
    let app = app.restart().local_webhooks_scaled("0.001");
    app.env("LEADHUB_WORKERS", "0").build().await
}

/// A process without job workers (`LEADHUB_WORKERS=0`, an API-only one) sends no webhook: its
/// events wait for a process that has them, which sends them.
async fn a_process_without_workers_sends_no_webhooks(app: TestApp) {
    let Some(receiver) = Receiver::start() else {
        return;
    };
    let app = without_workers(app).await;
    let [owner] = app.users(["owner"]).await;
    let team = team_of(&app, &owner, "Quiet", &[]).await;
    let hook = json!({"url": receiver.url("all"), "events": ["*"]});
    let made = create_webhook(&app, &owner.key, team, hook).await;
    receiver.trust("all", made["secret"].as_str().unwrap());
    let lead = json!({"team_id": team, "address": "5 Quiet Ln", "city": "Austin", "state": "TX"});
    submit(&app, &owner.key, lead).await;
    // Many of the test's polls (LEADHUB_JOB_POLL_MS) go by with nothing sent.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(receiver.log().await, Vec::<Value>::new());

    let app = app.restart().local_webhooks_scaled("0.001").build().await;
    let log = receiver
        .wait_for(Duration::from_secs(30), |log| !log.is_empty())
        .await;
    assert_eq!(log[0]["body"]["type"], "lead.created", "{log:?}");
    drop(app);
}

/// A lead's events still waiting for their first attempt when the lead moves to another team
/// reach the old team's endpoint with the lead's id alone: nothing the new team wrote since.
async fn a_lead_moved_away_is_told_to_its_old_team_without_its_new_state(app: TestApp) {
    let Some(receiver) = Receiver::start() else {
        return;
    };
    let app = without_workers(app).await;
    let [owner, bob] = app.users(["owner", "bob"]).await;
    let old = team_of(&app, &owner, "Old", &[]).await;
    let new = team_of(&app, &owner, "New", &[(&bob, "member")]).await;
    let hook = json!({"url": receiver.url("old"), "events": ["*"]});
    let made = create_webhook(&app, &owner.key, old, hook).await;
    receiver.trust("old", made["secret"].as_str().unwrap());
    let lead = json!({"team_id": old, "address": "9 Moving Ln", "city": "Austin", "state": "TX"});
    let id = submit(&app, &owner.key, lead).await["result_lead_id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/leads/{id}/move");
    let (status, body) = app.post(&path, &owner.key, json!({"team_id": new})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let secret = json!({"last_name": "Newteamonly", "email_1": "private@new.example"});
    let (status, body) = app
        .patch(&format!("/api/v1/leads/{id}"), &bob.key, secret)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let app = app.restart().local_webhooks_scaled("0.001").build().await;
    let log = receiver
        .wait_for(Duration::from_secs(30), |log| {
            types(&of(log, "old")) == ["lead.created", "lead.updated"]
        })
        .await;
    for delivery in &log {
        let body = &delivery["body"];
        assert_eq!(body["data"], json!({"id": id}), "{body}");
        assert!(!body.to_string().contains("Newteamonly"), "{body}");
    }
    let moved = log.iter().find(|d| d["body"]["type"] == "lead.updated");
    let changes = &moved.unwrap()["body"]["changes"];
    assert_eq!(
        changes["team_id"],
        json!({"old": old, "new": new}),
        "{changes}"
    );
    drop(app);
}

/// A submission's events wake the delivery worker, which sends them then, not at its next look
/// for work (here a minute away): an event written within a second is due at once.
async fn an_intake_event_goes_out_at_once_not_at_the_next_poll(app: TestApp) {
    let Some(receiver) = Receiver::start() else {
        return;
    };
    let app = app.restart().local_webhooks_scaled("0.001");
    let app = app.env("LEADHUB_JOB_POLL_MS", "60000").build().await;
    let [owner] = app.users(["owner"]).await;
    let team = team_of(&app, &owner, "Prompt", &[]).await;
    let hook = json!({"url": receiver.url("prompt"), "events": ["lead.created"]});
    let made = create_webhook(&app, &owner.key, team, hook).await;
    receiver.trust("prompt", made["secret"].as_str().unwrap());
    // The worker's first look (at its start) is over before the lead comes.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let lead = json!({"team_id": team, "address": "3 Prompt Way", "city": "Austin", "state": "TX"});
    submit(&app, &owner.key, lead).await;
    let log = receiver
        .wait_for(Duration::from_secs(20), |log| !log.is_empty())
        .await;
    assert_eq!(log[0]["body"]["type"], "lead.created", "{log:?}");
    drop(app);
}

fn of<'a>(log: &'a [Value], endpoint: &str) -> Vec<&'a Value> {
    log.iter().filter(|d| d["endpoint"] == endpoint).collect()
}

fn types(log: &[&Value]) -> Vec<String> {
    let mut t: Vec<String> = log
        .iter()
        .map(|d| d["body"]["type"].as_str().unwrap_or("?").to_owned())
        .collect();
    t.sort();
    t.dedup();
    t
}

const EVENT_TYPES: [&str; 5] = [
    "batch.completed",
    "lead.created",
    "lead.enriched",
    "lead.updated",
    "submission.failed",
];

async fn every_event_arrives_signed_retried_and_unheld(app: TestApp) {
    let Some(receiver) = Receiver::start() else {
        return;
    };
    // No job workers yet: a deferred batch waits while its submitter leaves the team.
    let app = without_workers(app).await;
    let [owner, leaver] = app.users(["owner", "leaver"]).await;
    let team = team_of(&app, &owner, "Hooked", &[(&leaver, "member")]).await;
    let mut ids = std::collections::HashMap::new();
    for (name, events) in [
        ("all", json!(["*"])),
        ("flaky", json!(["lead.created"])),
        ("hang", json!(["*"])),
    ] {
        let made = create_webhook(
            &app,
            &owner.key,
            team,
            json!({"url": receiver.url(name), "events": events}),
        )
        .await;
        receiver.trust(name, made["secret"].as_str().unwrap());
        ids.insert(name, made["id"].as_i64().unwrap());
    }
    let deferred = batch_ok(
        &app,
        &leaver.key,
        json!({"team_id": team, "process_immediately": false, "leads": [
            {"address": "1 Left St", "city": "Austin", "state": "TX"},
        ]}),
    )
    .await;
    let path = format!("/api/teams/{team}/members/{}", leaver.user.user_id);
    assert_eq!(app.delete(&path, &owner.key).await.0, StatusCode::OK);

    let geocoder = geocoder_chain(&app, &["zip"]);
    let app = app
        .restart()
        .local_webhooks_scaled("0.001")
        .geocoder(geocoder)
        .build()
        .await;
    let started = Instant::now();
    let lead = json!({"team_id": team, "address": "700 Lavaca St", "city": "Austin",
                      "state": "TX", "zip_code": "78701"});
    let created = submit(&app, &owner.key, lead.clone()).await;
    let mut more = lead.clone();
    more["first_name"] = json!("Pat");
    more["last_name"] = json!("Example");
    submit(&app, &owner.key, more).await;
    batch_ok(
        &app,
        &owner.key,
        json!({"team_id": team, "leads": [{"address": "9 Other Rd", "city": "Austin", "state": "TX"}]}),
    )
    .await;
    let batch_path = batch_path(&deferred);
    poll(&app, &batch_path, &leaver.key, |b| b["pending"] == 0).await;

    // Every type reaches the endpoint that listens to all, each delivery verified by the library.
    let log = receiver
        .wait_for(Duration::from_secs(30), |log| {
            types(&of(log, "all")) == EVENT_TYPES
        })
        .await;
    let all_took = started.elapsed();
    let all = of(&log, "all");
    assert!(log.iter().all(|d| d["verified"] == true), "{log:#?}");
    let lead_id = created["result_lead_id"].as_i64().unwrap();
    let first = all
        .iter()
        .find(|d| d["body"]["type"] == "lead.created" && d["body"]["data"]["id"] == lead_id)
        .unwrap_or_else(|| panic!("no lead.created for {lead_id}: {all:#?}"));
    assert!(first["body"]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(first["body"]["data"]["team_id"], json!(team));
    let failed: Vec<_> = all
        .iter()
        .filter(|d| d["body"]["type"] == "submission.failed")
        .collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0]["body"]["data"]["status"], json!("failed"));

    // The flaky endpoint: every lead.created id three times, the same id, the third accepted.
    let flaky = receiver
        .wait_for(Duration::from_secs(30), |log| {
            let f = of(log, "flaky");
            !f.is_empty()
                && f.iter().all(|d| d["body"]["type"] == "lead.created")
                && f.iter().filter(|d| d["attempt"] == 3).count() == 2
        })
        .await;
    let flaky = of(&flaky, "flaky");
    assert_eq!(flaky.len(), 6, "{flaky:#?}");
    // The receiver logs the third attempt as it arrives; the worker records it once the answer is
    // back, a moment later on a busy machine.
    let deliveries = format!("/api/teams/{team}/webhooks/{}/deliveries", ids["flaky"]);
    let page = poll(&app, &deliveries, &owner.key, |page| {
        page["items"]
            .as_array()
            .is_some_and(|items| items.iter().all(|d| d["status"] == "delivered"))
    })
    .await;
    for d in page["items"].as_array().unwrap() {
        assert_eq!(d["status"], json!("delivered"), "{page}");
        assert_eq!(d["attempts"], json!(3), "{page}");
        assert_eq!(d["last_status"], json!(204), "{page}");
    }

    // The hanging endpoint held none of that; its own attempts are cut at 15 s and retried.
    eprintln!(
        "all event types delivered to the healthy endpoint in {all_took:?} while another hangs"
    );
    assert!(
        !of(&log, "hang").is_empty(),
        "the hanging endpoint was called"
    );
    let cut = Instant::now();
    let hang_path = format!(
        "/api/teams/{team}/webhooks/{}/deliveries?limit=500",
        ids["hang"]
    );
    loop {
        let (_, page) = app.get(&hang_path, &owner.key).await;
        let timed_out = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["attempts"].as_i64().unwrap_or(0) >= 1);
        if let Some(d) = timed_out {
            assert_eq!(d["status"], json!("pending"), "{d}");
            assert!(d["last_error"].as_str().unwrap().contains("15 s"), "{d}");
            break;
        }
        assert!(cut.elapsed() < Duration::from_secs(25), "{page}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
