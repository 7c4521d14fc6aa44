//! Lead intake figures (issue "Lead intake"): prints them; asserts nothing about time.
//!
//! - a batch of 1000 leads (coordinates given, so no geocoding) over HTTP: median of 41 runs,
//!   next to the floor: the same 1000 rows inserted in one bare SQL transaction, same database, same
//!   run, alternating with the batches; the middle half of each (quartiles) is printed too;
//! - single submissions from 16 concurrent clients: requests per second, p50 and p99;
//! - batches for a team with 3 webhook endpoints against a team with none, alternating;
//! - singles and batches for a team whose new leads go to 3 members in turn against a team
//!   with nobody taking them, alternating.
//!
//! Run: `cargo bench -p leadhub-tests --bench intake` (add TEST_DATABASE_URL for PostgreSQL).
//! `INTAKE_BENCH=batch,single,webhooks,turns,deferred` picks figures (all by default), e.g. to profile one.
//! `INTAKE_BENCH_LEADS=addresses` sends leads without a phone or an e-mail.
//! `INTAKE_BENCH_SEARCH=off` drops the lead search's indexes and triggers first (SQLite): what the
//! search costs each write (docs/search.md). A measurement only: the list then scans and `q` finds nothing new.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use diesel::prelude::*;
use serde_json::{json, Value};

use leadhub_db::schema::leads;
use leadhub_tests::{Backend, TestApp, TestDatabase};

#[path = "intake_turns.rs"]
mod intake_turns;
#[path = "intake_webhooks.rs"]
mod intake_webhooks;

const BATCH: usize = 1000;
/// Batches (and floors) per run. On this project's 2-vCPU VM single batches vary by a third
/// around their median (the batch keeps both cores busy, the floor one), so that a median of 15
/// moved by 10% from one run to the next; 41 keep it within a few per cent.
const RUNS: usize = 41;
const CLIENTS: usize = 16;
const PER_CLIENT: usize = 250;

/// `INTAKE_BENCH_LEADS=addresses`: each lead without its phone and e-mail, as a permit scrape
/// sends them (every one then goes into the index of the leads without a phone).
fn addresses_only() -> bool {
    std::env::var("INTAKE_BENCH_LEADS").is_ok_and(|v| v == "addresses")
}

