//! `WebhookSender` over HTTP: one signed POST per attempt, through the egress guard.
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use leadhub_domain::error::with_causes;
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
    /// `egress_proxy`: the operator's `LEADHUB_EGRESS_PROXY`, which then checks the addresses.
    pub fn new(
        clock: Arc<dyn Clock>,
        allow_private: bool,
        egress_proxy: Option<&str>,
    ) -> anyhow::Result<HttpSender> {
        let mut client = crate::egress::client_builder(egress_proxy)?
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(SEND_TIMEOUT)
            .user_agent(concat!("leadhub-webhooks/", env!("CARGO_PKG_VERSION")));
        // Behind the operator's proxy the proxy resolves the endpoint's host (and ours would
        // refuse a proxy on a private address): IP literals are still checked before sending.
        if !allow_private && egress_proxy.is_none() {
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
                .map_err(|e| SendFailure::before_answer(with_causes(&e)))?;
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
                let text = plain(&String::from_utf8_lossy(&read));
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

/// An answer's text as the team reads it in `last_error`: one line of visible text, terminal
/// escape sequences taken out whole (`\x1b[31m`, not just its ESC), other control characters
/// (NUL, line breaks) and invisible direction or width marks turned into single spaces.
/// `stored_excerpt` then bounds it to 1 KiB.
fn plain(text: &str) -> String {
    let text = console::strip_ansi_codes(text);
    let hidden = |c: char| {
        c.is_control()
            || c.is_whitespace()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    };
    text.split(hidden)
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::webhook::stored_excerpt;

    #[test]
    fn an_answer_reaches_the_team_plain_and_bounded() {
        let answer = format!(
            "<h1>Denied</h1>\r\n\x1b[31mred\x1b[0m\0nul\u{202e}evil\tend{}",
            "é".repeat(4000)
        );
        let stored = stored_excerpt(&format!("HTTP 403: {}", plain(&answer)));
        assert!(stored.len() <= 1024, "{}", stored.len());
        assert!(
            stored.starts_with("HTTP 403: <h1>Denied</h1> red nul evil end"),
            "{stored}"
        );
        assert!(!stored.chars().any(|c| c.is_control() || c == '\u{202e}'));
        assert_eq!(plain(" \n "), "");
    }
}
