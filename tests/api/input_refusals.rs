//! Inputs refused before anything is stored, on both backends: NUL characters in any text
//! (PostgreSQL cannot store them, SQLite would keep them) in bodies, queries and paths; a lead
//! whose JSON text is over the stored-text bound.
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::businesses::import;
use crate::helpers::{submission_count, submit, team, BATCH, SINGLE};

fn assert_nul_refused(status: StatusCode, body: &Value, loc: Value) {
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let problems = body["detail"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["loc"] == loc),
        "no problem at {loc}: {body}"
    );
}

async fn nul_in_bodies_is_refused(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let body = import(&app, &ada.key, json!({"businesses": [{"name": "Acme"}]})).await;
    let id = body["imported_ids"][0].as_i64().unwrap();
    let business = format!("/api/v1/lead-sources/businesses/{id}");
    let t = team(&app, "Crew", &ada).await;
    let key = Some(ada.key.as_str());
    for (method, path, key, sent, loc) in [
        (
            Method::POST,
            SINGLE.to_owned(),
            key,
            json!({"address": "1 Main\u{0}St", "city": "Austin"}),
            json!(["body", "address"]),
        ),
        (
            Method::POST,
            BATCH.to_owned(),
            key,
            json!({"leads": [{"address": "1 Main St"}, {"notes": {"x": "a\u{0}"}}]}),
            json!(["body", "leads", 1, "notes", "x"]),
        ),
        (
            Method::POST,
            "/api/v1/lead-sources/import".to_owned(),
            key,
            json!({"businesses": [{"name": "Acme", "industry": "plumb\u{0}ing"}]}),
            json!(["body", "businesses", 0, "industry"]),
        ),
        (
            Method::PATCH,
            business.clone(),
            key,
            json!({"industry": "hv\u{0}ac"}),
            json!(["body", "industry"]),
        ),
        (
            Method::PATCH,
            format!("/api/teams/{t}"),
            key,
            json!({"name": "A\u{0}"}),
            json!(["body", "name"]),
        ),
        (
            Method::POST,
            "/api/keys".to_owned(),
            key,
            json!({"name": "k\u{0}"}),
            json!(["body", "name"]),
        ),
        (
            Method::POST,
            "/api/auth/magic-link".to_owned(),
            None,
            json!({"email": "ada@example.com\u{0}"}),
            json!(["body", "email"]),
        ),
    ] {
        let (status, body) = app.call(method, &path, key, Some(&sent)).await;
        assert_nul_refused(status, &body, loc);
    }
    assert_eq!(submission_count(&app).await, 0, "nothing stored");
    let (_, stored) = app.get(&business, &ada.key).await;
    assert!(!stored.to_string().contains("\\u0000"), "{stored}");
    // A backslash followed by "u0000" is ordinary text.
    let plain = json!({"address": "1 Main St", "project_description": "\\u0000"});
    submit(&app, &ada.key, plain).await;
}

async fn nul_in_queries_and_paths_is_refused(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    for (path, loc) in [
        ("/api/v1/leads?city=a%00b", json!(["query", "city"])),
        ("/api/v1/leads?q=%00", json!(["query", "q"])),
        (
            "/api/v1/lead-sources/businesses?industry=x%00",
            json!(["query", "industry"]),
        ),
        (
            "/api/v1/submissions/batches/b%00x",
            json!(["path", "batch_id"]),
        ),
    ] {
        let (status, body) = app.get(path, &ada.key).await;
        assert_nul_refused(status, &body, loc);
    }
    let (status, body) = app.get("/api/v1/leads?city=Austin", &ada.key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn oversized_leads_are_refused(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let big = "x".repeat(70 * 1024);
    let (status, body) = app
        .post(
            SINGLE,
            &ada.key,
            json!({"address": "1 Main St", "notes": big}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body"]));
    assert_eq!(body["detail"][0]["type"], "too_long");
    // In a batch, each element is bounded on its own, whichever way the batch is read.
    for process_immediately in [true, false] {
        let mut leads: Vec<Value> = (0..80)
            .map(|i| json!({"address": format!("{i} Elm St"), "notes": "y".repeat(60 * 1024)}))
            .collect();
        leads[70]["notes"] = json!(big);
        let (status, body) = app
            .post(
                BATCH,
                &ada.key,
                json!({"leads": leads, "process_immediately": process_immediately}),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["detail"].as_array().unwrap().len(), 1, "{body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "leads", 70]));
    }
    assert_eq!(submission_count(&app).await, 0, "nothing stored");
    // Just under the bound is stored whole.
    let (status, body) = app
        .post(
            SINGLE,
            &ada.key,
            json!({"address": "2 Main St", "notes": "z".repeat(60 * 1024)}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let raw = crate::helpers::raw_text(&app, body["id"].as_i64().unwrap()).await;
    assert!(raw.len() > 60 * 1024);
}

backend_tests!(
    nul_in_bodies_is_refused,
    nul_in_queries_and_paths_is_refused,
    oversized_leads_are_refused,
);
