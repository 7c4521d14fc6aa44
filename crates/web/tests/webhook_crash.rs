//! Webhook events survive a SIGKILL: 500 `lead.created` events pending when the server is killed
//! all reach the receiver (verified with the `standardwebhooks` library) once it is restarted.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use leadhub_db::schema::{webhook_deliveries, webhook_events};
use serde_json::{json, Value};

mod binary;
use binary::{runtime, wait_up, Env};

const RECEIVER: &str = include_str!("../../../tests/api/webhook_receiver.py");
const EVENTS: usize = 500;

struct Receiver(Child, u16);

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The receiver, verifying with the secrets in `env`'s folder; None without standardwebhooks
/// (a failure when `CI` is set).
fn receiver(dir: &std::path::Path) -> Option<Receiver> {
    let found = Command::new("python3")
        .args(["-c", "import standardwebhooks"])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 with standardwebhooks is missing"
        );
        eprintln!(
            "\n*** webhook SIGKILL test SKIPPED: python3 -c 'import standardwebhooks' failed ***"
        );
        return None;
    }
    let script = dir.join("receiver.py");
    std::fs::write(&script, RECEIVER).unwrap();
    let mut child = Command::new("python3")
        .arg(&script)
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("READY ").unwrap().parse().unwrap();
    Some(Receiver(child, port))
}

async fn post(client: &reqwest::Client, url: String, key: &str, body: Value) -> Value {
    let response = client
        .post(url)
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.unwrap()
}

async fn killed_with_events_pending(env: Env) {
    let env = env
        .var("LEADHUB_WEBHOOK_ALLOW_HTTP", "1")
        .var("LEADHUB_WEBHOOK_ALLOW_PRIVATE", "1");
    let dir = env.dir.clone();
    let Some(rx) = receiver(&dir) else {
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
        json!({"url": format!("http://127.0.0.1:{}/slow", rx.1), "events": ["lead.created"]}),
    )
    .await;
    std::fs::write(dir.join("slow.secret"), hook["secret"].as_str().unwrap()).unwrap();
    let leads: Vec<Value> = (0..EVENTS)
        .map(|n| json!({"address": format!("{} Crash St", n + 1), "city": "Austin", "state": "TX"}))
        .collect();
    post(
        &client,
        format!("{base}/api/v1/submissions/batch"),
        &key,
        json!({"team_id": team, "leads": leads}),
    )
    .await;
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
    let log_url = format!("http://127.0.0.1:{}/_log", rx.1);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let log: Vec<Value> = client
            .get(&log_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(log.iter().all(|d| d["verified"] == true));
        let ids: HashSet<&str> = log.iter().filter_map(|d| d["id"].as_str()).collect();
        if ids.len() == EVENTS {
            eprintln!("{} requests for {EVENTS} distinct webhook-ids", log.len());
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {EVENTS} ids received",
            ids.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[test]
fn sqlite_webhook_events_survive_sigkill() {
    let env = Env::new("hooks-sqlite", false).unwrap();
    runtime().block_on(killed_with_events_pending(env));
}

#[test]
fn postgres_webhook_events_survive_sigkill() {
    let Some(env) = Env::new("hookspg", true) else {
        return;
    };
    runtime().block_on(killed_with_events_pending(env));
}
