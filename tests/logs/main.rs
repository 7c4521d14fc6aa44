//! No credential reaches the logs: a whole scenario (sign-in link, session, refresh, keys,
//! invites over the API and the pages, paths with and without trailing slashes, bad credentials)
//! runs with every log line at debug level captured, then the capture is searched for tokens.
//! A test binary of its own, because the log subscriber is global to the process.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_domain::mail::Message;
use leadhub_tests::{backend_tests, TestApp};

mod webhook_failures;
use webhook_failures::a_failing_endpoint_logs_a_first_line_then_a_summary_a_minute;

/// Every log line written so far, by every test of this binary.
fn captured() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        tracing_subscriber::fmt()
            .with_env_filter("debug")
            .with_writer(move || Capture(sink.clone()))
            .try_init()
            .unwrap();
        logs
    })
}

struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every credential-looking string in the text: a `lh?_` prefix and a long random tail.
fn credentials_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for prefix in ["lhk_", "lha_", "lhr_", "lhs_", "lhi_"] {
        for (at, _) in text.match_indices(prefix) {
            let tail: String = text[at + 4..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            if tail.len() >= 20 {
                found.push(format!("{prefix}{tail}"));
            }
        }
    }
    found
}

fn token_in_link(link: &str) -> String {
    link.rsplit(['/', '=']).next().unwrap().to_owned()
}

async fn json_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn a_whole_scenario_logs_no_credential(app: TestApp) {
    let logs = captured();
    let ada = app.user("ada@example.com").await;

    // Sign-in by link, then the session's tokens in use.
    let (status, _) = app
        .post_public("/api/auth/magic-link", json!({"email": "ada@example.com"}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    app.mail_settled().await;
    let link = app.mail.last_to("ada@example.com").unwrap();
    let Message::SignIn { sign_in_url, .. } = link.message else {
        panic!("not a sign-in e-mail");
    };
    let sign_in_token = token_in_link(&sign_in_url);
    app.call(
        Method::GET,
        &format!("/sign-in?token={sign_in_token}"),
        None,
        None,
    )
    .await;
    let (status, signed) = app
        .post_public("/api/auth/verify", json!({"token": sign_in_token}))
        .await;
    assert_eq!(status, StatusCode::OK, "{signed}");
    let access = signed["access_token"].as_str().unwrap().to_owned();
    let (status, renewed) = app
        .post_public(
            "/api/auth/refresh",
            json!({"refresh_token": signed["refresh_token"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renewed}");
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);
    let access = renewed["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);

    // Keys: made, used, revoked; a bad one refused.
    let (status, key) = app
        .post("/api/keys", &access, json!({"name": "script"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let secret = key["key"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/api/keys", &secret).await.0, StatusCode::OK);
    let (status, _) = app
        .delete(&format!("/api/keys/{}", key["id"]), &ada.key)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        app.get("/api/keys", &secret).await.0,
        StatusCode::UNAUTHORIZED
    );

    // Invites: the link opened through the API and the pages, with and without a trailing
    // slash, then accepted.
    let (_, team) = app
        .post("/api/teams", &ada.key, json!({"name": "Crew"}))
        .await;
    let (status, _) = app
        .post(
            &format!("/api/teams/{}/invites", team["id"]),
            &ada.key,
            json!({"email": "sam@example.com"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let Message::Invite { invite_url, .. } = app.mail.last_to("sam@example.com").unwrap().message
    else {
        panic!("not an invite");
    };
    let invite = token_in_link(&invite_url);
    for path in [
        format!("/api/invites/{invite}"),
        format!("/api/invites/{invite}/"),
        format!("/invite/{invite}"),
        format!("/invite/{invite}/"),
        format!("/no-such-page/{invite}"),
    ] {
        app.call(Method::GET, &path, None, None).await;
    }
    let accepted = app
        .client
        .post(app.url(&format!("/api/invites/{invite}/accept/")))
        .json(&json!({"first_name": "Sam", "last_name": "S"}))
        .send()
        .await
        .unwrap();
    let (status, joined) = json_of(accepted).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let (status, _) = app
        .call(Method::POST, "/api/auth/logout", Some(&access), None)
        .await;
    assert_eq!(status, StatusCode::OK);

    // The scenario's own lines are there (the capture works), and no credential is.
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(text.contains("request finished"), "nothing captured");
    assert!(text.contains("DEBUG"), "not at debug level");
    let leaked = credentials_in(&text);
    assert!(leaked.is_empty(), "credentials in the logs: {leaked:?}");
}

/// A geocoder that cannot be reached: the submission's warning says so in words, and the log
/// keeps the cause (our URL, the library's words) under the request's id.
async fn an_enrichment_failure_is_logged_in_full_and_told_in_words(app: TestApp) {
    let logs = captured();
    let db = leadhub_db::Database::connect(&app.db.url, 2).unwrap();
    let settings = leadhub_geocode::GeocodeSettings::new(
        "http://127.0.0.1:9",
        "http://127.0.0.1:9",
        "leadhub-test",
    );
    let geocoder = leadhub_geocode::build(&["census".to_owned()], &settings, Arc::new(db)).unwrap();
    let app = app.restart().geocoder(geocoder).build().await;
    let ada = app.user("ada@example.com").await;
    let request_id = format!(
        "census-down-{}",
        app.db.url.len() * 7919 + std::process::id() as usize
    );
    let answer = app
        .client
        .post(app.url("/api/v1/submissions/single"))
        .bearer_auth(&ada.key)
        .header("x-request-id", &request_id)
        .json(&json!({"address": "1 Nowhere Rd", "city": "Austin", "state": "TX"}))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(answer).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let warning = body["validation_warnings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        warning, "census: could not be reached; retried in the background",
        "{body}"
    );
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    let cause = text
        .lines()
        .find(|l| l.contains(&request_id) && l.contains("request failed"))
        .unwrap_or_else(|| {
            let near: Vec<&str> = text
                .lines()
                .filter(|l| l.contains(&request_id) || l.contains("request failed"))
                .collect();
            panic!("no logged cause under {request_id}: {near:#?}")
        });
    // The library's words stay in the log (the URL not: it holds the lead's address).
    assert!(
        cause.contains("census") && cause.contains("Connection refused"),
        "{cause}"
    );
}

backend_tests!(
    a_whole_scenario_logs_no_credential,
    an_enrichment_failure_is_logged_in_full_and_told_in_words,
    a_failing_endpoint_logs_a_first_line_then_a_summary_a_minute,
);
