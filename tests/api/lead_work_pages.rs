//! Working leads from the pages (issue 29 point 11, docs/working-leads.md "The pages"): the lead
//! page's status and owner form, notes, edit form, claim, merge, archive and the timeline; the
//! list's status and owner filters, "My leads" and bulk bar; each refused as the API refuses.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::assert_fields;
use crate::lead_work::{cast, lead_at};
use crate::pages::{assert_shows, sign_in, Browser, Page};

backend_tests!(
    a_member_works_a_lead_from_its_page,
    the_edit_form_takes_the_api_rules_and_a_stale_form_is_refused,
    claim_merge_and_archive_from_the_page,
    the_list_filters_by_status_and_owner_and_changes_in_bulk,
    outsiders_and_members_are_refused_what_the_api_refuses,
);

/// Posts `form` (with the page's CSRF token) and expects a redirect to `to`; the page after it.
async fn post_to(b: &mut Browser, path: &str, form: &[(&str, &str)], to: &str) -> String {
    let csrf = b.get("/leads").await.field("csrf");
    let mut with_token = vec![("csrf", csrf.as_str())];
    with_token.extend_from_slice(form);
    let (redirect, page) = b.post_and_follow(path, &with_token).await;
    assert_eq!(redirect.location(), to);
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    page.body
}

/// Posts `form` to `path` with the CSRF token of `b`'s session (read from the list page) in
/// front; returns the answer, whatever it is.
pub(crate) async fn post_form(b: &mut Browser, path: &str, form: &[(&str, &str)]) -> Page {
    let csrf = b.get("/leads").await.field("csrf");
    let mut with_token = vec![("csrf", csrf.as_str())];
    with_token.extend_from_slice(form);
    b.post(path, &with_token).await
}

/// Posts `form` to `path` and expects the 422 page saying `says`.
pub(crate) async fn refused(b: &mut Browser, path: &str, form: &[(&str, &str)], says: &str) {
    let page = post_form(b, path, form).await;
    assert_eq!(
        page.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        page.body
    );
    assert!(page.body.contains(says), "{says}: {}", page.body);
}

/// Posts the form of `action` on lead `id` (`/leads/{id}/{action}`); expects to land back on the
/// lead's page at `?done={done}` and returns that page.
pub(crate) async fn work_on(
    b: &mut Browser,
    id: i64,
    action: &str,
    form: &[(&str, &str)],
    done: &str,
) -> String {
    let to = format!("/leads/{id}?done={done}");
    post_to(b, &format!("/leads/{id}/{action}"), form, &to).await
}

