//! The in-memory mailer that the app's tests use.
mod common;

use std::sync::Arc;

use common::{invite, parse_eml, sign_in, INVITE_URL, SIGN_IN_URL};
use leadhub_domain::mail::Mailer;
use leadhub_mail::MemoryMailer;

#[tokio::test]
async fn keeps_what_was_sent_in_order() {
    let mailer = MemoryMailer::new();
    let port: Arc<dyn Mailer> = Arc::new(mailer.clone());
    port.send(&invite("Roofing Crew")).await.expect("sent");
    port.send(&sign_in()).await.expect("sent");

    let sent = mailer.sent();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].to, "new.member@example.org");
    assert_eq!(
        sent[0].subject,
        "You're invited to join Roofing Crew on leadhub"
    );
    assert!(sent[0].text.contains(INVITE_URL) && sent[0].html.contains(INVITE_URL));
    assert_eq!(sent[0].message, invite("Roofing Crew"));
    assert_eq!(sent[1].subject, "Your leadhub sign-in link");

    let parsed = parse_eml(sent[1].eml.as_bytes());
    assert_eq!(parsed.from, "noreply@localhost");
    assert_eq!(parsed.to, "Someone@Example.org");
    assert!(parsed.text.contains(SIGN_IN_URL));

    let last = mailer
        .last_to("someone@example.org")
        .expect("found case-insensitively");
    assert_eq!(last.subject, "Your leadhub sign-in link");
    mailer.clear();
    assert!(mailer.sent().is_empty());
}

#[tokio::test]
async fn can_be_told_to_fail() {
    let mailer = MemoryMailer::with_from("Ops <ops@leads.example.com>").expect("sender");
    mailer.set_failing(Some("SMTP is down"));
    let err = mailer.send(&sign_in()).await.expect_err("failing");
    assert_eq!(err.to_string(), "e-mail not sent: SMTP is down");
    assert!(mailer.sent().is_empty());
    mailer.set_failing(None);
    mailer.send(&sign_in()).await.expect("sent");
    assert_eq!(
        parse_eml(mailer.sent()[0].eml.as_bytes()).from,
        "ops@leads.example.com"
    );
}
