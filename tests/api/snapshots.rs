//! The contract surface pinned with insta: the `/openapi.json` document and a few representative
//! answers. An accidental change to the API shows in review as a changed `.snap` file; a change
//! made on purpose is accepted with `cargo insta review` (or `INSTA_UPDATE=always`).
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{Backend, TestApp, TestDatabase};

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[test]
fn openapi_document() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let spec = runtime.block_on(async {
        let app = TestApp::start(TestDatabase::create(Backend::Sqlite).unwrap()).await;
        app.get_text("/openapi.json").await
    });
    let spec: Value = serde_json::from_str(&spec).unwrap();
    insta::assert_snapshot!("openapi_document", pretty(&spec));
}

#[test]
fn representative_answers() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let app = TestApp::start(TestDatabase::create(Backend::Sqlite).unwrap()).await;
        let owner = app.user("owner@example.com").await;

        let (status, body) = app.get("/api/teams", "lhk_not_a_key").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        insta::assert_snapshot!("unauthorized", pretty(&body));

        // A wrongly typed field: the FastAPI-shaped 422 with its location.
        let bad = json!({"state": 7});
        let (status, body) = app
            .post("/api/v1/submissions/single", &owner.key, bad)
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        insta::assert_snapshot!("single_submission_422", pretty(&body));

        let (status, body) = app
            .post("/api/teams", &owner.key, json!({"name": "Roofers"}))
            .await;
        assert_eq!(status, StatusCode::OK);
        let mut team = body;
        // Ids and times differ from run to run; the shape and the rest do not.
        for volatile in ["id", "created_at", "updated_at"] {
            if team.get(volatile).is_some() {
                team[volatile] = json!("[volatile]");
            }
        }
        insta::assert_snapshot!("team_created", pretty(&team));
    });
}
