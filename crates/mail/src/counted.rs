//! A `Mailer` that counts what it hands on: `leadhub_emails_total{kind, outcome}` for whichever
//! adapter stands behind it (SMTP, the outbox folder, memory in tests).
use std::sync::Arc;

use async_trait::async_trait;
use leadhub_domain::mail::{MailError, Mailer, Message};
use leadhub_domain::telemetry::EMAILS;

use crate::compose::kind;

pub struct CountedMailer {
    inner: Arc<dyn Mailer>,
}

impl CountedMailer {
    pub fn new(inner: Arc<dyn Mailer>) -> CountedMailer {
        CountedMailer { inner }
    }
}

#[async_trait]
impl Mailer for CountedMailer {
    async fn send(&self, message: &Message) -> Result<(), MailError> {
        let result = self.inner.send(message).await;
        let outcome = if result.is_ok() { "sent" } else { "failed" };
        metrics::counter!(EMAILS, "kind" => kind(message), "outcome" => outcome).increment(1);
        result
    }
}
