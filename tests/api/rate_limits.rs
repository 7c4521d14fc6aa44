//! Rate limits (contract section 8): headers on every response, 429 with Retry-After, per key,
//! per client IP (with trusted proxies), 0 = off, and on PostgreSQL counts shared by processes.
use reqwest::StatusCode;

use leadhub_tests::{backend_tests, Backend, TestApp};

use crate::pages::Page;

backend_tests!(
    headers_are_on_every_response_and_count_down,
    over_the_ip_limit_is_a_429_with_retry_after,
    each_key_has_its_own_hourly_limit,
    zero_turns_a_limit_off,
    forwarded_for_is_believed_only_from_trusted_proxies,
    health_endpoints_are_not_counted,
    processes_on_one_postgres_share_counts,
);

/// Fixed windows start over on the minute (and hour): a test that needs one window whole
/// waits when the current one is about to end.
pub async fn fresh_window() {
    let now = chrono::Utc::now().timestamp();
    let left_in_minute = 60 - now.rem_euclid(60);
    let left_in_hour = 3600 - now.rem_euclid(3600);
    if left_in_minute < 15 || left_in_hour < 15 {
        let wait = left_in_minute.min(left_in_hour) as u64 + 1;
        tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
    }
}

impl Page {
    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    }

    /// `r` of the `RateLimit` header.
    fn remaining(&self) -> u64 {
        let value = self.header("ratelimit").expect("RateLimit header");
        let r = value
            .split(';')
            .find_map(|p| p.strip_prefix("r="))
            .expect("r=");
        r.parse().unwrap()
    }
}

async fn send(app: &TestApp, path: &str, key: Option<&str>, forwarded_for: Option<&str>) -> Page {
    let mut request = app.client.get(app.url(path));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(hops) = forwarded_for {
        request = request.header("x-forwarded-for", hops);
    }
    Page::read(request.send().await.unwrap()).await
}

async fn headers_are_on_every_response_and_count_down(app: TestApp) {
    let app = with_limits(&app, "20", "10").await;
    let alice = app.user("alice@example.com").await;
    fresh_window().await;

    // Unauthenticated (a 401): the IP limit alone.
    let a = send(&app, "/api/auth/me", None, None).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        a.header("ratelimit-policy").as_deref(),
        Some("\"minute\";q=20;w=60")
    );
    assert_eq!(a.remaining(), 19);
    let t: u64 = a
        .header("ratelimit")
        .unwrap()
        .rsplit("t=")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&t), "{t}");
    assert_eq!(a.header("x-ratelimit-limit").as_deref(), Some("20"));
    assert_eq!(a.header("x-ratelimit-remaining").as_deref(), Some("19"));
    let reset: i64 = a.header("x-ratelimit-reset").unwrap().parse().unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(
        reset > now - 1 && reset <= now + 60 && reset % 60 == 0,
        "{reset}"
    );

    // A 404 of an unknown route carries them too.
    let b = send(&app, "/api/no-such-thing", None, None).await;
    assert_eq!(b.status, StatusCode::NOT_FOUND);
    assert_eq!(b.remaining(), 18);

    // Authenticated: both limits in force; the hour one (10) is the tightest.
    let c = send(&app, "/api/auth/me", Some(&alice.key), None).await;
    assert_eq!(c.status, StatusCode::OK);
    assert_eq!(
        c.header("ratelimit-policy").as_deref(),
        Some("\"hour\";q=10;w=3600, \"minute\";q=20;w=60")
    );
    assert!(c
        .header("ratelimit")
        .unwrap()
        .starts_with("\"hour\";r=9;t="));
    assert_eq!(c.header("x-ratelimit-limit").as_deref(), Some("10"));
    let d = send(&app, "/api/keys", Some(&alice.key), None).await;
    assert_eq!(d.status, StatusCode::OK);
    assert_eq!(d.remaining(), 8);
    let reset: i64 = d.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert_eq!(reset % 3600, 0);

    // A wrong key is a 401 held to the IP limit only (the IP count went on meanwhile).
    let e = send(&app, "/api/auth/me", Some("lhk_not-a-key"), None).await;
    assert_eq!(e.status, StatusCode::UNAUTHORIZED);
    assert_eq!(e.json()["detail"], "Invalid or expired API key");
    assert_eq!(e.header("x-ratelimit-limit").as_deref(), Some("20"));
    assert_eq!(e.remaining(), 15);
}

