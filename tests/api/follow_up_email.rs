//! The e-mail of follow-ups due (docs/working-leads.md "Follow-ups"): from
//! `LEADHUB_FOLLOW_UP_DIGEST_HOUR` on, once a day, to each person with open leads due or given
//! to them by someone else since the day before, listing them; turned off on the dashboard; queued once however many processes run; a failed e-mail
//! is sent by the job's retry; at the hour of each person's day, as their browser last told the
//! pages. The app's clock stands at 2026-12-03 12:00 UTC.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{Duration as Days, TimeZone, Utc};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::json;

use leadhub_db::schema::{jobs, users};
use leadhub_domain::mail::Message;
use leadhub_mail::SentMail;
use leadhub_tests::{backend_tests, TestApp};

use crate::clock::TestClock;
use crate::lead_work::{cast, lead_at, patch};
use crate::pages::{assert_shows, page_shows, sign_in};

backend_tests!(
    each_person_gets_one_email_a_day_of_their_follow_ups_due,
    the_email_goes_at_the_hour_of_each_persons_day,
    leads_given_since_yesterday_are_in_the_email,
);

/// The follow-up e-mails both apps sent so far.
fn digests(apps: &[&TestApp]) -> Vec<SentMail> {
    apps.iter()
        .flat_map(|a| a.mail.sent())
        .filter(|m| matches!(m.message, Message::FollowUpsDue { .. }))
        .collect()
}

