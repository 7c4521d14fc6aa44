//! Abuse resistance: body limits on every JSON endpoint, list sizes, slow and oversized
//! request heads, the security headers of every response (docs/hardening.md).
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{post_batch, team};

backend_tests!(
    every_json_endpoint_refuses_an_oversized_body,
    a_chunked_body_over_the_limit_is_refused,
    lists_are_bounded,
    a_slow_request_head_is_cut_off,
    oversized_headers_are_refused,
    every_response_carries_the_security_headers,
);

/// Every endpoint that reads a JSON body, with placeholders filled in.
fn json_endpoints(team_id: i64, user_id: &str) -> Vec<(Method, String)> {
    vec![
        (Method::POST, "/api/teams".into()),
        (Method::PATCH, format!("/api/teams/{team_id}")),
        (
            Method::PATCH,
            format!("/api/teams/{team_id}/members/{user_id}"),
        ),
        (Method::POST, format!("/api/teams/{team_id}/invites")),
        (Method::POST, "/api/invites/sometoken/accept".into()),
        (Method::POST, "/api/v1/submissions/single".into()),
        (Method::POST, "/api/v1/submissions/batch".into()),
        (Method::POST, "/api/auth/magic-link".into()),
        (Method::POST, "/api/auth/verify".into()),
        (Method::POST, "/api/auth/refresh".into()),
        (Method::POST, "/api/keys".into()),
        (Method::POST, "/api/v1/lead-sources/import".into()),
        (Method::PATCH, "/api/v1/lead-sources/businesses/1".into()),
    ]
}

async fn every_json_endpoint_refuses_an_oversized_body(app: TestApp) {
    let small = app.with_env(&[("LEADHUB_BODY_LIMIT", "1024")]).await;
    let alice = small.user("alice@example.com").await;
    let t = team(&small, "Alpha", &alice).await;
    let big = json!({"name": "x".repeat(2000), "email": "a@example.com"});
    // Just under the limit is read (and then judged on its content, never a 413).
    let fits = json!({"name": "x".repeat(900)});
    for (method, path) in json_endpoints(t, &alice.user.user_id) {
        let send = |body| small.call(method.clone(), &path, Some(&alice.key), Some(body));
        let (status, body) = send(&big).await;
        assert_eq!(
            status,
            StatusCode::PAYLOAD_TOO_LARGE,
            "{method} {path}: {body}"
        );
        assert_eq!(body, json!({"detail": "Request body too large"}), "{path}");
        let (status, body) = send(&fits).await;
        assert_ne!(
            status,
            StatusCode::PAYLOAD_TOO_LARGE,
            "{method} {path}: {body}"
        );
        assert_ne!(
            status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{method} {path}: {body}"
        );
    }
}

/// Sends raw bytes and returns what came back before the server closed or `wait` passed.
async fn raw(app: &TestApp, request: &[u8], wait: Duration) -> String {
    let address = app.base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).await.unwrap();
    // The server may answer and close before the whole request is written.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(wait, stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

async fn a_chunked_body_over_the_limit_is_refused(app: TestApp) {
    let small = app.with_env(&[("LEADHUB_BODY_LIMIT", "1024")]).await;
    let alice = small.user("alice@example.com").await;
    let mut request = format!(
        "POST /api/teams HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        alice.key
    )
    .into_bytes();
    let chunk = format!("{{\"name\": \"{}\"}}", "y".repeat(3000));
    request.extend_from_slice(format!("{:x}\r\n{chunk}\r\n0\r\n\r\n", chunk.len()).as_bytes());
    let answer = raw(&small, &request, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("Request body too large"), "{answer}");
}

