//! E-mail as a port: the domain says which message to whom; the mail adapter renders its
//! templates (plain text and HTML) and delivers it (SMTP, an outbox folder, or memory in tests).
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// An invitation to join a team.
    Invite {
        to: String,
        team_name: String,
        inviter_name: String,
        role: String,
        invite_url: String,
        expires_at: DateTime<Utc>,
    },
    /// A magic sign-in link.
    SignIn {
        to: String,
        sign_in_url: String,
        expires_at: DateTime<Utc>,
    },
    /// A team's webhook endpoint was turned off after failing every delivery for days.
    WebhookDeactivated {
        to: String,
        team_name: String,
        url: String,
        failing_since: DateTime<Utc>,
    },
    /// The morning e-mail of a person's leads due for a follow-up and of the leads others gave
    /// them since the day before (`lead::work::digest`).
    FollowUpsDue {
        to: String,
        day: NaiveDate,
        /// The leads due, soonest first; `list_url` is the person's "Follow-ups due" list.
        due: LeadList,
        /// The open leads someone else gave them (made them their owner) in the last day, the
        /// latest first; `list_url` is their leads not contacted yet.
        given: LeadList,
        /// Where the e-mail is turned off.
        settings_url: String,
    },
    /// New leads given to the person in turn (`lead::work::given_mail`), sent as they arrive;
    /// `list_url` is their leads not contacted yet. The digest's switch turns it off too.
    LeadsGiven {
        to: String,
        given: LeadList,
        settings_url: String,
    },
}

/// A part of an e-mail that counts leads, names the first few and links to them all.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LeadList {
    /// All of them (may be 0); `leads` names the first few.
    pub count: i64,
    pub leads: Vec<DueLine>,
    pub list_url: String,
}

/// One lead in a `FollowUpsDue` e-mail; one that was given has no follow-up day, perhaps.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DueLine {
    pub address: String,
    pub owner: Option<String>,
    pub status: String,
    pub follow_up_on: Option<NaiveDate>,
    pub url: String,
}

impl Message {
    pub fn recipient(&self) -> &str {
        match self {
            Message::Invite { to, .. }
            | Message::SignIn { to, .. }
            | Message::WebhookDeactivated { to, .. }
            | Message::FollowUpsDue { to, .. }
            | Message::LeadsGiven { to, .. } => to,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("e-mail not sent: {0}")]
pub struct MailError(pub String);

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    async fn send(&self, message: &Message) -> Result<(), MailError>;
}
