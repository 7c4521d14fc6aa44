//! Health, readiness, metrics, request ids, the OpenAPI document and the docs assets.
use reqwest::StatusCode;
use serde_json::Value;

use leadhub_tests::{backend_tests, TestApp};

async fn health_and_readiness(app: TestApp) {
    let r = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap()["status"], "ready");
}

async fn metrics_count_requests_per_route(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    app.get("/api/keys", &alice.key).await;
    app.get("/api/keys", "lhk_wrong").await;
    let text = app.get_text("/metrics").await;
    assert!(
        text.contains(
            r#"leadhub_http_requests_total{method="GET",route="/api/keys",status="200"} 1"#
        ),
        "{text}"
    );
    assert!(text
        .contains(r#"leadhub_http_requests_total{method="GET",route="/api/keys",status="401"} 1"#));
    assert!(text.contains("leadhub_http_request_duration_seconds_bucket"));
    assert!(text.contains("leadhub_db_pool_connections{state=\"max\"}"));
}

/// The X-Request-Id of the answer to a request that sent `sent`.
async fn request_id(app: &TestApp, sent: &str) -> String {
    let r = app
        .client
        .get(app.url("/healthz"))
        .header("X-Request-Id", sent)
        .send()
        .await
        .unwrap();
    r.headers()["x-request-id"].to_str().unwrap().to_owned()
}

async fn request_ids_are_echoed_or_made(app: TestApp) {
    assert_eq!(request_id(&app, "trace-123").await, "trace-123");
    let made = request_id(&app, "bad id with spaces").await;
    assert_ne!(made, "bad id with spaces");
    assert_eq!(made.len(), 24);
}

async fn openapi_documents_operations_and_security(app: TestApp) {
    let spec: Value = serde_json::from_str(&app.get_text("/openapi.json").await).unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3."));
    assert_eq!(
        spec["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    let paths = spec["paths"].as_object().unwrap();
    let mut ids = Vec::new();
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            ids.push(id.to_owned());
            if op.get("security").is_some() {
                assert!(
                    op["responses"]["401"].is_object(),
                    "{method} {path} documents its 401"
                );
            }
        }
    }
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "operation ids are unique");
    assert!(paths.contains_key("/api/keys"));
}

async fn docs_are_served_from_the_binary(app: TestApp) {
    let page = app.client.get(app.url("/docs")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no outside asset"
    );
    for asset in [
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-ui.css",
        "/docs/init.js",
    ] {
        assert!(html.contains(asset));
        let r = app.client.get(app.url(asset)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{asset}");
        assert!(r.bytes().await.unwrap().len() > 100);
    }
}

backend_tests!(
    health_and_readiness,
    metrics_count_requests_per_route,
    request_ids_are_echoed_or_made,
    openapi_documents_operations_and_security,
    docs_are_served_from_the_binary,
);
