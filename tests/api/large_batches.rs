//! Large batches with duplicates far apart: elements merge in element order, stored leads are
//! read once and keep every change, and a lead created early in the batch and merged into later
//! is stored with the merge.
use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_geocode::ZipCentroidGeocoder;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{lead_total, post_batch, submission_count};

fn lead(n: usize) -> Value {
    json!({"address": format!("{n} Chunk Rd"), "city": "Austin", "state": "TX", "zip_code": "78702",
           "latitude": 30.26, "longitude": -97.72})
}

async fn duplicates_far_apart(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    // A lead stored before the batch.
    let (_, stored) = app
        .post("/api/v1/submissions/single", &alice.key, lead(9000))
        .await;
    let stored_id = stored["result_lead_id"].as_i64().unwrap();
    let mut leads: Vec<Value> = (0..250).map(lead).collect();
    // Created early, merged into twice far later.
    leads[150] = json!({"address": "10 Chunk Road", "city": "Austin", "state": "TX",
                        "zip_code": "78702-1111", "primary_phone": "512-555-0150"});
    leads[240] =
        json!({"address": "10 chunk rd.", "zip_code": "78702", "email_1": "Ten@Example.com"});
    // The stored lead, merged into twice, far apart.
    leads[20] = json!({"address": "9000 Chunk Rd", "zip_code": "78702", "first_name": "Ada"});
    leads[220] =
        json!({"address": "9000 Chunk Road", "zip_code": "78702", "last_name": "Lovelace"});
    // A duplicate of its neighbour, changing nothing.
    leads[31] = lead(30);
    let (status, r) = post_batch(&app, &alice.key, leads).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    let results = r["results"].as_array().unwrap();
    let action = |i: usize| results[i]["action"].as_str().unwrap().to_owned();
    let lead_id = |i: usize| results[i]["lead_id"].as_i64().unwrap();
    assert_eq!(
        (action(10), action(150), action(240)),
        ("created".into(), "updated".into(), "updated".into()),
        "{r}"
    );
    assert_eq!((lead_id(150), lead_id(240)), (lead_id(10), lead_id(10)));
    assert_eq!(
        (action(20), action(220)),
        ("updated".into(), "updated".into())
    );
    assert_eq!((lead_id(20), lead_id(220)), (stored_id, stored_id));
    assert_eq!(
        (action(30), action(31)),
        ("created".into(), "skipped".into())
    );
    assert_eq!(lead_id(31), lead_id(30));
    for (i, e) in results.iter().enumerate() {
        assert_eq!(e["index"], i);
        if ![20, 31, 150, 220, 240].contains(&i) {
            assert_eq!(e["action"], "created", "{e}");
        }
    }
    // 250 elements: 5 merged into others, 245 new leads, plus the one stored before.
    assert_eq!(
        (&r["total"], &r["succeeded"], &r["duplicates"], &r["failed"]),
        (&json!(250), &json!(249), &json!(1), &json!(0)),
        "{r}"
    );
    assert_eq!(lead_total(&app, &alice.key, "").await, 246);
    assert_eq!(submission_count(&app).await, 251);

    let (_, ten) = app
        .get(&format!("/api/v1/leads/{}", lead_id(10)), &alice.key)
        .await;
    assert_eq!(ten["primary_phone"], "+15125550150", "{ten}");
    assert_eq!(ten["email_1"], "ten@example.com", "{ten}");
    assert_eq!(ten["submission_count"], 3, "{ten}");
    let (_, nine) = app
        .get(&format!("/api/v1/leads/{stored_id}"), &alice.key)
        .await;
    assert_eq!(
        (
            &nine["first_name"],
            &nine["last_name"],
            &nine["submission_count"]
        ),
        (&json!("Ada"), &json!("Lovelace"), &json!(3)),
        "{nine}"
    );
    // Every submission is final, with the lead and action its element was given.
    for i in [10, 150, 240, 20, 31] {
        let id = results[i]["submission_id"].as_i64().unwrap();
        let (_, s) = app
            .get(&format!("/api/v1/submissions/status/{id}"), &alice.key)
            .await;
        assert_eq!(s["result_lead_id"], results[i]["lead_id"], "{s}");
        assert_eq!(s["result_action"], results[i]["action"], "{s}");
        assert!(s["processed_at"].is_string(), "{s}");
    }
}

/// Batches sent together that name the same properties in other orders all succeed: each
/// writes its leads, and then their geocodes, in lead id order, so on PostgreSQL two never wait
/// on each other's rows in opposite orders (a deadlock failed one of them with a 500).
async fn concurrent_batches_of_the_same_properties(app: TestApp) {
    let geocoder = Arc::new(ZipCentroidGeocoder);
    let app = app.restart().geocoder(Some(geocoder)).build().await;
    let alice = app.user("alice@example.com").await;
    for round in 0..4 {
        let mut batches = tokio::task::JoinSet::new();
        for sender in 0..4 {
            // n -> n * m mod 101 orders 1..=100 anew for each sender.
            let m = 3 + 10 * sender + round;
            let leads: Vec<Value> = (1..=100)
                .map(|n| {
                    json!({"address": format!("{} Round{round} St", n * m % 101), "city": "Austin",
                           "state": "TX", "zip_code": "78752", "last_name": format!("Sender{sender}")})
                })
                .collect();
            let request = app
                .client
                .post(app.url("/api/v1/submissions/batch"))
                .bearer_auth(&alice.key)
                .json(&json!({ "leads": leads }));
            batches.spawn(async move {
                let answer = request.send().await.unwrap();
                (answer.status(), answer.text().await.unwrap())
            });
        }
        while let Some(done) = batches.join_next().await {
            let (status, body) = done.unwrap();
            assert_eq!(status, StatusCode::OK, "round {round}: {body}");
        }
    }
    assert_eq!(lead_total(&app, &alice.key, "").await, 400);
}

backend_tests!(
    duplicates_far_apart,
    concurrent_batches_of_the_same_properties
);
