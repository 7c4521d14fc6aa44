//! Webhook deliveries ignore the environment's `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY`: behind such
//! a proxy the address guard never saw where a delivery went. Only `LEADHUB_EGRESS_PROXY` sends
//! them through a proxy. The variables are set for the real binary, a child process, so no other
//! test of this process sees them.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod binary;
use binary::{json_of, run_on, serve, wait_up, Env};

/// A server on 127.0.0.1 that keeps the first line of every request it gets and answers 204;
/// returns its address and those lines.
async fn recording_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = [0u8; 4096];
                let n = socket.read(&mut head).await.unwrap_or(0);
                let text = String::from_utf8_lossy(&head[..n]);
                log.lock()
                    .unwrap()
                    .push(text.lines().next().unwrap_or("").to_owned());
                let _ = socket
                    .write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    (address, seen)
}

fn count(log: &Arc<Mutex<Vec<String>>>) -> usize {
    log.lock().unwrap().len()
}

/// Waits until `done` holds, for at most 20 s.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

struct Endpoint {
    base: String,
    key: String,
    team: i64,
    hook: i64,
}

impl Endpoint {
    /// Registers `url` for the team and queues a `webhook.test` event for it.
    async fn create(client: &reqwest::Client, base: &str, key: &str, url: &str) -> Endpoint {
        let team = json_of(
            client
                .post(format!("{base}/api/teams"))
                .bearer_auth(key)
                .json(&json!({"name": "Egress"})),
        )
        .await["id"]
            .as_i64()
            .unwrap();
        let hook = json_of(
            client
                .post(format!("{base}/api/teams/{team}/webhooks"))
                .bearer_auth(key)
                .json(&json!({"url": url, "events": ["lead.created"]})),
        )
        .await;
        let hook = hook["id"].as_i64().unwrap_or_else(|| panic!("{hook}"));
        let endpoint = Endpoint {
            base: base.to_owned(),
            key: key.to_owned(),
            team,
            hook,
        };
        endpoint.send_test(client).await;
        endpoint
    }

    async fn send_test(&self, client: &reqwest::Client) {
        let (base, team, hook) = (&self.base, self.team, self.hook);
        let answer = client
            .post(format!("{base}/api/teams/{team}/webhooks/{hook}/test"))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
    }

    async fn deliveries(&self, client: &reqwest::Client) -> Vec<Value> {
        let (base, team, hook) = (&self.base, self.team, self.hook);
        let list = json_of(
            client
                .get(format!(
                    "{base}/api/teams/{team}/webhooks/{hook}/deliveries"
                ))
                .bearer_auth(&self.key),
        )
        .await;
        list["items"].as_array().cloned().unwrap_or_default()
    }
}

async fn deliveries_bypass_the_environment_proxy(env: Env) {
    let (proxy, proxied) = recording_server().await;
    let (receiver, received) = recording_server().await;
    let proxy_url = format!("http://{proxy}");
    let env = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ]
    .iter()
    .fold(env, |env, name| env.var(name, &proxy_url))
    .var("LEADHUB_WEBHOOK_ALLOW_HTTP", "1");
    let key = env.key();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();

    // Guarded: a host that resolves to loopback is refused by our own check; the proxy, which
    // would have dialled it, is never asked.
    let (server, base) = env.serve();
    wait_up(&client, &base).await;
    let port = receiver.rsplit(':').next().unwrap();
    let guarded = Endpoint::create(
        &client,
        &base,
        &key,
        &format!("http://localhost:{port}/hook"),
    )
    .await;
    let mut attempt = Value::Null;
    let deadline = Instant::now() + Duration::from_secs(20);
    while attempt["attempts"].as_i64().unwrap_or(0) < 1 {
        assert!(Instant::now() < deadline, "no attempt recorded");
        tokio::time::sleep(Duration::from_millis(100)).await;
        attempt = guarded
            .deliveries(&client)
            .await
            .first()
            .cloned()
            .unwrap_or(Value::Null);
    }
    assert_eq!(count(&proxied), 0, "{:?}", proxied.lock().unwrap());
    assert_eq!(count(&received), 0);
    let error = attempt["last_error"].as_str().unwrap_or("");
    assert!(error.contains("no public address"), "{attempt}");
    drop(server);

    // Private addresses allowed (a private deployment): delivered directly, still not proxied.
    let mut command = env.command();
    command.env("LEADHUB_WEBHOOK_ALLOW_PRIVATE", "1");
    let (server, base) = serve(command);
    wait_up(&client, &base).await;
    Endpoint::create(&client, &base, &key, &format!("http://{receiver}/hook")).await;
    until("the direct delivery", || count(&received) >= 1).await;
    assert_eq!(count(&proxied), 0, "{:?}", proxied.lock().unwrap());
    drop(server);

    // The operator names a proxy for deliveries: they go through it, and only through it.
    let mut command = env.command();
    command
        .env("LEADHUB_WEBHOOK_ALLOW_PRIVATE", "1")
        .env("LEADHUB_EGRESS_PROXY", &proxy_url);
    let (_server, base) = serve(command);
    wait_up(&client, &base).await;
    let before = count(&received);
    Endpoint::create(&client, &base, &key, &format!("http://{receiver}/hook")).await;
    // (The first part's delivery, due again, may come through it too: it names localhost.)
    let line = format!("POST http://{receiver}/hook HTTP/1.1");
    until("the proxied delivery", || {
        proxied.lock().unwrap().contains(&line)
    })
    .await;
    assert_eq!(
        count(&received),
        before,
        "nothing went around the named proxy"
    );
}

