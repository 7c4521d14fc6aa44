//! The e-mail templates: a subject, a plain-text part and an HTML part per message kind, rendered
//! with tera. The templates are compiled into the binary; HTML is autoescaped.
use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate, Utc};
use leadhub_domain::mail::{LeadList, MailError, Message};
use tera::{Context, Tera};

/// A message rendered and ready to be put into an e-mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

const TEMPLATES: [(&str, &str); 16] = [
    ("layout.html", include_str!("../templates/layout.html")),
    (
        "invite.subject.txt",
        include_str!("../templates/invite.subject.txt"),
    ),
    ("invite.txt", include_str!("../templates/invite.txt")),
    ("invite.html", include_str!("../templates/invite.html")),
    (
        "sign_in.subject.txt",
        include_str!("../templates/sign_in.subject.txt"),
    ),
    ("sign_in.txt", include_str!("../templates/sign_in.txt")),
    ("sign_in.html", include_str!("../templates/sign_in.html")),
    (
        "webhook_deactivated.subject.txt",
        include_str!("../templates/webhook_deactivated.subject.txt"),
    ),
    (
        "webhook_deactivated.txt",
        include_str!("../templates/webhook_deactivated.txt"),
    ),
    (
        "webhook_deactivated.html",
        include_str!("../templates/webhook_deactivated.html"),
    ),
    (
        "follow_ups_due.subject.txt",
        include_str!("../templates/follow_ups_due.subject.txt"),
    ),
    (
        "follow_ups_due.txt",
        include_str!("../templates/follow_ups_due.txt"),
    ),
    (
        "follow_ups_due.html",
        include_str!("../templates/follow_ups_due.html"),
    ),
    (
        "leads_given.subject.txt",
        include_str!("../templates/leads_given.subject.txt"),
    ),
    (
        "leads_given.txt",
        include_str!("../templates/leads_given.txt"),
    ),
    (
        "leads_given.html",
        include_str!("../templates/leads_given.html"),
    ),
];

// Parsed once. The templates are part of the binary, so a parse error is a programming error that
// the tests catch; it is still reported as an error (never a panic), and `check_templates` lets the
// composition root surface it at start-up.
static TERA: LazyLock<Result<Tera, String>> = LazyLock::new(|| html_templates(TEMPLATES));

/// Parses compiled-in templates, `.html` ones escaped by `escape_html` (the pages use it too).
pub fn html_templates<const N: usize>(templates: [(&str, &str); N]) -> Result<Tera, String> {
    let mut tera = Tera::default();
    tera.autoescape_on(vec![".html"]);
    tera.set_escape_fn(escape_html);
    tera.add_raw_templates(templates)
        .map_err(|e| format!("{e:?}"))?;
    Ok(tera)
}

/// Fails when the compiled-in templates do not parse.
pub fn check_templates() -> Result<(), MailError> {
    templates().map(|_| ())
}

fn templates() -> Result<&'static Tera, MailError> {
    TERA.as_ref()
        .map_err(|e| MailError(format!("e-mail templates do not parse: {e}")))
}

/// Renders the subject, text and HTML of a message.
pub fn render(message: &Message) -> Result<Rendered, MailError> {
    let (name, values) = match message {
        Message::Invite {
            team_name,
            inviter_name,
            role,
            invite_url,
            expires_at,
            ..
        } => (
            "invite",
            vec![
                ("team_name", team_name.trim().to_owned()),
                ("inviter_name", inviter_name.trim().to_owned()),
                ("role_with_article", with_article(role.trim())),
                ("invite_url", checked_link(invite_url)?.to_owned()),
                ("expires_at", human_time(expires_at)),
            ],
        ),
        Message::SignIn {
            sign_in_url,
            expires_at,
            ..
        } => (
            "sign_in",
            vec![
                ("sign_in_url", checked_link(sign_in_url)?.to_owned()),
                ("expires_at", human_time(expires_at)),
            ],
        ),
        Message::WebhookDeactivated {
            team_name,
            url,
            failing_since,
            ..
        } => (
            "webhook_deactivated",
            vec![
                ("team_name", team_name.trim().to_owned()),
                ("url", url.clone()),
                ("failing_since", human_time(failing_since)),
            ],
        ),
        Message::FollowUpsDue {
            day,
            due,
            given,
            settings_url,
            ..
        } => return follow_ups_due(*day, due, given, settings_url),
        Message::LeadsGiven {
            given,
            settings_url,
            ..
        } => return leads_given(given, settings_url),
    };
    let mut context = Context::new();
    for (key, value) in values {
        context.insert(key, &value);
    }
    render_parts(name, context)
}

/// The names one list of leads goes by in a template: its count, how many more it has than it
/// names, the leads it names, and the link to them all.
struct ListNames {
    count: &'static str,
    more: &'static str,
    leads: &'static str,
    url: &'static str,
}

