//! The durable job queue with the real binary: a `leadhub serve` killed with SIGKILL in the
//! middle of deferred batches loses nothing and applies nothing twice once restarted; two
//! processes sharing one PostgreSQL database split the work without doing a job twice.
#![allow(clippy::unwrap_used)]

mod binary;

use std::time::{Duration, Instant};

use diesel::prelude::*;
use leadhub_db::schema::{jobs, leads, submissions};
use leadhub_db::{Database, ReadConnection};
use serde_json::{json, Value};

use binary::{json_of, run_on, runtime, wait_up, Env};

/// A batch: `unique` new properties, a repeat of each of the first `repeats`, and `bare`
/// leads without an address (never merged, so any double processing would show).
fn batch(n: usize, unique: usize, repeats: usize, bare: usize) -> Value {
    let mut leads = Vec::new();
    for i in 0..unique {
        leads.push(json!({"address": format!("{} Job St", n * 10_000 + i), "city": "Austin", "state": "TX", "zip_code": "78701", "latitude": 30.2, "longitude": -97.7}));
    }
    for i in 0..repeats {
        leads.push(json!({"address": format!("{} Job Street", n * 10_000 + i), "city": "Austin", "state": "TX", "zip_code": "78701", "primary_phone": "512-555-0100"}));
    }
    for i in 0..bare {
        leads.push(json!({"first_name": format!("Bare{n}x{i}"), "source": "cold_call"}));
    }
    json!({"leads": leads, "process_immediately": false})
}

async fn submit(client: &reqwest::Client, base: &str, key: &str, body: &Value) -> String {
    let request = client.post(format!("{base}/api/v1/submissions/batch"));
    let r = json_of(request.bearer_auth(key).json(body)).await;
    assert_eq!(r["pending"], r["total"], "{r}");
    r["batch_id"].as_str().unwrap().to_owned()
}

