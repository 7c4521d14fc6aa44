use std::sync::Arc;

use chrono::{TimeZone, Utc};
use mockall::predicate::{always, eq};

use super::*;
use crate::jobs::{JobStatus, MockJobQueue};

fn policy() -> RetryPolicy {
    RetryPolicy::giving_up_after(Duration::hours(24))
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

fn waiting(paused_for: Option<std::time::Duration>) -> EnrichmentRound {
    EnrichmentRound {
        still_waiting: vec![7, 8],
        reason: Some("census: could not be reached".to_owned()),
        paused_for,
    }
}

#[test]
fn waits_double_from_a_minute_to_an_hour_with_jitter_in_the_upper_half() {
    let p = policy();
    assert_eq!(p.delay(1, 0.0), Duration::seconds(30));
    assert_eq!(p.delay(1, 0.999_999), Duration::milliseconds(59_999));
    assert_eq!(p.delay(2, 0.0), Duration::seconds(60));
    assert_eq!(p.delay(4, 0.0), Duration::seconds(240));
    for attempts in [7, 8, 30, i32::MAX] {
        assert_eq!(p.delay(attempts, 0.0), Duration::seconds(1800));
        assert_eq!(p.delay(attempts, 1.0), Duration::seconds(3600));
    }
}

#[test]
fn a_day_of_outage_costs_a_few_dozen_tries_not_five() {
    let p = policy();
    let (mut now, mut attempts) = (t0(), 1);
    while let NextStep::Retry(at) = next_step(&p, &waiting(None), t0(), attempts, now, 0.5) {
        assert!(at > now);
        now = at;
        attempts += 1;
    }
    assert!((24..=60).contains(&attempts), "{attempts} tries");
    assert_eq!(now, t0() + Duration::hours(24), "the last try is on time");
}

#[test]
fn gives_up_once_the_period_has_passed() {
    let p = policy();
    let late = t0() + Duration::hours(24);
    assert_eq!(
        next_step(&p, &waiting(None), t0(), 40, late, 0.5),
        NextStep::GiveUp
    );
    assert_eq!(
        next_step(&p, &EnrichmentRound::default(), t0(), 40, late, 0.5),
        NextStep::Done,
        "nothing waits"
    );
}

#[test]
fn an_open_circuit_postpones_to_its_probe_and_never_past_the_give_up_time() {
    let p = policy();
    let wait = std::time::Duration::from_secs(25);
    let now = t0() + Duration::hours(1);
    assert_eq!(
        next_step(&p, &waiting(Some(wait)), t0(), 3, now, 0.5),
        NextStep::Postpone(now + Duration::seconds(25))
    );
    let nearly = t0() + Duration::hours(24) - Duration::seconds(5);
    assert_eq!(
        next_step(&p, &waiting(Some(wait)), t0(), 3, nearly, 0.5),
        NextStep::Postpone(t0() + Duration::hours(24))
    );
}

fn job(attempts: i32) -> Job {
    Job {
        id: 3,
        kind: crate::jobs::ENRICH_LEAD.to_owned(),
        payload: serde_json::json!({"lead_ids": [7, 8]}),
        status: JobStatus::Running,
        attempts,
        max_attempts: 5,
        run_at: t0(),
        locked_by: None,
        last_error: None,
        created_at: t0(),
        updated_at: t0(),
    }
}

fn retries(
    jobs: MockJobQueue,
    repo: MockEnrichmentRetryRepository,
    now: DateTime<Utc>,
) -> EnrichmentRetries {
    EnrichmentRetries {
        jobs: Arc::new(jobs),
        retries: Arc::new(repo),
        clock: {
            let mut clock = crate::clock::MockClock::new();
            clock.expect_now().returning(move || now);
            Arc::new(clock)
        },
        policy: policy(),
    }
}

#[tokio::test]
async fn a_paused_round_gives_its_attempt_back_and_tells_the_leads() {
    let now = t0() + Duration::minutes(5);
    let probe = now + Duration::seconds(20);
    let mut jobs = MockJobQueue::new();
    jobs.expect_postpone()
        .with(eq(3), eq(probe), eq(now))
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut repo = MockEnrichmentRetryRepository::new();
    repo.expect_schedule_retry()
        .with(
            eq(vec![7, 8]),
            eq(probe),
            eq(Some("census: could not be reached".to_owned())),
        )
        .times(1)
        .returning(|_, _, _| Ok(()));
    let step = retries(jobs, repo, now)
        .settle(
            &job(6),
            waiting(Some(std::time::Duration::from_secs(20))),
            0.5,
        )
        .await
        .unwrap();
    assert_eq!(step, NextStep::Postpone(probe));
}

#[tokio::test]
async fn giving_up_marks_the_leads_and_leaves_a_dead_job_with_a_reason() {
    let now = t0() + Duration::hours(25);
    let mut jobs = MockJobQueue::new();
    jobs.expect_fail()
        .withf(|id, error, retry_at, _| {
            *id == 3
                && retry_at.is_none()
                && error
                    == "gave up after 24 h: 2 lead(s) still wait for enrichment: census: could not be reached"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let mut repo = MockEnrichmentRetryRepository::new();
    repo.expect_give_up()
        .with(
            eq(vec![7, 8]),
            eq("census: could not be reached".to_owned()),
            always(),
        )
        .times(1)
        .returning(|_, _, _| Ok(2));
    let step = retries(jobs, repo, now)
        .settle(&job(30), waiting(None), 0.5)
        .await
        .unwrap();
    assert_eq!(step, NextStep::GiveUp);
}
