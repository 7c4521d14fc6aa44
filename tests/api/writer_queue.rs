//! Every write of this process takes its turn as the writer (`Database::write`): on SQLite none
//! meets another's lock, so none sleeps in SQLite's busy handler. The app here runs with SQLite's
//! busy timeout at zero, so a write that found the database locked would fail at once
//! ("database is locked", a 500) where the service would have slept: every answer must be 200.
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::identity::{link_token, request_link};

const PEOPLE: usize = 32;
const ROUNDS: usize = 3;

async fn concurrent_sign_ins_and_team_creations_never_meet_a_lock(app: TestApp) {
    let app = app
        .restart()
        .http_workers(2)
        .without_busy_wait()
        .build()
        .await;
    let mut people = Vec::with_capacity(PEOPLE);
    for i in 0..PEOPLE {
        people.push(app.user(&format!("person{i}@example.com")).await);
    }
    let app = &app;
    let mut times = Vec::new();
    for round in 0..ROUNDS {
        for p in &people {
            request_link(app, &p.user.email).await;
        }
        let tokens: Vec<String> = people
            .iter()
            .map(|p| link_token(app, &p.user.email))
            .collect();
        // Each person signs in (spends the link, stores a session) while creating a team.
        let sign_ins = tokens.iter().map(|token| {
            let body = json!({ "token": token });
            timed(async move { app.post_public("/api/auth/verify", body).await })
        });
        let creations = people.iter().enumerate().map(|(i, p)| {
            let body = json!({"name": format!("Team {round}-{i}"), "description": "d"});
            timed(async move { app.post("/api/teams", &p.key, body).await })
        });
        let (signed, created) =
            futures_util::future::join(join_all(sign_ins), join_all(creations)).await;
        for ((status, body), took) in signed.into_iter().chain(created) {
            assert_eq!(status, StatusCode::OK, "{body}");
            times.push(took);
        }
    }
    times.sort();
    let p99 = times[(times.len() * 99).div_ceil(100) - 1];
    eprintln!(
        "{:?}: {} concurrent sign-ins and team creations, {ROUNDS} rounds: p50 {:?}, p99 {p99:?}, max {:?}",
        app.db.backend,
        2 * PEOPLE,
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

/// Runs `request` and returns its result with how long it took.
async fn timed<T>(request: impl std::future::Future<Output = T>) -> (T, Duration) {
    let started = Instant::now();
    let answer = request.await;
    (answer, started.elapsed())
}

backend_tests!(concurrent_sign_ins_and_team_creations_never_meet_a_lock);
