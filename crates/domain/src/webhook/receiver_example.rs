//! The Rust receiver of docs/webhooks.md, compiled and run here against requests signed as the
//! delivery worker signs them, so it cannot rot: the docs must show this very code (tested).
#![allow(clippy::unwrap_used)]

// docs/webhooks.md: receiver start
use standardwebhooks::Webhook;

/// Verifies a delivery and returns its event; the caller deduplicates by `webhook-id`.
fn receive(
    secret: &str,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<serde_json::Value, String> {
    let hook = Webhook::new(secret).map_err(|e| e.to_string())?;
    hook.verify(body, headers).map_err(|e| e.to_string())?;
    serde_json::from_slice(body).map_err(|e| e.to_string())
}
// docs/webhooks.md: receiver end

use crate::webhook::signature::signature_header;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn request(secrets: &[&str], timestamp: i64, body: &str) -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    headers.insert(
        "webhook-id",
        "msg_p5jXN8AQM9LWM0D4loKWxJek".parse().unwrap(),
    );
    headers.insert("webhook-timestamp", timestamp.to_string().parse().unwrap());
    let signature = signature_header(
        secrets,
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp,
        body.as_bytes(),
    );
    headers.insert("webhook-signature", signature.parse().unwrap());
    headers
}

#[test]
fn the_docs_receiver_accepts_what_the_worker_signs_and_nothing_else() {
    let body = r#"{"type":"lead.created","timestamp":"2026-11-25T10:00:00Z","data":{"id":1}}"#;
    let now = chrono::Utc::now().timestamp();
    let event = receive(SECRET, &request(&[SECRET], now, body), body.as_bytes()).unwrap();
    assert_eq!(event["type"], "lead.created");
    // During a rotation the new secret signs first; a receiver still on the old one accepts.
    let newer = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    assert!(receive(
        SECRET,
        &request(&[newer, SECRET], now, body),
        body.as_bytes()
    )
    .is_ok());
    assert!(receive(newer, &request(&[SECRET], now, body), body.as_bytes()).is_err());
    let tampered = body.replace("\"id\":1", "\"id\":2");
    assert!(receive(SECRET, &request(&[SECRET], now, body), tampered.as_bytes()).is_err());
    // Older than the library's 5-minute window: refused.
    assert!(receive(
        SECRET,
        &request(&[SECRET], now - 600, body),
        body.as_bytes()
    )
    .is_err());
}

#[test]
fn the_docs_show_this_receiver() {
    let source = include_str!("receiver_example.rs");
    let start = source
        .find("// docs/webhooks.md: receiver start\n")
        .unwrap();
    let end = source.find("// docs/webhooks.md: receiver end").unwrap();
    let code = &source[start + "// docs/webhooks.md: receiver start\n".len()..end];
    let docs = include_str!("../../../../docs/webhooks.md");
    assert!(
        docs.contains(&format!("```rust\n{code}```")),
        "docs/webhooks.md's Rust receiver differs from crates/domain/src/webhook/receiver_example.rs:\n{code}"
    );
}
