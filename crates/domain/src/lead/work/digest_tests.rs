use chrono::DateTime;
use mockall::predicate::eq;

use super::*;
use crate::clock::MockClock;
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

fn offset(minutes: i32) -> UtcOffset {
    UtcOffset::from_minutes(minutes).unwrap()
}

fn person(user_id: i64, email: &str, due: i64) -> DuePerson {
    DuePerson {
        user_id,
        email: email.into(),
        due: DueLeads {
            count: due,
            first: vec![DueLead {
                id: 40 + user_id,
                address: "12 Oak St, Austin, TX 78701".into(),
                owner: Some("Jane Roe".into()),
                status: "new".into(),
                follow_up_on: Some(day("2026-03-04")),
            }],
        },
        given: DueLeads::default(),
    }
}

#[tokio::test]
async fn each_hours_digest_is_queued_once() {
    let mut repo = MockDigestRepository::new();
    repo.expect_queue_digest()
        .withf(|hour, job| {
            hour.to_rfc3339() == "2026-03-05T13:00:00+00:00"
                && job.kind == FOLLOW_UP_DIGEST
                && job.payload == serde_json::json!({"hour": "2026-03-05T13:00:00+00:00"})
        })
        .times(1)
        .returning(|_, _| Ok(true));
    let service = digests(repo, MockMailer::new(), "2026-03-05T13:42:10Z");
    let hour = service.due_hour().unwrap();
    assert_eq!(hour.to_rfc3339(), "2026-03-05T13:00:00+00:00");
    assert!(service.queue(hour).await.unwrap());

    // With digests off, no hour is due.
    let mut off = digests(
        MockDigestRepository::new(),
        MockMailer::new(),
        "2026-03-05T20:00:00Z",
    );
    off.hour = None;
    assert_eq!(off.due_hour(), None);
}

#[tokio::test]
async fn each_person_gets_theirs_once_their_day_reaches_the_hour() {
    // 19:30 UTC: 13:30 in Chicago (UTC-6), 05:30 the next day at UTC+10, 19:30 at UTC.
    let mut repo = MockDigestRepository::new();
    repo.expect_digest_offsets()
        .returning(|| Ok(vec![UtcOffset::default(), offset(-360), offset(600)]));
    repo.expect_owed_digests()
        .withf(|d, o, since, listed| {
            *d == day("2026-03-05")
                && *o == UtcOffset::default()
                && since.to_rfc3339() == "2026-03-04T19:30:00+00:00"
                && *listed == DIGEST_LISTED
        })
        .returning(|_, _, _, _| Ok(vec![person(1, "utc@example.com", 1)]));
    repo.expect_owed_digests()
        .withf(|d, o, _, _| *d == day("2026-03-05") && *o == offset(-360))
        .returning(|_, _, _, _| Ok(vec![person(2, "chicago@example.com", 1)]));
    repo.expect_claim_digest()
        .withf(|_, d, _| *d == day("2026-03-05"))
        .times(2)
        .returning(|_, _, _| Ok(true));
    let mut mailer = MockMailer::new();
    mailer.expect_send().times(2).returning(|_| Ok(()));
    let service = digests(repo, mailer, "2026-03-05T19:30:00Z");
    assert_eq!(service.send().await, Ok(DigestRun { sent: 2, failed: 0 }));

    // 12:00 UTC: 06:00 in Chicago, 22:00 at UTC+10: only the latter's day has reached 13:00.
    let mut repo = MockDigestRepository::new();
    repo.expect_digest_offsets()
        .returning(|| Ok(vec![UtcOffset::default(), offset(-360), offset(600)]));
    repo.expect_owed_digests()
        .withf(|d, o, _, _| *d == day("2026-03-05") && *o == offset(600))
        .times(1)
        .returning(|_, _, _, _| Ok(Vec::new()));
    let service = digests(repo, MockMailer::new(), "2026-03-05T12:00:00Z");
    assert_eq!(service.send().await, Ok(DigestRun::default()));
}