/// Waits up to 10 s for `n` follow-up e-mails in all.
async fn wait_for(apps: &[&TestApp], n: usize) -> Vec<SentMail> {
    for _ in 0..200 {
        let sent = digests(apps);
        if sent.len() >= n {
            return sent;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "{n} follow-up e-mails expected, {} sent",
        digests(apps).len()
    );
}

/// Waits up to 10 s for a `follow_up_digest` job to have failed; its error.
async fn failed_digest(app: &TestApp) -> String {
    for _ in 0..200 {
        let error: Option<Option<String>> = app
            .read_db(|conn| {
                conn.first(
                    jobs::table
                        .filter(jobs::kind.eq("follow_up_digest"))
                        .filter(jobs::last_error.is_not_null())
                        .select(jobs::last_error),
                )
                .optional()
            })
            .await;
        if let Some(Some(error)) = error {
            return error;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no follow-up e-mail job failed");
}

/// The app again, its clock at 2026-12-03 12:00 UTC and the e-mail's hour 13; and the clock.
async fn at_noon_sending_at_one(app: TestApp) -> (TestApp, Arc<TestClock>) {
    let noon = Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap();
    let clock = Arc::new(TestClock(Mutex::new(noon)));
    let app = app
        .restart()
        .clock(clock.clone())
        .env("LEADHUB_FOLLOW_UP_DIGEST_HOUR", "13")
        .build()
        .await;
    (app, clock)
}

async fn each_person_gets_one_email_a_day_of_their_follow_ups_due(app: TestApp) {
    let (app, clock) = at_noon_sending_at_one(app).await;
    let c = cast(&app).await;
    let key = &c.olive.key;
    let mut leads = Vec::new();
    for n in 1..=6 {
        leads.push(lead_at(&app, key, n, Some(c.a)).await);
    }
    let [yesterday, today, tomorrow, won, archived, adams] = leads[..] else {
        unreachable!()
    };
    let mia = json!({"assignee_id": c.mia.user.user_id});
    for (lead, day) in [
        (yesterday, "2026-12-02"),
        (today, "2026-12-03"),
        (tomorrow, "2026-12-04"),
        (won, "2026-12-01"),
        (archived, "2026-12-01"),
    ] {
        let mut body = mia.clone();
        body["follow_up_on"] = json!(day);
        let (status, answer) = patch(&app, lead, key, body).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    let (status, _) = patch(&app, won, key, json!({"status": "won"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.delete(&format!("/api/v1/leads/{archived}"), key).await;
    assert_eq!(status, StatusCode::OK);
    let body = json!({"assignee_id": c.adam.user.user_id, "follow_up_on": "2026-12-03"});
    let (status, _) = patch(&app, adams, key, body).await;
    assert_eq!(status, StatusCode::OK);

    // Adam turns the e-mail off on his dashboard.
    let mut adam = sign_in(&app, "adam@example.com").await;
    let in_utc = [
        "you get an e-mail listing them after 13:00 UTC",
        "id=\"digest-off\"",
    ];
    page_shows(&mut adam, "/", &in_utc).await;
    // Where his browser says he is (Chicago, UTC-6), the e-mail goes at the hour of his day.
    adam.set_cookie("leadhub_utc_offset", Some("-360"));
    let in_his_time = ["you get an e-mail listing them after 13:00 your time"];
    let home = page_shows(&mut adam, "/", &in_his_time).await;
    adam.set_cookie("leadhub_utc_offset", None);
    let csrf = home.field("csrf");
    let (redirect, home) = adam
        .post_and_follow("/follow-up-email", &[("csrf", &csrf), ("wanted", "off")])
        .await;
    assert_eq!(redirect.location(), "/?done=digest-off#digest");
    assert_shows(
        &home.body,
        &[
            "You will get no more e-mail of follow-ups due or of new leads given to you.",
            "id=\"digest-on\"",
        ],
    );
    let refused = adam
        .post("/follow-up-email", &[("csrf", &csrf), ("wanted", "maybe")])
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);

    // Before 13:00 nothing goes out.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(digests(&[&app]).is_empty());

    // At 13:00 Mia gets hers: her two open live leads due, soonest first, with their links.
    clock.advance(Days::hours(1));
    let sent = wait_for(&[&app], 1).await;
    assert_eq!(sent.len(), 1);
    let mail = &sent[0];
    assert_eq!(mail.to, "mia@example.com");
    // Olive gave her the three open ones this morning: the one not due yet is new to her too
    // (the two due are named once, as due).
    assert_eq!(mail.subject, "2 follow-ups due today, 1 new lead");
    let Message::FollowUpsDue {
        day,
        due,
        given,
        settings_url,
        ..
    } = &mail.message
    else {
        unreachable!()
    };
    assert_eq!(day.to_string(), "2026-12-03");
    assert_eq!(due.count, 2);
    let base = &app.state.config.public_url;
    let listed: Vec<(&str, &str)> = due
        .leads
        .iter()
        .map(|l| (l.address.as_str(), l.url.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            (
                "1 Oak St, Austin TX 78701",
                format!("{base}/leads/{yesterday}").as_str()
            ),
            (
                "2 Oak St, Austin TX 78701",
                format!("{base}/leads/{today}").as_str()
            ),
        ]
    );
    assert_eq!(due.leads[0].owner.as_deref(), Some("Lee"));
    assert_eq!(
        due.list_url,
        format!("{base}/leads?assignee=me&status=open&follow_up_by=2026-12-03&sort=follow_up_on")
    );
    assert_eq!(*settings_url, format!("{base}/#digest"));
    assert!(
        mail.text
            .contains("- 1 Oak St, Austin TX 78701, Lee (new, due 2026-12-02)"),
        "{}",
        mail.text
    );
    let given_urls: Vec<&str> = given.leads.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(given.count, 1);
    assert_eq!(given_urls, [format!("{base}/leads/{tomorrow}")]);

    // A second process on the same database at the same hour: the day was queued once, and
    // nobody gets a second e-mail.
    let second = TestApp::builder(app.db.clone())
        .clock(clock.clone())
        .env("LEADHUB_FOLLOW_UP_DIGEST_HOUR", "13")
        .build()
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(digests(&[&app, &second]).len(), 1);

    // The next day the mail server is down: the job fails, and its retry sends Mia's.
    app.mail.set_failing(Some("connection refused"));
    second.mail.set_failing(Some("connection refused"));
    clock.advance(Days::days(1));
    let error = failed_digest(&app).await;
    assert_eq!(
        error,
        "1 of 1 follow-up e-mails not sent: e-mail not sent: connection refused"
    );
    assert_eq!(digests(&[&app, &second]).len(), 1);
    app.mail.set_failing(None);
    second.mail.set_failing(None);
    // The retry is due 2 s after the failure on the app's clock; the clock moves on a second at
    // a time, so a failure recorded late is retried all the same.
    let mut sent = digests(&[&app, &second]);
    for _ in 0..200 {
        if sent.len() >= 2 {
            break;
        }
        clock.advance(Days::seconds(1));
        tokio::time::sleep(Duration::from_millis(50)).await;
        sent = digests(&[&app, &second]);
    }
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].to, "mia@example.com");
    assert_eq!(
        sent[1].subject, "3 follow-ups due today",
        "tomorrow's is due too, and nothing was given since yesterday"
    );
}

/// Leads someone else made a person's since the day before are in their e-mail, whether or
/// not anything is due; one they took themselves, or that is closed or archived, is not; the
/// next day they are not new any more.
async fn leads_given_since_yesterday_are_in_the_email(app: TestApp) {
    let (app, clock) = at_noon_sending_at_one(app).await;
    let c = cast(&app).await;
    let (olive, mia) = (&c.olive.key, &c.mia.key);
    let mut leads = Vec::new();
    for n in 1..=5 {
        leads.push(lead_at(&app, olive, n, Some(c.a)).await);
    }
    let [given_id, taken, won, archived, adams] = leads[..] else {
        unreachable!()
    };
    let to_mia = json!({"assignee_id": c.mia.user.user_id});
    for lead in [given_id, won, archived] {
        let (status, answer) = patch(&app, lead, olive, to_mia.clone()).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    let (status, _) = patch(&app, taken, mia, to_mia).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = patch(&app, won, olive, json!({"status": "won"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .delete(&format!("/api/v1/leads/{archived}"), olive)
        .await;
    assert_eq!(status, StatusCode::OK);
    let to_adam = json!({"assignee_id": c.adam.user.user_id});
    let (status, _) = patch(&app, adams, olive, to_adam).await;
    assert_eq!(status, StatusCode::OK);

    clock.advance(Days::hours(1));
    let mut sent = wait_for(&[&app], 2).await;
    sent.sort_by(|a, b| a.to.cmp(&b.to));
    let base = &app.state.config.public_url;
    let [adam_mail, mia_mail] = &sent[..] else {
        unreachable!()
    };
    assert_eq!(
        (adam_mail.to.as_str(), adam_mail.subject.as_str()),
        ("adam@example.com", "1 new lead for you")
    );
    assert_eq!(mia_mail.subject, "1 new lead for you");
    let Message::FollowUpsDue { due, given, .. } = &mia_mail.message else {
        unreachable!()
    };
    assert_eq!((due.count, due.leads.len(), given.count), (0, 0, 1));
    assert_eq!(given.leads[0].url, format!("{base}/leads/{given_id}"));
    assert_eq!(
        given.list_url,
        format!("{base}/leads?assignee=me&status=open&contacted=false")
    );
    assert!(
        mia_mail.text.contains(&format!(
            "1 open lead was given to you since yesterday:\n\n- 1 Oak St, Austin TX 78701, Lee (new)\n  {base}/leads/{given_id}"
        )),
        "{}",
        mia_mail.text
    );
    assert!(
        !mia_mail.text.contains("due for a follow-up"),
        "{}",
        mia_mail.text
    );

    // The next morning they are not new: nobody has anything to be told.
    clock.advance(Days::days(1));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(digests(&[&app]).len(), 2);
}

/// Mia's browser says Chicago (UTC-6) on one page: her e-mail goes at 13:00 there (19:00 UTC),
/// listing what is due by her day, while Adam's, whose browser never said, goes at 13:00 UTC.
async fn the_email_goes_at_the_hour_of_each_persons_day(app: TestApp) {
    let (app, clock) = at_noon_sending_at_one(app).await;
    let c = cast(&app).await;
    let key = &c.olive.key;
    for (n, who) in [(1, &c.mia), (2, &c.adam)] {
        let lead = lead_at(&app, key, n, Some(c.a)).await;
        let body = json!({"assignee_id": who.user.user_id, "follow_up_on": "2026-12-03"});
        let (status, answer) = patch(&app, lead, key, body).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    let mut mia = sign_in(&app, "mia@example.com").await;
    mia.set_cookie("leadhub_utc_offset", Some("-360"));
    assert_eq!(mia.get("/").await.status, StatusCode::OK);
    let mia_id = c.mia.user.id;
    let kept: Option<i32> = app
        .read_db(move |conn| {
            conn.first(users::table.find(mia_id).select(users::utc_offset_minutes))
        })
        .await;
    assert_eq!(kept, Some(-360));

    // 13:00 UTC: Adam's; for Mia it is 07:00.
    clock.advance(Days::hours(1));
    let sent = wait_for(&[&app], 1).await;
    assert_eq!(sent[0].to, "adam@example.com");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(digests(&[&app]).len(), 1);

    // 19:00 UTC is 13:00 in Chicago: Mia's, of her 3 December.
    clock.advance(Days::hours(6));
    let sent = wait_for(&[&app], 2).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].to, "mia@example.com");
    let Message::FollowUpsDue { day, due, .. } = &sent[1].message else {
        unreachable!()
    };
    assert_eq!((day.to_string().as_str(), due.count), ("2026-12-03", 1));
    // Later hours send nobody a second one.
    clock.advance(Days::hours(2));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(digests(&[&app]).len(), 2);
}
