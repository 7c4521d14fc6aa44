//! Shared helpers for the submission and lead tests: teams straight in the database (no HTTP API yet).
use std::time::{Duration, Instant};

use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::{submissions, teams};
use leadhub_tests::{TestApp, TestUser};

use crate::lead_work::ids;

/// An active team created by `owner`, with `owner` as its first member.
pub async fn team(app: &TestApp, name: &str, owner: &TestUser) -> i64 {
    let name = name.to_owned();
    let owner_id = owner.user.id;
    let now = chrono::Utc::now().naive_utc();
    let id = app
        .write_db(move |conn| {
            diesel::insert_into(teams::table)
                .values((
                    teams::name.eq(name),
                    teams::is_active.eq(true),
                    teams::created_by.eq(owner_id),
                    teams::created_at.eq(now),
                    teams::updated_at.eq(now),
                ))
                .returning(teams::id)
                .get_result::<i64>(conn)
        })
        .await;
    join(app, id, owner).await;
    id
}

/// Makes `user` an active member of `team_id`.
pub async fn join(app: &TestApp, team_id: i64, user: &TestUser) {
    app.join_team(team_id, user).await;
}

/// The people of a visibility test: Alice owns team `team`, Mate is a member of it, Stranger
/// belongs to no team and Admin is a platform administrator.
pub struct Onlookers {
    pub alice: TestUser,
    pub mate: TestUser,
    pub stranger: TestUser,
    pub admin: TestUser,
    pub team: i64,
}

pub async fn onlookers(app: &TestApp) -> Onlookers {
    let [alice, mate, stranger] = app.users(["alice", "mate", "stranger"]).await;
    let admin = app.admin("admin@example.com").await;
    let team = team(app, "T", &alice).await;
    join(app, team, &mate).await;
    Onlookers {
        alice,
        mate,
        stranger,
        admin,
        team,
    }
}

impl Onlookers {
    /// Alice's submissions of `1 {street}` to the team and of `2 {street}` to no team.
    pub async fn team_and_own(&self, app: &TestApp, street: &str) -> (Value, Value) {
        let address = |n: u8| format!("{n} {street}");
        let with_team = json!({"address": address(1), "team_id": self.team});
        let own = json!({"address": address(2)});
        (
            submit(app, &self.alice.key, with_team).await,
            submit(app, &self.alice.key, own).await,
        )
    }
}

/// Each query string (`?name=value`) is refused with 422 and one problem at ["query", name].
pub async fn assert_query_refused(app: &TestApp, path: &str, key: &str, queries: &[&str]) {
    for bad in queries {
        let (status, body) = app.get(&format!("{path}{bad}"), key).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        let name = bad
            .trim_start_matches('?')
            .split('=')
            .next()
            .unwrap_or_default();
        assert_eq!(
            locs(&body),
            [serde_json::json!(["query", name])],
            "{bad}: {body}"
        );
    }
}

/// Asserts that each field of `expected` (an object) has that value in `actual`.
pub fn assert_fields(actual: &Value, expected: Value) {
    for (field, want) in expected.as_object().unwrap() {
        assert_eq!(&actual[field], want, "{field}: {actual}");
    }
}

/// The raw_json stored for a submission.
pub async fn raw_json(app: &TestApp, submission_id: i64) -> Value {
    serde_json::from_str(&raw_text(app, submission_id).await).unwrap()
}

/// The raw_json stored for a submission, as text.
pub async fn raw_text(app: &TestApp, submission_id: i64) -> String {
    app.read_db(move |conn| {
        conn.first::<_, String>(
            submissions::table
                .filter(submissions::id.eq(submission_id))
                .select(submissions::raw_json),
        )
    })
    .await
}

/// How many submissions are stored.
pub async fn submission_count(app: &TestApp) -> i64 {
    app.read_db(|conn| conn.get_result::<_, i64>(submissions::table.count()))
        .await
}

