//! The templates and the e-mail built from them, checked through a real MIME parser.
mod common;

use common::{invite, parse_eml, sign_in, INVITE_URL, SIGN_IN_URL};
use leadhub_domain::mail::Message;
use leadhub_mail::{compose, render, Sender, DEFAULT_FROM};

fn sender() -> Sender {
    Sender::parse("Leadhub Team <team@leads.example.com>").expect("sender")
}

#[test]
fn invite_has_subject_text_and_html_with_the_link() {
    let rendered = render(&invite("Roofing Crew")).expect("rendered");
    assert_eq!(
        rendered.subject,
        "You're invited to join Roofing Crew on leadhub"
    );
    for part in [&rendered.text, &rendered.html] {
        assert!(part.contains("Ada Owner"), "{part}");
        assert!(part.contains("Roofing Crew"), "{part}");
        assert!(part.contains("an admin"), "{part}");
        assert!(part.contains("7 February 2026, 17:04 UTC"), "{part}");
    }
    assert!(rendered.text.contains(INVITE_URL));
    assert!(
        rendered
            .html
            .contains(&format!(r#"<a href="{INVITE_URL}""#)),
        "{}",
        rendered.html
    );
    assert!(rendered.html.contains("<!DOCTYPE html>"));
    assert!(
        !rendered.text.contains('<'),
        "the text part has no markup: {}",
        rendered.text
    );
}

#[test]
fn sign_in_has_subject_text_and_html_with_the_link() {
    let rendered = render(&sign_in()).expect("rendered");
    assert_eq!(rendered.subject, "Your leadhub sign-in link");
    assert!(rendered.text.contains(SIGN_IN_URL));
    assert!(rendered
        .text
        .contains("valid until 31 January 2026, 17:19 UTC"));
    // `?token=` stays a working link; `&` would be escaped as `&amp;`, which is right in HTML.
    assert!(
        rendered.html.contains(&format!(r#"href="{SIGN_IN_URL}""#)),
        "{}",
        rendered.html
    );
    assert!(rendered
        .html
        .contains("valid until 31 January 2026, 17:19 UTC"));
}

#[test]
fn markup_in_values_is_escaped_in_the_html_part() {
    let message = Message::Invite {
        to: "x@example.org".into(),
        team_name: r#"<script>alert("x")</script> & Co"#.into(),
        inviter_name: "<b>Mallory</b>".into(),
        role: "member".into(),
        invite_url: "https://leads.example.com/invite/a\"onmouseover=\"alert(1)".into(),
        expires_at: chrono::Utc::now(),
    };
    let rendered = render(&message).expect("rendered");
    assert!(!rendered.html.contains("<script>"), "{}", rendered.html);
    assert!(!rendered.html.contains("<b>Mallory"), "{}", rendered.html);
    assert!(
        rendered
            .html
            .contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co"),
        "{}",
        rendered.html
    );
    assert!(
        rendered.html.contains("&lt;b&gt;Mallory&lt;/b&gt;"),
        "{}",
        rendered.html
    );
    // A quote in the link cannot close the href attribute.
    assert!(
        !rendered.html.contains(r#"a"onmouseover"#),
        "{}",
        rendered.html
    );
    assert!(
        rendered.html.contains("a&quot;onmouseover=&quot;alert(1)"),
        "{}",
        rendered.html
    );
    // Plain text is not HTML: it shows the value as given.
    assert!(rendered
        .text
        .contains(r#"<script>alert("x")</script> & Co"#));
}

#[test]
fn subject_is_one_line_whatever_the_team_name() {
    let rendered = render(&invite("Night\r\nBcc: victim@example.org\tCrew")).expect("rendered");
    assert_eq!(
        rendered.subject,
        "You're invited to join Night Bcc: victim@example.org Crew on leadhub"
    );
}

#[test]
fn links_other_than_http_are_refused() {
    let message = Message::SignIn {
        to: "x@example.org".into(),
        sign_in_url: "javascript:alert(1)".into(),
        expires_at: chrono::Utc::now(),
    };
    let err = render(&message).expect_err("a javascript: link");
    assert!(err.to_string().starts_with("e-mail not sent:"), "{err}");
}

#[test]
fn the_email_is_multipart_alternative_from_the_sender_to_the_recipient() {
    let composed = compose(&sender(), &invite("Roofing Crew")).expect("composed");
    let parsed = parse_eml(&composed.email.formatted());
    assert_eq!(parsed.content_type, "multipart/alternative");
    assert_eq!(parsed.from, "team@leads.example.com");
    assert_eq!(parsed.from_name.as_deref(), Some("Leadhub Team"));
    assert_eq!(parsed.to, "new.member@example.org");
    parsed.assert_invite_to("Roofing Crew");
    assert!(parsed.has_date && parsed.has_message_id);
    let raw = String::from_utf8_lossy(&composed.email.formatted()).into_owned();
    assert!(
        raw.contains("Content-Type: text/plain; charset=utf-8"),
        "{raw}"
    );
    assert!(
        raw.contains("Content-Type: text/html; charset=utf-8"),
        "{raw}"
    );
}

#[test]
fn non_ascii_values_survive_the_transfer_encoding() {
    let composed = compose(&sender(), &invite("Café Ñandú — Équipe")).expect("composed");
    let parsed = parse_eml(&composed.email.formatted());
    parsed.assert_invite_to("Café Ñandú — Équipe");
    assert!(parsed.text.contains("Café Ñandú — Équipe"));
    assert!(parsed.html.contains("Café Ñandú — Équipe"));
}

#[test]
fn invalid_addresses_are_mail_errors() {
    let mut message = sign_in();
    if let Message::SignIn { to, .. } = &mut message {
        *to = "not an address".into();
    }
    let err = compose(&sender(), &message).expect_err("bad recipient");
    assert!(err.0.contains("recipient"), "{err}");

    for bad in ["", "leadhub", "leadhub <noreply>x", "a@b@c"] {
        assert!(Sender::parse(bad).is_err(), "{bad:?} was accepted");
    }
    assert!(Sender::parse(DEFAULT_FROM).is_ok());
    assert!(Sender::parse("noreply@leads.example.com").is_ok());
}

#[test]
fn recipient_display_names_are_accepted() {
    let mut message = sign_in();
    if let Message::SignIn { to, .. } = &mut message {
        *to = "Some One <some.one@example.org>".into();
    }
    let composed = compose(&sender(), &message).expect("composed");
    assert_eq!(composed.to.email.to_string(), "some.one@example.org");
}
