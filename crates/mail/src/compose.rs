//! Turns a domain message into a complete e-mail: From, To, Subject and a multipart/alternative
//! body with a text/plain and a text/html part.
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::Utc;
use leadhub_domain::mail::{MailError, Message};
use lettre::message::{Mailbox, MultiPart};

use crate::render::{render, Rendered};

/// The sender, parsed once from the configuration (`"Name <user@host>"` or `"user@host"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender(Mailbox);

impl Sender {
    pub fn parse(from: &str) -> Result<Self, MailError> {
        from.trim().parse::<Mailbox>().map(Sender).map_err(|e| {
            MailError(format!(
                "invalid sender {from:?} ({e}); expected \"Name <user@example.com>\" or \"user@example.com\""
            ))
        })
    }

    pub fn mailbox(&self) -> &Mailbox {
        &self.0
    }
}

/// An e-mail ready for a transport, with the parts it was built from.
#[derive(Debug, Clone)]
pub struct Composed {
    pub to: Mailbox,
    pub rendered: Rendered,
    pub email: lettre::Message,
}

/// Renders `message` and builds the e-mail from `sender` to its recipient.
pub fn compose(sender: &Sender, message: &Message) -> Result<Composed, MailError> {
    let recipient = message.recipient().trim();
    let to = recipient
        .parse::<Mailbox>()
        .map_err(|e| MailError(format!("invalid recipient address {recipient:?}: {e}")))?;
    let rendered = render(message)?;
    let email = lettre::Message::builder()
        .from(sender.0.clone())
        .to(to.clone())
        .message_id(Some(message_id(&sender.0)))
        .subject(rendered.subject.clone())
        .multipart(MultiPart::alternative_plain_html(
            rendered.text.clone(),
            rendered.html.clone(),
        ))
        .map_err(|e| MailError(format!("cannot build the e-mail: {e}")))?;
    Ok(Composed {
        to,
        rendered,
        email,
    })
}

/// Unique per message: time, process and a counter, at the sender's domain (not the machine's
/// host name, which lettre would use and which says nothing to the recipient).
fn message_id(sender: &Mailbox) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "<{}.p{}.{count}.leadhub@{}>",
        Utc::now().format("%Y%m%d%H%M%S%.9f"),
        std::process::id(),
        sender.email.domain()
    )
}

/// A short name of the message kind, for logs and file names.
pub(crate) fn kind(message: &Message) -> &'static str {
    match message {
        Message::Invite { .. } => "invite",
        Message::SignIn { .. } => "sign-in",
        Message::WebhookDeactivated { .. } => "webhook-deactivated",
        Message::FollowUpsDue { .. } => "follow-ups-due",
        Message::LeadsGiven { .. } => "leads-given",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_forms() {
        let named = Sender::parse("leadhub <noreply@localhost>").map(|s| s.0);
        assert_eq!(
            named
                .as_ref()
                .map(|m| (m.name.as_deref(), m.email.to_string()))
                .ok(),
            Some((Some("leadhub"), "noreply@localhost".to_string()))
        );
        assert!(Sender::parse(" bare@example.com ").is_ok());
        let err = Sender::parse("not an address").err().map(|e| e.0);
        assert!(err.is_some_and(|e| e.contains("expected")));
        assert!(Sender::parse("").is_err());
    }
}
