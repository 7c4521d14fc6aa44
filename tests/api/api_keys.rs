//! API keys: creation, listing, revocation, expiry and the exact 401.
use chrono::{Duration, Utc};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

const UNAUTHORIZED: &str = r#"{"detail":"Invalid or expired API key"}"#;

async fn raw_status(app: &TestApp, auth: Option<&str>) -> (StatusCode, String) {
    let mut request = app.client.get(app.url("/api/keys"));
    if let Some(a) = auth {
        request = request.header("Authorization", a);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

/// Asserts that `key` gets the exact 401.
async fn assert_refused(app: &TestApp, key: &str) {
    let (status, body) = raw_status(app, Some(&format!("Bearer {key}"))).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::UNAUTHORIZED, UNAUTHORIZED)
    );
}

/// POST /api/keys as `key`, asserting 200; returns the answer and the new key.
async fn create_key(app: &TestApp, key: &str, request: Value) -> (Value, String) {
    let (status, created) = app.post("/api/keys", key, request).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let secret = created["key"].as_str().unwrap().to_owned();
    (created, secret)
}

async fn garbage_credentials_get_the_exact_401(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut wrong = alice.key.clone();
    wrong.pop();
    wrong.push(if alice.key.ends_with('A') { 'B' } else { 'A' });
    for auth in [
        None,
        Some(String::new()),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some("Basic dXNlcjpwYXNz".into()),
        Some("Bearer lhk_nope".into()),
        Some("Bearer not-a-key".into()),
        Some(format!("Bearer {wrong}")),
        Some(format!("Bearer {}", "x".repeat(5000))),
    ] {
        let (status, body) = raw_status(&app, auth.as_deref()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(body, UNAUTHORIZED, "{auth:?}");
    }
    let (status, _) = raw_status(&app, Some(&format!("bearer {}", alice.key))).await;
    assert_eq!(status, StatusCode::OK, "the scheme is case-insensitive");
}

async fn create_list_and_revoke(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let scraper = json!({"name": "  scraper  ", "expires_in_days": 30});
    let (created, key) = create_key(&app, &alice.key, scraper).await;
    assert!(key.starts_with("lhk_") && key.len() >= 47);
    assert_eq!(created["name"], "scraper");
    assert_eq!(created["prefix"], key[..12]);
    assert!(created["expires_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(created["revoked_at"], Value::Null);

    // The new key works and is listed without its secret.
    let (status, list) = app.get("/api/keys", &key).await;
    assert_eq!(status, StatusCode::OK);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|k| k.get("key").is_none()));
    assert_eq!(list[0]["id"], created["id"], "newest first");
    let scraper = &list[0];
    assert!(
        scraper["last_used_at"].as_str().is_some(),
        "using a key records it"
    );

    // Revoke it: it answers 401 from then on; revoking twice is 404.
    let id = created["id"].as_i64().unwrap();
    let (status, _) = app.delete(&format!("/api/keys/{id}"), &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_refused(&app, &key).await;
    let (status, _) = app.delete(&format!("/api/keys/{id}"), &alice.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = app.get("/api/keys", &alice.key).await;
    assert!(list[0]["revoked_at"].as_str().is_some());
}

async fn keys_of_others_are_not_found(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let (_, keys) = app.get("/api/keys", &alice.key).await;
    let alice_key_id = keys[0]["id"].as_i64().unwrap();
    let (status, body) = app
        .delete(&format!("/api/keys/{alice_key_id}"), &bob.key)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body, json!({"detail": "API key not found"}));
    let (status, _) = app.get("/api/keys", &alice.key).await;
    assert_eq!(status, StatusCode::OK, "alice's key still works");
    let (_, bobs) = app.get("/api/keys", &bob.key).await;
    assert_eq!(bobs.as_array().unwrap().len(), 1, "bob sees only his own");
}

async fn expired_keys_are_refused(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let short = json!({"name": "short", "expires_in_days": 1});
    let (created, key) = create_key(&app, &alice.key, short).await;
    assert_eq!(app.get("/api/keys", &key).await.0, StatusCode::OK);
    // Move the expiry into the past, as time passing would.
    let id = created["id"].as_i64().unwrap();
    let past = (Utc::now() - Duration::minutes(1)).naive_utc();
    app.write_db(move |conn| {
        use leadhub_db::schema::api_keys;
        diesel::update(api_keys::table.find(id))
            .set(api_keys::expires_at.eq(Some(past)))
            .execute(conn)
    })
    .await;
    assert_refused(&app, &key).await;
}

async fn key_requests_are_validated(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (status, body) = app
        .post(
            "/api/keys",
            &alice.key,
            json!({"name": "", "expires_in_days": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let detail = body["detail"].as_array().unwrap();
    assert_eq!(detail.len(), 2, "every problem is listed: {body}");
    assert_eq!(detail[0]["loc"], json!(["body", "name"]));
    assert_eq!(detail[1]["loc"], json!(["body", "expires_in_days"]));
    assert_eq!(detail[1]["type"], "greater_than_equal");
    let (status, body) = app
        .post("/api/keys", &alice.key, json!({"expires_in_days": "soon"}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["type"], "missing");
    assert_eq!(body["detail"][1]["type"], "int_parsing");
    let (status, _) = app
        .call(Method::DELETE, "/api/keys/abc", Some(&alice.key), None)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn only_hashes_are_stored(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (_, created) = app
        .post("/api/keys", &alice.key, json!({"name": "x"}))
        .await;
    let secret = created["key"].as_str().unwrap().to_owned();
    let stored: Vec<(String, String)> = app
        .read_db(|conn| {
            use leadhub_db::schema::api_keys;
            conn.load(api_keys::table.select((api_keys::key_hash, api_keys::prefix)))
        })
        .await;
    for (hash, prefix) in &stored {
        assert_eq!(hash.len(), 64);
        assert_ne!(hash, &secret);
        assert_ne!(hash, &alice.key);
        assert_eq!(prefix.len(), 12);
    }
    assert!(stored
        .iter()
        .any(|(h, _)| *h == leadhub_domain::secret::hash_secret(&secret)));
}

backend_tests!(
    garbage_credentials_get_the_exact_401,
    create_list_and_revoke,
    keys_of_others_are_not_found,
    expired_keys_are_refused,
    key_requests_are_validated,
    only_hashes_are_stored,
);