async fn a_member_works_a_lead_from_its_page(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Give it an owner"), "{}", page.body);
    assert!(page.body.contains("adam@example.com"), "owner choices");
    // A member sees no archive button (admins and owners archive).
    assert!(!page.body.contains("Archive lead"));
    let version = page.field("version");

    let adam = c.adam.user.user_id.clone();
    let body = work_on(
        &mut mia,
        id,
        "work",
        &[
            ("version", &version),
            ("status", "contacted"),
            ("assignee", &adam),
        ],
        "saved#work",
    )
    .await;
    assert_shows(
        &body,
        &[
            "Status and owner saved.",
            "Status new → contacted",
            "Owner nobody → ",
        ],
    );
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_fields(&api, json!({"status": "contacted", "assignee_id": adam}));

    // The same form again, with the version it showed before: refused, not overwritten.
    let stale = post_form(
        &mut mia,
        &format!("/leads/{id}/work"),
        &[("version", &version), ("status", "lost"), ("assignee", "")],
    )
    .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    assert!(stale.body.contains("Someone changed this lead first"));
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["status"], "contacted");

    // A note: shown first on the page and in the timeline; its author deletes it.
    let body = work_on(
        &mut mia,
        id,
        "notes",
        &[("body", "Owner wants a quote <Friday>")],
        "note-added#notes",
    )
    .await;
    assert_shows(
        &body,
        &[
            "Owner wants a quote &lt;Friday&gt;",
            "id=\"newest-note\"",
            "Added a note",
        ],
    );
    let note = body
        .split("/notes/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .to_owned();
    let body = work_on(
        &mut mia,
        id,
        &format!("notes/{note}/delete"),
        &[],
        "note-deleted#notes",
    )
    .await;
    assert_shows(&body, &["No notes yet.", "Deleted a note"]);
    let blank = post_form(&mut mia, &format!("/leads/{id}/notes"), &[("body", "  ")]).await;
    assert_eq!(blank.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(blank.body.contains("A note needs some text"));
}

async fn the_edit_form_takes_the_api_rules_and_a_stale_form_is_refused(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.olive.key, 2, Some(c.a)).await;
    let other = lead_at(&app, &c.olive.key, 3, Some(c.a)).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let form = mia.get(&format!("/leads/{id}/edit")).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(form.body.contains("value=\"Lee\""));
    let version = form.field("version");

    let body = work_on(
        &mut mia,
        id,
        "edit",
        &[
            ("version", &version),
            ("first_name", "Lee"),
            ("last_name", "Park"),
            ("primary_phone", "(512) 555-0199"),
            ("state", "TX"),
        ],
        "edited",
    )
    .await;
    assert_shows(
        &body,
        &[
            "Lead saved.",
            "href=\"tel:+15125550199\"",
            "Edited 2 fields",
        ],
    );
    // Beside the phone, the leads with that number: this one (the owner's other properties too).
    let with_number = "/leads?q=%2B15125550199";
    assert_shows(&body, &[&format!("href=\"{with_number}\"")]);
    let found = mia.get(with_number).await;
    assert_shows(&found.body, &["1 lead matches these filters"]);
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_fields(&api, json!({"last_name": "Park", "first_name": "Lee"}));

    // Intake's rules: a bad state is a 422 with the form kept as typed, nothing saved.
    let version = mia.get(&format!("/leads/{id}/edit")).await.field("version");
    let path = format!("/leads/{id}/edit");
    let bad = post_form(
        &mut mia,
        &path,
        &[("version", &version), ("state", "Q1"), ("last_name", "Lim")],
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        bad.body.contains("Nothing was saved: state"),
        "{}",
        bad.body
    );
    assert!(bad.body.contains("value=\"Lim\""));
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["last_name"], "Park");
    // A value the edit would drop (the stored phone with it): refused the same way.
    let dropped = post_form(
        &mut mia,
        &path,
        &[
            ("version", &version),
            ("primary_phone", "555-1234"),
            ("last_name", "Lim"),
        ],
    )
    .await;
    assert_eq!(dropped.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        dropped
            .body
            .contains("Nothing was saved: primary phone: Value error, &#x27;555-1234&#x27; is not"),
        "{}",
        dropped.body
    );
    assert!(dropped.body.contains("value=\"555-1234\""));
    assert!(dropped.body.contains("value=\"Lim\""));
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["primary_phone"], "+15125550199");
    assert_eq!(api["last_name"], "Park");

    // The address of another lead of the team: 409 naming it.
    let taken = post_form(
        &mut mia,
        &path,
        &[
            ("version", &version),
            ("address", "3 Oak St"),
            ("last_name", "Lim"),
        ],
    )
    .await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    assert!(taken
        .body
        .contains(&format!("merge this lead into lead {other}")));
    // The form again as typed, with its version: nothing typed is lost.
    assert!(taken.body.contains("value=\"3 Oak St\""), "{}", taken.body);
    assert!(taken.body.contains("value=\"Lim\""));
    assert!(taken
        .body
        .contains(&format!("name=\"version\" value=\"{version}\"")));

    // Someone else saved first: the form's version is stale.
    app.patch(
        &format!("/api/v1/leads/{id}"),
        &c.olive.key,
        serde_json::json!({"lot": "7"}),
    )
    .await;
    let stale = post_form(&mut mia, &path, &[("version", &version), ("lot", "9")]).await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["lot"], "7");
    // The form holds the lead as it is now, with its new version, and says what was typed.
    assert!(stale.body.contains("value=\"7\""), "{}", stale.body);
    let now = api["version"].to_string();
    assert!(stale
        .body
        .contains(&format!("name=\"version\" value=\"{now}\"")));
    assert!(stale
        .body
        .contains("what you typed that differs from it: Lot: 9"));
}

