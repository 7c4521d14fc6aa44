//! A full storage is named as such (docs/operations.md, "Faults, named"): SQLite held to its
//! present size (`PRAGMA max_page_count` on the app's one connection) refuses a batch with 507
//! and a detail that says so, stores none of it, `/readyz` reports it and `/metrics` counts it;
//! once space is back, the same batch is stored.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{Backend, TestApp, TestDatabase};

use crate::helpers::{lead_total, post_batch};

fn batch() -> Vec<Value> {
    (0..200)
        .map(|i| {
            json!({"address": format!("{i} Full Disk Road"), "city": "Austin", "state": "TX",
                   "zip_code": "78701", "project_description": "x".repeat(2000)})
        })
        .collect()
}

async fn set_max_pages(app: &TestApp, pages: u64) {
    app.write_db(move |conn| {
        diesel::RunQueryDsl::execute(
            diesel::sql_query(format!("PRAGMA max_page_count = {pages}")),
            conn,
        )
    })
    .await;
}

#[test]
fn a_full_sqlite_database_answers_507_and_stores_nothing() {
    let Some(db) = TestDatabase::create(Backend::Sqlite) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // One connection, so the limit set on it holds for every statement; no workers, so
        // nothing else writes meanwhile.
        let app = TestApp::builder(db)
            .pool_size(1)
            .env("LEADHUB_WORKERS", "0")
            .build()
            .await;
        let alice = app.user("alice@example.com").await;
        assert_eq!(lead_total(&app, &alice.key, "").await, 0);
        // No more pages than the file has now (SQLite never sets it lower).
        set_max_pages(&app, 1).await;

        let (status, body) = post_batch(&app, &alice.key, batch()).await;
        assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE, "{body}");
        assert_eq!(
            body,
            json!({"detail": "The service's storage is full; nothing was stored. Try again later (the operator is alerted)."})
        );
        let (status, ready) = app.get("/readyz", "").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            ready["detail"].as_str().unwrap().starts_with("Database storage full"),
            "{ready}"
        );
        let metrics = app.get_text("/metrics").await;
        let counted = metrics
            .lines()
            .find_map(|l| l.strip_prefix("leadhub_storage_full_total "))
            .and_then(|n| n.trim().parse::<f64>().ok());
        assert!(counted.is_some_and(|n| n >= 1.0), "{metrics}");

        // Nothing half-stored; with room again the same batch goes in whole.
        set_max_pages(&app, 1 << 30).await;
        assert_eq!(lead_total(&app, &alice.key, "").await, 0);
        let (status, body) = post_batch(&app, &alice.key, batch()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(lead_total(&app, &alice.key, "").await, 200);
    });
}