/// Puts `list` into `context` under `names`, each link checked; the link to the whole list only
/// when it counts leads (a template shows it only then).
fn insert_list(context: &mut Context, list: &LeadList, names: ListNames) -> Result<(), MailError> {
    for line in &list.leads {
        checked_link(&line.url)?;
    }
    context.insert(names.count, &list.count);
    context.insert(names.more, &(list.count - list.leads.len() as i64).max(0));
    context.insert(names.leads, &list.leads);
    if list.count > 0 {
        context.insert(names.url, checked_link(&list.list_url)?);
    }
    Ok(())
}

/// The leads given to a person, as both e-mails that tell of them name them.
const GIVEN: ListNames = ListNames {
    count: "given",
    more: "given_more",
    leads: "given_leads",
    url: "given_url",
};

/// Lists of leads do not fit `render`'s text values: its own context.
fn follow_ups_due(
    day: NaiveDate,
    due: &LeadList,
    given: &LeadList,
    settings_url: &str,
) -> Result<Rendered, MailError> {
    let mut context = Context::new();
    context.insert("day", &day.format("%A %-d %B").to_string());
    let due_names = ListNames {
        count: "due",
        more: "more",
        leads: "leads",
        url: "list_url",
    };
    insert_list(&mut context, due, due_names)?;
    insert_list(&mut context, given, GIVEN)?;
    context.insert("settings_url", checked_link(settings_url)?);
    render_parts("follow_ups_due", context)
}

/// The e-mail of new leads given in turn: the digest's list of given leads alone.
fn leads_given(given: &LeadList, settings_url: &str) -> Result<Rendered, MailError> {
    let mut context = Context::new();
    insert_list(&mut context, given, GIVEN)?;
    context.insert("settings_url", checked_link(settings_url)?);
    render_parts("leads_given", context)
}

fn render_parts(name: &str, mut context: Context) -> Result<Rendered, MailError> {
    let tera = templates()?;
    let render = |template: String, context: &Context| {
        tera.render(&template, context)
            .map_err(|e| MailError(format!("template {template} failed: {e:?}")))
    };
    // A subject is one line, whatever a team name contains.
    let subject = render(format!("{name}.subject.txt"), &context)?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    context.insert("subject", &subject);
    let text = render(format!("{name}.txt"), &context)?;
    let html = render(format!("{name}.html"), &context)?;
    Ok(Rendered {
        subject,
        text,
        html,
    })
}

/// Links are built by the service from the public URL; anything but http(s) (a `javascript:`
/// URL, say) must never become a clickable link in a mail client.
fn checked_link(url: &str) -> Result<&str, MailError> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let scheme_ok = lower.starts_with("https://") || lower.starts_with("http://");
    if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(MailError(
            "the link in the e-mail is not an http(s) URL".into(),
        ));
    }
    Ok(url)
}

fn human_time(at: &DateTime<Utc>) -> String {
    at.format("%-d %B %Y, %H:%M UTC").to_string()
}

fn with_article(role: &str) -> String {
    let vowel = role
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {role}", if vowel { "an" } else { "a" })
}