#[test]
fn webhook_deliveries_bypass_the_environment_proxy() {
    run_on("egress", false, deliveries_bypass_the_environment_proxy);
}

/// An access token for `email` (a user already), through the sign-in link the outbox holds.
async fn access_token(client: &reqwest::Client, base: &str, outbox: &std::path::Path) -> String {
    let asked = client
        .post(format!("{base}/api/auth/magic-link"))
        .json(&json!({"email": "jobs@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 202);
    let deadline = Instant::now() + Duration::from_secs(10);
    let token = loop {
        let mail: String = std::fs::read_dir(outbox)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect();
        // Quoted-printable soft line breaks may cut the link.
        let mail = mail.replace("=\r\n", "").replace("=\n", "");
        if let Some(at) = mail.find("lhs_") {
            let token: String = mail[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            break token;
        }
        assert!(Instant::now() < deadline, "no sign-in e-mail in {outbox:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let verified = json_of(
        client
            .post(format!("{base}/api/auth/verify"))
            .json(&json!({ "token": token })),
    )
    .await;
    verified["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{verified}"))
        .to_owned()
}

async fn tiles_bypass_the_environment_proxy(env: Env) {
    let (proxy, proxied) = recording_server().await;
    let (tiles, fetched) = recording_server().await;
    let proxy_url = format!("http://{proxy}");
    let env = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy"]
        .iter()
        .fold(env, |env, name| env.var(name, &proxy_url))
        .var(
            "LEADHUB_MAP_TILES",
            &format!("http://{tiles}/{{z}}/{{x}}/{{y}}.png"),
        );
    env.key();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let tile = |base: String, access: String| {
        let client = client.clone();
        async move {
            let answer = client
                .get(format!("{base}/map-tiles/16/1/1"))
                .header("cookie", format!("leadhub_session={access}"))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
        }
    };

    let (server, base) = env.serve();
    wait_up(&client, &base).await;
    let access = access_token(&client, &base, &env.dir.join("outbox")).await;
    tile(base, access.clone()).await;
    assert_eq!(
        fetched.lock().unwrap().as_slice(),
        ["GET /16/1/1.png HTTP/1.1"]
    );
    assert_eq!(count(&proxied), 0, "{:?}", proxied.lock().unwrap());
    drop(server);

    // Named for them, the operator's proxy gets the tile requests.
    let mut command = env.command();
    command.env("LEADHUB_EGRESS_PROXY", &proxy_url);
    let (_server, base) = serve(command);
    wait_up(&client, &base).await;
    tile(base, access).await;
    assert_eq!(
        proxied.lock().unwrap().as_slice(),
        [format!("GET http://{tiles}/16/1/1.png HTTP/1.1")]
    );
    assert_eq!(count(&fetched), 1);
}

#[test]
fn map_tiles_bypass_the_environment_proxy() {
    run_on("egress-tiles", false, tiles_bypass_the_environment_proxy);
}
