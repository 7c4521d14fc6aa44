//! The columns step of an upload (`/uploads/{id}` awaiting its columns, `POST
//! /uploads/{id}/columns`): a file with columns we do not know, or only guess at, waits for a
//! person to say which field each feeds, imports as they chose, refuses a choice that cannot be
//! imported (saying why, keeping the choice), and is no one else's to see or choose.
use std::time::Duration;

use reqwest::StatusCode;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::team;
use crate::lead_uploads::{count, finished, upload};
use crate::pages::{assert_shows, sign_in, Browser, Page};

backend_tests!(
    a_file_with_unknown_columns_waits_for_them_and_imports_as_chosen,
    a_choice_that_cannot_be_imported_is_refused_and_kept,
    a_header_naming_nothing_of_ours_is_chosen_not_refused,
    only_the_teams_members_choose_and_with_the_token,
    the_wrong_file_is_discarded_before_anything_is_imported,
    the_step_asks_about_its_unknown_columns_first_and_folds_the_others,
    columns_kept_in_the_note_are_read_on_the_lead,
);

/// A sales sheet: a whole address, a lead's status (not a permit's), a county roll's owner.
const SHEET: &str = "\
Prop Addr,Status,Own Nm,Yr Built
\"1 Main St, Austin, TX 78701\",Called back,SMITH JOHN A,1987
\"2 Oak Ave, Austin, TX 78701\",New,DOE JANE,2001
";

/// Each column's select on a columns page and the field it has chosen ("" for none).
pub(crate) fn selections(page: &Page) -> Vec<(String, String)> {
    let mut shown: Vec<(String, String)> = page
        .body
        .split("<select id=\"")
        .skip(1)
        .map(|rest| {
            let name = rest.split('"').next().unwrap().to_owned();
            let select = &rest[..rest.find("</select>").unwrap()];
            let chosen = select
                .split("<option value=\"")
                .skip(1)
                .find(|option| option.contains("\" selected>"))
                .map(|option| option.split('"').next().unwrap().to_owned())
                .unwrap_or_default();
            (name, chosen)
        })
        .collect();
    // In the file's order: the step shows the columns it asks about first.
    let column = |name: &str| -> usize { name.trim_start_matches("column-").parse().unwrap() };
    shown.sort_by_key(|(name, _)| column(name));
    shown
}

/// Sends the columns page at `location` as shown, with `changes` (select, field) made first.
pub(crate) async fn choose(b: &mut Browser, location: &str, changes: &[(&str, &str)]) -> Page {
    let page = b.get(location).await;
    assert!(page.body.contains("id=\"column-choice\""), "{}", page.body);
    let csrf = page.field("csrf");
    let mut form = selections(&page);
    for (name, value) in changes {
        let select = form.iter_mut().find(|(n, _)| n == name).unwrap();
        select.1 = (*value).to_owned();
    }
    let mut pairs = vec![("csrf", csrf.as_str())];
    pairs.extend(form.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    b.post(&format!("{location}/columns"), &pairs).await
}

/// `choose`, taken (a 303 back to the upload at `location`); the upload's page once its import
/// has finished.
pub(crate) async fn imported_as_chosen(
    b: &mut Browser,
    location: &str,
    changes: &[(&str, &str)],
) -> Page {
    let sent = choose(b, location, changes).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    assert_eq!(sent.location(), location);
    finished(b, location).await
}

/// Posts only the first column's choice to the columns step at `location`, with `csrf` (None: no
/// token), as a form kept from another page or forged elsewhere would.
async fn first_column(b: &mut Browser, location: &str, csrf: Option<&str>, field: &str) -> Page {
    let mut form = vec![("column-0", field)];
    form.extend(csrf.map(|token| ("csrf", token)));
    b.post(&format!("{location}/columns"), &form).await
}

/// Alice's API key, her team, her signed-in browser and the location of `sheet` uploaded into
/// the team.
async fn uploaded(app: &TestApp, sheet: &str) -> (String, i64, Browser, String) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(app, "Alpha", &alice).await;
    let mut b = sign_in(app, "alice@example.com").await;
    let location = upload_into(&mut b, team_id, sheet).await;
    (alice.key, team_id, b, location)
}