/// HTML escaping for text and for double-quoted attribute values. Unlike tera's default it leaves
/// `/` alone, so a link's `href` stays readable to mail clients, link scanners and browsers.
fn escape_html(input: &str) -> String {
    let mut out = String::with_capacity(input.len() + 16);
    for c in input.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::mail::DueLine;

    #[test]
    fn templates_parse() {
        assert!(check_templates().is_ok(), "{:?}", check_templates());
    }

    #[test]
    fn escapes_markup_but_not_slashes() {
        assert_eq!(
            escape_html(r#"<a href="x">&'/"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;/"
        );
        assert_eq!(
            escape_html("<script>alert('x\")</script>&"),
            "&lt;script&gt;alert(&#x27;x&quot;)&lt;/script&gt;&amp;"
        );
    }

    #[test]
    fn follow_ups_due_lists_the_leads_escaped_and_counts_the_rest() {
        let line = |n: i64, address: &str| DueLine {
            address: address.into(),
            owner: (n == 1).then(|| "Ann <Lee>".to_owned()),
            status: "new".into(),
            follow_up_on: Some("2026-12-02".parse().unwrap()),
            url: format!("https://leads.test/leads/{n}"),
        };
        let message = Message::FollowUpsDue {
            to: "mia@example.com".into(),
            day: "2026-12-03".parse().unwrap(),
            due: LeadList {
                count: 5,
                leads: vec![line(1, "1 Oak St"), line(2, "2 <b>Elm</b> St")],
                list_url: "https://leads.test/leads?assignee=me&follow_up_by=2026-12-03".into(),
            },
            given: LeadList::default(),
            settings_url: "https://leads.test/#digest".into(),
        };
        let r = render(&message).unwrap();
        assert_eq!(r.subject, "5 follow-ups due today");
        assert!(
            r.text.contains(
                "5 of your open leads are due for a follow-up today, Thursday 3 December:"
            ),
            "{}",
            r.text
        );
        assert!(
            r.text.contains(
                "- 1 Oak St, Ann <Lee> (new, due 2026-12-02)\n  https://leads.test/leads/1"
            ),
            "{}",
            r.text
        );
        assert!(r.text.contains("and 3 more."), "{}", r.text);
        assert!(r.html.contains(r#"<a href="https://leads.test/leads/2" style="color:#0969da;">2 &lt;b&gt;Elm&lt;/b&gt; St</a>"#), "{}", r.html);
        assert!(r.html.contains("Ann &lt;Lee&gt;"));
        assert!(
            r.html.contains(
                r#"href="https://leads.test/leads?assignee=me&amp;follow_up_by=2026-12-03""#
            ),
            "{}",
            r.html
        );

        let one = Message::FollowUpsDue {
            to: "mia@example.com".into(),
            day: "2026-12-03".parse().unwrap(),
            due: LeadList {
                count: 1,
                leads: vec![line(7, "7 Oak St")],
                list_url: "https://leads.test/leads".into(),
            },
            given: LeadList::default(),
            settings_url: "javascript:alert(1)".into(),
        };
        assert!(
            render(&one).is_err(),
            "a link that is not http(s) is refused"
        );

        // Leads given lately, nothing due: their own part, and the subject says so.
        let mut fresh = line(9, "9 Elm St");
        fresh.follow_up_on = None;
        let given = Message::FollowUpsDue {
            to: "mia@example.com".into(),
            day: "2026-12-03".parse().unwrap(),
            due: LeadList {
                list_url: "https://leads.test/leads?assignee=me&follow_up_by=2026-12-03".into(),
                ..LeadList::default()
            },
            given: LeadList {
                count: 3,
                leads: vec![fresh],
                list_url: "https://leads.test/leads?assignee=me&contacted=false".into(),
            },
            settings_url: "https://leads.test/#digest".into(),
        };
        let r = render(&given).unwrap();
        assert_eq!(r.subject, "3 new leads for you");
        assert!(!r.text.contains("due for a follow-up"), "{}", r.text);
        assert!(
            r.text.contains(
                "3 open leads were given to you since yesterday:\n\n- 9 Elm St (new)\n  https://leads.test/leads/9\n\nand 2 more.\n\nYour leads not contacted yet: https://leads.test/leads?assignee=me&contacted=false"
            ),
            "{}",
            r.text
        );
        assert!(
            r.html
                .contains(r#"href="https://leads.test/leads?assignee=me&amp;contacted=false""#),
            "{}",
            r.html
        );
        assert!(!r.html.contains("Work them from the list"), "{}", r.html);
    }

    #[test]
    fn article_follows_the_role() {
        assert_eq!(with_article("admin"), "an admin");
        assert_eq!(with_article("member"), "a member");
    }

    #[test]
    fn only_http_links() {
        for (link, taken) in [
            ("https://x.test/invite/abc", true),
            ("HTTP://x.test/a", true),
            ("javascript:alert(1)", false),
            ("https://x.test/a b", false),
            ("", false),
        ] {
            assert_eq!(checked_link(link).is_ok(), taken, "{link:?}");
        }
    }

    #[test]
    fn leads_given_names_the_leads_escaped_and_counts_the_rest() {
        let line = |n: i64, address: &str| DueLine {
            address: address.into(),
            owner: (n == 2).then(|| "Ann <Lee>".to_owned()),
            status: "new".into(),
            follow_up_on: None,
            url: format!("https://leads.test/leads/{n}"),
        };
        let given = |count: i64, leads: Vec<DueLine>| Message::LeadsGiven {
            to: "mia@example.com".into(),
            given: LeadList {
                count,
                leads,
                list_url: "https://leads.test/leads?assignee=me&contacted=false".into(),
            },
            settings_url: "https://leads.test/#digest".into(),
        };
        let one = render(&given(1, vec![line(1, "1 Oak St")])).unwrap();
        assert_eq!(one.subject, "A new lead for you: 1 Oak St");
        assert!(one.text.contains("A new lead was given to you in turn:\n\n- 1 Oak St (new)\n  https://leads.test/leads/1"), "{}", one.text);
        let many = render(&given(
            25,
            vec![line(1, "1 Oak St"), line(2, "2 <b>Elm</b> St")],
        ))
        .unwrap();
        assert_eq!(many.subject, "25 new leads for you");
        assert!(many.text.contains("and 23 more."), "{}", many.text);
        assert!(
            many.html
                .contains("2 &lt;b&gt;Elm&lt;/b&gt; St</a>, Ann &lt;Lee&gt;"),
            "{}",
            many.html
        );
        let mut bad = given(1, vec![line(1, "1 Oak St")]);
        if let Message::LeadsGiven { settings_url, .. } = &mut bad {
            *settings_url = "javascript:alert(1)".into();
        }
        assert!(
            render(&bad).is_err(),
            "a link that is not http(s) is refused"
        );
    }
}
