//! An Idempotency-Key after a crash mid-request: a key is either linked to
//! what its request stored, in the same transaction, or to nothing. The state a crash leaves
//! is made here directly in the database: a request that stored its submissions but died before
//! its answer was saved (the key back to "running"), or one that died before storing anything
//! (a running key with nothing linked).
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::idempotency_keys;
use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::helpers::{post_with_key, submission_count, BATCH, SINGLE};

/// Puts a key back as its request's process left it had it died after its transaction: running,
/// with no answer saved, claimed `seconds_ago`.
async fn forget_answer(app: &TestApp, key: &str, seconds_ago: i64) {
    let key = key.to_owned();
    let claimed = (chrono::Utc::now() - chrono::Duration::seconds(seconds_ago)).naive_utc();
    let changed = app
        .write_db(move |conn| {
            diesel::update(
                idempotency_keys::table.filter(idempotency_keys::idempotency_key.eq(&key)),
            )
            .set((
                idempotency_keys::response_status.eq(0),
                idempotency_keys::response_body.eq(""),
                idempotency_keys::created_at.eq(claimed),
            ))
            .execute(conn)
        })
        .await;
    assert_eq!(changed, 1);
}

async fn first_then_crash(
    app: &TestApp,
    user: &TestUser,
    path: &str,
    key: &str,
    body: &Value,
) -> Value {
    let (status, _, first) = post_with_key(app, path, &user.key, key, body).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    forget_answer(app, key, 60).await;
    first
}

async fn a_request_that_died_after_storing_is_replayed_from_what_it_stored(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let single = json!({"address": "1 Crash St", "city": "Austin", "state": "TX", "email_1": "x"});
    let deferred = json!({"process_immediately": false, "leads": [{"address": "2 Crash St"}]});
    let batch = json!({"leads": [
        {"address": "3 Crash St", "city": "Austin", "state": "TX"},
        {"address": "3 Crash Street", "city": "Austin", "state": "TX"},
        {"address": "4 Crash St", "primary_phone": "bad"},
    ]});
    for (path, key, body) in [
        (SINGLE, "crash-single", &single),
        (BATCH, "crash-batch", &batch),
        (BATCH, "crash-deferred", &deferred),
    ] {
        let first = first_then_crash(&app, &alice, path, key, body).await;
        let stored = submission_count(&app).await;
        let (status, replayed, again) = post_with_key(&app, path, &alice.key, key, body).await;
        assert_eq!(status, StatusCode::OK, "{key}: {again}");
        assert_eq!(replayed.as_deref(), Some("true"), "{key}");
        assert_eq!(submission_count(&app).await, stored, "{key}: stored twice");
        if path == SINGLE {
            assert_eq!(again, first, "{key}");
        } else {
            assert_eq!(again["batch_id"], first["batch_id"]);
            assert_eq!(again["total"], first["total"]);
        }
        // The worker may have processed the deferred batch since its answer: the rebuilt answer
        // reports its progress now, so only its id and total must match.
        if path == BATCH && key != "crash-deferred" {
            for field in ["succeeded", "duplicates", "failed"] {
                assert_eq!(again[field], first[field], "{key} {field}");
            }
            for (a, b) in again["results"]
                .as_array()
                .unwrap()
                .iter()
                .zip(first["results"].as_array().unwrap())
            {
                for field in [
                    "index",
                    "submission_id",
                    "lead_id",
                    "action",
                    "validation_warnings",
                ] {
                    assert_eq!(a[field], b[field], "{key} {field}");
                }
            }
        }
        // The rebuilt answer is kept: the next repeat replays it at once.
        let (_, replayed, third) = post_with_key(&app, path, &alice.key, key, body).await;
        assert_eq!(replayed.as_deref(), Some("true"));
        assert_eq!(third, again);
    }
}

async fn a_request_that_died_before_storing_frees_its_key(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let body = json!({"address": "9 Lost St"});
    // A claim left running three minutes ago by a process that stored nothing.
    let user_id = alice.user.id;
    let claimed = (chrono::Utc::now() - chrono::Duration::minutes(3)).naive_utc();
    let hash = {
        let canonical: Value = body.clone();
        leadhub_domain::secret::hash_secret(&format!("POST {SINGLE} {canonical}"))
    };
    app.write_db(move |conn| {
        diesel::insert_into(idempotency_keys::table)
            .values((
                idempotency_keys::user_id.eq(user_id),
                idempotency_keys::idempotency_key.eq("lost-key"),
                idempotency_keys::request_hash.eq(hash),
                idempotency_keys::response_status.eq(0),
                idempotency_keys::response_body.eq(""),
                idempotency_keys::created_at.eq(claimed),
            ))
            .execute(conn)
    })
    .await;
    let (status, replayed, answer) =
        post_with_key(&app, SINGLE, &alice.key, "lost-key", &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(replayed.is_none(), "it ran");
    assert_eq!(submission_count(&app).await, 1);
    let (_, replayed, again) = post_with_key(&app, SINGLE, &alice.key, "lost-key", &body).await;
    assert_eq!(replayed.as_deref(), Some("true"));
    assert_eq!(again, answer);
    assert_eq!(submission_count(&app).await, 1);
}

backend_tests!(
    a_request_that_died_after_storing_is_replayed_from_what_it_stored,
    a_request_that_died_before_storing_frees_its_key,
);