/// `total` of GET /api/v1/leads (with an optional query string) as `key` sees it.
pub async fn lead_total(app: &TestApp, key: &str, query: &str) -> i64 {
    let (status, body) = app.get(&format!("/api/v1/leads{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["total"].as_i64().unwrap()
}

/// The ids of the leads `key`'s holder lists with `query` (`name=value&…`), in the list's
/// order; asserts 200.
pub async fn listed_ids(app: &TestApp, key: &str, query: &str) -> Vec<i64> {
    let (status, body) = app.get(&format!("/api/v1/leads?{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    ids(&body)
}

/// `listed_ids` of a list that fits one page (`query` with or without its `?`): its `total`,
/// however the list counts it (the rollup, the rollup less an index, the word index), must be
/// its items too.
pub async fn listed(app: &TestApp, key: &str, query: impl AsRef<str>) -> Vec<i64> {
    let query = query.as_ref().trim_start_matches('?');
    let (status, body) = app.get(&format!("/api/v1/leads?{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    let ids = ids(&body);
    assert_eq!(body["total"], ids.len(), "{query}: {body}");
    ids
}

/// `listed_ids` with `query` (or nothing) oldest first.
pub async fn listed_oldest_first(app: &TestApp, key: &str, query: &str) -> Vec<i64> {
    listed_ids(app, key, &format!("{query}&sort=created_at")).await
}

pub const SINGLE: &str = "/api/v1/submissions/single";

/// POST {SINGLE}, asserting 200; returns the body.
pub async fn submit(app: &TestApp, key: &str, lead: Value) -> Value {
    let (status, body) = app.post(SINGLE, key, lead).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

pub const BATCH: &str = "/api/v1/submissions/batch";

/// POST {BATCH} with `leads` and nothing else.
pub async fn post_batch(app: &TestApp, key: &str, leads: impl Into<Value>) -> (StatusCode, Value) {
    let body = serde_json::json!({ "leads": leads.into() });
    app.post(BATCH, key, body).await
}

/// POST {BATCH} with `body` (the leads and the batch's options), asserting 200; returns the
/// answer.
pub async fn batch_ok(app: &TestApp, key: &str, body: Value) -> Value {
    let (status, answer) = app.post(BATCH, key, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// The lead of each element of an answer of {BATCH}, in order.
pub fn result_lead_ids(answer: &Value) -> Vec<i64> {
    each(&answer["results"], "lead_id")
        .map(|id| id.as_i64().unwrap())
        .collect()
}

/// GET path of the batch an answer of {BATCH} names.
pub fn batch_path(answer: &Value) -> String {
    let id = answer["batch_id"].as_str().unwrap();
    format!("/api/v1/submissions/batches/{id}")
}

/// The `key` of each element of the array `list`.
pub fn each<'a>(list: &'a Value, key: &'a str) -> impl Iterator<Item = &'a Value> {
    list.as_array().unwrap().iter().map(move |e| &e[key])
}

/// Submits each lead in turn as `key` (asserting 200); returns the ids of the leads they made or
/// merged into, in order.
pub async fn submit_leads<const N: usize>(app: &TestApp, key: &str, leads: [Value; N]) -> [i64; N] {
    let mut ids = [0; N];
    for (id, lead) in ids.iter_mut().zip(leads) {
        *id = submit(app, key, lead).await["result_lead_id"]
            .as_i64()
            .unwrap();
    }
    ids
}

/// A lead at `address`, Austin TX 78701.
pub fn austin_lead(address: &str) -> Value {
    json!({"address": address, "city": "Austin", "state": "TX", "zip_code": "78701"})
}

/// A lead at `{i} {street}`, Austin TX, for each i of `numbers`.
pub fn austin_leads(numbers: impl IntoIterator<Item = u32>, street: &str) -> Vec<Value> {
    numbers
        .into_iter()
        .map(|i| json!({"address": format!("{i} {street}"), "city": "Austin", "state": "TX"}))
        .collect()
}

/// Submits and then fetches the stored lead.
pub async fn submit_and_get(app: &TestApp, key: &str, lead: Value) -> (Value, Value) {
    let result = submit(app, key, lead).await;
    let id = result["result_lead_id"].as_i64().unwrap();
    let (status, stored) = app.get(&format!("/api/v1/leads/{id}"), key).await;
    assert_eq!(status, StatusCode::OK, "{stored}");
    (result, stored)
}

/// The warning codes of a result, as (field, code).
pub fn warning_codes(result: &Value) -> Vec<(String, String)> {
    result["validation_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["field"].as_str().unwrap().to_owned(),
                w["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub fn has_warning(result: &Value, field: &str, code: &str) -> bool {
    warning_codes(result)
        .iter()
        .any(|(f, c)| f == field && c == code)
}

/// The `loc`s of a 422 body.
pub fn locs(body: &Value) -> Vec<Value> {
    body["detail"]
        .as_array()
        .unwrap_or_else(|| panic!("not a 422 body: {body}"))
        .iter()
        .map(|d| d["loc"].clone())
        .collect()
}

/// Asserts that the lead list refuses `query` (`name=value`) with a 422 naming that parameter.
pub async fn list_refuses(app: &TestApp, key: &str, query: &str) {
    let (status, body) = app.get(&format!("/api/v1/leads?{query}"), key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
    let name = query.split('=').next().unwrap_or_default();
    assert_eq!(locs(&body), [json!(["query", name])], "{query}: {body}");
}

/// The `type` of the problem at `loc`, if any.
pub fn problem_type(body: &Value, loc: &Value) -> Option<String> {
    body["detail"]
        .as_array()?
        .iter()
        .find(|d| &d["loc"] == loc)
        .map(|d| d["type"].as_str().unwrap_or_default().to_owned())
}

/// A request with an Idempotency-Key; returns the status, the replay header and the body.
pub async fn post_with_key(
    app: &TestApp,
    path: &str,
    key: &str,
    idem: &str,
    body: &Value,
) -> (StatusCode, Option<String>, Value) {
    let response = app
        .client
        .request(Method::POST, app.url(path))
        .bearer_auth(key)
        .header("Idempotency-Key", idem)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let replayed = response
        .headers()
        .get("Idempotent-Replayed")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    (
        status,
        replayed,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

/// Polls `path` until `done` holds (up to 15 s); returns that body.
pub async fn poll(app: &TestApp, path: &str, key: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (status, body) = app.get(path, key).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if done(&body) {
            return body;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{path} did not settle in 15 s: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls the batch an answer of {BATCH} names until it has completed; returns the batch.
pub async fn completed_batch(app: &TestApp, key: &str, answer: &Value) -> Value {
    poll(app, &batch_path(answer), key, |b| {
        b["completed_at"].is_string()
    })
    .await
}

/// Polls a submission's status until it is final (neither pending nor processing); returns it.
pub async fn settled_submission(app: &TestApp, key: &str, id: i64) -> Value {
    let path = format!("/api/v1/submissions/status/{id}");
    poll(app, &path, key, |s| {
        s["status"] != "pending" && s["status"] != "processing"
    })
    .await
}
