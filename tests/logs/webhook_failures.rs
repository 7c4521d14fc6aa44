//! A failing webhook endpoint in the log (docs/webhooks.md): its first failure is one line with
//! the reason in words, then one summary line a minute while it keeps failing, whatever the
//! number of attempts. The worker's clock is the app's `Clock` port, moved by the test.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_domain::Clock;
use leadhub_tests::TestApp;

use crate::captured;

/// A clock that stands still until the test moves it.
struct TestClock(Mutex<DateTime<Utc>>);

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

impl TestClock {
    fn advance(&self, by: chrono::Duration) {
        *self.0.lock().unwrap() += by;
    }
}

/// The log lines of endpoint `wid`.
fn lines_of(wid: i64) -> Vec<String> {
    let text = String::from_utf8_lossy(&captured().lock().unwrap()).into_owned();
    let marker = format!("webhook endpoint {wid}:");
    text.lines()
        .filter(|l| l.contains(&marker))
        .map(str::to_owned)
        .collect()
}

/// Waits until endpoint `wid` has `n` lines (or 10 s), then returns them.
async fn wait_for_lines(wid: i64, n: usize) -> Vec<String> {
    let started = Instant::now();
    loop {
        let lines = lines_of(wid);
        if lines.len() >= n || started.elapsed() > Duration::from_secs(10) {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Queues `n` test events for the endpoint and waits until each has failed its first attempt.
async fn fail_deliveries(app: &TestApp, key: &str, team: i64, wid: i64, n: usize, total: usize) {
    for _ in 0..n {
        let (status, body) = app
            .post(
                &format!("/api/teams/{team}/webhooks/{wid}/test"),
                key,
                json!({}),
            )
            .await;
        assert!(status.is_success(), "{body}");
    }
    let deliveries = format!("/api/teams/{team}/webhooks/{wid}/deliveries?limit=100");
    let started = Instant::now();
    loop {
        let (_, page) = app.get(&deliveries, key).await;
        let tried = page["items"]
            .as_array()
            .map(|items| items.iter().filter(|d| d["attempts"] == 1).count())
            .unwrap_or(0);
        if tried == total {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{page}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) async fn a_failing_endpoint_logs_a_first_line_then_a_summary_a_minute(app: TestApp) {
    captured();
    let clock = Arc::new(TestClock(Mutex::new(Utc::now())));
    // Retries far off on the test's clock: only the deliveries the test queues are attempted.
    let app = app
        .restart()
        .local_webhooks()
        .clock(clock.clone())
        .env("LEADHUB_WEBHOOK_RETRY_SCALE", "100")
        .build()
        .await;
    let owner = app.user("owner@example.com").await;
    let (status, team) = app
        .post("/api/teams", &owner.key, json!({"name": "Hooked"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{team}");
    let team = team["id"].as_i64().unwrap();
    // A port nothing listens on: every attempt is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // Both backends share this process's log: their endpoints get other ids.
    let skip = match app.state.db.backend() {
        leadhub_db::Backend::Sqlite => 0,
        leadhub_db::Backend::Postgres => 50,
    };
    let mut wid = 0;
    for n in 0..=skip {
        let (status, hook): (StatusCode, Value) = app
            .post(
                &format!("/api/teams/{team}/webhooks"),
                &owner.key,
                json!({"url": format!("http://127.0.0.1:{port}/gone/{n}"), "events": ["lead.created"]}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{hook}");
        wid = hook["id"].as_i64().unwrap();
        if n < skip {
            let path = format!("/api/teams/{team}/webhooks/{wid}");
            assert_eq!(app.delete(&path, &owner.key).await.0, StatusCode::OK);
        }
    }

    // A burst of 30 failures within the minute: the first line only.
    fail_deliveries(&app, &owner.key, team, wid, 30, 30).await;
    let lines = wait_for_lines(wid, 1).await;
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].contains("WARN")
            && lines[0].contains(&format!(
                "webhook endpoint {wid}: a delivery failed: connection refused"
            )),
        "{lines:#?}"
    );

    // A minute later, one summary of the 29 failures since.
    clock.advance(chrono::Duration::seconds(61));
    let lines = wait_for_lines(wid, 2).await;
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[1].contains(&format!(
            "webhook endpoint {wid}: 29 deliveries failed in the last 61 s, last: connection refused"
        )),
        "{lines:#?}"
    );

    // 20 more in the next minute: nothing until it is over, then one summary.
    fail_deliveries(&app, &owner.key, team, wid, 20, 50).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(lines_of(wid).len(), 2, "{:#?}", lines_of(wid));
    clock.advance(chrono::Duration::seconds(61));
    let lines = wait_for_lines(wid, 3).await;
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        lines[2].contains("20 deliveries failed in the last 61 s"),
        "{lines:#?}"
    );

    // Nothing failed since: the next minutes are quiet.
    clock.advance(chrono::Duration::seconds(61));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(lines_of(wid).len(), 3, "{:#?}", lines_of(wid));
}
