//! Webhook endpoints over HTTP: what owners and admins manage, the secret shown only when made,
//! members refused, other teams' ids not found, and the 422s.
use std::time::{Duration, Instant};

use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::webhook_deliveries;
use leadhub_tests::{backend_tests, free_port, TestApp, TestUser};

use crate::helpers::join;
use crate::teams::{create_team_id, team_of};

backend_tests!(
    an_inactive_teams_webhooks_take_no_new_setup,
    owners_and_admins_manage_webhooks,
    members_are_refused_and_other_teams_ids_are_not_found,
    bad_input_is_refused_with_422,
);

const URL: &str = "https://crm.example.com/hooks/leadhub";

/// Creates an endpoint on `team` as `key`, asserting 200; returns the answer.
pub async fn create_webhook(app: &TestApp, key: &str, team: i64, body: Value) -> Value {
    let (status, made) = app
        .post(&format!("/api/teams/{team}/webhooks"), key, body)
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    made
}

/// `app` restarted to deliver to local addresses, quickly, with an owner and their team whose
/// endpoint for `events` never answers (`unanswered_webhook`): the app, the owner, the team.
pub async fn hooked_team(app: TestApp, events: Value) -> (TestApp, TestUser, i64) {
    let app = app.restart().local_webhooks_scaled("0.001").build().await;
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Hooked").await;
    unanswered_webhook(&app, &owner.key, team, events).await;
    (app, owner, team)
}

/// An endpoint of `team` for `events` at a local port nothing listens on: its first attempt
/// still makes and keeps the delivery's body (`first_payload` reads it).
pub async fn unanswered_webhook(app: &TestApp, key: &str, team: i64, events: Value) {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/hook");
    create_webhook(app, key, team, json!({"url": url, "events": events})).await;
}

