//! A full storage is named as such (docs/operations.md, "Faults, named"): SQLite held to its
//! present size (`PRAGMA max_page_count` on the app's one connection) refuses a batch with 507
//! and a detail that says so, stores none of it, `/readyz` reports it and `/metrics` counts it;
//! once space is back, the same batch is stored.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, Backend, TestApp, TestDatabase};

use crate::helpers::{lead_total, post_batch};
use crate::metrics::value;

backend_tests!(
    a_full_storage_a_request_lives_through_still_marks_readiness,
    enrichment_not_stored_leaves_the_batch_stored,
    a_single_submission_hears_a_full_storage
);

fn batch() -> Vec<Value> {
    (0..200)
        .map(|i| {
            json!({"address": format!("{i} Full Disk Road"), "city": "Austin", "state": "TX",
                   "zip_code": "78701", "project_description": "x".repeat(2000)})
        })
        .collect()
}

/// A trigger that refuses new leads as a full disk does while no submission is stored yet: the
/// leads of the first fresh submissions (written before their submissions, in a savepoint) fail,
/// and once those submissions are stored open their leads, written again, go in.
async fn refuse_first_leads_as_disk_full(app: &TestApp) {
    let no_submission_yet = "(SELECT COUNT(*) FROM submissions) = 0";
    disk_full_on(app, "INSERT ON leads", no_submission_yet).await;
}

async fn a_full_storage_a_request_lives_through_still_marks_readiness(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (status, ready) = app.get("/readyz", "").await;
    assert_eq!(status, StatusCode::OK, "{ready}");
    refuse_first_leads_as_disk_full(&app).await;

    let lead = json!({"address": "1 Full Disk Road", "city": "Austin", "state": "TX",
                      "zip_code": "78701"});
    let (status, body) = post_batch(&app, &alice.key, vec![lead]).await;
    // The request lived through it: the submission was stored, its lead written again.
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(lead_total(&app, &alice.key, "").await, 1);
    // Yet the storage was found full, and readiness says so as the count does.
    not_ready_because(&app, "Database storage full").await;
}

/// The disk fills after a batch's leads went in: what enrichment found cannot be stored. The
/// batch answers what it stored (a 507 said "nothing was stored", and a client sending it
/// again stored it twice), and its leads wait for their retry job.
async fn enrichment_not_stored_leaves_the_batch_stored(app: TestApp) {
    let app = crate::enrichment::with_geocoders(app, &["zip"]).await;
    let alice = app.user("alice@example.com").await;
    disk_full_on(&app, "UPDATE OF latitude ON leads", "TRUE").await;
    let leads: Vec<Value> = (1..=3)
        .map(|i| json!({"address": format!("{i} Congress Ave"), "city": "Austin", "state": "TX", "zip_code": "78701"}))
        .collect();
    let (status, body) = post_batch(&app, &alice.key, leads).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["succeeded"], 3, "{body}");
    let (_, list) = app.get("/api/v1/leads", &alice.key).await;
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{list}");
    assert!(
        items
            .iter()
            .all(|l| l["enrichment_status"] == "pending_retry"),
        "{list}"
    );
}

/// A single submission, stored and written with its group, hears a full storage for what it
/// is: 507, as a batch does (the group's error reached it as a 500).
async fn a_single_submission_hears_a_full_storage(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    disk_full_on(&app, "INSERT ON submissions", "TRUE").await;
    let lead = json!({"address": "1 Full Disk Road", "city": "Austin", "state": "TX"});
    let (status, body) = app
        .post("/api/v1/submissions/single", &alice.key, lead)
        .await;
    assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE, "{body}");
    assert_eq!(
        body,
        json!({"detail": "The service's storage is full; nothing was stored. Try again later (the operator is alerted)."})
    );
}

/// A trigger `BEFORE <event>` (`INSERT ON submissions`) failing each row as a full disk does
/// while the SQL condition `when` holds (`TRUE`: always).
async fn disk_full_on(app: &TestApp, event: &str, when: &str) {
    let statements: Vec<String> = match app.state.db.backend() {
        leadhub_db::Backend::Sqlite => vec![format!(
            "CREATE TRIGGER full_disk BEFORE {event} WHEN {when} \
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )],
        leadhub_db::Backend::Postgres => vec![
            format!(
                "CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN IF {when} THEN RAISE EXCEPTION USING ERRCODE = 'disk_full', \
                 MESSAGE = 'could not extend file \"base/1/2\": No space left on device', \
                 HINT = 'Check free disk space.'; END IF; RETURN NEW; END $$"
            ),
            format!(
                "CREATE TRIGGER full_disk BEFORE {event} FOR EACH ROW EXECUTE FUNCTION full_disk()"
            ),
        ],
    };
    app.write_db(move |conn| {
        for s in &statements {
            diesel::RunQueryDsl::execute(diesel::sql_query(s), conn)?;
        }
        Ok(())
    })
    .await;
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
        not_ready_because(&app, "Database storage full").await;
        let metrics = app.get_text("/metrics").await;
        assert!(
            value(&metrics, "leadhub_storage_full_total") >= 1.0,
            "{metrics}"
        );

        // Nothing half-stored; with room again the same batch goes in whole.
        set_max_pages(&app, 1 << 30).await;
        assert_eq!(lead_total(&app, &alice.key, "").await, 0);
        let (status, body) = post_batch(&app, &alice.key, batch()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(lead_total(&app, &alice.key, "").await, 200);
    });
}

/// `/readyz` answers 503 with a detail that starts with `reason`.
pub(crate) async fn not_ready_because(app: &TestApp, reason: &str) {
    let (status, ready) = app.get("/readyz", "").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{ready}");
    assert!(
        ready["detail"].as_str().unwrap().starts_with(reason),
        "{ready}"
    );
}
