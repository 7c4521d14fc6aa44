//! `PATCH /api/v1/leads/{id}` (issue 29): 16 clients at once, each editing leads of a team of
//! 10,000 (a status change and a field edit in turn, so each PATCH writes the lead, its timeline
//! rows, which run the timeline's triggers, and its version), and the p50/p95/p99 latency over
//! every request after a warm-up, on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL.
//! Prints figures; asserts only that every PATCH succeeded.
//!
//! Run: `cargo bench -p leadhub-tests --bench lead_patch`
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use serde_json::json;

use leadhub_tests::bench::{ago, numbers, percentile, SeedConnection};
use leadhub_tests::{Backend, TestApp, TestDatabase};

const LEADS: i64 = 10_000;
const CLIENTS: usize = 16;
const PER_CLIENT: usize = 200;
const WARM_UP: usize = 10;

/// `LEADS` leads of `team`, each its own property, a minute apart.
fn seed(db: &TestDatabase, team: i64, user: i64) {
    let mut conn = SeedConnection::open(db);
    let created = ago(db.backend, "i", "minute");
    conn.run(&format!(
        "INSERT INTO leads (team_id, dedupe_scope, street_key, address_key, address, city, state,
           zip_code, last_name, enrichment_status, submission_count, created_by, created_at,
           updated_at)
         SELECT {team}, {team}, i || ' ELM ST', i || ' ELM ST|78701', i || ' Elm Street',
           'Austin', 'TX', '78701', 'Number' || i, 'skipped', 1, {user}, {created}, {created}
         FROM ({numbers}) AS n",
        numbers = numbers(db.backend, LEADS)
    ));
    conn.finish();
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        for backend in [Backend::Sqlite, Backend::Postgres] {
            bench(backend).await;
        }
    });
}

async fn bench(backend: Backend) {
    let Some(db) = TestDatabase::create(backend) else {
        println!("{backend:?}: skipped (TEST_DATABASE_URL not set)");
        return;
    };
    // Two HTTP workers (the machine's cores) give the app its pool of 16 connections.
    let app = TestApp::builder(db).http_workers(2).build().await;
    let (user, team) = app.bench_team().await;
    seed(&app.db, team, user.user.id);
    let first: i64 = {
        let (_, page) = app
            .get("/api/v1/leads?sort=created_at&limit=1", &user.key)
            .await;
        page["items"][0]["id"].as_i64().unwrap()
    };
    let started = Instant::now();
    let clients = (0..CLIENTS).map(|c| {
        let (client, key, base) = (app.client.clone(), user.key.clone(), app.base_url.clone());
        tokio::spawn(async move {
            let mut times = Vec::with_capacity(PER_CLIENT);
            let mut slow = Vec::new();
            for i in 0..PER_CLIENT + WARM_UP {
                // Each client its own leads, spread over the table.
                let id = first - ((c * (PER_CLIENT + WARM_UP) + i) as i64 % LEADS);
                let body = if i % 2 == 0 {
                    let status = ["contacted", "qualified", "won"][i % 3];
                    json!({ "status": status })
                } else {
                    json!({"first_name": format!("Client{c}"), "email_1": format!("c{c}.{i}@example.com")})
                };
                let t = Instant::now();
                let r = client
                    .patch(format!("{base}/api/v1/leads/{id}"))
                    .bearer_auth(&key)
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                let status = r.status();
                let text = r.text().await.unwrap();
                assert!(status.is_success(), "{status} {text}");
                if i >= WARM_UP {
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    times.push(ms);
                    slow.push((ms, (t - started).as_secs_f64() * 1e3, i % 2 == 0));
                }
            }
            (times, slow)
        })
    });
    let mut all = Vec::new();
    let mut slow = Vec::new();
    for c in clients.collect::<Vec<_>>() {
        let (times, s) = c.await.unwrap();
        all.extend(times);
        slow.extend(s);
    }
    if std::env::var_os("LEAD_PATCH_SLOWEST").is_some() {
        slow.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (ms, at, status) in slow.iter().take(40) {
            println!(
                "{ms:6.1} ms at {at:7.1} ms {}",
                if *status { "status" } else { "fields" }
            );
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_by(|a, b| a.total_cmp(b));
    println!(
        "PATCH /api/v1/leads/{{id}}, {backend:?}, {LEADS} leads, {CLIENTS} clients x {PER_CLIENT}: \
         p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, {:.0} PATCH/s",
        percentile(&all, 50.0),
        percentile(&all, 95.0),
        percentile(&all, 99.0),
        // The clock ran over the warm-up too: the rate counts every PATCH sent.
        (CLIENTS * (PER_CLIENT + WARM_UP)) as f64 / elapsed
    );
}
