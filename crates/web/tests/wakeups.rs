//! Idle workers wake when a job is queued instead of waiting for their next look: within the
//! process on SQLite, and across processes on PostgreSQL (LISTEN/NOTIFY). The workers here look
//! for jobs once a minute on their own, so only a wake-up explains a job started within a second.
//! Run with `--nocapture` for the latencies.
#![allow(clippy::unwrap_used)]

mod binary;

use std::time::{Duration, Instant};

use diesel::prelude::*;
use leadhub_db::schema::jobs;
use serde_json::json;

use binary::{json_of, wait_up, Env, Server};

const BATCHES: usize = 20;

/// A worker process that looks for jobs on its own only once a minute.
fn sleepy_worker(env: &Env) -> (Server, String) {
    let mut command = env.command();
    command
        .env("LEADHUB_WORKERS", "1")
        .env("LEADHUB_JOB_POLL_MS", "60000");
    binary::serve(command)
}

/// Sends deferred batches of one lead to `intake` one by one, each after the previous one's job
/// started, and returns for each the time from sending the request to its job being claimed
/// (seen within a millisecond; stored times are whole seconds), and by whom.
async fn queue_and_time(env: &Env, intake: &str, key: &str) -> Vec<(Duration, Duration, String)> {
    let client = reqwest::Client::new();
    let db = env.db();
    let mut waits = Vec::new();
    for n in 0..BATCHES {
        let body = json!({"leads": [{"address": format!("{n} Wake St"), "city": "Austin", "state": "TX",
                                     "zip_code": "78701"}], "process_immediately": false});
        let sent = Instant::now();
        let request = client.post(format!("{intake}/api/v1/submissions/batch"));
        let answer = json_of(request.bearer_auth(key).json(&body)).await;
        let answered = sent.elapsed();
        assert_eq!(answer["pending"], 1, "{answer}");
        let deadline = Instant::now() + Duration::from_secs(10);
        let by = loop {
            let newest: Option<String> = db
                .read(|conn| conn.first(jobs::table.order(jobs::id.desc()).select(jobs::locked_by)))
                .await
                .unwrap();
            if let Some(by) = newest {
                break by;
            }
            assert!(Instant::now() < deadline, "job {n} never started");
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        waits.push((answered, sent.elapsed(), by));
    }
    waits
}

fn report(label: &str, waits: &[(Duration, Duration, String)]) {
    let median_max = |pick: fn(&(Duration, Duration, String)) -> Duration| {
        let mut ms: Vec<f64> = waits.iter().map(|w| pick(w).as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        format!(
            "median {:.1} ms, max {:.1} ms",
            ms[ms.len() / 2],
            ms[ms.len() - 1]
        )
    };
    println!(
        "{label}, {} deferred batches of one lead: request sent -> answered {}; -> job claimed {}",
        waits.len(),
        median_max(|w| w.0),
        median_max(|w| w.1)
    );
    for (_, wait, _) in waits {
        assert!(
            *wait < Duration::from_secs(1),
            "{label}: a job waited {wait:?}: no wake-up, only the once-a-minute look"
        );
    }
}

#[tokio::test]
async fn a_job_wakes_an_idle_worker_of_the_same_process() {
    let env = Env::new("wake_sqlite", false).unwrap();
    let key = env.key();
    let (server, base) = sleepy_worker(&env);
    wait_up(&reqwest::Client::new(), &base).await;
    // Its first look at start-up is over: from now on it sleeps unless woken.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waits = queue_and_time(&env, &base, &key).await;
    report("SQLite, one process", &waits);
    let worker = format!("pid{}-", server.pid());
    assert!(waits.iter().all(|(_, _, by)| by.starts_with(&worker)));
}

#[tokio::test]
async fn a_job_queued_by_one_process_wakes_a_worker_of_another() {
    let Some(env) = Env::new("wake_postgres", true) else {
        return;
    };
    let key = env.key();
    // A takes the requests and has no worker; B has the only worker.
    let mut intake = env.command();
    intake.env("LEADHUB_WORKERS", "0");
    let (_a, base_a) = binary::serve(intake);
    let (b, base_b) = sleepy_worker(&env);
    let client = reqwest::Client::new();
    wait_up(&client, &base_a).await;
    wait_up(&client, &base_b).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waits = queue_and_time(&env, &base_a, &key).await;
    report(
        "PostgreSQL, queued by process A, claimed by process B",
        &waits,
    );
    let worker = format!("pid{}-", b.pid());
    assert!(
        waits.iter().all(|(_, _, by)| by.starts_with(&worker)),
        "{waits:?}"
    );
}
