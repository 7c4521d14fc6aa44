//! A database that turns read-only while the service runs (docs/operations.md, "Faults, named"):
//! writes answer 503 with a detail that says so and a `Retry-After`, never a 500; `/readyz`
//! reports it and `/metrics` counts it; once writable again, the same batch is stored. The
//! app's one connection is made read-only by the database itself: SQLite's `query_only`
//! (SQLITE_READONLY, as an unwritable file gives) and PostgreSQL's read-only session (25006, as
//! a standby gives). The start on an unwritable file: crates/web/tests/read_only_database.rs.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{lead_total, post_batch};
use crate::metrics::value;
use crate::storage_full::not_ready_because;

backend_tests!(a_database_turned_read_only_answers_503_and_readiness_says_so);

const DETAIL: &str =
    "The service's database is read-only; nothing was stored. Try again later (the operator is alerted).";

async fn set_read_only(app: &TestApp, read_only: bool) {
    let statement = match (app.state.db.backend(), read_only) {
        (leadhub_db::Backend::Sqlite, true) => "PRAGMA query_only = 1",
        (leadhub_db::Backend::Sqlite, false) => "PRAGMA query_only = 0",
        (leadhub_db::Backend::Postgres, true) => "SET default_transaction_read_only = on",
        (leadhub_db::Backend::Postgres, false) => "SET default_transaction_read_only = off",
    };
    app.write_db(move |conn| diesel::RunQueryDsl::execute(diesel::sql_query(statement), conn))
        .await;
}

async fn a_database_turned_read_only_answers_503_and_readiness_says_so(app: TestApp) {
    // One connection, so the setting holds for every statement; no workers, so nothing else
    // writes meanwhile.
    let app = app
        .restart()
        .pool_size(1)
        .env("LEADHUB_WORKERS", "0")
        .build()
        .await;
    let alice = app.user("alice@example.com").await;
    let lead = json!({"address": "1 Read Only Road", "city": "Austin", "state": "TX"});
    set_read_only(&app, true).await;

    let answer = app
        .client
        .post(app.url("/api/v1/submissions/batch"))
        .bearer_auth(&alice.key)
        .json(&json!({"leads": [lead.clone()]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.headers()["retry-after"], "60");
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body, json!({"detail": DETAIL}));
    not_ready_because(&app, "Database read-only").await;
    let metrics = app.get_text("/metrics").await;
    assert!(
        value(&metrics, "leadhub_database_read_only_total") >= 1.0,
        "{metrics}"
    );

    // Writable again: nothing was half-stored, and the batch goes in.
    set_read_only(&app, false).await;
    assert_eq!(lead_total(&app, &alice.key, "").await, 0);
    let (status, body) = post_batch(&app, &alice.key, vec![lead]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(lead_total(&app, &alice.key, "").await, 1);
}
