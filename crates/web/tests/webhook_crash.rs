//! Webhook events survive a SIGKILL: 500 `lead.created` events pending when the server is killed
//! all reach the receiver (verified with the `standardwebhooks` library) once it is restarted.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::time::Duration;

use diesel::prelude::*;
use leadhub_db::schema::{webhook_deliveries, webhook_events};
use serde_json::{json, Value};

mod binary;
#[path = "../../../tests/support/python.rs"]
mod python;
use binary::{json_of, run_on, wait_up, Env};
use python::Receiver;

const EVENTS: usize = 500;

/// The JSON answer to `body` posted to `url` as `key`.
async fn post(client: &reqwest::Client, url: String, key: &str, body: Value) -> Value {
    json_of(client.post(url).bearer_auth(key).json(&body)).await
}

async fn killed_with_events_pending(env: Env) {
    let env = env.vars(&python::LOCAL_WEBHOOKS);
    let Some(rx) = Receiver::start() else {
        return;
    };
    let key = env.key();
    let client = reqwest::Client::new();
    let (server, base) = env.serve();
    wait_up(&client, &base).await;
    let team = post(
        &client,
        format!("{base}/api/teams"),
        &key,
        json!({"name": "Crash"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let hook = post(
        &client,
        format!("{base}/api/teams/{team}/webhooks"),
        &key,
        json!({"url": rx.url("slow"), "events": ["lead.created"]}),
    )
    .await;
    rx.trust("slow", hook["secret"].as_str().unwrap());
    let leads: Vec<Value> = (0..EVENTS)
        .map(|n| json!({"address": format!("{} Crash St", n + 1), "city": "Austin", "state": "TX"}))
        .collect();
    let batch = post(
        &client,
        format!("{base}/api/v1/submissions/batch"),
        &key,
        json!({"team_id": team, "leads": leads}),
    )
    .await;
    assert_eq!(batch["total"], EVENTS, "{batch}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.kill();
    let db = env.db();
    let (pending, unfanned): (i64, i64) = db
        .read(|conn| {
            let pending = conn.get_result(
                webhook_deliveries::table
                    .filter(webhook_deliveries::status.eq("pending"))
                    .count(),
            )?;
            Ok((pending, conn.get_result(webhook_events::table.count())?))
        })
        .await
        .unwrap();
    eprintln!(
        "after SIGKILL: {pending} of {EVENTS} deliveries pending, {unfanned} event rows not fanned out"
    );
    assert!(pending + unfanned > 0, "the kill came after every delivery");

    let (_server, base) = env.serve();
    wait_up(&client, &base).await;
    let distinct = |log: &[Value]| {
        log.iter()
            .filter_map(|d| d["id"].as_str())
            .collect::<HashSet<_>>()
            .len()
    };
    let log = rx
        .wait_for(Duration::from_secs(120), |log| distinct(log) == EVENTS)
        .await;
    assert!(log.iter().all(|d| d["verified"] == true));
    eprintln!("{} requests for {EVENTS} distinct webhook-ids", log.len());
}

#[test]
fn sqlite_webhook_events_survive_sigkill() {
    run_on("hooks-sqlite", false, killed_with_events_pending);
}

#[test]
fn postgres_webhook_events_survive_sigkill() {
    run_on("hookspg", true, killed_with_events_pending);
}