#[tokio::test]
async fn each_person_gets_one_email_and_a_failed_one_is_owed_again() {
    let mut repo = MockDigestRepository::new();
    repo.expect_digest_offsets()
        .returning(|| Ok(vec![UtcOffset::default()]));
    repo.expect_owed_digests()
        .withf(|d, o, _, listed| {
            *d == day("2026-03-05") && *o == UtcOffset::default() && *listed == DIGEST_LISTED
        })
        .returning(|_, _, _, _| {
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
            let Message::FollowUpsDue { to, due, .. } = m else {
                return false;
            };
            to == "ada@example.com"
                && due.count == 3
                && due.leads[0].url == "https://leads.example.com/leads/41"
                && due.list_url
                    == "https://leads.example.com/leads?assignee=me&status=open&follow_up_by=2026-03-05&sort=follow_up_on"
        })
        .times(1)
        .returning(|_| Ok(()));
    mailer
        .expect_send()
        .withf(|m| m.recipient() == "bo@example.com")
        .times(1)
        .returning(|_| Err(MailError("connection refused".into())));
    let service = digests(repo, mailer, "2026-03-05T13:01:00Z");
    let err = service.send().await.unwrap_err();
    assert_eq!(
        err,
        "1 of 2 follow-up e-mails not sent: e-mail not sent: connection refused"
    );
}

#[tokio::test]
async fn leads_given_lately_are_their_own_part_of_the_email() {
    let mut repo = MockDigestRepository::new();
    repo.expect_digest_offsets()
        .returning(|| Ok(vec![UtcOffset::default()]));
    repo.expect_owed_digests().returning(|_, _, _, _| {
        let mut given = person(1, "ada@example.com", 0);
        given.given.count = 4;
        given.given.first = std::mem::take(&mut given.due.first);
        given.given.first[0].follow_up_on = None;
        Ok(vec![given])
    });
    repo.expect_claim_digest().returning(|_, _, _| Ok(true));
    let mut mailer = MockMailer::new();
    mailer
        .expect_send()
        .withf(|m| {
            let Message::FollowUpsDue { due, given, .. } = m else {
                return false;
            };
            due.count == 0
                && due.leads.is_empty()
                && given.count == 4
                && given.leads[0].url == "https://leads.example.com/leads/41"
                && given.leads[0].follow_up_on.is_none()
                && given.list_url
                    == "https://leads.example.com/leads?assignee=me&status=open&contacted=false"
        })
        .times(1)
        .returning(|_| Ok(()));
    let service = digests(repo, mailer, "2026-03-05T13:01:00Z");
    assert_eq!(service.send().await, Ok(DigestRun { sent: 1, failed: 0 }));
}

#[tokio::test]
async fn with_digests_off_a_queued_job_sends_nothing() {
    let mut service = digests(
        MockDigestRepository::new(),
        MockMailer::new(),
        "2026-03-05T20:00:00Z",
    );
    service.hour = None;
    assert_eq!(service.send().await, Ok(DigestRun::default()));
}

#[tokio::test]
async fn each_taker_is_told_of_the_leads_still_theirs_and_nobody_else() {
    let mut repo = MockDigestRepository::new();
    // Mia has two of her three leads still; Sam turned the e-mail off; Ola has none left.
    repo.expect_given_in_turn()
        .with(eq(1), eq(vec![7, 8, 9]), eq(DIGEST_LISTED))
        .returning(|_, _, _| {
            let mut mia = person(1, "mia@example.com", 0);
            mia.given = std::mem::take(&mut mia.due);
            mia.given.count = 2;
            Ok(Some(mia))
        });
    repo.expect_given_in_turn()
        .with(eq(2), eq(vec![10]), eq(DIGEST_LISTED))
        .returning(|_, _, _| Ok(None));
    repo.expect_given_in_turn()
        .with(eq(3), eq(vec![11]), eq(DIGEST_LISTED))
        .returning(|_, _, _| Ok(Some(person(3, "ola@example.com", 0))));
    let mut mailer = MockMailer::new();
    mailer
        .expect_send()
        .withf(|m| match m {
            Message::LeadsGiven { to, given, .. } => {
                to == "mia@example.com"
                    && given.count == 2
                    && given.leads[0].url == "https://leads.example.com/leads/41"
            }
            _ => false,
        })
        .times(1)
        .returning(|_| Ok(()));
    let service = digests(repo, mailer, "2026-03-05T13:42:10Z");
    let payload = serde_json::json!({"given": [
        {"user_id": 1, "lead_ids": [7, 8, 9]},
        {"user_id": 2, "lead_ids": [10]},
        {"user_id": 3, "lead_ids": [11]},
    ]});
    assert_eq!(service.tell_given(&payload).await, Ok(1));
    let bad = service.tell_given(&serde_json::json!({"given": 3})).await;
    assert!(bad.unwrap_err().starts_with("bad payload"));
}