/// The location of `sheet` uploaded into `team_id`.
async fn upload_into(b: &mut Browser, team_id: i64, sheet: &str) -> String {
    let sent = upload(b, "/leads/import", team_id, None, sheet.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    sent.location().to_owned()
}

async fn lead_count(app: &TestApp, key: &str) -> usize {
    let (status, page) = app.get("/api/v1/leads?limit=100", key).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"].as_array().unwrap().len()
}

async fn a_file_with_unknown_columns_waits_for_them_and_imports_as_chosen(app: TestApp) {
    let (key, _, mut b, location) = uploaded(&app, SHEET).await;
    let page = b.get(&location).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    // Each column with its first cells; "Status" guessed as the permit's, the rest unchosen.
    let first_cells = [
        "Prop Addr",
        "1 Main St, Austin, TX 78701",
        "Called back · New",
        "SMITH JOHN A",
    ];
    assert_shows(&page.body, &first_cells);
    let shown: Vec<(String, String)> = selections(&page);
    let fields: Vec<&str> = shown.iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(fields, ["", "permit_status", "", ""]);
    // Nothing is imported while it waits: no job was queued for the worker to run.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(b.get(&location).await.body.contains("id=\"column-choice\""));
    assert_eq!(lead_count(&app, &key).await, 0);
    let list = b.get("/uploads").await;
    assert_shows(&list.body, &[">choose its columns</a>"]);

    let changes = [
        ("column-0", "address"),
        ("column-1", ""),
        ("column-2", "full_name"),
    ];
    let done = imported_as_chosen(&mut b, &location, &changes).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    let read_as = [
        "Prop Addr &rarr; <code>address</code>",
        "Ignored: Status, Yr Built",
    ];
    assert_shows(&done.body, &read_as);
    let (_, page) = app.get("/api/v1/leads?limit=100", &key).await;
    let first = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["address"] == "1 Main St")
        .unwrap_or_else(|| panic!("{page}"))
        .clone();
    assert_eq!(first["zip_code"], "78701", "{first}");
    // The roll's order read, last name first (its capitals as the pipeline keeps them).
    let name = |field: &str| first[field].as_str().unwrap_or_default().to_uppercase();
    assert_eq!(
        (name("first_name"), name("last_name")),
        ("JOHN A".into(), "SMITH".into()),
        "{first}"
    );
    assert!(first["permit_status"].is_null(), "{first}");

    // The form sent again (a second click, the back button) changes nothing.
    let csrf = done.field("csrf");
    let again = first_column(&mut b, &location, Some(&csrf), "city").await;
    assert_eq!(again.status, StatusCode::SEE_OTHER, "{}", again.body);
    assert_eq!(lead_count(&app, &key).await, 2);
}

/// The columns step at `location` sent with `changes`, refused with `reason` on the page again.
async fn refused(b: &mut Browser, location: &str, changes: &[(&str, &str)], reason: &str) -> Page {
    let page = choose(b, location, changes).await;
    assert_eq!(
        page.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        page.body
    );
    let said = format!("These columns cannot be imported: {reason}");
    assert!(page.body.contains(&said), "{said}: {}", page.body);
    page
}

async fn a_choice_that_cannot_be_imported_is_refused_and_kept(app: TestApp) {
    let (key, _, mut b, location) = uploaded(&app, SHEET).await;
    let twice = [("column-0", "address"), ("column-3", "address")];
    let reason = "&quot;Prop Addr&quot; and &quot;Yr Built&quot; both feed address";
    let page = refused(&mut b, &location, &twice, reason).await;
    let kept: Vec<String> = selections(&page).into_iter().map(|(_, f)| f).collect();
    assert_eq!(kept, ["address", "permit_status", "", "address"]);
    let nothing = [("column-1", "")];
    refused(&mut b, &location, &nothing, "no column feeds a field").await;
    let unknown = [("column-0", "favourite_colour")];
    let reason = "&quot;favourite_colour&quot; is not a leads field";
    refused(&mut b, &location, &unknown, reason).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(lead_count(&app, &key).await, 0);
    // Mended, it imports.
    let done = imported_as_chosen(&mut b, &location, &[("column-0", "address")]).await;
    assert_eq!(count(&done, "created"), 2);
}

async fn a_header_naming_nothing_of_ours_is_chosen_not_refused(app: TestApp) {
    let roll = "Situs,Owner1\n9 Elm St Austin TX 78701,ROE RICHARD\n";
    let (_, _, mut b, location) = uploaded(&app, roll).await;
    let changes = [("column-0", "address"), ("column-1", "full_name")];
    let done = imported_as_chosen(&mut b, &location, &changes).await;
    assert_eq!(count(&done, "created"), 1);
}

async fn only_the_teams_members_choose_and_with_the_token(app: TestApp) {
    let (key, _, mut alice, location) = uploaded(&app, SHEET).await;
    let bob = app.user("bob@example.com").await;
    team(&app, "Beta", &bob).await;
    let mut bob = sign_in(&app, "bob@example.com").await;
    let page = bob.get(&location).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains("Prop Addr"), "{}", page.body);
    let csrf = bob.get("/uploads").await.field("csrf");
    let sent = first_column(&mut bob, &location, Some(&csrf), "address").await;
    assert_eq!(sent.status, StatusCode::NOT_FOUND, "{}", sent.body);
    let forged = first_column(&mut alice, &location, None, "address").await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(lead_count(&app, &key).await, 0);
    assert!(alice
        .get(&location)
        .await
        .body
        .contains("id=\"column-choice\""));
}

