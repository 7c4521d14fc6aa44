//! Expiry with an injected clock: the app's `Clock` port set to a clock the test moves.
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::json;

use leadhub_domain::Clock;
use leadhub_tests::{backend_tests, TestApp};

/// A clock that stands still until the test moves it.
pub(crate) struct TestClock(pub(crate) Mutex<DateTime<Utc>>);

impl TestClock {
    pub(crate) fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap();
        *now += by;
    }
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

async fn tokens_and_links_expire_by_the_clock(app: TestApp) {
    let clock = Arc::new(TestClock(Mutex::new(Utc::now())));
    let app = app.restart().clock(clock.clone()).build().await;
    app.user("ada@example.com").await;

    // A sign-in link works for 15 minutes.
    let session = crate::identity::sign_in(&app, "ada@example.com").await;
    let access = session["access_token"].as_str().unwrap().to_owned();
    let refresh = session["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);

    // One second before the hour the access token works; one second after, it does not.
    clock.advance(Duration::seconds(3599));
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);
    clock.advance(Duration::seconds(2));
    let (status, body) = app.get("/api/auth/me", &access).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body, json!({"detail": "Invalid or expired API key"}));

    // The refresh token still gives a fresh pair.
    let (status, pair) = app
        .post_public("/api/auth/refresh", json!({ "refresh_token": refresh }))
        .await;
    assert_eq!(status, StatusCode::OK, "{pair}");
    let fresh = pair["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/api/auth/me", &fresh).await.0, StatusCode::OK);

    // A link older than 15 minutes is gone.
    app.post_public("/api/auth/magic-link", json!({"email": "ada@example.com"}))
        .await;
    app.mail_settled().await;
    let link = app.mail.last_to("ada@example.com").unwrap();
    let leadhub_domain::mail::Message::SignIn { sign_in_url, .. } = link.message else {
        panic!("not a sign-in e-mail")
    };
    let token = sign_in_url.rsplit("token=").next().unwrap().to_owned();
    clock.advance(Duration::minutes(15) + Duration::seconds(1));
    let (status, _) = app
        .post_public("/api/auth/verify", json!({ "token": token }))
        .await;
    assert_eq!(status, StatusCode::GONE);
}

backend_tests!(tokens_and_links_expire_by_the_clock);
