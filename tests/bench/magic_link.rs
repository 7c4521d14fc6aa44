//! Sign-in link timing: `POST /api/auth/magic-link` must take the same time
//! for an address with an account and one without, or one request tells whether an account
//! exists. Prints the medians of 300 interleaved requests of each kind; asserts nothing.
//!
//! Run: `cargo bench -p leadhub-tests --bench magic_link` (add TEST_DATABASE_URL for PostgreSQL).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use serde_json::json;

use leadhub_tests::{Backend, TestApp, TestDatabase};

const SAMPLES: usize = 300;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Microseconds for one request for a link to `email`.
async fn time_request(app: &TestApp, email: &str) -> f64 {
    let started = Instant::now();
    let (status, body) = app
        .post_public("/api/auth/magic-link", json!({ "email": email }))
        .await;
    assert_eq!(status, reqwest::StatusCode::ACCEPTED, "{body}");
    started.elapsed().as_secs_f64() * 1e6
}

async fn measure(backend: Backend) {
    let Some(db) = TestDatabase::create(backend) else {
        return;
    };
    let app = TestApp::start(db).await;
    app.user("known@example.com").await;
    // Warm up connections and caches on both paths.
    for _ in 0..20 {
        time_request(&app, "known@example.com").await;
        time_request(&app, "unknown@example.com").await;
    }
    app.mail_settled().await;
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for i in 0..SAMPLES {
        // Alternate which kind goes first, so neither always follows the other's work.
        if i % 2 == 0 {
            known.push(time_request(&app, "known@example.com").await);
            unknown.push(time_request(&app, &format!("nobody{i}@example.com")).await);
        } else {
            unknown.push(time_request(&app, &format!("nobody{i}@example.com")).await);
            known.push(time_request(&app, "known@example.com").await);
        }
    }
    app.mail_settled().await;
    let (k, u) = (median(known), median(unknown));
    println!(
        "{backend:?}: magic-link median over {SAMPLES} interleaved requests each: known address \
         {k:.0} us, unknown {u:.0} us, difference {:.1}%",
        (k - u).abs() / k.min(u) * 100.0
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        measure(Backend::Sqlite).await;
        measure(Backend::Postgres).await;
    });
}
