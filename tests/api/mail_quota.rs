//! Sign-in and invite e-mails to one address are bounded, so no one can flood a mailbox:
//! sign-in requests past the quota are dropped silently (the answer never differs), invites are
//! refused with 429 before anything changes, so the pending invite's link keeps working.
use reqwest::{Method, StatusCode};
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::rate_limits::fresh_window;
use crate::teams::{create_team_id, mailed_invite_url};

async fn ask_link(app: &TestApp, email: &str) {
    let (status, body) = app
        .post_public("/api/auth/magic-link", json!({ "email": email }))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body, json!({"detail": "Check your e-mail"}));
}

fn mails_to(app: &TestApp, email: &str) -> usize {
    app.mail.sent().iter().filter(|m| m.to == email).count()
}

async fn sign_in_mail_is_bounded_per_address(app: TestApp) {
    fresh_window().await;
    let app = with_quota(&app, "1", "0").await;
    app.user("ada@example.com").await;
    app.user("bob@example.com").await;
    for _ in 0..5 {
        ask_link(&app, "ada@example.com").await;
    }
    ask_link(&app, "bob@example.com").await;
    app.mail_settled().await;
    assert_eq!(mails_to(&app, "ada@example.com"), 1);
    assert_eq!(
        mails_to(&app, "bob@example.com"),
        1,
        "other addresses unaffected"
    );

    // The hour's quota, with the minute's off.
    let app = with_quota(&app, "0", "2").await;
    app.user("cy@example.com").await;
    for _ in 0..4 {
        ask_link(&app, "cy@example.com").await;
    }
    app.mail_settled().await;
    assert_eq!(mails_to(&app, "cy@example.com"), 2);
}

async fn invite_mail_is_bounded_per_address(app: TestApp) {
    let (app, ada, path) = ada_inviting(&app, "1", "0").await;
    let (status, first) = app
        .post(&path, &ada.key, json!({"email": "sam@example.com"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["email_sent"], true);
    let link = mailed_invite_url(&app.mail.last_to("sam@example.com").unwrap().message);

    let response = app
        .client
        .post(app.url(&path))
        .bearer_auth(&ada.key)
        .json(&json!({"email": "Sam@Example.com", "role": "admin"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body["detail"],
        "Rate limit exceeded: invite e-mails to this address"
    );
    assert_eq!(mails_to(&app, "sam@example.com"), 1);
    // Nothing changed: the first invite is still the pending one, and its link works.
    let (_, pending) = app.get(&path, &ada.key).await;
    assert_eq!(pending.as_array().unwrap().len(), 1);
    assert_eq!(pending[0]["id"], first["id"]);
    let token = link.rsplit('/').next().unwrap();
    let (status, info) = app
        .call(Method::GET, &format!("/api/invites/{token}"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{info}");
    assert_eq!(info["role"], "member");
    // Another address is not held back.
    let (status, _) = app
        .post(&path, &ada.key, json!({"email": "pat@example.com"}))
        .await;
    assert_eq!(status, StatusCode::OK);
}

/// `victim+1@...` to `victim+20@...` are one mailbox: they share its quota.
async fn tagged_addresses_share_their_mailbox_quota(app: TestApp) {
    let (app, ada, path) = ada_inviting(&app, "0", "5").await;
    let mut refused = 0;
    for n in 1..=20 {
        let email = if n % 2 == 0 {
            format!("victim+{n}@Example.COM")
        } else {
            format!("victim+{n}@example.com")
        };
        let (status, body) = app.post(&path, &ada.key, json!({ "email": email })).await;
        match status {
            StatusCode::OK => assert_eq!(body["email_sent"], true, "{body}"),
            StatusCode::TOO_MANY_REQUESTS => refused += 1,
            other => panic!("{other}: {body}"),
        }
    }
    let mailed = app
        .mail
        .sent()
        .iter()
        .filter(|m| m.to.starts_with("victim+"))
        .count();
    assert_eq!((mailed, refused), (5, 15));
}

backend_tests!(
    sign_in_mail_is_bounded_per_address,
    invite_mail_is_bounded_per_address,
    tagged_addresses_share_their_mailbox_quota,
);

/// The app with these e-mail quotas per address: a minute's and an hour's ("0": off).
async fn with_quota(app: &TestApp, per_minute: &str, per_hour: &str) -> TestApp {
    app.with_env(&[
        ("LEADHUB_MAIL_PER_ADDRESS_MINUTE", per_minute),
        ("LEADHUB_MAIL_PER_ADDRESS_HOUR", per_hour),
    ])
    .await
}

/// In a fresh quota window, the app with these quotas and Ada's team: the app, Ada and the path
/// of the team's invites.
async fn ada_inviting(
    app: &TestApp,
    per_minute: &str,
    per_hour: &str,
) -> (TestApp, TestUser, String) {
    fresh_window().await;
    let app = with_quota(app, per_minute, per_hour).await;
    let ada = app.user("ada@example.com").await;
    let team = create_team_id(&app, &ada.key, "Crew").await;
    (app, ada, format!("/api/teams/{team}/invites"))
}
