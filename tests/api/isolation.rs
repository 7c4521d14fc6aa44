//! Cross-team isolation: a member of team A, against every resource of team B, gets the
//! contract's 403/404 (or an empty list) and never any of B's data; nothing of B changes.
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::businesses::import;
use crate::helpers::{batch_ok, each, join, submit};
use crate::pages::{sign_in, Browser, Page};

backend_tests!(team_a_never_reaches_team_b);

/// Strings that exist only in team B's data: none may appear in an answer to A.
const SECRETS: [&str; 7] = [
    "Bravo Secret Team",
    "bravo-owner@example.com",
    "bravo-member@example.com",
    "bravo-invitee@example.com",
    "Zanzibar Quux Road",
    "Xylophone Secret Plumbing",
    "Bravo Hidden Description",
];

struct TeamB {
    team: i64,
    owner: TestUser,
    member: TestUser,
    lead: i64,
    submission: i64,
    batch: String,
    invite: i64,
    business: i64,
}

async fn ok(app: &TestApp, method: Method, path: &str, key: &str, body: Option<Value>) -> Value {
    let (status, answer) = app.call(method, path, Some(key), body.as_ref()).await;
    assert!(status.is_success(), "{path}: {status} {answer}");
    answer
}

/// GET `path` as `key`, asserting success; returns the answer.
async fn read(app: &TestApp, path: &str, key: &str) -> Value {
    ok(app, Method::GET, path, key, None).await
}