/// The body of the one delivery of `event_type`, once its first attempt has made it (30 s at
/// most); asserts there is no second.
pub async fn first_payload(app: &TestApp, event_type: &'static str) -> Value {
    let started = Instant::now();
    loop {
        let made: Vec<Option<String>> = app
            .read_db(move |conn| {
                conn.load(
                    webhook_deliveries::table
                        .filter(webhook_deliveries::event_type.eq(event_type))
                        .select(webhook_deliveries::payload),
                )
            })
            .await;
        assert!(made.len() <= 1, "{made:?}");
        if let Some(Some(text)) = made.into_iter().next() {
            return serde_json::from_str::<Value>(&text).unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no delivery made"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The id of an endpoint for every event at `url`, registered by `key` on `team`.
pub async fn hook_id(app: &TestApp, key: &str, team: i64, url: &str) -> i64 {
    create_webhook(app, key, team, json!({"url": url, "events": ["*"]})).await["id"]
        .as_i64()
        .unwrap()
}

/// Queues a test event for `team`'s endpoint `wid` as `key`: the status and the delivery.
pub async fn send_test(app: &TestApp, key: &str, team: i64, wid: i64) -> (StatusCode, Value) {
    app.post(
        &format!("/api/teams/{team}/webhooks/{wid}/test"),
        key,
        json!({}),
    )
    .await
}

async fn owners_and_admins_manage_webhooks(app: TestApp) {
    let [owner, admin] = app.users(["owner", "admin"]).await;
    let root = app.admin("root@example.com").await;
    let team = team_of(&app, &owner, "Roofers", &[(&admin, "admin")]).await;

    let made = create_webhook(
        &app,
        &owner.key,
        team,
        json!({"url": URL, "events": ["lead.created", "batch.completed"], "description": "CRM"}),
    )
    .await;
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(
        secret.starts_with("whsec_") && secret.len() >= 6 + 32,
        "{made}"
    );
    assert_eq!(made["events"], json!(["lead.created", "batch.completed"]));
    assert_eq!(made["is_active"], json!(true));
    let wid = made["id"].as_i64().unwrap();
    let base = format!("/api/teams/{team}/webhooks");

    // Listed by the admin and a platform admin, never with a secret.
    for key in [&admin.key, &root.key] {
        let (status, list) = app.get(&base, key).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
        assert!(list[0].get("secret").is_none(), "{list}");
        assert!(!list.to_string().contains("whsec_"), "{list}");
    }

    let (status, changed) = app
        .patch(
            &format!("{base}/{wid}"),
            &admin.key,
            json!({"events": ["*"], "is_active": false, "description": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["events"], json!(["*"]));
    assert_eq!(changed["is_active"], json!(false));
    assert_eq!(changed["description"], Value::Null);
    assert_eq!(changed["url"], json!(URL));

    let (status, rotated) = app
        .post(&format!("{base}/{wid}/rotate-secret"), &root.key, json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let new_secret = rotated["secret"].as_str().unwrap();
    assert!(
        new_secret.starts_with("whsec_") && new_secret != secret,
        "{rotated}"
    );

    let (status, sent) = app
        .post(&format!("{base}/{wid}/test"), &owner.key, json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    assert_eq!(sent["event_type"], json!("webhook.test"));
    assert!(
        sent["event_id"].as_str().unwrap().starts_with("msg_"),
        "{sent}"
    );
    let (status, page) = app
        .get(&format!("{base}/{wid}/deliveries?limit=10"), &admin.key)
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], json!(1), "{page}");
    assert_eq!(page["items"][0]["id"], sent["id"]);
    let did = sent["id"].as_i64().unwrap();
    let (status, retried) = app
        .post(
            &format!("{base}/{wid}/deliveries/{did}/retry"),
            &admin.key,
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{retried}");
    assert_eq!(retried["status"], json!("pending"));

    let (status, _) = app.delete(&format!("{base}/{wid}"), &owner.key).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.delete(&format!("{base}/{wid}"), &owner.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = app.get(&base, &owner.key).await;
    assert_eq!(list, json!([]));
}

/// Every webhook route of `team` with endpoint `wid` and delivery `did`.
fn routes(team: i64, wid: i64, did: i64) -> Vec<(Method, String, Option<Value>)> {
    let base = format!("/api/teams/{team}/webhooks");
    let one = format!("{base}/{wid}");
    vec![
        (
            Method::POST,
            base.clone(),
            Some(json!({"url": URL, "events": ["*"]})),
        ),
        (Method::GET, base, None),
        (
            Method::PATCH,
            one.clone(),
            Some(json!({"description": "x"})),
        ),
        (Method::POST, format!("{one}/rotate-secret"), None),
        (Method::GET, format!("{one}/deliveries"), None),
        (Method::POST, format!("{one}/deliveries/{did}/retry"), None),
        (Method::POST, format!("{one}/test"), None),
        (Method::DELETE, one, None),
    ]
}

async fn members_are_refused_and_other_teams_ids_are_not_found(app: TestApp) {
    let [owner, member, other] = app
        .users(["alpha-owner", "alpha-member", "bravo-owner"])
        .await;
    let alpha = create_team_id(&app, &owner.key, "Alpha").await;
    let bravo = create_team_id(&app, &other.key, "Bravo").await;
    join(&app, alpha, &member).await;
    let alpha_hook = hook_id(&app, &owner.key, alpha, URL).await;
    let (_, sent) = send_test(&app, &owner.key, alpha, alpha_hook).await;
    let did = sent["id"].as_i64().unwrap();
    let bravo_hook = hook_id(&app, &other.key, bravo, URL).await;

    // A member of the team: 403 everywhere.
    for (method, path, body) in routes(alpha, alpha_hook, did) {
        let (status, answer) = app
            .call(method, &path, Some(&member.key), body.as_ref())
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {answer}");
    }
    // Someone of another team: 404 everywhere, and nothing of alpha's in the answers.
    for (method, path, body) in routes(alpha, alpha_hook, did) {
        let (status, answer) = app
            .call(method, &path, Some(&other.key), body.as_ref())
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
    }
    // Bravo's owner through their own team, with alpha's endpoint and delivery ids: 404.
    for (method, path, body) in routes(bravo, alpha_hook, did).into_iter().skip(2) {
        let (status, answer) = app
            .call(method, &path, Some(&other.key), body.as_ref())
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
    }
    // Alpha's delivery through bravo's own endpoint: 404.
    let path = format!("/api/teams/{bravo}/webhooks/{bravo_hook}/deliveries/{did}/retry");
    let (status, _) = app.post(&path, &other.key, json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Alpha's endpoint is untouched.
    let (_, list) = app
        .get(&format!("/api/teams/{alpha}/webhooks"), &owner.key)
        .await;
    assert_eq!(list[0]["id"], json!(alpha_hook));
    assert_eq!(list[0]["description"], Value::Null);
}

async fn bad_input_is_refused_with_422(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Roofers").await;
    let base = format!("/api/teams/{team}/webhooks");
    let refused = [
        (
            json!({"url": "http://crm.example.com/h", "events": ["*"]}),
            "url",
        ),
        (
            json!({"url": "ftp://crm.example.com/h", "events": ["*"]}),
            "url",
        ),
        (json!({"url": "not a url", "events": ["*"]}), "url"),
        (json!({"url": 5, "events": ["*"]}), "url"),
        (json!({"events": ["*"]}), "url"),
        (json!({"url": URL}), "events"),
        (json!({"url": URL, "events": []}), "events"),
        (json!({"url": URL, "events": "lead.created"}), "events"),
        (json!({"url": URL, "events": ["lead.deleted"]}), "events"),
        (
            json!({"url": URL, "events": ["*", "lead.created"]}),
            "events",
        ),
        (
            json!({"url": URL, "events": ["*"], "description": "x".repeat(1001)}),
            "description",
        ),
    ];
    for (body, field) in refused {
        let (status, answer) = app.post(&base, &owner.key, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        assert_eq!(
            answer["detail"][0]["loc"],
            json!(["body", field]),
            "{body}: {answer}"
        );
    }
    let (_, list) = app.get(&base, &owner.key).await;
    assert_eq!(list, json!([]), "nothing stored");

    let wid = hook_id(&app, &owner.key, team, URL).await;
    for body in [
        json!({"url": "http://x.example/"}),
        json!({"is_active": "maybe"}),
    ] {
        let path = format!("{base}/{wid}");
        let (status, answer) = app.patch(&path, &owner.key, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
    }
    // Contract 1: a member the PATCH does not know is named (it would silently change nothing),
    // and a PATCH naming nothing is the lead PATCH's 422.
    let path = format!("{base}/{wid}");
    let (status, answer) = app
        .patch(&path, &owner.key, json!({"evnts": ["lead.created"]}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(
        answer,
        json!({"detail": [{"loc": ["body", "evnts"], "msg": "Extra inputs are not permitted",
            "type": "extra_forbidden"}]})
    );
    let (status, answer) = app.patch(&path, &owner.key, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(
        answer,
        json!({"detail": [{"loc": ["body"], "msg": "Give at least one field to change",
            "type": "missing"}]})
    );
    for bad in ["limit=0", "limit=501", "offset=-1", "limit=x"] {
        let (status, answer) = app
            .get(&format!("{base}/{wid}/deliveries?{bad}"), &owner.key)
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {answer}");
    }
    let (status, answer) = app.get(&format!("{base}/abc/deliveries"), &owner.key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let (_, list) = app.get(&base, &owner.key).await;
    assert_eq!(list[0]["url"], json!(URL), "unchanged");
}

/// A deactivated team takes no new endpoint, changed endpoint or new secret (403, as for its
/// leads, businesses and invites); its endpoints are still listed, turned off and deleted.
async fn an_inactive_teams_webhooks_take_no_new_setup(app: TestApp) {
    let [owner, admin] = app.users(["owner", "admin"]).await;
    let team = team_of(&app, &owner, "Closing", &[(&admin, "admin")]).await;
    let base = format!("/api/teams/{team}/webhooks");
    let wid = hook_id(&app, &owner.key, team, URL).await;
    let (status, body) = app.delete(&format!("/api/teams/{team}"), &owner.key).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let inactive = json!({"detail": "Team is inactive"});
    let endpoint = format!("{base}/{wid}");
    for key in [&owner.key, &admin.key] {
        let (status, body) = app
            .post(&base, key, json!({"url": URL, "events": ["*"]}))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body, inactive);
        for change in [
            json!({"url": "https://crm.example.com/other"}),
            json!({"events": ["lead.created"]}),
            json!({"is_active": true}),
        ] {
            let (status, body) = app.patch(&endpoint, key, change.clone()).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{change}: {body}");
            assert_eq!(body, inactive);
        }
        let (status, body) = app
            .post(&format!("{endpoint}/rotate-secret"), key, json!({}))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body, inactive);
    }
    let (status, list) = app.get(&base, &owner.key).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list.as_array().map(Vec::len), Some(1), "nothing added");
    assert_eq!(list[0]["url"], URL, "nothing changed");
    // Turning it off stops its deliveries (the team's leads may still change).
    let (status, body) = app
        .patch(&endpoint, &owner.key, json!({"is_active": false}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["is_active"], false);
    let (status, body) = app.delete(&endpoint, &owner.key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
