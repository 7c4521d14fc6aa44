//! Enrichment retries that outlast an outage (docs/jobs.md, "Enrichment retries"): a geocoder
//! that fails for ten minutes and then recovers leaves every lead enriched and no dead job; one
//! that stays down past the give-up period leaves the leads `gave_up`, said by the API, the page
//! and `/metrics`. Hours pass on the app's clock in a few seconds: the test moves it a step at a
//! time and waits for the workers to run what fell due.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::jobs;
use leadhub_db::Backend;
use leadhub_domain::enrich::{said, EnrichError, GeocodeOutcome, GeocodeQuery, Geocoder};
use leadhub_domain::fixtures::census_match;
use leadhub_domain::Clock;
use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::clock::TestClock;
use crate::helpers::{post_batch, result_lead_ids};
use crate::pages::sign_in;

backend_tests!(
    a_ten_minute_outage_ends_with_every_lead_enriched,
    an_outage_past_the_give_up_period_leaves_the_leads_given_up,
    retries_the_database_fails_end_with_the_leads_given_up,
);

/// A geocoder that cannot be reached until `back_at` on the app's clock; before that, from
/// `paused_from` on, it answers as an open circuit breaker does. Counts the rounds it is asked.
struct Outage {
    clock: Arc<TestClock>,
    paused_from: DateTime<Utc>,
    back_at: DateTime<Utc>,
    rounds: AtomicUsize,
}

#[async_trait]
impl Geocoder for Outage {
    async fn geocode(&self, _query: &GeocodeQuery) -> GeocodeOutcome {
        let now = self.clock.now();
        if now >= self.back_at {
            Ok(Some(census_match()))
        } else if now >= self.paused_from {
            Err(EnrichError::Paused {
                provider: "census".into(),
                probe_in: StdDuration::from_secs(30),
            })
        } else {
            Err(EnrichError::failed("census", said::UNREACHABLE))
        }
    }

    async fn geocode_batch(&self, queries: &[GeocodeQuery]) -> Vec<GeocodeOutcome> {
        self.rounds.fetch_add(1, Ordering::Relaxed);
        let mut out = Vec::new();
        for q in queries {
            out.push(self.geocode(q).await);
        }
        out
    }
}

/// The app on a clock the test moves, with the outage as its geocoder and workers that look
/// for due jobs every 10 ms.
async fn outage_app(
    app: TestApp,
    paused_after: Duration,
    lasting: Duration,
    vars: &[(&str, &str)],
) -> (TestApp, Arc<TestClock>, Arc<Outage>) {
    let start = Utc::now();
    let clock = Arc::new(TestClock(Mutex::new(start)));
    let outage = Arc::new(Outage {
        clock: clock.clone(),
        paused_from: start + paused_after,
        back_at: start + lasting,
        rounds: AtomicUsize::new(0),
    });
    let mut builder = app
        .restart()
        .clock(clock.clone())
        .geocoder(Some(outage.clone()))
        .env("LEADHUB_JOB_POLL_MS", "10");
    for (name, value) in vars {
        builder = builder.env(name, value);
    }
    (builder.build().await, clock, outage)
}

fn leads(n: usize) -> Vec<Value> {
    (1..=n)
        .map(|i| json!({"address": format!("{i} Outage Lane"), "city": "Austin", "state": "TX", "zip_code": "78701"}))
        .collect()
}

/// Jobs due by the app's clock and not yet run, or running.
async fn unsettled(app: &TestApp, now: DateTime<Utc>) -> i64 {
    let now = now.naive_utc();
    app.read_db(move |conn| {
        conn.get_result(
            jobs::table
                .filter(
                    jobs::status
                        .eq("running")
                        .or(jobs::status.eq("queued").and(jobs::run_at.le(now))),
                )
                .count(),
        )
    })
    .await
}

/// Moves the clock by `step` until `done` or `for_at_most` has passed on it, letting the
/// workers run what fell due after each step.
async fn let_time_pass(
    app: &TestApp,
    clock: &TestClock,
    step: Duration,
    for_at_most: Duration,
    done: impl AsyncFn() -> bool,
) {
    let end = clock.now() + for_at_most;
    while clock.now() < end {
        clock.advance(step);
        let started = Instant::now();
        while unsettled(app, clock.now()).await > 0 {
            assert!(
                started.elapsed() < StdDuration::from_secs(20),
                "workers stuck"
            );
            tokio::time::sleep(StdDuration::from_millis(5)).await;
        }
        if done().await {
            return;
        }
    }
}

