//! Lead submissions end to end (contract section 3).
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

async fn single_then_duplicate_then_update(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let lead = json!({"address": "123 North Main Street, Apt 4", "city": "Austin", "state": "tx",
                      "zip_code": "78701-1234", "primary_phone": "(512) 555-0100", "latitude": 30.27, "longitude": -97.74});
    let (status, first) = app
        .post("/api/v1/submissions/single", &alice.key, lead.clone())
        .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "completed");
    assert_eq!(first["result_action"], "created");
    let (_, again) = app
        .post("/api/v1/submissions/single", &alice.key, lead)
        .await;
    assert_eq!(again["result_action"], "skipped", "{again}");
    assert_eq!(again["status"], "duplicate");
    assert_eq!(again["result_lead_id"], first["result_lead_id"]);
    let (_, third) = app
        .post("/api/v1/submissions/single", &alice.key,
              json!({"address": "123 N Main St #4", "city": "Austin", "state": "TX", "zip_code": "78701", "primary_phone": "512-555-0199"}))
        .await;
    assert_eq!(third["result_action"], "updated", "{third}");
    assert_eq!(third["result_lead_id"], first["result_lead_id"]);
    let id = first["result_lead_id"].as_i64().unwrap();
    let (status, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lead["primary_phone"], "+15125550100");
    assert_eq!(lead["phone_2"], "+15125550199");
    assert_eq!(lead["submission_count"], 3);
    assert_eq!(lead["state"], "TX");
}

backend_tests!(single_then_duplicate_then_update);
