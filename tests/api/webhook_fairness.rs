//! Fair delivery: a team whose 20 endpoints never answer, with a 1000-lead batch behind them,
//! holds up another team's deliveries by no more than a few seconds (a benchmark-style bound);
//! a team has at most its endpoint limit; an endpoint shows who registered it and keeps
//! delivering after that person leaves the team; two processes on one database share the
//! deliveries and send each once.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use leadhub_db::schema::{webhook_deliveries as wd, webhook_endpoints as we};
use leadhub_tests::{backend_tests, TestApp, TestAppBuilder};

use crate::helpers::{austin_leads, batch_ok, batch_path, submit};
use crate::pages::sign_in;
use crate::teams::{create_team_id, remove_member, team_of};
use crate::webhook_pages::add;
use crate::webhooks::{create_webhook, send_test};

backend_tests!(
    a_team_whose_endpoints_never_answer_holds_up_no_other_team,
    a_team_has_at_most_its_endpoint_limit,
    an_endpoint_shows_its_creator_and_outlives_their_membership,
    two_processes_share_the_deliveries_and_send_each_once,
);

/// A receiver at 127.0.0.1 that accepts connections and never answers: its base URL, and how
/// many connections it holds.
async fn silent_receiver() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(socket);
        }
    });
    (url, accepted)
}

/// A receiver at 127.0.0.1 that answers every request 204 at once: its base URL, and how many
/// requests it answered.
async fn answering_receiver() -> (String, Arc<AtomicUsize>) {
    let (url, answered, _) = recording_receiver().await;
    (url, answered)
}

/// `answering_receiver` that also keeps each request's path and `webhook-id`.
async fn recording_receiver() -> (String, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answered = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (count, log) = (answered.clone(), seen.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (count, log) = (count.clone(), log.clone());
            tokio::spawn(async move {
                if let Some(request) = read_request(&mut socket).await {
                    log.lock().unwrap().push(request);
                    count.fetch_add(1, Ordering::SeqCst);
                    let answer = b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n";
                    let _ = socket.write_all(answer).await;
                }
            });
        }
    });
    (url, answered, seen)
}

/// Reads one HTTP request (its head, then `content-length` bytes of body): its path and
/// `webhook-id`, space-separated.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<String> {
    let mut read = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return None;
        }
        read.extend_from_slice(&chunk[..n]);
        let Some(end) = read.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&read[..end]).to_ascii_lowercase();
        let header = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_owned())
        };
        let length: usize = header("content-length:")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if read.len() >= end + 4 + length {
            let path = head.split(' ').nth(1).unwrap_or("?").to_owned();
            let id = header("webhook-id:").unwrap_or_default();
            return Some(format!("{path} {id}"));
        }
    }
}

/// How many of `team`'s deliveries have each status.
async fn deliveries_of_team(app: &TestApp, team: i64) -> Vec<(String, i64)> {
    app.read_db(move |conn| {
        conn.load(
            wd::table
                .inner_join(we::table)
                .filter(we::team_id.eq(team))
                .group_by(wd::status)
                .select((wd::status, diesel::dsl::count_star())),
        )
    })
    .await
}

/// The body of an endpoint at `url` for every event.
fn every_event(url: &str) -> Value {
    json!({"url": url, "events": ["*"]})
}

/// An app that delivers to local receivers and retries at once, with no geocoder to wait for.
fn quick(builder: TestAppBuilder) -> TestAppBuilder {
    builder.local_webhooks_scaled("0.001").geocoder(None)
}

