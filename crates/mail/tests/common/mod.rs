//! Shared by the integration tests: sample messages and a MIME parser check.
#![allow(dead_code)]

pub mod smtp_sink;

use chrono::{TimeZone, Utc};
use leadhub_domain::mail::Message;
use mail_parser::{MessageParser, MimeHeaders};

pub const INVITE_URL: &str = "https://leads.example.com/invite/lhi_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA";
pub const SIGN_IN_URL: &str =
    "https://leads.example.com/sign-in?token=lhm_c2lnbmlubGlua3Rva2VuMTIzNA";

pub fn invite(team_name: &str) -> Message {
    Message::Invite {
        to: "new.member@example.org".into(),
        team_name: team_name.into(),
        inviter_name: "Ada Owner".into(),
        role: "admin".into(),
        invite_url: INVITE_URL.into(),
        expires_at: Utc
            .with_ymd_and_hms(2026, 2, 7, 17, 4, 5)
            .single()
            .unwrap_or_default(),
    }
}

pub fn sign_in() -> Message {
    Message::SignIn {
        to: "Someone@Example.org".into(),
        sign_in_url: SIGN_IN_URL.into(),
        expires_at: Utc
            .with_ymd_and_hms(2026, 1, 31, 17, 19, 5)
            .single()
            .unwrap_or_default(),
    }
}

/// An e-mail as a MIME parser reads it back.
#[derive(Debug)]
pub struct Parsed {
    pub from: String,
    pub from_name: Option<String>,
    pub to: String,
    pub subject: String,
    pub content_type: String,
    pub text: String,
    pub html: String,
    pub has_date: bool,
    pub has_message_id: bool,
}

impl Parsed {
    /// Checks that this is the invite to `team_name` made by `invite`, with its link in both parts.
    pub fn assert_invite_to(&self, team_name: &str) {
        assert_eq!(
            self.subject,
            format!("You're invited to join {team_name} on leadhub")
        );
        assert!(self.text.contains(INVITE_URL), "{}", self.text);
        assert!(self.html.contains(INVITE_URL), "{}", self.html);
    }
}

/// Parses a full RFC 5322 message with a real MIME parser (transfer encodings decoded).
pub fn parse_eml(raw: &[u8]) -> Parsed {
    let message = MessageParser::default()
        .parse(raw)
        .expect("a parseable e-mail");
    let from = message
        .from()
        .and_then(|a| a.first())
        .expect("a From address");
    let content_type = message
        .root_part()
        .content_type()
        .map(|ct| format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default()))
        .unwrap_or_default();
    Parsed {
        from: from.address().unwrap_or_default().to_string(),
        from_name: from.name().map(str::to_string),
        to: message
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string(),
        subject: message.subject().unwrap_or_default().to_string(),
        content_type,
        text: message
            .text_part(0)
            .and_then(|p| p.text_contents())
            .unwrap_or_default()
            .to_string(),
        html: message
            .html_part(0)
            .and_then(|p| p.text_contents())
            .unwrap_or_default()
            .to_string(),
        has_date: message.date().is_some(),
        has_message_id: message.message_id().is_some(),
    }
}