async fn team_b(app: &TestApp) -> TeamB {
    let [owner, member] = app.users(["bravo-owner", "bravo-member"]).await;
    let k = owner.key.as_str();
    let team = ok(
        app,
        Method::POST,
        "/api/teams",
        k,
        Some(json!({"name": "Bravo Secret Team", "description": "Bravo Hidden Description"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    join(app, team, &member).await;
    let single = submit(
        app,
        k,
        json!({"address": "1 Zanzibar Quux Road", "city": "Austin", "state": "TX",
                    "zip_code": "78701", "latitude": 30.27, "longitude": -97.74, "team_id": team}),
    )
    .await;
    let batch = batch_ok(
        app,
        k,
        json!({"team_id": team, "leads": [
            {"address": "2 Zanzibar Quux Road", "city": "Austin", "state": "TX", "zip_code": "78701",
             "latitude": 30.27, "longitude": -97.74}]}),
    )
    .await;
    let invite = ok(
        app,
        Method::POST,
        &format!("/api/teams/{team}/invites"),
        k,
        Some(json!({"email": "bravo-invitee@example.com"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let imported = import(
        app,
        k,
        json!({"team_id": team, "businesses": [
            {"name": "Xylophone Secret Plumbing", "city": "Austin", "state": "TX"}]}),
    )
    .await;
    TeamB {
        team,
        owner,
        member,
        lead: single["result_lead_id"].as_i64().unwrap(),
        submission: single["id"].as_i64().unwrap(),
        batch: batch["batch_id"].as_str().unwrap().to_owned(),
        invite,
        business: imported["imported_ids"][0].as_i64().unwrap(),
    }
}

fn assert_no_secrets(what: &str, body: &Value) {
    let text = body.to_string();
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} leaked {secret:?}: {text}");
    }
}

/// The page at `path`, asserting it is there and shows none of B's secrets.
async fn page_without_secrets(browser: &mut Browser, path: &str) -> Page {
    let page = browser.get(path).await;
    assert_eq!(page.status, StatusCode::OK, "{path}");
    assert_no_secrets(path, &Value::String(page.body.clone()));
    page
}

async fn team_a_never_reaches_team_b(app: TestApp) {
    let b = team_b(&app).await;
    let alice = app.user("alice@example.com").await;
    let team_a = ok(
        &app,
        Method::POST,
        "/api/teams",
        &alice.key,
        Some(json!({"name": "Alpha"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let t = b.team;
    let member_id = b.member.user.user_id.clone();
    let owner_id = b.owner.user.user_id.clone();

    // (method, path, body, the statuses the contract allows)
    let not_found = &[StatusCode::NOT_FOUND][..];
    let refused = &[StatusCode::FORBIDDEN, StatusCode::NOT_FOUND][..];
    // Without a body, as request lines: B's things are not found.
    let unseen = [
        format!("GET /api/v1/leads/{}", b.lead),
        format!("POST /api/v1/leads/{}/enrich", b.lead),
        format!("GET /api/v1/submissions/status/{}", b.submission),
        format!("GET /api/v1/submissions/batches/{}", b.batch),
        format!("GET /api/v1/lead-sources/businesses/{}", b.business),
        format!("GET /api/teams/{t}"),
        format!("DELETE /api/teams/{t}"),
        format!("GET /api/teams/{t}/members"),
        format!("DELETE /api/teams/{t}/members/{member_id}"),
        format!("DELETE /api/teams/{t}/members/{owner_id}"),
        format!("GET /api/teams/{t}/invites"),
        format!("DELETE /api/teams/{t}/invites/{}", b.invite),
    ];
    let with_bodies: Vec<(Method, String, Option<Value>, &[StatusCode])> = vec![
        (
            Method::POST,
            "/api/v1/submissions/single".into(),
            Some(json!({"address": "9 Other Road", "city": "Austin", "state": "TX", "team_id": t})),
            refused,
        ),
        (
            Method::POST,
            "/api/v1/submissions/batch".into(),
            Some(
                json!({"team_id": t, "leads": [{"address": "9 Other Road", "city": "Austin", "state": "TX"}]}),
            ),
            refused,
        ),
        (
            Method::PATCH,
            format!("/api/v1/lead-sources/businesses/{}", b.business),
            Some(json!({"status": "inactive"})),
            not_found,
        ),
        (
            Method::POST,
            "/api/v1/lead-sources/import".into(),
            Some(json!({"team_id": t, "businesses": [{"name": "Intruder Co"}]})),
            refused,
        ),
        (
            Method::PATCH,
            format!("/api/teams/{t}"),
            Some(json!({"name": "Pwned"})),
            not_found,
        ),
        (
            Method::PATCH,
            format!("/api/teams/{t}/members/{member_id}"),
            Some(json!({"role": "admin"})),
            not_found,
        ),
        (
            Method::POST,
            format!("/api/teams/{t}/invites"),
            Some(json!({"email": "mallory@example.com", "role": "admin"})),
            not_found,
        ),
    ];
    let cases = unseen
        .into_iter()
        .map(|line| {
            let (method, path) = line.split_once(' ').unwrap();
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            (method, path.to_owned(), None, not_found)
        })
        .chain(with_bodies);
    for (method, path, body, allowed) in cases {
        let (status, answer) = app
            .call(method.clone(), &path, Some(&alice.key), body.as_ref())
            .await;
        assert!(
            allowed.contains(&status),
            "{method} {path}: {status} {answer}"
        );
        assert!(answer["detail"].is_string(), "{method} {path}: {answer}");
        assert_no_secrets(&format!("{method} {path}"), &answer);
    }

    // Lists filtered by B's team: empty (or refused), never B's rows.
    for path in [
        format!("/api/v1/leads?team_id={t}"),
        format!("/api/v1/lead-sources/businesses?team_id={t}"),
        format!("/api/v1/lead-sources/statistics?team_id={t}"),
    ] {
        let (status, answer) = app.get(&path, &alice.key).await;
        assert!(
            status == StatusCode::OK || refused.contains(&status),
            "{path}: {status} {answer}"
        );
        if status == StatusCode::OK {
            assert_eq!(answer["total"], 0, "{path}: {answer}");
        }
        assert_no_secrets(&path, &answer);
    }
    // Unfiltered lists and A's own views show nothing of B.
    for path in [
        "/api/v1/leads".to_owned(),
        "/api/v1/lead-sources/businesses".to_owned(),
        "/api/v1/lead-sources/statistics".to_owned(),
        "/api/teams".to_owned(),
        "/api/teams/me/memberships".to_owned(),
        format!("/api/teams/{team_a}/members"),
        format!("/api/teams/{team_a}/invites"),
    ] {
        let (status, answer) = app.get(&path, &alice.key).await;
        assert_eq!(status, StatusCode::OK, "{path}: {answer}");
        assert_no_secrets(&path, &answer);
    }
    let (_, teams) = app.get("/api/teams", &alice.key).await;
    assert!(teams.as_array().unwrap().iter().all(|x| x["id"] != t));

    // The lead pages and the CSV export (API and page) show A's leads and nothing of B's.
    ok(
        &app,
        Method::POST,
        "/api/v1/submissions/single",
        &alice.key,
        Some(json!({"address": "3 Alpha Visible Lane", "city": "Austin", "state": "TX", "team_id": team_a})),
    )
    .await;
    let mut browser = sign_in(&app, "alice@example.com").await;
    let missing = browser.get("/leads/999999999").await;
    for path in [
        "/leads".to_owned(),
        format!("/leads?team_id={t}"),
        "/leads?q=road".to_owned(),
        "/leads/export".to_owned(),
        format!("/leads/export?team_id={t}"),
    ] {
        let page = page_without_secrets(&mut browser, &path).await;
        assert!(!page.body.to_uppercase().contains("ZANZIBAR"), "{path}");
        if path == "/leads" || path == "/leads/export" {
            assert!(
                page.body.contains("ALPHA VISIBLE LN"),
                "{path}: {}",
                page.body
            );
        }
    }
    // The dashboard and the business directory: A's own figures, nothing of B's.
    for path in [
        "/".to_owned(),
        "/businesses".to_owned(),
        format!("/businesses?team_id={t}"),
    ] {
        page_without_secrets(&mut browser, &path).await;
    }
    let dashboard = browser.get("/").await.body;
    assert!(dashboard.contains("id=\"lead-total\">1<"), "{dashboard}");
    assert!(
        dashboard.contains("of 1 submission in the last 30 days"),
        "{dashboard}"
    );
    let hidden = browser.get(&format!("/leads/{}", b.lead)).await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
    assert_eq!(hidden.body, missing.body, "no existence leak");
    let csrf = browser.get("/leads").await.field("csrf");
    let enrich = browser
        .post(&format!("/leads/{}/enrich", b.lead), &[("csrf", &csrf)])
        .await;
    assert_eq!(enrich.status, StatusCode::NOT_FOUND);
    for path in [
        "/api/v1/leads/export".to_owned(),
        format!("/api/v1/leads/export?team_id={t}"),
    ] {
        let response = reqwest::Client::new()
            .get(app.url(&path))
            .bearer_auth(&alice.key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let text = response.text().await.unwrap();
        assert!(!text.to_uppercase().contains("ZANZIBAR"), "{path}");
        assert_no_secrets(&path, &Value::String(text));
    }
    let mut member = sign_in(&app, "bravo-member@example.com").await;
    let seen = member.get(&format!("/leads/{}", b.lead)).await;
    assert_eq!(seen.status, StatusCode::OK);
    assert!(seen.body.contains("ZANZIBAR QUUX RD"), "{}", seen.body);

    // B is untouched: same team, members, invite and business, and still reachable by B.
    let k = b.owner.key.as_str();
    let team = read(&app, &format!("/api/teams/{t}"), k).await;
    assert_eq!(team["name"], "Bravo Secret Team");
    assert_eq!(team["is_active"], true);
    let members = read(&app, &format!("/api/teams/{t}/members"), k).await;
    assert_eq!(members.as_array().unwrap().len(), 2, "{members}");
    assert!(members
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["role"] != "admin" || m["user_id"] != member_id.as_str()));
    let invites = read(&app, &format!("/api/teams/{t}/invites"), k).await;
    let emails: Vec<&str> = each(&invites, "email").filter_map(Value::as_str).collect();
    assert_eq!(emails, vec!["bravo-invitee@example.com"]);
    let business = ok(
        &app,
        Method::GET,
        &format!("/api/v1/lead-sources/businesses/{}", b.business),
        k,
        None,
    )
    .await;
    assert_eq!(business["status"], "prospect");
    let leads = read(&app, &format!("/api/v1/leads?team_id={t}"), k).await;
    assert_eq!(leads["total"], 2);
    let member_view = ok(
        &app,
        Method::GET,
        &format!("/api/v1/leads/{}", b.lead),
        &b.member.key,
        None,
    )
    .await;
    assert_eq!(member_view["team_id"], t);
}