async fn wait_done(client: &reqwest::Client, base: &str, key: &str, batches: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(180);
    for id in batches {
        loop {
            let request = client.get(format!("{base}/api/v1/submissions/batches/{id}"));
            let b = json_of(request.bearer_auth(key)).await;
            if b["pending"] == 0 {
                assert_eq!(b["failed"], 0, "{b}");
                assert!(b["completed_at"].is_string(), "{b}");
                break;
            }
            assert!(Instant::now() < deadline, "batch {id} not finished: {b}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Submission-processing jobs not done yet.
fn undone_jobs(conn: &mut ReadConnection<'_>) -> diesel::QueryResult<i64> {
    conn.get_result(
        jobs::table
            .filter(jobs::kind.eq("process_submissions"))
            .filter(jobs::status.ne("done"))
            .count(),
    )
}

/// Gives jobs up to a minute to be done; `check_exactly_once` then says whether they were.
async fn wait_jobs_done(db: &Database) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline && db.read(undone_jobs).await.unwrap() > 0 {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every submission final, one lead per property, one lead per address-less submission.
async fn check_exactly_once(
    db: &Database,
    expected_properties: i64,
    expected_bare: i64,
    expected_submissions: i64,
) {
    let (open, total, with_address, bare, undone) = db
        .read(|conn| {
            let open: i64 = conn.get_result(
                submissions::table
                    .filter(submissions::status.eq_any(["pending", "processing", "failed"]))
                    .count(),
            )?;
            let total: i64 = conn.get_result(submissions::table.count())?;
            let with_address: i64 =
                conn.get_result(leads::table.filter(leads::address.is_not_null()).count())?;
            let bare: i64 =
                conn.get_result(leads::table.filter(leads::address.is_null()).count())?;
            let undone = undone_jobs(conn)?;
            Ok((open, total, with_address, bare, undone))
        })
        .await
        .unwrap();
    assert_eq!(total, expected_submissions, "every submission stored");
    assert_eq!(open, 0, "every submission final and none failed");
    assert_eq!(with_address, expected_properties, "one lead per property");
    assert_eq!(
        bare, expected_bare,
        "each address-less submission applied exactly once"
    );
    assert_eq!(undone, 0, "every job done");
}

async fn crash_and_recover(env: Env) {
    let key = env.key();
    let client = reqwest::Client::new();
    let (server, base) = env.serve();
    wait_up(&client, &base).await;
    let mut ids = Vec::new();
    for n in 0..4 {
        ids.push(submit(&client, &base, &key, &batch(n, 300, 50, 50)).await);
    }
    // Mid-way: some jobs done, some running, most queued. (The workers get through the 1,600
    // submissions in well under half a second on an idle machine, so the kill comes soon.)
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.kill();
    let db = env.db();
    let open_after_kill: i64 = db
        .read(|conn| {
            conn.get_result(
                submissions::table
                    .filter(submissions::status.eq("pending"))
                    .count(),
            )
        })
        .await
        .unwrap();
    eprintln!("after SIGKILL: {open_after_kill} of 1600 submissions still pending");
    let (server, base) = env.serve();
    wait_up(&client, &base).await;
    wait_done(&client, &base, &key, &ids).await;
    // A job killed after its last lead transaction but before it was marked done has every
    // submission final already; it is marked done when its lease (2 s) runs out and a worker
    // runs it again, applying nothing twice.
    wait_jobs_done(&db).await;
    drop(server);
    check_exactly_once(&db, 4 * 300, 4 * 50, 4 * 400).await;
}

#[test]
fn sqlite_survives_sigkill_mid_batch() {
    run_on("sqlite", false, crash_and_recover);
}

#[test]
fn postgres_survives_sigkill_mid_batch() {
    run_on("pgkill", true, crash_and_recover);
}

#[test]
fn two_processes_share_one_postgres_queue() {
    run_on("pgtwo", true, |env| async move {
        // A lease longer than the pauses of a loaded machine: a late heartbeat must not let the
        // other process take a running job, so a job taken twice here means a wrong claim.
        let env = env.var("LEADHUB_JOB_LEASE_SECS", "20");
        let key = env.key();
        let client = reqwest::Client::new();
        let (first, base) = env.serve();
        let (second, other) = env.serve();
        wait_up(&client, &base).await;
        wait_up(&client, &other).await;
        let mut ids = Vec::new();
        for n in 0..3 {
            ids.push(submit(&client, &base, &key, &batch(10 + n, 700, 50, 50)).await);
        }
        wait_done(&client, &base, &key, &ids).await;
        drop((first, second));
        let db = env.db();
        check_exactly_once(&db, 3 * 700, 3 * 50, 3 * 800).await;
        let (processes, attempts): (Vec<Option<String>>, Vec<i32>) = db
            .read(|conn| {
                conn.load::<_, (Option<String>, i32)>(
                    jobs::table
                        .filter(jobs::kind.eq("process_submissions"))
                        .select((jobs::locked_by, jobs::attempts)),
                )
            })
            .await
            .unwrap()
            .into_iter()
            .unzip();
        assert_eq!(attempts.len(), 24);
        assert!(
            attempts.iter().all(|a| *a == 1),
            "no job taken twice: {attempts:?}"
        );
        let pids: std::collections::BTreeSet<String> = processes
            .into_iter()
            .flatten()
            .map(|w| w.split('-').next().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(pids.len(), 2, "both processes worked: {pids:?}");
    });
}

#[test]
fn dead_jobs_are_listed_and_requeued_by_the_cli() {
    use leadhub_domain::jobs::{JobQueue, NewJob};
    let env = Env::new("dead", false).unwrap();
    let migrated = env.command().arg("migrate").output().unwrap();
    assert!(migrated.status.success());
    runtime().block_on(async {
        let db = env.db();
        let now = chrono::Utc::now();
        db.enqueue(vec![NewJob::now(
            "enrich_lead",
            json!({"lead_ids": [1]}),
            now,
        )])
        .await
        .unwrap();
        let job = db.claim("test", now, now).await.unwrap().unwrap();
        db.fail(job.id, "parcel layer down", None, now)
            .await
            .unwrap();
    });
    let listed = env.command().args(["jobs", "dead"]).output().unwrap();
    let stdout = String::from_utf8(listed.stdout).unwrap();
    // Aligned columns under a header, the error (which holds spaces) last.
    let lines: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines[0], ["ID", "KIND", "ATTEMPTS", "ERROR"], "{stdout}");
    assert_eq!(lines[1][1..3], ["enrich_lead", "1"], "{stdout}");
    assert_eq!(lines[1][3..].join(" "), "parcel layer down", "{stdout}");
    let refused = env.command().args(["jobs", "requeue"]).output().unwrap();
    assert!(!refused.status.success(), "requeue needs --id or --all");
    // An id of no dead job is a refusal, not a quiet 0.
    let mistyped = env
        .command()
        .args(["jobs", "requeue", "--id", "999"])
        .output()
        .unwrap();
    assert!(!mistyped.status.success());
    let said = String::from_utf8(mistyped.stderr).unwrap();
    assert!(said.contains("1 of the 1 ids named no dead job"), "{said}");
    let requeued = env
        .command()
        .args(["jobs", "requeue", "--all"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(requeued.stdout).unwrap().trim(), "1");
    let listed = env.command().args(["jobs", "dead"]).output().unwrap();
    assert!(listed.stdout.is_empty());
    let queued: i64 = runtime().block_on(async {
        env.db()
            .read(|conn| conn.get_result(jobs::table.filter(jobs::status.eq("queued")).count()))
            .await
            .unwrap()
    });
    assert_eq!(queued, 1);
}
