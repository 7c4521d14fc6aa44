//! Delivery into memory, for tests: every message is rendered and formatted exactly as the other
//! transports do, then kept so a test can read it back.
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use leadhub_domain::mail::{MailError, Mailer, Message};

use crate::compose::{compose, Sender};
use crate::DEFAULT_FROM;

/// One e-mail as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct SentMail {
    /// The recipient's address (without a display name).
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// The full RFC 5322 message as it would go over SMTP.
    pub eml: String,
    /// The domain message it was made from (to read a link without parsing the text).
    pub message: Message,
}

/// Clones share one mailbox: keep a clone in the test, hand another to the app.
#[derive(Debug, Clone)]
pub struct MemoryMailer {
    sender: Sender,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    sent: Vec<SentMail>,
    failing: Option<String>,
}

impl MemoryMailer {
    /// Sends as `leadhub <noreply@localhost>`.
    pub fn new() -> Self {
        let sender = Sender::parse(DEFAULT_FROM);
        // The default sender is a constant that the tests parse; this cannot fail.
        let sender = sender.expect("the default sender parses");
        Self::with_sender(sender)
    }

    pub fn with_from(from: &str) -> Result<Self, MailError> {
        Ok(Self::with_sender(Sender::parse(from)?))
    }

    fn with_sender(sender: Sender) -> Self {
        Self {
            sender,
            state: Arc::default(),
        }
    }

    /// Everything sent so far, oldest first.
    pub fn sent(&self) -> Vec<SentMail> {
        self.lock().sent.clone()
    }

    /// The last e-mail sent to `to` (compared case-insensitively), if any.
    pub fn last_to(&self, to: &str) -> Option<SentMail> {
        self.lock()
            .sent
            .iter()
            .rev()
            .find(|m| m.to.eq_ignore_ascii_case(to.trim()))
            .cloned()
    }

    pub fn clear(&self) {
        self.lock().sent.clear();
    }

    /// From now on every send fails with this reason (`None` to deliver again), to test what a
    /// caller does when e-mail is down.
    pub fn set_failing(&self, reason: Option<&str>) {
        self.lock().failing = reason.map(str::to_owned);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not hide the mails from the others.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Default for MemoryMailer {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Mailer for MemoryMailer {
    async fn send(&self, message: &Message) -> Result<(), MailError> {
        if let Some(reason) = self.lock().failing.clone() {
            return Err(MailError(reason));
        }
        let composed = compose(&self.sender, message)?;
        let eml = String::from_utf8_lossy(&composed.email.formatted()).into_owned();
        let mail = SentMail {
            to: composed.to.email.to_string(),
            subject: composed.rendered.subject,
            text: composed.rendered.text,
            html: composed.rendered.html,
            eml,
            message: message.clone(),
        };
        self.lock().sent.push(mail);
        Ok(())
    }
}
