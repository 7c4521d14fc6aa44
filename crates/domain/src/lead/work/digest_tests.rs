use chrono::DateTime;
use mockall::predicate::eq;

use super::*;
use crate::clock::MockClock;
use crate::jobs::JobStatus;
use crate::mail::{MailError, MockMailer};

fn at(now: &'static str) -> MockClock {
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .returning(move || DateTime::parse_from_rfc3339(now).unwrap().to_utc());
    clock
}

fn digests(repo: MockDigestRepository, mailer: MockMailer, now: &'static str) -> FollowUpDigests {
    FollowUpDigests {
        digests: Arc::new(repo),
        mailer: Arc::new(mailer),
        clock: Arc::new(at(now)),
        hour: Some(13),
        public_url: "https://leads.example.com".into(),
    }
}

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn job_of(day: &str) -> Job {
    let now = DateTime::parse_from_rfc3339("2026-03-05T13:00:00Z")
        .unwrap()
        .to_utc();
    Job {
        id: 1,
        kind: FOLLOW_UP_DIGEST.into(),
        payload: serde_json::json!({ "day": day }),
        status: JobStatus::Running,
        attempts: 1,
        max_attempts: 5,
        run_at: now,
        locked_by: None,
        last_error: None,
        created_at: now,
        updated_at: now,
    }
}

fn person(user_id: i64, email: &str, due: i64) -> DuePerson {
    DuePerson {
        user_id,
        email: email.into(),
        due,
        leads: vec![DueLead {
            id: 40 + user_id,
            address: "12 Oak St, Austin, TX 78701".into(),
            owner: Some("Jane Roe".into()),
            status: "new".into(),
            follow_up_on: day("2026-03-04"),
        }],
    }
}

#[tokio::test]
async fn the_days_digest_is_queued_from_its_hour_on() {
    let mut repo = MockDigestRepository::new();
    repo.expect_queue_digest()
        .withf(|d, job| {
            *d == day("2026-03-05")
                && job.kind == FOLLOW_UP_DIGEST
                && job.payload == serde_json::json!({"day": "2026-03-05"})
        })
        .times(1)
        .returning(|_, _| Ok(true));
    let service = digests(repo, MockMailer::new(), "2026-03-05T13:00:00Z");
    assert_eq!(service.due_day(), Some(day("2026-03-05")));
    assert!(service.queue(day("2026-03-05")).await.unwrap());

    // Not before the hour, nor with digests off.
    let early = digests(
        MockDigestRepository::new(),
        MockMailer::new(),
        "2026-03-05T12:59:59Z",
    );
    assert_eq!(early.due_day(), None);
    let mut off = digests(
        MockDigestRepository::new(),
        MockMailer::new(),
        "2026-03-05T20:00:00Z",
    );
    off.hour = None;
    assert_eq!(off.due_day(), None);
}

#[tokio::test]
async fn each_person_gets_one_email_and_a_failed_one_is_owed_again() {
    let mut repo = MockDigestRepository::new();
    repo.expect_due_follow_ups()
        .with(eq(day("2026-03-05")), eq(DIGEST_LISTED))
        .returning(|_, _| {
            Ok(vec![
                person(1, "ada@example.com", 3),
                person(2, "bo@example.com", 1),
                person(3, "cy@example.com", 1),
            ])
        });
    // Another worker sent Cy's already.
    repo.expect_claim_digest()
        .returning(|user, _, _| Ok(user != 3));
    repo.expect_release_digest()
        .with(eq(2), eq(day("2026-03-05")))
        .times(1)
        .returning(|_, _| Ok(()));
    let mut mailer = MockMailer::new();
    mailer
        .expect_send()
        .withf(|m| {
            let Message::FollowUpsDue {
                to,
                due,
                leads,
                list_url,
                ..
            } = m
            else {
                return false;
            };
            to == "ada@example.com"
                && *due == 3
                && leads[0].url == "https://leads.example.com/leads/41"
                && list_url
                    == "https://leads.example.com/leads?assignee=me&follow_up_by=2026-03-05&sort=follow_up_on"
        })
        .times(1)
        .returning(|_| Ok(()));
    mailer
        .expect_send()
        .withf(|m| m.recipient() == "bo@example.com")
        .times(1)
        .returning(|_| Err(MailError("connection refused".into())));
    let service = digests(repo, mailer, "2026-03-05T13:01:00Z");
    let err = service.send(&job_of("2026-03-05")).await.unwrap_err();
    assert_eq!(
        err,
        "1 of 2 follow-up e-mails not sent: e-mail not sent: connection refused"
    );
}

#[tokio::test]
async fn a_day_gone_by_is_not_sent() {
    let service = digests(
        MockDigestRepository::new(),
        MockMailer::new(),
        "2026-03-06T00:05:00Z",
    );
    assert_eq!(
        service.send(&job_of("2026-03-05")).await,
        Ok(DigestRun::default())
    );
    let err = service.send(&job_of("yesterday")).await.unwrap_err();
    assert_eq!(err, "bad payload: no day");
}
