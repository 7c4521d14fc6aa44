//! The list's bulk bar on every lead of the list, not only the ticked ones (docs/working-leads.md
//! "The pages"): a fresh import shared out or given away in one step, however many pages it
//! fills; refused when the list has changed since the person counted it, or holds more than one
//! change takes.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::batch_ok;
use crate::lead_work::{cast, lead_at};
use crate::pages::{assert_shows, page_shows, sign_in, Browser, Page};

backend_tests!(every_lead_of_a_list_changes_at_once);

/// Posts the bulk bar's form from the list at `back` (with the page's CSRF token); the answer.
async fn bulk(b: &mut Browser, back: &str, form: &[(&str, &str)]) -> Page {
    let csrf = b.get(&format!("/leads?{back}")).await.field("csrf");
    let mut with_token = vec![("csrf", csrf.as_str()), ("back", back)];
    with_token.extend_from_slice(form);
    b.post("/leads/bulk", &with_token).await
}

/// The bulk bar's form from the whole list (`back` empty), refused saying `why`.
async fn refused(b: &mut Browser, form: &[(&str, &str)], why: &str) {
    let page = bulk(b, "", form).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(&page.body, &[why]);
}

async fn every_lead_of_a_list_changes_at_once(app: TestApp) {
    let c = cast(&app).await;
    for n in 1..=60 {
        lead_at(&app, &c.olive.key, n, Some(c.a)).await;
    }
    let mut adam = sign_in(&app, "adam@example.com").await;
    // 60 leads fill two pages; the bar offers all of them.
    let offered = [
        "60 leads match these filters",
        "name=\"whole_list\" value=\"60\"",
    ];
    page_shows(&mut adam, "/leads?assignee=none", &offered).await;

    // Shared out between two people, none of them ticked: 30 each.
    let (adam_id, mia_id) = (&c.adam.user.user_id, &c.mia.user.user_id);
    let (share_adam, share_mia) = (format!("share:{adam_id}"), format!("share:{mia_id}"));
    let shared = bulk(
        &mut adam,
        "assignee=none",
        &[
            ("whole_list", "60"),
            (&share_adam, "on"),
            (&share_mia, "on"),
            ("share_out", "1"),
        ],
    )
    .await;
    assert_eq!(shared.status, StatusCode::SEE_OTHER, "{}", shared.body);
    assert_eq!(shared.location(), "/leads?assignee=none&done=shared");
    for who in [adam_id, mia_id] {
        let theirs = adam.get(&format!("/leads?assignee={who}")).await;
        assert_shows(&theirs.body, &["30 leads match these filters"]);
    }

    // The list changed since it was counted: nothing is changed.
    lead_at(&app, &c.olive.key, 61, Some(c.a)).await;
    let stale = [("whole_list", "60"), ("action", "status:contacted")];
    let why = "The list holds 61 leads now, not the 60 it showed";
    refused(&mut adam, &stale, why).await;
    let contacted = adam.get("/leads?status=contacted").await;
    assert_shows(&contacted.body, &["0 leads match these filters"]);

    // Counted right, the whole list changes, ticks or not (1 Oak St again: the same property, so
    // its lead's id and no new lead).
    let one = format!("lead-{}", lead_at(&app, &c.olive.key, 1, Some(c.a)).await);
    let done = bulk(
        &mut adam,
        "",
        &[
            ("whole_list", "61"),
            (&one, "on"),
            ("action", "status:contacted"),
        ],
    )
    .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let contacted = adam.get("/leads?status=contacted").await;
    assert_shows(&contacted.body, &["61 leads match these filters"]);

    // Past what one change takes: the bar says so, and a form that claims it anyway is refused.
    let more: Vec<_> = (0..1000)
        .map(|n| json!({"address": format!("{n} Elm St"), "zip_code": "78701", "team_id": c.a}))
        .collect();
    batch_ok(&app, &c.olive.key, json!({ "leads": more })).await;
    let list = adam.get("/leads").await;
    assert_shows(
        &list.body,
        &["1061 leads", "A change takes at most 1000 leads at once"],
    );
    assert!(!list.body.contains("name=\"whole_list\""));
    let over = [("whole_list", "1061"), ("action", "archive")];
    let why = "This list holds 1061 leads; one change takes at most 1000";
    refused(&mut adam, &over, why).await;
}