async fn lists_are_bounded(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let lead = json!({"address": "1 Main St", "city": "Austin", "state": "TX"});
    let leads: Vec<Value> = (0..1001).map(|_| lead.clone()).collect();
    let (status, body) = post_batch(&app, &alice.key, leads).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "leads"]), "{body}");
    assert_eq!(body["detail"][0]["type"], "too_long");
    let businesses: Vec<Value> = (0..1001)
        .map(|i| json!({"name": format!("B{i}")}))
        .collect();
    let (status, body) = app
        .post(
            "/api/v1/lead-sources/import",
            &alice.key,
            json!({"businesses": businesses}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        body["detail"][0]["loc"],
        json!(["body", "businesses"]),
        "{body}"
    );
    assert_eq!(body["detail"][0]["type"], "too_long");
    // Nothing was stored from either.
    let (_, listed) = app.get("/api/v1/leads", &alice.key).await;
    assert_eq!(listed["total"], 0);
}

async fn a_slow_request_head_is_cut_off(app: TestApp) {
    let started = Instant::now();
    // Headers that never end: the server answers 408 and closes after its 10 s.
    let answer = raw(
        &app,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n",
        Duration::from_secs(20),
    )
    .await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(18), "{took:?}");
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
}

async fn oversized_headers_are_refused(app: TestApp) {
    let mut request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..2000 {
        request.extend_from_slice(format!("X-Filler-{i}: {}\r\n", "z".repeat(100)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    let answer = raw(&app, &request, Duration::from_secs(10)).await;
    assert!(
        answer.is_empty()
            || answer.starts_with("HTTP/1.1 431")
            || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    // The server is still fine.
    let (status, _) = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// Whatever answers (a handler, an extractor, the router, the rate-limit middleware), the
/// response forbids MIME sniffing, framing and Referer; pages keep their own fuller CSP.
async fn every_response_carries_the_security_headers(app: TestApp) {
    let app = app
        .with_env(&[
            ("LEADHUB_BODY_LIMIT", "1024"),
            ("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", "30"),
        ])
        .await;
    let alice = app.user("alice@example.com").await;
    // Redirects are answers to check too, not to follow.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let big = json!({"name": "x".repeat(2000)});
    // Method, path, key, body, status.
    type Case<'a> = (Method, &'a str, Option<&'a str>, Option<Value>, u16);
    let cases: Vec<Case> = vec![
        (Method::GET, "/healthz", None, None, 200),
        (Method::GET, "/openapi.json", None, None, 200),
        (Method::GET, "/docs", None, None, 200),
        (Method::GET, "/docs/init.js", None, None, 200),
        (Method::GET, "/docs/nothing.js", None, None, 404),
        (Method::GET, "/api/nowhere", None, None, 404),
        (Method::GET, "/api/keys", None, None, 401),
        (Method::GET, "/api/keys/", Some(&alice.key), None, 200),
        (
            Method::POST,
            "/api/teams",
            Some(&alice.key),
            Some(json!({"name": 5})),
            422,
        ),
        (Method::POST, "/api/teams", Some(&alice.key), Some(big), 413),
        (Method::GET, "/", None, None, 303),
        (Method::GET, "/assets/pages.css", None, None, 200),
    ];
    for (method, path, key, body, expected) in cases {
        let mut request = client.request(method.clone(), app.url(path));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let what = format!("{method} {path}");
        assert_eq!(response.status().as_u16(), expected, "{what}");
        assert_security_headers(&what, &response);
    }
    let page = client.get(app.url("/sign-in")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_security_headers("the sign-in page", &page);
    let csp = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    // The rate-limit middleware's own answer.
    for _ in 0..60 {
        let response = client.get(app.url("/api/keys")).send().await.unwrap();
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert_security_headers("a 429", &response);
            return;
        }
    }
    panic!("no 429 after 60 requests over a limit of 30 a minute");
}

fn assert_security_headers(what: &str, response: &reqwest::Response) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(header("x-frame-options"), "DENY", "{what}");
    assert_eq!(header("referrer-policy"), "no-referrer", "{what}");
    let csp = header("content-security-policy");
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp:?}");
}
