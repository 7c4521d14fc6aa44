//! The dashboard (`/`) over HTTP: its figures for a known set of leads and submissions (a merge,
//! an identical resubmission, a failed one, another person's unassigned lead), each chart's
//! numbers, the empty state and the navigation.
use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{lead_total, submit};
use crate::pages::{first_look, sign_in};
use crate::write_failures::{refuse_leads_named, REFUSED};

backend_tests!(
    the_dashboard_counts_what_each_person_may_see,
    a_new_user_is_told_what_to_do_first,
);

/// The numbers of chart `id`'s table, by label (the total row left out).
pub(crate) fn chart_numbers(body: &str, id: &str) -> BTreeMap<String, i64> {
    let start = body
        .find(&format!("id=\"chart-{id}\""))
        .unwrap_or_else(|| panic!("no chart {id} in:\n{body}"));
    let figure = &body[start..start + body[start..].find("</figure>").unwrap()];
    let tbody = &figure[figure.find("<tbody>").unwrap()..figure.find("</tbody>").unwrap()];
    let cells: Vec<&str> = tbody
        .split("<td data-label=\"")
        .skip(1)
        .map(|cell| {
            let text = &cell[cell.find('>').unwrap() + 1..];
            &text[..text.find("</td>").unwrap()]
        })
        .collect();
    cells
        .chunks(2)
        .map(|pair| (pair[0].to_owned(), pair[1].parse().unwrap()))
        .collect()
}

/// The text of the element with this id (up to its closing tag).
pub(crate) fn text_of<'a>(body: &'a str, id: &str) -> &'a str {
    let start = body
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in:\n{body}"));
    let text = &body[start + body[start..].find('>').unwrap() + 1..];
    &text[..text.find('<').unwrap()]
}

fn counts(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

async fn the_dashboard_counts_what_each_person_may_see(app: TestApp) {
    refuse_leads_named(&app).await;
    let alice = app.user("alice@example.com").await;
    let bob = app.user("bob@example.com").await;
    let first = json!({"address": "1 North Main Street", "city": "Austin", "state": "TX",
                       "zip_code": "78701", "source": "permits"});
    let created = submit(&app, &alice.key, first.clone()).await;
    let mut merged = first.clone();
    merged["primary_phone"] = json!("512 555 0100");
    assert_eq!(
        submit(&app, &alice.key, merged.clone()).await["result_action"],
        "updated"
    );
    assert_eq!(
        submit(&app, &alice.key, merged).await["result_action"],
        "skipped"
    );
    submit(
        &app,
        &alice.key,
        json!({"address": "2 Oak Street", "city": "Austin", "state": "TX", "source": "referral"}),
    )
    .await;
    let (status, refused) = app
        .post(
            "/api/v1/submissions/single",
            &alice.key,
            json!({"address": "3 Elm Street", "city": "Austin", "state": "TX",
                   "first_name": REFUSED}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refused}");
    assert_eq!(refused["status"], "failed", "{refused}");
    // Bob's unassigned lead is everyone's; his submission is his own.
    submit(
        &app,
        &bob.key,
        json!({"address": "4 Pine Street", "city": "Dallas", "state": "TX"}),
    )
    .await;
    assert!(created["result_lead_id"].is_i64());
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();

    let mut a = sign_in(&app, "alice@example.com").await;
    let page = a.get("/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let body = &page.body;
    assert_eq!(text_of(body, "lead-total"), "3");
    assert_eq!(lead_total(&app, &alice.key, "").await, 3);
    assert_eq!(text_of(body, "recent-leads"), "3");
    let per_day = chart_numbers(body, "per-day");
    assert_eq!(per_day.len(), 30);
    assert_eq!(per_day[&today], 3);
    assert_eq!(per_day.values().sum::<i64>(), 3);
    assert_eq!(
        chart_numbers(body, "by-source"),
        counts(&[("permits", 1), ("referral", 1), ("unknown", 1)])
    );
    assert_eq!(
        chart_numbers(body, "by-enrichment"),
        counts(&[("skipped", 3)])
    );
    // Alice's five submissions: two new leads, a merge, an identical one, a failure.
    assert_eq!(
        chart_numbers(body, "outcomes"),
        counts(&[
            ("new lead", 2),
            ("merged", 1),
            ("identical", 1),
            ("failed", 1),
            ("waiting", 0),
        ])
    );
    assert_eq!(text_of(body, "duplicate-share"), "40.0%");
    assert!(body.contains("of 5 submissions in the last 30 days were duplicates (2 matched"));
    assert_eq!(text_of(body, "failed-total"), "1");
    assert!(body.contains(&format!("Submission {}", refused["id"])));
    assert!(
        body.contains("&quot;first_name&quot;:&quot;Refused&quot;"),
        "{body}"
    );
    assert!(!body.contains("No leads yet"));
    for link in [
        "href=\"/\" aria-current=\"page\"",
        "href=\"/leads\"",
        "href=\"/businesses\"",
        "href=\"/teams\"",
        "href=\"/api-keys\"",
        "href=\"/docs\"",
    ] {
        assert!(body.contains(link), "{link}");
    }

    let mut b = sign_in(&app, "bob@example.com").await;
    let page = b.get("/").await;
    let body = &page.body;
    assert_eq!(text_of(body, "lead-total"), "3");
    assert_eq!(
        chart_numbers(body, "outcomes"),
        counts(&[
            ("new lead", 1),
            ("merged", 0),
            ("identical", 0),
            ("failed", 0),
            ("waiting", 0),
        ])
    );
    assert_eq!(text_of(body, "duplicate-share"), "0.0%");
    assert_eq!(text_of(body, "failed-total"), "0");
    assert!(!body.contains("Refused"));
}

async fn a_new_user_is_told_what_to_do_first(app: TestApp) {
    let page = first_look(&app, "/", "No leads yet").await;
    for link in [
        "href=\"/docs\"",
        "href=\"/leads/import\"",
        "href=\"/api-keys\"",
    ] {
        assert!(page.body.contains(link), "{link}");
    }
    assert_eq!(text_of(&page.body, "lead-total"), "0");
    assert!(page
        .body
        .contains("duplicates: no submissions in the last 30 days"));
    // Signed out, the dashboard is the sign-in page.
    let signed_out = crate::pages::Browser::new(&app).get("/").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
    assert_eq!(signed_out.location(), "/sign-in");
}