async fn claim_merge_and_archive_from_the_page(app: TestApp) {
    let c = cast(&app).await;
    let loose = lead_at(&app, &c.nobody.key, 4, None).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{loose}")).await;
    assert!(page.body.contains("Unassigned: every user can see it"));
    let team = c.a.to_string();
    let body = work_on(
        &mut mia,
        loose,
        "claim",
        &[("team_id", &team)],
        "claimed#work",
    )
    .await;
    assert!(body.contains("Claimed into A"), "{body}");
    assert!(!body.contains("id=\"unassigned-mark\""));

    // Merge: the typed lead number is kept; the merged one redirects to it.
    let keep = lead_at(&app, &c.olive.key, 5, Some(c.a)).await;
    let into = format!("#{keep}");
    let body = post_to(
        &mut mia,
        &format!("/leads/{loose}/merge"),
        &[("into", &into)],
        &format!("/leads/{keep}?done=merged#timeline"),
    )
    .await;
    assert!(
        body.contains(&format!("Lead {loose} merged into this one")),
        "{body}"
    );
    let gone = mia.get(&format!("/leads/{loose}")).await;
    assert_eq!(gone.status, StatusCode::SEE_OTHER);
    assert_eq!(gone.location(), format!("/leads/{keep}?done=merged-away"));
    let itself = post_form(
        &mut mia,
        &format!("/leads/{keep}/merge"),
        &[("into", &keep.to_string())],
    )
    .await;
    assert_eq!(itself.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(itself.body.contains("cannot be merged into itself"));

    // An admin archives and restores; the list leaves the archived lead out.
    let mut adam = sign_in(&app, "adam@example.com").await;
    assert!(adam
        .get(&format!("/leads/{keep}"))
        .await
        .body
        .contains("Archive lead"));
    let body = work_on(&mut adam, keep, "archive", &[], "archived#work").await;
    assert_shows(&body, &["id=\"archived-mark\"", "Restore lead"]);
    assert!(!adam
        .get("/leads")
        .await
        .body
        .contains(&format!("/leads/{keep}?in=")));
    let archived = adam.get("/leads?archived=true").await;
    assert!(archived.body.contains(&format!("/leads/{keep}?in=")));
    let body = work_on(&mut adam, keep, "restore", &[], "restored#work").await;
    assert_shows(&body, &["Archived", "Restored"]);
}

async fn the_list_filters_by_status_and_owner_and_changes_in_bulk(app: TestApp) {
    let c = cast(&app).await;
    let one = lead_at(&app, &c.olive.key, 6, Some(c.a)).await;
    let two = lead_at(&app, &c.olive.key, 7, Some(c.a)).await;
    let three = lead_at(&app, &c.olive.key, 8, Some(c.a)).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let mine = mia.get("/leads?assignee=me").await;
    assert!(
        mine.body.contains("0 leads match these filters"),
        "{}",
        mine.body
    );

    let (one_s, two_s) = (format!("lead-{one}"), format!("lead-{two}"));
    let body = post_to(
        &mut mia,
        "/leads/bulk",
        &[
            (&one_s, "on"),
            (&two_s, "on"),
            ("action", "assign-me"),
            ("back", "status=new&nonsense=1"),
        ],
        "/leads?status=new&done=bulk",
    )
    .await;
    assert!(body.contains("The selected leads were changed."));
    let mine = mia.get("/leads?assignee=me").await;
    assert!(mine.body.contains("2 leads match"), "{}", mine.body);
    assert!(mine.body.contains(&format!("/leads/{one}?in=")));
    assert!(!mine.body.contains(&format!("/leads/{three}?in=")));
    // The owner column names the owner and links to every lead they work.
    let owner_cell = format!(
        "<td data-label=\"Owner\"><a href=\"/leads?assignee={}\" title=\"Every lead Test User works\">Test User</a></td>",
        c.mia.user.user_id
    );
    assert!(
        mine.body.contains(&owner_cell),
        "owner column: {}",
        mine.body
    );

    post_to(
        &mut mia,
        "/leads/bulk",
        &[(&one_s, "on"), ("action", "status:qualified"), ("back", "")],
        "/leads?done=bulk",
    )
    .await;
    let qualified = mia.get("/leads?status=qualified").await;
    assert!(
        qualified.body.contains("1 lead matches"),
        "{}",
        qualified.body
    );

    // Archiving is an admin's: all or nothing, each refused lead named.
    let refused = post_form(
        &mut mia,
        "/leads/bulk",
        &[(&one_s, "on"), (&two_s, "on"), ("action", "archive")],
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused
            .body
            .contains(&format!("lead {one}: Only a team admin")),
        "{}",
        refused.body
    );
    let nothing = post_form(&mut mia, "/leads/bulk", &[("action", "archive")]).await;
    assert_eq!(nothing.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(nothing.body.contains("No lead was ticked"));
}

async fn outsiders_and_members_are_refused_what_the_api_refuses(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.olive.key, 9, Some(c.a)).await;
    let mut otto = sign_in(&app, "otto@example.com").await;
    let missing = otto.get(&format!("/leads/{id}")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    // The refusal keeps the site's navigation and the sign-out form, as every page of his.
    assert_shows(
        &missing.body,
        &[
            "<a href=\"/leads\">Leads</a>",
            "action=\"/sign-out\"",
            "otto@example.com",
        ],
    );
    assert_eq!(
        otto.get(&format!("/leads/{id}/edit")).await.status,
        StatusCode::NOT_FOUND
    );
    for (path, form) in [
        (
            "work",
            vec![("version", "1"), ("status", "won"), ("assignee", "")],
        ),
        ("notes", vec![("body", "hello")]),
        ("archive", vec![]),
        ("merge", vec![("into", "1")]),
    ] {
        let page = post_form(&mut otto, &format!("/leads/{id}/{path}"), &form).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }
    let mut mia = sign_in(&app, "mia@example.com").await;
    let archive = post_form(&mut mia, &format!("/leads/{id}/archive"), &[]).await;
    assert_eq!(archive.status, StatusCode::FORBIDDEN);
    // Without the form's token nothing is done.
    let forged = mia
        .post(
            &format!("/leads/{id}/work"),
            &[("version", "1"), ("status", "won"), ("assignee", "")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["status"], "new");
}
