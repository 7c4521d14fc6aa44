//! An endpoint that has failed every delivery for five days is turned off and its team's owner
//! is told by e-mail (the app's clock moved by the test).
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;

use leadhub_domain::mail::Message;
use leadhub_tests::{backend_tests, free_port, TestApp};

use crate::clock::TestClock;
use crate::helpers::poll;
use crate::teams::create_team_id;
use crate::webhooks::{hook_id, send_test};

backend_tests!(an_endpoint_failing_for_five_days_is_turned_off_and_its_owner_told);

async fn an_endpoint_failing_for_five_days_is_turned_off_and_its_owner_told(app: TestApp) {
    let clock = Arc::new(TestClock(Mutex::new(Utc::now())));
    let app = app
        .restart()
        .clock(clock.clone())
        .local_webhooks_scaled("0.001")
        .build()
        .await;
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Failing").await;
    // A port nothing listens on: every attempt is refused.
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/gone");
    let wid = hook_id(&app, &owner.key, team, &url).await;
    let (status, _) = send_test(&app, &owner.key, team, wid).await;
    assert!(status.is_success());

    // The first attempt fails; the endpoint has not been failing for long, so it stays on.
    let deliveries = format!("/api/teams/{team}/webhooks/{wid}/deliveries");
    let page = poll(&app, &deliveries, &owner.key, |p| {
        p["items"][0]["attempts"] == 1
    })
    .await;
    assert!(page["items"][0]["last_error"].as_str().is_some(), "{page}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let endpoints = format!("/api/teams/{team}/webhooks");
    poll(&app, &endpoints, &owner.key, |list| {
        list[0]["is_active"] == true
    })
    .await;
    assert!(app.mail.last_to("owner@example.com").is_none());

    // Five days on, the retry fails too: the endpoint is turned off and the owner told.
    clock.advance(chrono::Duration::days(5) + chrono::Duration::minutes(1));
    poll(&app, &endpoints, &owner.key, |list| {
        list[0]["is_active"] == false
    })
    .await;
    let start = Instant::now();
    let mail = loop {
        if let Some(mail) = app.mail.last_to("owner@example.com") {
            break mail;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "no e-mail to the owner"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    match mail.message {
        Message::WebhookDeactivated {
            url: told,
            team_name,
            ..
        } => {
            assert_eq!(told, url);
            assert_eq!(team_name, "Failing");
        }
        other => panic!("not the webhook e-mail: {other:?}"),
    }
    assert!(mail.text.contains(&url), "{}", mail.text);
}