async fn over_the_ip_limit_is_a_429_with_retry_after(app: TestApp) {
    let app = with_limits(&app, "3", "0").await;
    let alice = app.user("alice@example.com").await;
    fresh_window().await;
    for left in [2, 1, 0] {
        let a = send(&app, "/api/auth/me", Some(&alice.key), None).await;
        assert_eq!(a.status, StatusCode::OK);
        assert_eq!(a.remaining(), left);
    }
    let over = send(&app, "/api/auth/me", Some(&alice.key), None).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        over.json(),
        serde_json::json!({"detail": "Rate limit exceeded: 3 requests per minute per client IP"})
    );
    let retry: u64 = over.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(over.remaining(), 0);
    assert_eq!(over.header("x-ratelimit-remaining").as_deref(), Some("0"));
    // Unauthenticated requests from the same address are refused as well.
    let anonymous = send(&app, "/openapi.json", None, None).await;
    assert_eq!(anonymous.status, StatusCode::TOO_MANY_REQUESTS);
}

async fn each_key_has_its_own_hourly_limit(app: TestApp) {
    let app = with_limits(&app, "0", "2").await;
    let [alice, bob] = app.users(["alice", "bob"]).await;
    fresh_window().await;
    for _ in 0..2 {
        assert_eq!(
            send(&app, "/api/keys", Some(&alice.key), None).await.status,
            StatusCode::OK
        );
    }
    let over = send(&app, "/api/keys", Some(&alice.key), None).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        over.json()["detail"],
        "Rate limit exceeded: 2 requests per hour per credential"
    );
    let retry: u64 = over.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=3600).contains(&retry), "{retry}");
    // Refused before the handler: no key is created.
    let (status, _) = app
        .post(
            "/api/keys",
            &alice.key,
            serde_json::json!({"name": "sneaky"}),
        )
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let keys = app.state.auth.list_api_keys(&alice.user).await.unwrap();
    assert_eq!(keys.len(), 1);

    // Bob's key counts on its own, and so does a second key of Alice's.
    let b = send(&app, "/api/keys", Some(&bob.key), None).await;
    assert_eq!(b.status, StatusCode::OK);
    assert_eq!(b.remaining(), 1);
    let second = app
        .state
        .auth
        .create_api_key(&alice.user, "second", None)
        .await
        .unwrap()
        .secret;
    assert_eq!(
        send(&app, "/api/keys", Some(&second), None).await.status,
        StatusCode::OK
    );
    // Unauthenticated requests are not held to any per-key limit, and the IP limit is off.
    let anonymous = send(&app, "/api/auth/me", None, None).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert!(anonymous.header("ratelimit").is_none());
}

async fn zero_turns_a_limit_off(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    // The harness default: both off, no headers at all.
    for _ in 0..30 {
        let a = send(&app, "/api/auth/me", Some(&alice.key), None).await;
        assert_eq!(a.status, StatusCode::OK);
        assert!(a.header("ratelimit-policy").is_none());
        assert!(a.header("x-ratelimit-limit").is_none());
    }
    // Only the IP limit on: the policy names only it, also for a key.
    let app = with_limits(&app, "1000", "0").await;
    let a = send(&app, "/api/auth/me", Some(&alice.key), None).await;
    assert_eq!(
        a.header("ratelimit-policy").as_deref(),
        Some("\"minute\";q=1000;w=60")
    );
}

