//! Large batches processed now whose deciding element lies far into the body, past where a writer
//! taking leads in chunks would already have written some: a refused element must store nothing
//! and answer every problem, a team of the element's own must be checked like the batch's, and a
//! number out of range or nesting too deep anywhere is invalid JSON (422) as for any body.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{
    lead_total, locs, post_with_key, problem_type, submission_count, team, BATCH,
};

fn leads(count: usize) -> Vec<Value> {
    (0..count)
        .map(|n| {
            json!({"address": format!("{n} Stream Way"), "city": "Austin", "state": "TX",
                   "zip_code": "78702", "latitude": 30.26, "longitude": -97.72})
        })
        .collect()
}

/// Posts a body as text, exactly as given.
async fn post_text(app: &TestApp, key: &str, body: String) -> (StatusCode, Value) {
    let response = app
        .client
        .post(app.url(BATCH))
        .bearer_auth(key)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn late_bad_elements_store_nothing(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut batch = leads(250);
    batch[230]["bedrooms"] = json!(500);
    batch[249]["address"] = json!(249);
    let (status, answer) = app
        .post(BATCH, &alice.key, json!({"leads": batch.clone()}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(
        locs(&answer),
        vec![
            json!(["body", "leads", 230, "bedrooms"]),
            json!(["body", "leads", 249, "address"])
        ],
        "{answer}"
    );
    assert_eq!(submission_count(&app).await, 0);
    assert_eq!(lead_total(&app, &alice.key, "").await, 0);
    // Mended, the same batch goes through whole.
    batch[230]["bedrooms"] = json!(3);
    batch[249]["address"] = json!("249 Stream Way");
    let (status, answer) = app.post(BATCH, &alice.key, json!({"leads": batch})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["succeeded"], 250, "{answer}");
    assert_eq!(submission_count(&app).await, 250);
    assert_eq!(lead_total(&app, &alice.key, "").await, 250);
}

async fn late_element_of_its_own_team(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let alices = team(&app, "Alice's", &alice).await;
    let bobs = team(&app, "Bob's", &bob).await;
    // Another's team far into the batch: 403, nothing stored.
    let mut batch = leads(250);
    batch[200]["team_id"] = json!(bobs);
    let (status, answer) = app
        .post(BATCH, &alice.key, json!({"leads": batch.clone()}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    // ... unless an element is invalid as well: every problem comes first.
    batch[240]["state"] = json!("zz");
    let (status, answer) = app
        .post(BATCH, &alice.key, json!({"leads": batch.clone()}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(
        problem_type(&answer, &json!(["body", "leads", 240, "state"])).as_deref(),
        Some("value_error"),
        "{answer}"
    );
    assert_eq!(submission_count(&app).await, 0);
    // Her own team: stored, that element in her team, the others in none.
    batch[200]["team_id"] = json!(alices);
    batch[240]["state"] = json!("TX");
    let (status, answer) = app.post(BATCH, &alice.key, json!({"leads": batch})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["succeeded"], 250, "{answer}");
    let lead = |i: usize| answer["results"][i]["lead_id"].as_i64().unwrap();
    let (_, in_team) = app
        .get(&format!("/api/v1/leads/{}", lead(200)), &alice.key)
        .await;
    assert_eq!(in_team["team_id"], alices, "{in_team}");
    let (_, alone) = app
        .get(&format!("/api/v1/leads/{}", lead(199)), &alice.key)
        .await;
    assert!(alone["team_id"].is_null(), "{alone}");
    // Bob sees the team's lead, not Alice's own.
    let (status, _) = app
        .get(&format!("/api/v1/leads/{}", lead(200)), &bob.key)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn forbidden_batch_team_answers_problems_first(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let bobs = team(&app, "Bob's", &bob).await;
    let mut batch = leads(150);
    batch[120]["property_type"] = json!("castle");
    let (status, answer) = app
        .post(
            BATCH,
            &alice.key,
            json!({"leads": batch.clone(), "team_id": bobs}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    batch[120]["property_type"] = json!("residential");
    let (status, answer) = app
        .post(BATCH, &alice.key, json!({"leads": batch, "team_id": bobs}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert_eq!(submission_count(&app).await, 0);
}

async fn late_unreadable_elements_are_422(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let texts: Vec<String> = leads(200).iter().map(Value::to_string).collect();
    // A number serde_json cannot hold, and nesting deeper than allowed.
    let deep = format!(
        r#"{{"address": "1 Deep St", "x": {}1{}}}"#,
        "[".repeat(40),
        "]".repeat(40)
    );
    for (at, element) in [
        (
            150,
            r#"{"address": "1 Far St", "latitude": 1e400}"#.to_owned(),
        ),
        (180, deep),
    ] {
        let mut texts = texts.clone();
        texts[at] = element;
        let body = format!(r#"{{"leads": [{}]}}"#, texts.join(","));
        let (status, answer) = post_text(&app, &alice.key, body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(answer["detail"][0]["type"], "json_invalid", "{answer}");
    }
    assert_eq!(submission_count(&app).await, 0);
    assert_eq!(lead_total(&app, &alice.key, "").await, 0);
}

async fn refused_batch_gives_its_key_up(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut batch = leads(150);
    batch[140]["bedrooms"] = json!("many");
    let bad = json!({"leads": batch.clone()});
    let (status, _, answer) = post_with_key(&app, BATCH, &alice.key, "k-1", &bad).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    // The key was given up: the mended body runs under it, then is replayed.
    batch[140]["bedrooms"] = json!(2);
    let good = json!({"leads": batch});
    let (status, replayed, first) = post_with_key(&app, BATCH, &alice.key, "k-1", &good).await;
    assert_eq!((status, replayed), (StatusCode::OK, None), "{first}");
    let (status, replayed, again) = post_with_key(&app, BATCH, &alice.key, "k-1", &good).await;
    assert_eq!(
        (status, replayed.as_deref()),
        (StatusCode::OK, Some("true"))
    );
    assert_eq!(again["batch_id"], first["batch_id"]);
    assert_eq!(submission_count(&app).await, 150);
}

backend_tests!(
    late_bad_elements_store_nothing,
    late_element_of_its_own_team,
    forbidden_batch_team_answers_problems_first,
    late_unreadable_elements_are_422,
    refused_batch_gives_its_key_up
);
