//! Working down a list (docs/working-leads.md "The pages"): a lead opened from `/leads` links the
//! previous and the next lead of that list, its forms keep the way on, and a lead that working
//! took out of the list is followed by the one now at its place.
use reqwest::StatusCode;

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_work::{cast, lead_at, Cast};
use crate::pages::{assert_shows, sign_in, Browser, Page};

backend_tests!(
    a_lead_opened_from_a_list_leads_on_to_the_next,
    a_walk_shows_only_what_the_list_shows,
    a_call_list_goes_on_to_the_next_lead_nobody_called,
);

/// The "nobody works them" list, oldest first, as the lead links carry it.
const LIST: &str = "in=assignee%3Dnone%26sort%3Dcreated_at";

/// Three leads of team A nobody works, oldest first, and Mia (a member) signed in.
async fn three_leads_for_mia(app: &TestApp) -> (Cast, [i64; 3], Browser) {
    let c = cast(app).await;
    let mut leads = [0; 3];
    for (n, lead) in (1..).zip(leads.iter_mut()) {
        *lead = lead_at(app, &c.olive.key, n, Some(c.a)).await;
    }
    (c, leads, sign_in(app, "mia@example.com").await)
}

async fn a_lead_opened_from_a_list_leads_on_to_the_next(app: TestApp) {
    let (c, [first, second, third], mut mia) = three_leads_for_mia(&app).await;
    let key = &c.olive.key;

    // The list links each lead with its place in it.
    let list = mia.get("/leads?assignee=none&sort=created_at").await;
    assert_shows(
        &list.body,
        &[
            &format!("href=\"/leads/{first}?{LIST}&amp;at=0\""),
            &format!("href=\"/leads/{third}?{LIST}&amp;at=2\""),
        ],
    );

    let page = mia.get(&format!("/leads/{first}?{LIST}&at=0")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_shows(
        &page.body,
        &[
            "Lead 1 of 3 in the list",
            &format!("href=\"/leads/{second}?{LIST}&amp;at=1\" rel=\"next\""),
            "href=\"/leads?assignee=none&amp;sort=created_at\" id=\"walk-back\"",
            &format!("action=\"/leads/{first}/work?{LIST}&amp;at=0\""),
            &format!("action=\"/leads/{first}/notes?{LIST}&amp;at=0\""),
        ],
    );
    assert!(
        !page.body.contains("id=\"walk-previous\""),
        "the first has none"
    );

    // Giving the lead to Mia takes it out of the list; the walk goes on with the lead that
    // stands at its place now.
    let csrf = page.field("csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("version", "1"),
        ("status", "contacted"),
        ("assignee", &c.mia.user.user_id),
    ];
    let path = format!("/leads/{first}/work?{LIST}&at=0");
    let back = format!("/leads/{first}?done=saved&{LIST}&at=0#work");
    let page = answers(&mut mia, &path, &form, &back).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    // The same form again is stale (412); its way back keeps the walk.
    let stale = mia.post(&path, &form).await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    assert_shows(
        &stale.body,
        &[&format!("href=\"/leads/{first}?{LIST}&amp;at=0\"")],
    );
    assert_shows(
        &page.body,
        &[
            "No longer at this place in the list (2 leads in it now)",
            &format!("href=\"/leads/{second}?{LIST}&amp;at=0\" id=\"work-next\""),
        ],
    );

    let page = mia.get(&format!("/leads/{second}?{LIST}&at=0")).await;
    assert_shows(
        &page.body,
        &["Lead 1 of 2 in the list", "id=\"save-then-next\""],
    );
    // "Save and open the next lead": saved, then straight to the next lead of the list.
    let csrf = page.field("csrf");
    let then_next = [
        ("csrf", csrf.as_str()),
        ("version", "1"),
        ("status", "contacted"),
        ("assignee", ""),
        ("then", "next"),
    ];
    let path = format!("/leads/{second}/work?{LIST}&at=0");
    let next = format!("/leads/{third}?{LIST}&at=1&done=saved-then-next");
    let page = answers(&mut mia, &path, &then_next, &next).await;
    assert_shows(
        &page.body,
        &[
            "Saved. This is the next lead in the list.",
            "Lead 2 of 2 in the list",
        ],
    );
    let (_, api) = app.get(&format!("/api/v1/leads/{second}"), key).await;
    assert_eq!(api["status"], "contacted", "{api}");
    let page = mia.get(&format!("/leads/{third}?{LIST}&at=1")).await;
    assert_shows(
        &page.body,
        &[
            "Lead 2 of 2 in the list",
            &format!("href=\"/leads/{second}?{LIST}&amp;at=0\" rel=\"prev\""),
        ],
    );
    assert!(!page.body.contains("id=\"walk-next\""), "the last has none");

    // A note keeps the way on too.
    let csrf = page.field("csrf");
    let note = [("csrf", csrf.as_str()), ("body", "Called")];
    let path = format!("/leads/{third}/notes?{LIST}&at=1");
    let back = format!("/leads/{third}?done=note-added&{LIST}&at=1#notes");
    answers(&mut mia, &path, &note, &back).await;
    // And the edit form, from its link on the lead page to its answer.
    let edit_path = format!("/leads/{third}/edit?{LIST}&at=1");
    assert_shows(
        &page.body,
        &[&format!("href=\"{}\"", edit_path.replace('&', "&amp;"))],
    );
    let edit = mia.get(&edit_path).await;
    assert_shows(
        &edit.body,
        &[&format!("action=\"{}\"", edit_path.replace('&', "&amp;"))],
    );
    let version = edit.field("version");
    let form = [("csrf", csrf.as_str()), ("version", version.as_str())];
    let back = format!("/leads/{third}?done=unchanged&{LIST}&at=1");
    answers(&mut mia, &edit_path, &form, &back).await;
}

/// Posts a lead page's form and checks it answers with a redirect to `back`; the page there.
pub(crate) async fn answers(
    b: &mut Browser,
    path: &str,
    form: &[(&str, &str)],
    back: &str,
) -> Page {
    let (redirect, page) = b.post_and_follow(path, form).await;
    assert_eq!(redirect.location(), back);
    page
}

async fn a_walk_shows_only_what_the_list_shows(app: TestApp) {
    let c = cast(&app).await;
    for n in 1..=3 {
        lead_at(&app, &c.olive.key, n, Some(c.a)).await;
    }
    let own = lead_at(&app, &c.otto.key, 9, Some(c.b)).await;
    let mut otto = sign_in(&app, "otto@example.com").await;
    // Every lead, in the list Otto sees: his team's one only.
    let page = otto.get(&format!("/leads/{own}?in=&at=0")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_shows(&page.body, &["Lead 1 of 1 in the list"]);
    assert!(!page.body.contains("rel=\"next\""), "{}", page.body);
    // A list the list page would refuse, or a place that is none: the page without a walk.
    for walk in ["in=status%3Dbogus&at=0", "in=&at=-1", "in=&at=x", "at=0"] {
        let page = otto.get(&format!("/leads/{own}?{walk}")).await;
        assert_eq!(page.status, StatusCode::OK, "{walk}: {}", page.body);
        assert!(!page.body.contains("id=\"walk\""), "{walk}");
        assert_shows(&page.body, &["href=\"/leads\">← Leads</a>"]);
    }
}

/// "Nobody works them" in the call order: never contacted first, then the longest untried.
const CALLS: &str = "in=assignee%3Dnone%26sort%3Dlast_contact_at";

async fn a_call_list_goes_on_to_the_next_lead_nobody_called(app: TestApp) {
    let (_, [first, second, third], mut mia) = three_leads_for_mia(&app).await;
    let list = mia.get("/leads?assignee=none&sort=last_contact_at").await;
    assert_shows(
        &list.body,
        &[&format!("href=\"/leads/{first}?{CALLS}&amp;at=0\"")],
    );
    // The first call sends the lead to the end of the list (the last one tried): the one now
    // at its place opens next, though the lead is still in the window the page reads.
    for (lead, next) in [(first, second), (second, third), (third, first)] {
        let page = mia.get(&format!("/leads/{lead}?{CALLS}&at=0")).await;
        assert_shows(&page.body, &["Lead 1 of 3 in the list"]);
        let csrf = page.field("csrf");
        let form = [
            ("csrf", csrf.as_str()),
            ("outcome", "no_answer"),
            ("then", "next"),
        ];
        let path = format!("/leads/{lead}/contact?{CALLS}&at=0");
        let back = format!("/leads/{next}?{CALLS}&at=0&done=contact-logged-then-next");
        let page = answers(&mut mia, &path, &form, &back).await;
        assert_shows(&page.body, &["Lead 1 of 3 in the list"]);
    }
}
