//! `/metrics` moves with what the service does: the job queue and the webhook outbox as the
//! database says, geocoder calls and the circuit breaker, e-mails. The counters of adapters are
//! process-wide (the tests share one process), so those are compared before and after, never
//! to an exact figure; the queue gauges are this app's database alone, so they are exact.
use std::time::{Duration, Instant};

use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::enrichment::with_geocoders;
use crate::helpers::{batch_ok, batch_path, poll, submit, team};
use crate::lead_uploads::imported;
use crate::pages::sign_in;
use crate::teams::{create_team_id, invite};
use crate::webhooks::{hook_id, send_test};

backend_tests!(
    queue_gauges_follow_the_database,
    adapter_counters_move,
    a_failing_webhook_endpoint_shows,
    import_rows_are_counted_by_outcome
);

/// The value of the series `name{labels}` (labels as rendered, in their order), 0 when absent.
pub(crate) fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

async fn queue_gauges_follow_the_database(app: TestApp) {
    // No job workers: the deferred batch's job stays queued.
    let app = app.restart().env("LEADHUB_WORKERS", "0").build().await;
    let ada = app.user("ada@example.com").await;
    let body = batch_ok(
        &app,
        &ada.key,
        json!({"process_immediately": false, "leads": [{"address": "1 Queue St", "city": "Austin", "state": "TX"}]}),
    )
    .await;
    let text = app.get_text("/metrics").await;
    assert_eq!(
        value(
            &text,
            r#"leadhub_jobs{kind="process_submissions",state="queued"}"#
        ),
        1.0,
        "{text}"
    );
    assert_eq!(
        value(&text, r#"leadhub_jobs_total_by_state{state="queued"}"#),
        1.0
    );
    assert_eq!(
        value(&text, r#"leadhub_jobs_total_by_state{state="dead"}"#),
        0.0
    );
    assert!(
        text.contains("leadhub_jobs_oldest_due_age_seconds "),
        "{text}"
    );

    // Workers again: the job is done and its series leaves the scrape.
    let app = app.restart().build().await;
    let batch = batch_path(&body);
    poll(&app, &batch, &ada.key, |b| b["pending"] == 0).await;
    let started = Instant::now();
    loop {
        let text = app.get_text("/metrics").await;
        if value(&text, r#"leadhub_jobs_total_by_state{state="queued"}"#) == 0.0
            && value(&text, r#"leadhub_jobs_total_by_state{state="running"}"#) == 0.0
        {
            assert!(
                !text.contains(r#"leadhub_jobs{kind="process_submissions""#),
                "{text}"
            );
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn adapter_counters_move(app: TestApp) {
    // Census unreachable: every call fails until the breaker opens (five failures), then calls
    // are refused without being made.
    let app = with_geocoders(app, &["census"]).await;
    let ada = app.user("ada@example.com").await;
    let failed = r#"leadhub_geocoder_calls_total{provider="census",outcome="failed"}"#;
    let refused = r#"leadhub_geocoder_calls_total{provider="census",outcome="circuit_open"}"#;
    let created = r#"leadhub_leads_ingested_total{action="created"}"#;
    let before = app.get_text("/metrics").await;
    for n in 1..=3 {
        submit(
            &app,
            &ada.key,
            json!({"address": format!("{n} Outage Rd"), "city": "Austin", "state": "TX"}),
        )
        .await;
    }
    let after = app.get_text("/metrics").await;
    assert!(
        value(&after, failed) >= value(&before, failed) + 5.0,
        "{after}"
    );
    assert!(
        value(&after, refused) >= value(&before, refused) + 1.0,
        "{after}"
    );
    assert!(
        after.contains(r#"leadhub_circuit_open{circuit="census"}"#),
        "{after}"
    );
    assert!(
        value(&after, created) >= value(&before, created) + 3.0,
        "{after}"
    );

    let sent = r#"leadhub_emails_total{kind="invite",outcome="sent"}"#;
    let team = create_team_id(&app, &ada.key, "Counted").await;
    invite(&app, &ada.key, team, "sam@example.com", None).await;
    let text = app.get_text("/metrics").await;
    assert!(value(&text, sent) >= value(&after, sent) + 1.0, "{text}");
}

async fn a_failing_webhook_endpoint_shows(app: TestApp) {
    let app = app.restart().local_webhooks_scaled("100").build().await;
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Hooked").await;
    let text = app.get_text("/metrics").await;
    assert_eq!(
        value(&text, "leadhub_webhook_endpoints_failing"),
        0.0,
        "{text}"
    );
    // A port nothing listens on: the first attempt fails, the retry waits (scaled up).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let wid = hook_id(
        &app,
        &owner.key,
        team,
        &format!("http://127.0.0.1:{port}/gone"),
    )
    .await;
    assert!(send_test(&app, &owner.key, team, wid).await.0.is_success());
    let deliveries = format!("/api/teams/{team}/webhooks/{wid}/deliveries");
    poll(&app, &deliveries, &owner.key, |p| {
        p["items"][0]["attempts"] == 1
    })
    .await;
    let text = app.get_text("/metrics").await;
    assert_eq!(
        value(&text, "leadhub_webhook_endpoints_failing"),
        1.0,
        "{text}"
    );
    assert_eq!(
        value(&text, "leadhub_webhook_deliveries_pending"),
        1.0,
        "{text}"
    );
}

async fn import_rows_are_counted_by_outcome(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Importers", &alice).await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let series =
        |outcome: &str| format!(r#"leadhub_import_rows_total{{kind="leads",outcome="{outcome}"}}"#);
    let before = app.get_text("/metrics").await;
    // Two new leads, the second row again (merged into the first), one shifted row (rejected).
    let file = "address,city,state,first_name\n\
                1 Counted St,Austin,TX,Ann\n\
                2 Counted St,Austin,TX,Bo\n\
                2 Counted St,Austin,TX,Bo,shifted\n\
                2 Counted St,Austin,TX,Bob\n";
    imported(&mut b, team_id, file.as_bytes(), "leads.csv").await;
    let after = app.get_text("/metrics").await;
    for (outcome, rows) in [("created", 2.0), ("rejected", 1.0)] {
        assert!(
            value(&after, &series(outcome)) >= value(&before, &series(outcome)) + rows,
            "{outcome}: {after}"
        );
    }
    let merged = value(&after, &series("updated")) + value(&after, &series("skipped"))
        - value(&before, &series("updated"))
        - value(&before, &series("skipped"));
    assert!(merged >= 1.0, "{after}");
}
