//! `WebhookSender` over HTTP: one signed POST per attempt, through the egress guard.
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use leadhub_domain::webhook::signature::signature_header;
use leadhub_domain::webhook::{DueDelivery, SendFailure, WebhookSender};
use leadhub_domain::Clock;

use crate::target::{literal_refused, PublicOnly};

/// A 2xx within this long is a success; anything slower is cut and retried.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);
/// Most of an answer's body read; what is stored is cut to 1 KiB.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

pub struct HttpSender {
    client: reqwest::Client,
    clock: Arc<dyn Clock>,
    /// `LEADHUB_WEBHOOK_ALLOW_PRIVATE=1`: loopback and private addresses may be targets.
    allow_private: bool,
}

impl HttpSender {
    pub fn new(clock: Arc<dyn Clock>, allow_private: bool) -> anyhow::Result<HttpSender> {
        let mut client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(SEND_TIMEOUT)
            .user_agent(concat!("leadhub-webhooks/", env!("CARGO_PKG_VERSION")));
        if !allow_private {
            client = client.dns_resolver(Arc::new(PublicOnly));
        }
        Ok(HttpSender {
            client: client.build()?,
            clock,
            allow_private,
        })
    }
}

#[async_trait]
impl WebhookSender for HttpSender {
    async fn send(&self, d: &DueDelivery, body: &str) -> Result<i32, SendFailure> {
        let url = reqwest::Url::parse(&d.url)
            .map_err(|e| SendFailure::before_answer(format!("bad URL: {e}")))?;
        if !self.allow_private {
            if let Some(refused) = literal_refused(&url) {
                return Err(SendFailure::before_answer(refused));
            }
        }
        let timestamp = self.clock.now().timestamp();
        let secrets: Vec<&str> = d.secrets.iter().map(String::as_str).collect();
        let signature = signature_header(&secrets, &d.event_id, timestamp, body.as_bytes());
        let request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &d.event_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body.to_owned());
        let exchange = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| SendFailure::before_answer(describe(&e)))?;
            let status = i32::from(response.status().as_u16());
            let mut read = Vec::new();
            while read.len() < MAX_RESPONSE_BYTES {
                match response.chunk().await {
                    Ok(Some(chunk)) => read.extend_from_slice(&chunk),
                    _ => break,
                }
            }
            read.truncate(MAX_RESPONSE_BYTES);
            if response.status().is_success() {
                Ok(status)
            } else {
                let text = String::from_utf8_lossy(&read);
                Err(SendFailure {
                    status: Some(status),
                    error: format!("HTTP {status}: {text}"),
                })
            }
        };
        match tokio::time::timeout(SEND_TIMEOUT, exchange).await {
            Ok(done) => done,
            Err(_) => Err(SendFailure::before_answer(format!(
                "no answer within {} s",
                SEND_TIMEOUT.as_secs()
            ))),
        }
    }
}

/// A transport error with its causes, which say what actually failed (refused, timed out).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