/// An app allowing two requests a minute per client IP and trusting `proxies`, in a fresh window.
async fn two_a_minute_behind(app: &TestApp, proxies: &str) -> TestApp {
    let limit = ("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", "2");
    let app = app
        .with_env(&[limit, ("LEADHUB_TRUSTED_PROXIES", proxies)])
        .await;
    fresh_window().await;
    app
}

/// GET /openapi.json without a key, with `X-Forwarded-For: hops`.
async fn forwarded(app: &TestApp, hops: &str) -> Page {
    send(app, "/openapi.json", None, Some(hops)).await
}

async fn forwarded_for_is_believed_only_from_trusted_proxies(app: TestApp) {
    let trusted = two_a_minute_behind(&app, "10.1.1.1, 127.0.0.1").await;
    // Behind the trusted proxy, each client has its own count; the client cannot
    // escape by prepending addresses of its own.
    for hops in ["203.0.113.7", "198.51.100.1, 203.0.113.7"] {
        assert_eq!(forwarded(&trusted, hops).await.status, StatusCode::OK);
    }
    let over = forwarded(&trusted, "192.0.2.9, 203.0.113.7").await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    // A trusted proxy in the chain is skipped.
    let via_two = forwarded(&trusted, "203.0.113.7, 10.1.1.1").await;
    assert_eq!(via_two.status, StatusCode::TOO_MANY_REQUESTS);
    let other = forwarded(&trusted, "203.0.113.8").await;
    assert_eq!(other.status, StatusCode::OK);
    assert_eq!(other.remaining(), 1);

    // The peer (127.0.0.1) is not trusted here: the header is ignored, all count as one client.
    let untrusted = two_a_minute_behind(&app, "10.1.1.1").await;
    for hops in ["203.0.113.1", "203.0.113.2"] {
        assert_eq!(forwarded(&untrusted, hops).await.status, StatusCode::OK);
    }
    let over = forwarded(&untrusted, "203.0.113.3").await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
}

async fn health_endpoints_are_not_counted(app: TestApp) {
    let app = with_limits(&app, "1", "0").await;
    fresh_window().await;
    for path in ["/healthz", "/readyz", "/metrics", "/healthz/"] {
        for _ in 0..3 {
            let a = send(&app, path, None, None).await;
            assert_eq!(a.status, StatusCode::OK, "{path}");
            assert!(a.header("ratelimit").is_none());
        }
    }
    assert_eq!(
        send(&app, "/openapi.json", None, None).await.status,
        StatusCode::OK
    );
    assert_eq!(
        send(&app, "/openapi.json", None, None).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}

async fn processes_on_one_postgres_share_counts(app: TestApp) {
    if app.db.backend != Backend::Postgres {
        // SQLite counts in the memory of its single process (docs/rate-limits.md).
        return;
    }
    let process = || {
        TestApp::builder(app.db.clone())
            .env("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", "1000")
            .env("LEADHUB_RATE_LIMIT_PER_KEY_HOUR", "3")
    };
    let first = process().build().await;
    let second = process().build().await;
    let alice = first.user("alice@example.com").await;
    fresh_window().await;
    assert_eq!(
        send(&first, "/api/keys", Some(&alice.key), None)
            .await
            .remaining(),
        2
    );
    assert_eq!(
        send(&second, "/api/keys", Some(&alice.key), None)
            .await
            .remaining(),
        1
    );
    assert_eq!(
        send(&first, "/api/keys", Some(&alice.key), None)
            .await
            .status,
        StatusCode::OK
    );
    let over = send(&second, "/api/keys", Some(&alice.key), None).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    // The IP counter is shared too.
    let ip = send(&second, "/openapi.json", None, None).await;
    assert_eq!(ip.remaining(), 1000 - 5);
}

/// The app with these limits: requests a minute per client IP, and an hour per API key ("0": off).
async fn with_limits(app: &TestApp, per_ip_minute: &str, per_key_hour: &str) -> TestApp {
    app.with_env(&[
        ("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", per_ip_minute),
        ("LEADHUB_RATE_LIMIT_PER_KEY_HOUR", per_key_hour),
    ])
    .await
}
