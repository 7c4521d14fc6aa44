//! Delivery over SMTP with lettre, configured by a URL:
//! `smtp://host:port` (plain), `smtp://host:port?tls=required` (STARTTLS),
//! `smtps://host:port` (implicit TLS), each optionally with `user:password@` (percent-encoded).
use std::sync::OnceLock;
use std::time::Duration;

use async_trait::async_trait;
use leadhub_domain::mail::{MailError, Mailer, Message};
use lettre::transport::smtp::AsyncSmtpTransportBuilder;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use crate::compose::{compose, kind, Sender};

/// How long establishing a connection (TCP and TLS) may take.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one delivery may take in all. lettre bounds only the connect, so a server that accepts
/// and then stalls is cut off here.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);

pub struct SmtpMailer {
    sender: Sender,
    builder: AsyncSmtpTransportBuilder,
    /// Built on first use: lettre's connection pool spawns its clean-up task on the current Tokio
    /// runtime, so building it lazily lets the mailer be created outside one.
    transport: OnceLock<AsyncSmtpTransport<Tokio1Executor>>,
    /// `scheme://host:port`, without credentials, for messages and logs.
    server: String,
    send_timeout: Duration,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("server", &self.server)
            .field("sender", &self.sender)
            .finish_non_exhaustive()
    }
}

impl SmtpMailer {
    /// Checks the URL and the sender; connects only when the first message is sent.
    pub fn new(smtp_url: &str, from: &str) -> Result<Self, MailError> {
        let sender = Sender::parse(from)?;
        let server = describe(smtp_url)?;
        let builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url.trim())
            .map_err(|e| MailError(format!("invalid SMTP URL {server}: {e}")))?
            .timeout(Some(DEFAULT_CONNECT_TIMEOUT));
        Ok(Self {
            sender,
            builder,
            transport: OnceLock::new(),
            server,
            send_timeout: DEFAULT_SEND_TIMEOUT,
        })
    }

    /// Replaces the connect and whole-delivery time limits (before the first send).
    pub fn with_timeouts(mut self, connect: Duration, send: Duration) -> Self {
        self.builder = self.builder.timeout(Some(connect));
        self.send_timeout = send;
        self
    }

    /// `scheme://host:port` of the server, without credentials.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn transport(&self) -> &AsyncSmtpTransport<Tokio1Executor> {
        self.transport.get_or_init(|| self.builder.clone().build())
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, message: &Message) -> Result<(), MailError> {
        let composed = compose(&self.sender, message)?;
        let delivery = self.transport().send(composed.email);
        match tokio::time::timeout(self.send_timeout, delivery).await {
            Ok(Ok(_response)) => {
                tracing::info!(kind = kind(message), server = %self.server, "e-mail sent");
                Ok(())
            }
            Ok(Err(e)) => Err(MailError(format!(
                "SMTP delivery via {} failed: {e}",
                self.server
            ))),
            Err(_) => Err(MailError(format!(
                "SMTP delivery via {} timed out after {} s",
                self.server,
                self.send_timeout.as_secs_f32()
            ))),
        }
    }
}

/// Validates the URL's outline and describes it without user or password.
fn describe(smtp_url: &str) -> Result<String, MailError> {
    let url = smtp_url.trim();
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(MailError(
            "invalid SMTP URL: expected smtp://host:port or smtps://host:port".into(),
        ));
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "smtp" && scheme != "smtps" {
        return Err(MailError(format!(
            "invalid SMTP URL: unknown scheme {scheme:?}, expected smtp:// or smtps://"
        )));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (userinfo, host_port) = authority.rsplit_once('@').unwrap_or(("", authority));
    if !userinfo.is_empty() && !userinfo.contains(':') {
        // lettre would silently send without logging in.
        return Err(MailError(
            "invalid SMTP URL: a user name needs a password (smtp://user:password@host:port)"
                .into(),
        ));
    }
    if host_port.is_empty() || host_port.starts_with(':') {
        return Err(MailError(format!(
            "invalid SMTP URL: no host in {scheme}://..."
        )));
    }
    Ok(format!("{scheme}://{host_port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_hides_credentials() {
        assert_eq!(
            describe("smtp://user:s3cret@mail.example.com:2525?tls=required").ok(),
            Some("smtp://mail.example.com:2525".to_string())
        );
        assert_eq!(
            describe("smtps://mail.example.com").ok(),
            Some("smtps://mail.example.com".to_string())
        );
        assert!(describe("http://mail.example.com").is_err());
        assert!(describe("mail.example.com:25").is_err());
        assert!(describe("smtp://:25").is_err());
        assert!(describe("smtp://user:pw@").is_err());
        assert!(describe("smtp://user@mail.example.com").is_err());
    }
}