async fn a_team_whose_endpoints_never_answer_holds_up_no_other_team(app: TestApp) {
    let app = quick(app.restart()).build().await;
    let (silent, held) = silent_receiver().await;
    let (answering, answered) = answering_receiver().await;
    let [a, b] = app.users(["a", "b"]).await;
    let team_a = create_team_id(&app, &a.key, "Silent").await;
    let team_b = create_team_id(&app, &b.key, "Healthy").await;
    for i in 0..20 {
        let url = format!("{silent}/a{i}");
        create_webhook(&app, &a.key, team_a, every_event(&url)).await;
    }
    let wid_b = create_webhook(
        &app,
        &b.key,
        team_b,
        json!({"url": format!("{answering}/b"), "events": ["lead.created"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();

    // Team A's 1000-lead batch: 20 deliveries of each event, every one left hanging for 15 s.
    let started = Instant::now();
    let leads = austin_leads(1..=1000, "Silent Way");
    let batch = batch_ok(&app, &a.key, json!({"team_id": team_a, "leads": leads})).await;
    let batch_path = batch_path(&batch);
    loop {
        let (_, progress) = app.get(&batch_path, &a.key).await;
        if progress["pending"] == 0 && held.load(Ordering::SeqCst) > 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{progress}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let a_ready = started.elapsed();

    // Team B's events while team A's endpoints hang: all delivered within 5 s.
    let b_started = Instant::now();
    for i in 1..=10 {
        submit(
            &app,
            &b.key,
            json!({"team_id": team_b, "address": format!("{i} Healthy Rd"), "city": "Austin", "state": "TX"}),
        )
        .await;
    }
    let path = format!("/api/teams/{team_b}/webhooks/{wid_b}/deliveries?limit=50");
    let b_took = loop {
        let (_, page) = app.get(&path, &b.key).await;
        let items = page["items"].as_array().unwrap();
        if items.len() == 10 && items.iter().all(|d| d["status"] == "delivered") {
            break b_started.elapsed();
        }
        assert!(
            b_started.elapsed() < Duration::from_secs(5),
            "team B's events not all delivered within 5 s: {page}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(answered.load(Ordering::SeqCst), 10);

    // Team A was held up all along: most of its deliveries still wait.
    let a_statuses = deliveries_of_team(&app, team_a).await;
    let a_pending = a_statuses
        .iter()
        .find(|(s, _)| s == "pending")
        .map_or(0, |(_, n)| *n);
    let a_delivered = a_statuses
        .iter()
        .find(|(s, _)| s == "delivered")
        .map_or(0, |(_, n)| *n);
    assert!(a_pending > 19_000, "{a_statuses:?}");
    assert_eq!(a_delivered, 0, "{a_statuses:?}");
    eprintln!(
        "fair delivery: team A's batch in and its endpoints hanging after {a_ready:?} \
         ({} connections held); team B's 10 events delivered in {b_took:?}",
        held.load(Ordering::SeqCst)
    );
}

async fn a_team_has_at_most_its_endpoint_limit(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Many").await;
    let other = create_team_id(&app, &owner.key, "Other").await;
    let url = |i: usize| format!("https://crm.example.com/hooks/{i}");
    let mut ids = Vec::new();
    for i in 0..20 {
        let made = create_webhook(&app, &owner.key, team, every_event(&url(i))).await;
        ids.push(made["id"].as_i64().unwrap());
    }
    let create = format!("/api/teams/{team}/webhooks");
    let (status, refused) = app.post(&create, &owner.key, every_event(&url(20))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["detail"][0]["loc"], json!(["body"]), "{refused}");
    assert_eq!(refused["detail"][0]["type"], "too_many_endpoints");
    let msg = refused["detail"][0]["msg"].as_str().unwrap();
    assert!(msg.contains("at most 20 webhook endpoints"), "{msg}");
    let (_, list) = app.get(&create, &owner.key).await;
    assert_eq!(list.as_array().unwrap().len(), 20);

    // The limit is per team; a deleted endpoint frees its place.
    create_webhook(&app, &owner.key, other, every_event(&url(0))).await;
    let one = format!("/api/teams/{team}/webhooks/{}", ids[0]);
    assert_eq!(app.delete(&one, &owner.key).await.0, StatusCode::OK);
    create_webhook(&app, &owner.key, team, every_event(&url(20))).await;

    // `LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM` sets it; the team page's form says so too.
    let app = app
        .restart()
        .env("LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM", "2")
        .build()
        .await;
    create_webhook(&app, &owner.key, other, every_event(&url(1))).await;
    let other_create = format!("/api/teams/{other}/webhooks");
    let (status, refused) = app
        .post(&other_create, &owner.key, every_event(&url(2)))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(
        refused["detail"][0]["msg"]
            .as_str()
            .unwrap()
            .contains("at most 2 webhook endpoints"),
        "{refused}"
    );
    let mut browser = sign_in(&app, "owner@example.com").await;
    let page = add(&mut browser, other, &url(3)).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.body
            .contains("A team can have at most 2 webhook endpoints; delete one to add another"),
        "{}",
        page.body
    );
    let (_, list) = app.get(&other_create, &owner.key).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
}

async fn an_endpoint_shows_its_creator_and_outlives_their_membership(app: TestApp) {
    let app = app.restart().local_webhooks().build().await;
    let (answering, answered) = answering_receiver().await;
    let [owner, admin] = app.users(["owner", "admin"]).await;
    let team = team_of(&app, &owner, "Hooked", &[(&admin, "admin")]).await;

    let made = create_webhook(
        &app,
        &admin.key,
        team,
        every_event(&format!("{answering}/crm")),
    )
    .await;
    assert_eq!(made["created_by"], json!(admin.user.user_id), "{made}");
    let wid = made["id"].as_i64().unwrap();
    let list_path = format!("/api/teams/{team}/webhooks");
    let (_, list) = app.get(&list_path, &owner.key).await;
    assert_eq!(list[0]["created_by"], json!(admin.user.user_id), "{list}");

    // The endpoint is the team's: its creator leaving stops nothing.
    remove_member(&app, &owner.key, team, &admin).await;
    let (_, list) = app.get(&list_path, &owner.key).await;
    assert_eq!(list[0]["is_active"], json!(true), "{list}");
    assert_eq!(list[0]["created_by"], json!(admin.user.user_id), "{list}");
    let page = sign_in(&app, "owner@example.com")
        .await
        .get(&format!("/teams/{team}"))
        .await;
    assert!(
        page.body
            .contains("by <span class=\"creator\">admin@example.com</span>"),
        "the team page names who added the endpoint: {}",
        page.body
    );
    let (status, _) = send_test(&app, &owner.key, team, wid).await;
    assert!(status.is_success());
    submit(
        &app,
        &owner.key,
        json!({"team_id": team, "address": "1 Kept Ln", "city": "Austin", "state": "TX"}),
    )
    .await;
    let deliveries = format!("/api/teams/{team}/webhooks/{wid}/deliveries");
    let started = Instant::now();
    loop {
        let (_, page) = app.get(&deliveries, &owner.key).await;
        let items = page["items"].as_array().unwrap();
        let types: Vec<&str> = items
            .iter()
            .filter(|d| d["status"] == "delivered")
            .filter_map(|d| d["event_type"].as_str())
            .collect();
        if types.contains(&"webhook.test") && types.contains(&"lead.created") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "{page}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(answered.load(Ordering::SeqCst) >= 2);
}

async fn two_processes_share_the_deliveries_and_send_each_once(app: TestApp) {
    let first = quick(app.restart()).build().await;
    let second = quick(TestApp::builder(first.db.clone())).build().await;
    let (url, answered, seen) = recording_receiver().await;
    let owner = first.user("owner@example.com").await;
    let team = create_team_id(&first, &owner.key, "Shared").await;
    for i in 0..5 {
        create_webhook(
            &first,
            &owner.key,
            team,
            json!({"url": format!("{url}/e{i}"), "events": ["lead.created"]}),
        )
        .await;
    }
    // Both processes are woken by the events (PostgreSQL's NOTIFY, else their 50 ms look).
    let leads = austin_leads(1..=200, "Shared St");
    batch_ok(
        &second,
        &owner.key,
        json!({"team_id": team, "leads": leads}),
    )
    .await;
    let started = Instant::now();
    loop {
        let statuses = deliveries_of_team(&first, team).await;
        if statuses == [("delivered".to_owned(), 1000)] {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{statuses:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1000);
    requests.sort();
    requests.dedup();
    assert_eq!(requests.len(), 1000, "a delivery was sent twice");
    assert_eq!(answered.load(Ordering::SeqCst), 1000);
    drop(second);
}