async fn the_wrong_file_is_discarded_before_anything_is_imported(app: TestApp) {
    let (key, team_id, mut alice, location) = uploaded(&app, SHEET).await;
    let csrf = alice.get(&location).await.field("csrf");
    let discard = format!("{location}/discard");
    // Bob, of another team, cannot discard it (nor tell it is there).
    let bob = app.user("bob@example.com").await;
    team(&app, "Beta", &bob).await;
    let mut bob = sign_in(&app, "bob@example.com").await;
    let bobs = bob.get("/uploads").await.field("csrf");
    assert_eq!(
        bob.post(&discard, &[("csrf", &bobs)]).await.status,
        StatusCode::NOT_FOUND
    );
    let (gone, list) = alice.post_and_follow(&discard, &[("csrf", &csrf)]).await;
    assert_eq!(gone.location(), "/uploads?done=discarded");
    assert!(
        list.body
            .contains("Upload discarded: nothing of it was imported."),
        "{}",
        list.body
    );
    assert!(!list.body.contains(&location), "{}", list.body);
    assert_eq!(alice.get(&location).await.status, StatusCode::NOT_FOUND);
    // An upload that was queued stays: discarding it again only shows its page.
    let queued = upload_into(&mut alice, team_id, SHEET).await;
    let sent = choose(&mut alice, &queued, &[("column-0", "address")]).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let csrf = alice.get("/uploads").await.field("csrf");
    let kept = alice
        .post(&format!("{queued}/discard"), &[("csrf", &csrf)])
        .await;
    assert_eq!(kept.location(), queued);
    assert_eq!(count(&finished(&mut alice, &queued).await, "created"), 2);
    assert_eq!(lead_count(&app, &key).await, 2);
}

async fn the_step_asks_about_its_unknown_columns_first_and_folds_the_others(app: TestApp) {
    // A skip-tracing file: known columns, a number's do-not-call flag, and one column of the
    // service's own.
    let traced = "Address,Phone 1,Phone 1 DNC,Litigator\n1 Main St,512-555-0101,N,N\n";
    let (key, _, mut b, location) = uploaded(&app, traced).await;
    let page = b.get(&location).await;
    let body = &page.body;
    assert!(body.contains("1 column to choose for</h2>"), "{body}");
    let folded = body.find("<details id=\"columns-read\">").unwrap();
    let asked = body.find("<label for=\"column-3\">Litigator").unwrap();
    let known = body.find("<label for=\"column-0\">Address").unwrap();
    assert!(asked < folded && folded < known, "{body}");
    assert!(
        body.contains("3 other columns, read as their headers name them"),
        "{body}"
    );
    assert!(body.contains("Flags the number in Phone 1"), "{body}");
    // Sent as shown, the flag column still flags: the number it says N to is kept.
    let done = imported_as_chosen(&mut b, &location, &[]).await;
    assert_eq!(count(&done, "created"), 1, "{}", done.body);
    assert_eq!(lead_count(&app, &key).await, 1);
}

async fn columns_kept_in_the_note_are_read_on_the_lead(app: TestApp) {
    // A roofer's storm list: the roof's age and the year built are no field of a lead.
    let storm = "Address,Year Built,Roof Age,Notes\n\
        \"1 Main St, Austin, TX 78701\",1987,22,hail 2in\n\
        \"2 Oak Ave, Austin, TX 78701\",,9,\n";
    let (key, _, mut b, location) = uploaded(&app, storm).await;
    let page = b.get(&location).await;
    assert_shows(&page.body, &["Keep it in the lead's note (Year Built: …)"]);
    let changes = [("column-1", "note_line"), ("column-2", "note_line")];
    let done = imported_as_chosen(&mut b, &location, &changes).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    assert_shows(&done.body, &["Roof Age &rarr; <code>note_line</code>"]);
    let (_, leads) = app
        .get("/api/v1/leads?limit=100&sort=created_at", &key)
        .await;
    let mut notes = Vec::new();
    for lead in leads["items"].as_array().unwrap() {
        let path = format!("/api/v1/leads/{}/notes", lead["id"]);
        let (status, page) = app.get(&path, &key).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        notes.push(
            page["items"][0]["body"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    notes.sort();
    assert_eq!(
        notes,
        ["Roof Age: 9", "hail 2in\nYear Built: 1987\nRoof Age: 22"]
    );
    // The lead page shows it where the newest note stands.
    let (_, found) = app.get("/api/v1/leads?q=1%20Main", &key).await;
    let lead = b.get(&format!("/leads/{}", found["items"][0]["id"])).await;
    assert!(lead.body.contains("Roof Age: 22"), "{}", lead.body);
}