fn lead(run: usize, i: usize) -> Value {
    let mut lead = json!({
        "address": format!("{} Oak Hollow Dr", 10_000 + run * BATCH + i),
        "city": "Austin", "state": "TX", "zip_code": "78704",
        "first_name": "Pat", "last_name": "Lee", "primary_phone": "512-555-0100",
        "email_1": "pat@example.com", "permit_date": "01/05/2025", "lot_size": "0.25 acres",
        "property_type": "residential", "source": "permit_scrape",
        "latitude": 30.25, "longitude": -97.76
    });
    if addresses_only() {
        let fields = lead.as_object_mut().expect("an object");
        fields.remove("primary_phone");
        fields.remove("email_1");
    }
    lead
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The first and third quartiles.
fn quartiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (percentile(&v, 0.25), percentile(&v, 0.75))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// The floor: 1000 lead rows in one transaction, one INSERT each, no application logic.
async fn bare_insert(app: &TestApp, run: usize, user_id: i64) -> f64 {
    let started = Instant::now();
    app.write_db(move |conn| {
        conn.transaction(|conn| {
            let now = chrono::Utc::now().naive_utc();
            for i in 0..BATCH {
                let n = 900_000 + run * BATCH + i;
                diesel::insert_into(leads::table)
                    .values((
                        leads::dedupe_scope.eq(0i64),
                        leads::street_key.eq(format!("{n} OAK HOLLOW DR")),
                        leads::address_key.eq(format!("{n} OAK HOLLOW DR|78704")),
                        leads::address.eq(format!("{n} Oak Hollow Dr")),
                        leads::city.eq("Austin"),
                        leads::state.eq("TX"),
                        leads::zip_code.eq("78704"),
                        leads::first_name.eq("Pat"),
                        leads::last_name.eq("Lee"),
                        leads::primary_phone.eq("+15125550100"),
                        leads::email_1.eq("pat@example.com"),
                        leads::permit_date.eq("2025-01-05"),
                        leads::lot_size.eq("0.25 acres"),
                        leads::lot_size_acres.eq(0.25),
                        leads::property_type.eq("residential"),
                        leads::source.eq("permit_scrape"),
                        leads::latitude.eq(30.25),
                        leads::longitude.eq(-97.76),
                        leads::enrichment_status.eq("skipped"),
                        leads::created_by.eq(user_id),
                        leads::created_at.eq(now),
                        leads::updated_at.eq(now),
                    ))
                    .execute(conn)?;
            }
            Ok(())
        })
    })
    .await;
    started.elapsed().as_secs_f64() * 1000.0
}

/// Copies SQLite's write-ahead log back into the database (untimed) so that each measured
/// part starts from an empty log: neither pays for checkpointing the other's pages, whether the
/// commit crossing the automatic threshold or the service's background checkpoint would.
async fn settle_log(app: &TestApp) {
    if app.state.db.backend() == leadhub_db::Backend::Sqlite {
        app.write_db(|conn| {
            diesel::sql_query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(conn)
                .map(drop)
        })
        .await;
    }
}

/// Milliseconds for one batch over HTTP, started on a settled log; all `BATCH` leads must succeed.
async fn timed_batch(app: &TestApp, key: &str, body: Value) -> f64 {
    settle_log(app).await;
    let started = Instant::now();
    let (status, result) = app.post("/api/v1/submissions/batch", key, body).await;
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    assert!(status.is_success(), "{result}");
    assert_eq!(result["succeeded"], BATCH);
    millis
}

/// Each batch's time over HTTP and each floor's, in run order.
async fn batch_figures(app: &TestApp, key: &str, user_id: i64) -> (Vec<f64>, Vec<f64>) {
    let mut http = Vec::new();
    let mut floor = Vec::new();
    for run in 0..RUNS {
        let body = json!({"leads": (0..BATCH).map(|i| lead(run, i)).collect::<Vec<_>>()});
        http.push(timed_batch(app, key, body).await);
        settle_log(app).await;
        floor.push(bare_insert(app, run, user_id).await);
    }
    (http, floor)
}

/// Single submissions from `CLIENTS` concurrent clients, `per_client` each, client `c`'s `i`-th
/// lead `make(c, i)`: requests per second, p50 and p99 in ms.
async fn single_figures(
    app: &TestApp,
    key: &str,
    per_client: usize,
    make: impl Fn(usize, usize) -> Value + Send + Sync + 'static,
) -> (f64, f64, f64) {
    let make = std::sync::Arc::new(make);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let make = make.clone();
        let client = app.client.clone();
        let url = app.url("/api/v1/submissions/single");
        let key = key.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            for i in 0..per_client {
                let body = make(c, i);
                let t = Instant::now();
                let r = client
                    .post(&url)
                    .bearer_auth(&key)
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                assert!(r.status().is_success());
                r.bytes().await.unwrap();
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_by(|a, b| a.total_cmp(b));
    (
        all.len() as f64 / elapsed,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
    )
}

/// Deferred throughput: `batches` batches of 1000 answered `pending`, then processed by the
/// job-queue workers; leads per second from the first enqueue to the last final state.
async fn deferred_figures(app: &TestApp, key: &str, batches: usize) -> f64 {
    let started = Instant::now();
    let mut ids = Vec::new();
    for b in 0..batches {
        let body = json!({"process_immediately": false, "leads": (0..BATCH).map(|i| lead(500 + b, i)).collect::<Vec<_>>()});
        let (_, r) = app.post("/api/v1/submissions/batch", key, body).await;
        ids.push(r["batch_id"].as_str().unwrap().to_owned());
    }
    for id in ids {
        loop {
            let (_, b) = app
                .get(&format!("/api/v1/submissions/batches/{id}"), key)
                .await;
            if b["pending"] == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    (batches * BATCH) as f64 / started.elapsed().as_secs_f64()
}

/// What the lead search adds to `leads` on SQLite (migrations 000010 and 000033; docs/search.md):
/// the word index's triggers and `leads_updated`, the sort's index; the same parts as
/// `scripts/import-search-after.py` drops for the import bench.
const SEARCH_PARTS: &[&str] = &[
    "INDEX leads_updated",
    "TRIGGER lead_search_insert",
    "TRIGGER lead_search_update",
    "TRIGGER lead_search_delete",
];

/// Drops the search's parts when `INTAKE_BENCH_SEARCH=off` asks, on SQLite; says so.
async fn without_search(app: &TestApp, backend: Backend) {
    if !std::env::var("INTAKE_BENCH_SEARCH").is_ok_and(|v| v == "off") {
        return;
    }
    if backend != Backend::Sqlite {
        println!("{backend:?}: the search kept (INTAKE_BENCH_SEARCH=off applies to SQLite)");
        return;
    }
    app.write_db(|conn| {
        SEARCH_PARTS.iter().try_for_each(|part| {
            diesel::sql_query(format!("DROP {part}"))
                .execute(conn)
                .map(drop)
        })
    })
    .await;
    println!("{backend:?}: the search's indexes and triggers dropped (INTAKE_BENCH_SEARCH=off)");
}

/// Whether `INTAKE_BENCH` (a comma list; unset means all) asks for this figure.
fn wanted(figure: &str) -> bool {
    std::env::var("INTAKE_BENCH").map_or(true, |v| v.split(',').any(|f| f.trim() == figure))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "lead intake benchmark: {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let Some(db) = TestDatabase::create(backend) else {
            println!("{backend:?}: skipped (TEST_DATABASE_URL not set)");
            continue;
        };
        runtime.block_on(async {
            let app = TestApp::builder(db)
                .http_workers(2)
                .local_webhooks()
                .build()
                .await;
            let user = app.user("bench@example.com").await;
            without_search(&app, backend).await;
            if wanted("batch") {
                let (http, floor) = batch_figures(&app, &user.key, user.user.id).await;
                let ((h1, h3), (f1, f3)) = (quartiles(http.clone()), quartiles(floor.clone()));
                let (http, floor) = (median(http), median(floor));
                println!(
                    "{backend:?}: batch of {BATCH} over HTTP median {http:.1} ms (quartiles {h1:.1}-{h3:.1}); bare SQL transaction median {floor:.1} ms ({f1:.1}-{f3:.1}); ratio {:.2}x",
                    http / floor
                );
            }
            if wanted("single") {
                let make = |c, i| lead(100 + c, i);
                let (rps, p50, p99) = single_figures(&app, &user.key, PER_CLIENT, make).await;
                println!(
                    "{backend:?}: single submissions, {CLIENTS} clients x {PER_CLIENT}: {rps:.0} req/s, p50 {p50:.2} ms, p99 {p99:.2} ms"
                );
            }
            if wanted("webhooks") {
                let figure = intake_webhooks::figure(&app, &user.key).await;
                println!("{backend:?}: webhooks: {figure}");
            }
            if wanted("turns") {
                let figure = intake_turns::figure(&app, &user.key).await;
                println!("{backend:?}: new leads in turn: {figure}");
            }
            if wanted("deferred") {
                let deferred = deferred_figures(&app, &user.key, 5).await;
                println!("{backend:?}: deferred, 5 batches of {BATCH} through the job queue: {deferred:.0} leads/s from enqueue to final");
            }
        });
    }
}