/// Whether every lead of `ids` has the enrichment status `status`.
async fn all_are(app: &TestApp, key: &str, ids: &[i64], status: &str) -> bool {
    statuses(app, key, ids).await.iter().all(|s| s == status)
}

/// Lets time pass `step_minutes` at a time, for three hours at the most, until every lead of `ids`
/// has the enrichment status `status`.
async fn let_time_pass_until(
    app: &TestApp,
    clock: &TestClock,
    step_minutes: i64,
    key: &str,
    ids: &[i64],
    status: &str,
) {
    let done = async || all_are(app, key, ids, status).await;
    let step = Duration::minutes(step_minutes);
    let_time_pass(app, clock, step, Duration::hours(3), done).await;
}

/// Asserts that exactly one job is dead, and for `reason`.
async fn one_dead_job(app: &TestApp, reason: &str) {
    let dead = dead_jobs(app).await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].1.as_deref(), Some(reason));
}

async fn statuses(app: &TestApp, key: &str, ids: &[i64]) -> Vec<String> {
    let mut out = Vec::new();
    for id in ids {
        let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), key).await;
        out.push(lead["enrichment_status"].as_str().unwrap_or("?").to_owned());
    }
    out
}

async fn submitted(app: &TestApp, key: &str, n: usize) -> Vec<i64> {
    let (status, answer) = post_batch(app, key, leads(n)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    result_lead_ids(&answer)
}

async fn dead_jobs(app: &TestApp) -> Vec<(i32, Option<String>)> {
    app.read_db(|conn| {
        conn.load(
            jobs::table
                .filter(jobs::status.eq("dead"))
                .select((jobs::attempts, jobs::last_error)),
        )
    })
    .await
}

async fn a_ten_minute_outage_ends_with_every_lead_enriched(app: TestApp) {
    let (app, clock, outage) =
        outage_app(app, Duration::minutes(3), Duration::minutes(10), &[]).await;
    let alice = app.user("alice@example.com").await;
    let ids = submitted(&app, &alice.key, 5).await;
    assert!(all_are(&app, &alice.key, &ids, "pending_retry").await);

    // The lead says when it is tried next.
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{}", ids[0]), &alice.key)
        .await;
    let next = lead["enrichment"]["next_try_at"]
        .as_str()
        .unwrap_or_default();
    assert!(!next.is_empty(), "{lead}");

    // The first background try fails like the first write did, and says why.
    let_time_pass(
        &app,
        &clock,
        Duration::minutes(1),
        Duration::minutes(2),
        async || false,
    )
    .await;
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{}", ids[0]), &alice.key)
        .await;
    assert_eq!(lead["enrichment_status"], "pending_retry", "{lead}");
    assert_eq!(
        lead["enrichment"]["last_reason"], "census: could not be reached",
        "{lead}"
    );
    for internal in ["http", "127.0.0.1", "url"] {
        assert!(!lead["enrichment"].to_string().contains(internal), "{lead}");
    }

    let_time_pass_until(&app, &clock, 1, &alice.key, &ids, "complete").await;
    assert!(
        all_are(&app, &alice.key, &ids, "complete").await,
        "every lead enriched once the geocoder was back"
    );
    assert_eq!(dead_jobs(&app).await, vec![], "no dead job");
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{}", ids[0]), &alice.key)
        .await;
    assert!(lead.get("enrichment").is_none(), "nothing ahead: {lead}");

    // While the breaker was open the job was postponed without spending attempts: fewer
    // attempts than rounds it ran.
    let attempts: Vec<i32> = app
        .read_db(|conn| {
            conn.load(
                jobs::table
                    .filter(jobs::kind.eq("enrich_lead"))
                    .select(jobs::attempts),
            )
        })
        .await;
    let rounds = outage.rounds.load(Ordering::Relaxed) as i32;
    // The first round was the write's own enrichment, not a job's.
    assert!(
        attempts.iter().sum::<i32>() < rounds - 1,
        "attempts {attempts:?}, rounds {rounds}"
    );
}

/// Three leads of alice's submitted while the geocoder is down for good, on an app whose retries
/// give up an hour after the job was queued: the app, its clock, alice and the lead ids.
async fn three_leads_of_a_geocoder_down_for_good(
    app: TestApp,
) -> (TestApp, Arc<TestClock>, TestUser, Vec<i64>) {
    let (app, clock, _) = outage_app(
        app,
        Duration::days(365),
        Duration::days(365),
        &[("LEADHUB_ENRICHMENT_GIVE_UP_SECS", "3600")],
    )
    .await;
    let alice = app.user("alice@example.com").await;
    let ids = submitted(&app, &alice.key, 3).await;
    (app, clock, alice, ids)
}

async fn an_outage_past_the_give_up_period_leaves_the_leads_given_up(app: TestApp) {
    let (app, clock, alice, ids) = three_leads_of_a_geocoder_down_for_good(app).await;
    let_time_pass_until(&app, &clock, 5, &alice.key, &ids, "gave_up").await;

    let (_, lead) = app
        .get(&format!("/api/v1/leads/{}", ids[0]), &alice.key)
        .await;
    assert_eq!(lead["enrichment_status"], "gave_up", "{lead}");
    assert!(lead["enrichment"]["gave_up_at"].is_string(), "{lead}");
    assert_eq!(lead["enrichment"]["next_try_at"], Value::Null, "{lead}");
    assert_eq!(
        lead["enrichment"]["last_reason"], "census: could not be reached",
        "{lead}"
    );

    // One dead job, with a reason a person can read.
    one_dead_job(
        &app,
        "gave up after 1 h: 3 lead(s) still wait for enrichment: census: could not be reached",
    )
    .await;

    // The filter finds them; /metrics counts them.
    let (_, page) = app
        .get("/api/v1/leads?enrichment_status=gave_up", &alice.key)
        .await;
    assert_eq!(page["total"], 3, "{page}");
    let metrics = app.get_text("/metrics").await;
    assert!(
        metrics.contains("leadhub_leads_enrichment_gave_up 3"),
        "{metrics}"
    );

    // The page says so, with "Enrich again".
    let mut b = sign_in(&app, "alice@example.com").await;
    let page = b.get(&format!("/leads/{}", ids[0])).await;
    assert!(page.body.contains("Gave up on"), "{}", page.body);
    assert!(
        page.body.contains("census: could not be reached"),
        "{}",
        page.body
    );
    assert!(page.body.contains("Enrich again"), "{}", page.body);
}

/// From now on the database refuses every change of a lead but giving it up (a trigger), so
/// each enrichment round fails on saving what it found.
async fn refuse_lead_changes_but_giving_up(app: &TestApp) {
    let statements: Vec<&'static str> = match app.state.db.backend() {
        Backend::Sqlite => vec![
            "CREATE TRIGGER refuse_enrichment BEFORE UPDATE ON leads \
             WHEN NEW.enrichment_status <> 'gave_up' \
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
        ],
        Backend::Postgres => vec![
            "CREATE FUNCTION refuse_enrichment() RETURNS trigger LANGUAGE plpgsql AS $$ \
             BEGIN IF NEW.enrichment_status <> 'gave_up' THEN \
             RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$",
            "CREATE TRIGGER refuse_enrichment BEFORE UPDATE ON leads \
             FOR EACH ROW EXECUTE FUNCTION refuse_enrichment()",
        ],
    };
    app.write_db(move |conn| {
        for s in &statements {
            diesel::sql_query(*s).execute(conn)?;
        }
        Ok(())
    })
    .await;
}

async fn retries_the_database_fails_end_with_the_leads_given_up(app: TestApp) {
    let (app, clock, alice, ids) = three_leads_of_a_geocoder_down_for_good(app).await;
    refuse_lead_changes_but_giving_up(&app).await;
    // Each round fails on the database; the job keeps to the enrichment schedule (not five
    // quick tries and death) and gives the leads up when the period ends.
    let_time_pass_until(&app, &clock, 5, &alice.key, &ids, "gave_up").await;
    assert_eq!(
        statuses(&app, &alice.key, &ids).await,
        ["gave_up", "gave_up", "gave_up"]
    );
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{}", ids[0]), &alice.key)
        .await;
    assert_eq!(
        lead["enrichment"]["last_reason"], "database: could not be read or written",
        "{lead}"
    );
    one_dead_job(
        &app,
        "gave up after 1 h: 3 lead(s) still wait for enrichment: database: could not be read or written",
    )
    .await;
}
