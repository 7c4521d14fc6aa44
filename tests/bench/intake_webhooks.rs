//! What webhooks cost intake: batches of 1000 leads for a team with 3 endpoints subscribed to
//! every event, alternating with batches for a team with none, same run. The endpoints are a
//! local sink answering 204, so deliveries run beside the batches as they would in service; a
//! second pass waits for them (arrived and recorded) before each batch, which leaves intake's own
//! cost.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use diesel::prelude::*;
use serde_json::json;

use leadhub_db::schema::{webhook_deliveries, webhook_events};

use leadhub_tests::TestApp;

use super::{lead, median, quartiles, timed_batch, BATCH, RUNS};

/// An HTTP/1.1 sink on 127.0.0.1 answering every request 204 and keeping its connections open
/// (as a receiver behind any web server does); returns its base URL and its request count.
fn sink() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || answer_all(stream, &seen));
        }
    });
    (url, count)
}

/// Reads requests (headers, then `content-length` bytes of body) and answers each 204.
fn answer_all(stream: TcpStream, seen: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        seen.fetch_add(1, Ordering::Relaxed);
        if writer
            .write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .is_err()
        {
            return;
        }
    }
}

async fn team(app: &TestApp, key: &str, name: &str) -> i64 {
    let (_, team) = app.post("/api/teams", key, json!({"name": name})).await;
    team["id"].as_i64().unwrap()
}

/// Medians (and quartiles) of the batch times without and with 3 endpoints, in ms: first with
/// the deliveries running beside the batches (the backlog of earlier batches included), then with
/// each batch started once every delivery so far has arrived and been recorded (intake's own
/// cost alone).
pub async fn figure(app: &TestApp, key: &str) -> String {
    let quiet = team(app, key, "No webhooks").await;
    let hooked = team(app, key, "Three webhooks").await;
    let (url, received) = sink();
    for n in 0..3 {
        let (status, made) = app
            .post(
                &format!("/api/teams/{hooked}/webhooks"),
                key,
                json!({"url": format!("{url}/{n}"), "events": ["*"]}),
            )
            .await;
        assert!(status.is_success(), "{made}");
    }
    let mut lines = Vec::new();
    let mut expected = 0;
    for (pass, drained) in [(2000, false), (4000, true)] {
        let started = Instant::now();
        let mut without = Vec::new();
        let mut with = Vec::new();
        for run in 0..RUNS {
            // Each team its own addresses (the same ones would find the index pages the first
            // batch warmed), and either team first in turn.
            let mut pair = [(quiet, 0, &mut without), (hooked, 1, &mut with)];
            if run % 2 == 1 {
                pair.reverse();
            }
            for (team, k, times) in pair {
                if drained {
                    arrived(&received, expected).await;
                    recorded(app).await;
                }
                let leads: Vec<_> = (0..BATCH).map(|i| lead(pass + 2 * run + k, i)).collect();
                let body = json!({"team_id": team, "leads": leads});
                times.push(timed_batch(app, key, body).await);
            }
            // Each lead's `lead.created` and the batch's `batch.completed`, to 3 endpoints.
            expected += 3 * (BATCH + 1);
        }
        let during = received.load(Ordering::Relaxed);
        arrived(&received, expected).await;
        let ((a1, a3), (b1, b3)) = (quartiles(without.clone()), quartiles(with.clone()));
        let (a, b) = (median(without), median(with));
        lines.push(format!(
            "{}: no endpoints median {a:.1} ms ({a1:.1}-{a3:.1}); 3 endpoints median {b:.1} ms ({b1:.1}-{b3:.1}); {:+.1}%; all {expected} deliveries so far arrived {:.1} s after the pass began ({during} when its last batch ended)",
            if drained { "outbox drained before each batch" } else { "deliveries running beside" },
            (b / a - 1.0) * 100.0,
            started.elapsed().as_secs_f64(),
        ));
    }
    format!("batches of {BATCH}\n  {}", lines.join("\n  "))
}

/// Waits until the worker has recorded every attempt: no event row left, no delivery pending
/// (what follows an arrival, so that no batch pays for the previous one's deliveries).
async fn recorded(app: &TestApp) {
    let started = Instant::now();
    loop {
        let left: i64 = app
            .read_db(|conn| {
                let pending: i64 = conn.get_result(
                    webhook_deliveries::table
                        .filter(webhook_deliveries::status.eq("pending"))
                        .count(),
                )?;
                let rows: i64 = conn.get_result(webhook_events::table.count())?;
                Ok(pending + rows)
            })
            .await;
        if left == 0 {
            return;
        }
        assert!(
            started.elapsed().as_secs() < 600,
            "{left} deliveries or event rows still pending"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Waits until the sink has received `expected` deliveries.
async fn arrived(received: &AtomicUsize, expected: usize) {
    let started = Instant::now();
    while received.load(Ordering::Relaxed) < expected {
        assert!(
            started.elapsed().as_secs() < 600,
            "{} of {expected} deliveries arrived",
            received.load(Ordering::Relaxed)
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}
