//! The contract's error shapes for bodies, routes and sizes.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

async fn malformed_json_is_422_with_its_offset(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let response = app
        .client
        .post(app.url("/api/keys"))
        .bearer_auth(&alice.key)
        .header("Content-Type", "application/json")
        .body("{\"name\": \"x\",}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["detail"][0]["type"], "json_invalid");
    assert_eq!(body["detail"][0]["loc"][0], "body");
    assert_eq!(body["detail"][0]["loc"][1], 13);
}

async fn wrong_shapes_are_422(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (status, body) = app.post("/api/keys", &alice.key, json!([1, 2])).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["loc"], json!(["body"]));
    let (status, body) = app.post("/api/keys", &alice.key, json!({"name": 5})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["type"], "string_type");
    let (status, body) = app
        .post("/api/keys", &alice.key, json!({"name": "x".repeat(101)}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["type"], "too_long");
}

async fn oversized_bodies_are_413(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(9 << 20));
    let response = app
        .client
        .post(app.url("/api/keys"))
        .bearer_auth(&alice.key)
        .header("Content-Type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body, json!({"detail": "Request body too large"}));
}

async fn unknown_routes_are_json_404(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (status, body) = app.get("/api/nothing/here", &alice.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body, json!({"detail": "Not found"}));
}

async fn trailing_slashes_are_the_same_route(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    assert_eq!(app.get("/api/keys/", &alice.key).await.0, StatusCode::OK);
    assert_eq!(app.get("/api/keys", &alice.key).await.0, StatusCode::OK);
}

backend_tests!(
    malformed_json_is_422_with_its_offset,
    wrong_shapes_are_422,
    oversized_bodies_are_413,
    unknown_routes_are_json_404,
    trailing_slashes_are_the_same_route,
);
