//! The do-not-call mark (docs/working-leads.md "Do not call"): set by anyone who may edit a
//! lead, taken off by a team admin or owner only; the call lists leave the marked leads out, the
//! pages show it before the numbers, the exports carry it and an import sets it.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{list_refuses, listed_oldest_first, submit};
use crate::lead_pages::{fetch_csv, rows_after_header};
use crate::lead_uploads::{count, imported};
use crate::lead_work::{cast, lead_at, newest_of_kind, patch, timeline};
use crate::lead_work_pages::{post_form, work_on};
use crate::messy_imports::{import_elsewhere, import_file};
use crate::pages::{assert_shows, page_shows, sign_in};

backend_tests!(
    a_member_marks_a_lead_do_not_call_and_only_an_admin_takes_it_off,
    the_pages_mark_show_and_leave_out_the_leads_not_to_call,
    an_import_marks_the_leads_it_creates_and_the_ones_it_merges_into,
    a_second_row_of_the_property_a_file_just_created_marks_it_too,
    a_skip_tracing_files_flagged_numbers_are_left_out_without_asking_about_columns,
    a_number_a_list_flags_is_taken_off_its_lead_and_never_added_back,
    a_number_a_list_flags_is_barred_on_the_teams_other_leads_too,
    the_owner_asks_not_to_be_called_at_one_number_and_an_admin_may_lift_it,
);

async fn a_member_marks_a_lead_do_not_call_and_only_an_admin_takes_it_off(app: TestApp) {
    let c = cast(&app).await;
    let (mia, adam) = (&c.mia.key, &c.adam.key);
    let list = |query: &'static str| listed_oldest_first(&app, mia, query);
    let quiet = lead_at(&app, mia, 1, Some(c.a)).await;
    let other = lead_at(&app, mia, 2, Some(c.a)).await;
    let (_, lead) = app.get(&format!("/api/v1/leads/{quiet}"), mia).await;
    assert_eq!(lead["do_not_call"], false, "{lead}");

    // A member marks it: a change of the lead, on its timeline and in its version.
    let (status, body) = patch(&app, quiet, mia, json!({"do_not_call": true})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (&body["do_not_call"], &body["version"]),
        (&json!(true), &json!(2))
    );
    let entry = newest_of_kind(&app, quiet, mia, "do_not_call_set").await;
    assert_eq!(
        entry["detail"],
        json!({"old": false, "new": true}),
        "{entry}"
    );
    assert_eq!(entry["actor"]["email"], "mia@example.com", "{entry}");
    // Marking it again changes nothing.
    let (_, body) = patch(&app, quiet, mia, json!({"do_not_call": true})).await;
    assert_eq!(body["version"], 2, "{body}");

    assert_eq!(list("do_not_call=true").await, [quiet]);
    assert_eq!(list("do_not_call=false").await, [other]);
    assert_eq!(list("").await, [quiet, other]);
    list_refuses(&app, mia, "do_not_call=maybe").await;
    let (status, body) = patch(&app, quiet, mia, json!({"do_not_call": "yes"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    // The member may not take the mark off; the team's admin may.
    let (status, body) = patch(&app, quiet, mia, json!({"do_not_call": false})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (_, lead) = app.get(&format!("/api/v1/leads/{quiet}"), mia).await;
    assert_eq!(lead["do_not_call"], true, "{lead}");
    let (status, body) = patch(&app, quiet, adam, json!({"do_not_call": false})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["do_not_call"], false, "{body}");

    // In bulk, likewise: the member marks both, and taking them off is refused as a whole.
    let bulk = |key: &str, marked: bool| {
        let body = json!({"ids": [quiet, other], "set": {"do_not_call": marked}});
        let app = &app;
        let key = key.to_owned();
        async move { app.post("/api/v1/leads/bulk", &key, body).await }
    };
    let (status, body) = bulk(mia, true).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(list("do_not_call=true").await, [quiet, other]);
    let (status, body) = bulk(mia, false).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(list("do_not_call=true").await, [quiet, other]);

    // The export ends with the mark.
    let (_, csv) = fetch_csv(&app, "/api/v1/leads/export", mia).await;
    let last = ",contact_count,do_not_call,tags,wrong_phones,do_not_call_phones";
    assert!(
        rows_after_header(&csv, last).all(|l| l.ends_with(",true,,,")),
        "{csv}"
    );
}

async fn the_pages_mark_show_and_leave_out_the_leads_not_to_call(app: TestApp) {
    let c = cast(&app).await;
    let mia_key = &c.mia.key;
    let id = lead_at(&app, mia_key, 1, Some(c.a)).await;
    let callable = lead_at(&app, mia_key, 2, Some(c.a)).await;
    for lead in [id, callable] {
        let body = json!({"assignee_id": c.mia.user.user_id, "primary_phone": "512-555-0101"});
        let (status, body) = patch(&app, lead, mia_key, body).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{id}")).await;
    assert!(
        page.body.contains("href=\"tel:+15125550101\""),
        "{}",
        page.body
    );
    assert!(!page.body.contains("id=\"dnc-mark\""), "{}", page.body);

    let body = work_on(&mut mia, id, "do-not-call", &[], "do-not-call#work").await;
    assert!(body.contains("Marked do not call"), "{body}");
    assert!(body.contains("id=\"dnc-mark\""), "{body}");
    assert!(body.contains("id=\"dnc-warning\""), "{body}");
    assert!(
        body.contains("Marked do not call</"),
        "the timeline: {body}"
    );
    // The number is there to read, but no link dials it.
    assert!(!body.contains("href=\"tel:+15125550101\""), "{body}");
    // A member sees no button to take it off, and the form is refused.
    assert!(!body.contains("/may-call"), "{body}");
    let refused = post_form(&mut mia, &format!("/leads/{id}/may-call"), &[]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);

    // My call list leaves it out, and a lead of hers with no number to call; the list marks it.
    let silent = lead_at(&app, mia_key, 3, Some(c.a)).await;
    let body = json!({"assignee_id": c.mia.user.user_id});
    let (status, body) = patch(&app, silent, mia_key, body).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let calls = page_shows(
        &mut mia,
        "/leads?status=open&assignee=me&has_phone=true&do_not_call=false&sort=last_contact_at",
        &[
            "aria-current=\"page\">My call list</a>",
            "1 lead matches these filters",
        ],
    )
    .await;
    assert!(
        calls.body.contains(&format!("href=\"/leads/{callable}?")),
        "{}",
        calls.body
    );
    assert!(
        !calls.body.contains(&format!("href=\"/leads/{silent}?")),
        "no number to call: {}",
        calls.body
    );
    assert!(
        !calls.body.contains(&format!("href=\"/leads/{id}?")),
        "{}",
        calls.body
    );
    let marked = page_shows(
        &mut mia,
        "/leads?do_not_call=true",
        &[
            "<option value=\"true\" selected>marked do not call</option>",
            "title=\"The owner must not be called\">do not call</span>",
            "1 lead matches these filters",
            "<option value=\"do-not-call\">mark do not call</option>",
        ],
    )
    .await;
    // Her bulk bar offers none of what only an admin may do: every lead would refuse it.
    for admins_only in [
        "value=\"may-call\"",
        "value=\"archive\"",
        "value=\"restore\"",
    ] {
        assert!(!marked.body.contains(admins_only), "{}", marked.body);
    }

    // The admin takes it off from the page; his bulk bar offers it, and archiving.
    let mut adam = sign_in(&app, "adam@example.com").await;
    page_shows(
        &mut adam,
        "/leads?do_not_call=true",
        &[
            "<option value=\"may-call\">take the do-not-call mark off</option>",
            "<option value=\"archive\">archive</option>",
        ],
    )
    .await;
    let page = adam.get(&format!("/leads/{id}")).await;
    assert!(
        page.body
            .contains(&format!("action=\"/leads/{id}/may-call\"")),
        "{}",
        page.body
    );
    let body = work_on(&mut adam, id, "may-call", &[], "may-call#work").await;
    assert!(!body.contains("id=\"dnc-mark\""), "{body}");
    assert!(body.contains("href=\"tel:+15125550101\""), "{body}");
    assert!(
        body.contains("Do-not-call mark taken off</"),
        "the timeline: {body}"
    );
}

async fn an_import_marks_the_leads_it_creates_and_the_ones_it_merges_into(app: TestApp) {
    let c = cast(&app).await;
    let mia_key = &c.mia.key;
    let existing = lead_at(&app, mia_key, 1, Some(c.a)).await;
    let file = "Address,City,State,Zip,Lead Status,DNC\n\
        1 Oak St,Austin,TX,78701,won,Y\n\
        2 Oak St,Austin,TX,78701,,yes\n\
        3 Oak St,Austin,TX,78701,,N\n\
        4 Oak St,Austin,TX,78701,,maybe\n";
    let (summary, _) = import_file(&app, &c.mia, c.a, file.as_bytes()).await;
    // The first row is the existing lead as it is (skipped as identical), yet its mark is set.
    // A mark is no status, owner or follow-up day: no row counts in `work` (docs/imports.md).
    let counts = (summary.created, summary.skipped, summary.work);
    assert_eq!(counts, (3, 1, 0), "{}", summary.render());
    let report = summary.render();
    // The existing lead takes the mark but keeps its status, and the row says so; "maybe" is
    // no answer.
    assert!(report.contains("work_not_set"), "{report}");
    assert!(report.contains("invalid_flag"), "{report}");
    let (_, lead) = app.get(&format!("/api/v1/leads/{existing}"), mia_key).await;
    assert_eq!(
        (&lead["do_not_call"], &lead["status"]),
        (&json!(true), &json!("new")),
        "{lead}"
    );
    let marked = listed_oldest_first(&app, mia_key, "do_not_call=true").await;
    let all = listed_oldest_first(&app, mia_key, "").await;
    assert_eq!(marked, [all[0], all[1]], "{all:?}");
    assert_eq!(all.len(), 4);
}

/// A list often holds a property twice (two permits, a row per owner): the first row creates the
/// lead with its status, the second merges into it in the same chunk and says not to call. Both
/// rows' parts are set, and neither row is told to try again.
async fn a_second_row_of_the_property_a_file_just_created_marks_it_too(app: TestApp) {
    let c = cast(&app).await;
    let mia_key = &c.mia.key;
    let file = "Address,City,State,Zip,Lead Status,DNC,Tags\n\
        77 Pine St,Austin,TX,78701,contacted,,mailer 12\n\
        77 Pine Street,Austin,TX,78701,,yes,storm 2026\n";
    let (summary, _) = import_file(&app, &c.mia, c.a, file.as_bytes()).await;
    let report = summary.render();
    // Only the first row sets a status; the second's mark and tags are set but not counted in
    // `work` (docs/imports.md).
    let counts = (summary.created, summary.updated, summary.work);
    assert_eq!(counts, (1, 1, 1), "{report}");
    assert!(!report.contains("work_not_set"), "{report}");
    let all = listed_oldest_first(&app, mia_key, "").await;
    assert_eq!(all.len(), 1, "{all:?}");
    let (_, lead) = app.get(&format!("/api/v1/leads/{}", all[0]), mia_key).await;
    assert_eq!(
        (&lead["do_not_call"], &lead["status"], &lead["tags"]),
        (
            &json!(true),
            &json!("contacted"),
            &json!(["mailer 12", "storm 2026"])
        ),
        "{lead}"
    );
}

async fn a_skip_tracing_files_flagged_numbers_are_left_out_without_asking_about_columns(
    app: TestApp,
) {
    let c = cast(&app).await;
    let traced = "Property Address,City,State,Zip,Phone 1,Phone 1 DNC,Phone 2,Phone 2 DNC\n\
        7 Elm St,Austin,TX,78701,512-555-0171,DNC,512-555-0172,N\n";
    let mut mia = sign_in(&app, "mia@example.com").await;
    // Imported at once: the flag columns are known, paired with their phones.
    let done = imported(&mut mia, c.a, traced.as_bytes(), "traced.csv").await;
    assert_eq!(count(&done, "created"), 1, "{}", done.body);
    assert_eq!(count(&done, "warnings"), 1, "{}", done.body);
    assert_shows(
        &done.body,
        &[
            "Phone 1 DNC &rarr; <code>number_do_not_call",
            "number_not_to_call",
        ],
    );
    let (_, list) = app.get("/api/v1/leads", &c.mia.key).await;
    let lead = &list["items"][0];
    // The flagged number is not among the lead's; the other is (moved up to the first slot, as
    // intake does), and the lead is no do-not-call lead: its other number may be called.
    assert_eq!(lead["primary_phone"], "+15125550172", "{lead}");
    assert_eq!(lead["phone_2"], json!(null), "{lead}");
    assert_eq!(lead["do_not_call"], false, "{lead}");
    // The lead the row made remembers it, so no later list adds it.
    assert_eq!(
        lead["do_not_call_phones"],
        json!(["+15125550171"]),
        "{lead}"
    );
    // The row as it came (the lead page's submission history) keeps the number.
    let id = lead["id"].as_i64().unwrap();
    let page = mia.get(&format!("/leads/{id}")).await;
    assert!(page.body.contains("512-555-0171"), "{}", page.body);
    assert!(!page.body.contains("tel:+15125550171"), "{}", page.body);
}

/// A submission of the property at `street`, Austin, of `team`, with `phone` as its first number.
async fn phoned_in(app: &TestApp, key: &str, team: i64, street: &str, phone: &str) -> Value {
    let lead = json!({"address": street, "city": "Austin", "state": "TX", "zip_code": "78701",
        "team_id": team, "primary_phone": phone});
    submit(app, key, lead).await
}

/// A lead's first two numbers and its numbers not to call.
fn numbers_of(lead: &Value) -> (Value, Value, Value) {
    (
        lead["primary_phone"].clone(),
        lead["phone_2"].clone(),
        lead["do_not_call_phones"].clone(),
    )
}

/// Lead `id`'s newest `numbers_not_to_call` timeline entry names `number` alone.
async fn barred_on_timeline(app: &TestApp, id: i64, key: &str, number: &str) {
    let entry = newest_of_kind(app, id, key, "numbers_not_to_call").await;
    assert_eq!(entry["detail"], json!({ "numbers": [number] }), "{entry}");
}

async fn a_number_a_list_flags_is_taken_off_its_lead_and_never_added_back(app: TestApp) {
    let c = cast(&app).await;
    let key = &c.mia.key;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let plain = "Property Address,City,State,Zip,Phone 1,Phone 2\n\
        9 Elm St,Austin,TX,78701,512-555-0181,512-555-0182\n";
    let done = imported(&mut mia, c.a, plain.as_bytes(), "plain.csv").await;
    assert_eq!(count(&done, "created"), 1, "{}", done.body);
    let (_, list) = app.get("/api/v1/leads", key).await;
    let id = list["items"][0]["id"].as_i64().unwrap();

    // A skip-tracing file flags the lead's first number: the lead that had it loses it (its
    // second moves up), keeps it among its numbers not to call, and says so on its timeline.
    let traced = "Property Address,City,State,Zip,Phone 1,Phone 1 DNC\n\
        9 Elm St,Austin,TX,78701,(512) 555-0181,Y\n";
    let done = imported(&mut mia, c.a, traced.as_bytes(), "traced.csv").await;
    assert_eq!(count(&done, "created"), 0, "{}", done.body);
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), key).await;
    let flagged = json!(["+15125550181"]);
    assert_eq!(
        numbers_of(&lead),
        (json!("+15125550182"), json!(null), flagged.clone()),
        "{lead}"
    );
    assert_eq!(
        lead["do_not_call"], false,
        "the lead's other number may be called"
    );
    assert_eq!(lead["wrong_phones"], json!([]), "{lead}");
    barred_on_timeline(&app, id, key, "+15125550181").await;

    // Neither a later list without flags, nor the same file again, nor a submission puts it back.
    let done = imported(&mut mia, c.a, plain.as_bytes(), "plain again.csv").await;
    assert_shows(&done.body, &["number_not_to_call"]);
    imported(&mut mia, c.a, traced.as_bytes(), "traced again.csv").await;
    let answer = phoned_in(&app, key, c.a, "9 Elm St", "512-555-0181").await;
    let codes: Vec<&str> = answer["validation_warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(codes, ["number_not_to_call"], "{answer}");
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), key).await;
    assert_eq!(
        numbers_of(&lead),
        (json!("+15125550182"), json!(null), flagged),
        "{lead}"
    );
    let entries = timeline(&app, id, key).await;
    let flags = entries
        .iter()
        .filter(|e| e["kind"] == "numbers_not_to_call")
        .count();
    assert_eq!(flags, 1, "the file again bars nothing new: {entries:?}");

    // The page names it apart from the numbers to call, and never as a link to dial.
    let page = mia.get(&format!("/leads/{id}")).await;
    assert_shows(
        &page.body,
        &[
            "Not to call, taken off the lead: (512) 555-0181",
            "tel:+15125550182",
        ],
    );
    assert!(!page.body.contains("tel:+15125550181"), "{}", page.body);

    // The export says which numbers are barred, and another deployment importing it bars them.
    let (_, csv) = fetch_csv(&app, "/api/v1/leads/export", key).await;
    assert!(
        csv.lines().nth(1).unwrap().ends_with(",,+15125550181"),
        "{csv}"
    );
    // Without its team column: the other deployment has no such team.
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let mut writer = csv::Writer::from_writer(Vec::new());
    let without_team = |r: &csv::StringRecord| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, cell)| cell.to_owned())
            .collect()
    };
    writer
        .write_record(without_team(reader.headers().unwrap()))
        .unwrap();
    for record in reader.records() {
        writer.write_record(without_team(&record.unwrap())).unwrap();
    }
    let file = writer.into_inner().unwrap();
    let there = import_elsewhere(&app, "export.csv", &file, 1).await;
    let header = there.lines().next().unwrap();
    let row = there.lines().nth(1).unwrap();
    assert!(header.ends_with(",do_not_call_phones"), "{there}");
    assert!(row.ends_with(",,+15125550181"), "{there}");
    assert!(row.contains(",+15125550182,"), "{there}");
}

async fn a_number_a_list_flags_is_barred_on_the_teams_other_leads_too(app: TestApp) {
    let c = cast(&app).await;
    let (mia, otto) = (&c.mia.key, &c.otto.key);
    // The owner's rental in the team, with the cell as its second number; the same cell on a
    // lead of another team and on a lead of no team.
    let rental = phoned_in(&app, mia, c.a, "11 Oak St", "512-555-0100").await["result_lead_id"]
        .as_i64()
        .unwrap();
    let (status, body) = patch(&app, rental, mia, json!({"phone_2": "512-555-0161"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let theirs = phoned_in(&app, otto, c.b, "12 Oak St", "512-555-0161").await["result_lead_id"]
        .as_i64()
        .unwrap();
    let lead = json!({"address": "13 Oak St", "city": "Austin", "state": "TX",
        "zip_code": "78701", "primary_phone": "512-555-0161"});
    let teamless = submit(&app, mia, lead).await["result_lead_id"]
        .as_i64()
        .unwrap();

    // A skip-tracing file flags the cell on the owner's home: it bars it there, and on the
    // team's other lead with that number, as the owner's own request would.
    let mut session = sign_in(&app, "mia@example.com").await;
    let traced = "Property Address,City,State,Zip,Phone 1,Phone 1 DNC\n\
        9 Elm St,Austin,TX,78701,512-555-0161,Y\n";
    let done = imported(&mut session, c.a, traced.as_bytes(), "traced.csv").await;
    assert_eq!(count(&done, "created"), 1, "{}", done.body);
    let (_, other) = app.get(&format!("/api/v1/leads/{rental}"), mia).await;
    assert_eq!(
        numbers_of(&other),
        (json!("+15125550100"), json!(null), json!(["+15125550161"])),
        "{other}"
    );
    barred_on_timeline(&app, rental, mia, "+15125550161").await;
    // Another team's lead and a lead of no team are no business of this team's list.
    let (_, their_lead) = app.get(&format!("/api/v1/leads/{theirs}"), otto).await;
    assert_eq!(
        numbers_of(&their_lead),
        (json!("+15125550161"), json!(null), json!([])),
        "{their_lead}"
    );
    let (_, no_team) = app.get(&format!("/api/v1/leads/{teamless}"), mia).await;
    assert_eq!(
        numbers_of(&no_team),
        (json!("+15125550161"), json!(null), json!([])),
        "{no_team}"
    );
}

async fn the_owner_asks_not_to_be_called_at_one_number_and_an_admin_may_lift_it(app: TestApp) {
    let c = cast(&app).await;
    let (mia, adam) = (&c.mia.key, &c.adam.key);
    let id = lead_at(&app, mia, 1, Some(c.a)).await;
    let phones = json!({"primary_phone": "512-555-0191", "phone_2": "512-555-0192"});
    let (status, body) = patch(&app, id, mia, phones).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The owner's other property in the team, and a lead of another team with the same number.
    let rental = lead_at(&app, mia, 2, Some(c.a)).await;
    let elsewhere = lead_at(&app, &c.otto.key, 3, Some(c.b)).await;
    let cell = json!({"primary_phone": "+15125550100", "phone_2": "+15125550191"});
    for (lead, key) in [(rental, mia), (elsewhere, &c.otto.key)] {
        let (status, body) = patch(&app, lead, key, cell.clone()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let bar = |key: &str, path: &'static str, phone: &'static str| {
        let (app, key) = (&app, key.to_owned());
        let path = format!("/api/v1/leads/{id}/do-not-call-phones{path}");
        async move { app.post(&path, &key, json!({"phone": phone})).await }
    };

    // A member bars the cell the owner asked not to be called at: off the lead, on its list.
    let (status, lead) = bar(mia, "", "(512) 555-0191").await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(
        numbers_of(&lead),
        (json!("+15125550192"), json!(null), json!(["+15125550191"])),
        "{lead}"
    );
    assert_eq!(lead["do_not_call"], false, "{lead}");
    barred_on_timeline(&app, id, mia, "+15125550191").await;
    // The request is the owner's: their other lead in the team bars the number too; another
    // team's lead is no business of this one.
    let (_, other) = app.get(&format!("/api/v1/leads/{rental}"), mia).await;
    assert_eq!(
        numbers_of(&other),
        (json!("+15125550100"), json!(null), json!(["+15125550191"])),
        "{other}"
    );
    let (_, theirs) = app
        .get(&format!("/api/v1/leads/{elsewhere}"), &c.otto.key)
        .await;
    assert_eq!(
        (&theirs["phone_2"], &theirs["do_not_call_phones"]),
        (&json!("+15125550191"), &json!([])),
        "{theirs}"
    );
    let resubmitted = phoned_in(&app, mia, c.a, "1 Oak St", "+15125550191").await;
    assert_eq!(resubmitted["result_lead_id"], id, "{resubmitted}");
    assert_eq!(
        resubmitted["validation_warnings"][0]["code"], "number_not_to_call",
        "{resubmitted}"
    );

    // Refused: a number that is not the lead's (now), a body without one, another team's lead.
    for (key, phone, want) in [
        (mia, json!("512-555-0191"), StatusCode::UNPROCESSABLE_ENTITY),
        (mia, json!(null), StatusCode::UNPROCESSABLE_ENTITY),
        (mia, json!(5125550192_i64), StatusCode::UNPROCESSABLE_ENTITY),
        (&c.otto.key, json!("512-555-0192"), StatusCode::NOT_FOUND),
    ] {
        let path = format!("/api/v1/leads/{id}/do-not-call-phones");
        let (status, body) = app.post(&path, key, json!({ "phone": phone })).await;
        assert_eq!(status, want, "{phone}: {body}");
    }

    // Nobody types it back while it is barred: 422 at the field, the lead unchanged.
    let typed = json!({"phone_2": "(512) 555-0191"});
    let (status, body) = patch(&app, id, adam, typed.clone()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        (&body["detail"][0]["loc"], &body["detail"][0]["type"]),
        (&json!(["body", "phone_2"]), &json!("number_not_to_call")),
        "{body}"
    );

    // Only an admin lifts it; it stays off the phones until someone edits it back.
    let (status, body) = bar(mia, "/remove", "+15125550191").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = bar(adam, "/remove", "+15125550192").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, lead) = bar(adam, "/remove", "512.555.0191").await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(
        (&lead["primary_phone"], &lead["do_not_call_phones"]),
        (&json!("+15125550192"), &json!([])),
        "{lead}"
    );
    let entry = newest_of_kind(&app, id, adam, "number_callable").await;
    assert_eq!(
        entry["detail"],
        json!({"number": "+15125550191"}),
        "{entry}"
    );
    let (status, lead) = patch(&app, id, mia, typed).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(lead["phone_2"], "+15125550191", "{lead}");
    let (status, lead) = patch(&app, id, mia, json!({"phone_2": null})).await;
    assert_eq!(status, StatusCode::OK, "{lead}");

    // The page: a button beside each number for whoever may edit; the admin's beside the list.
    let mut mia_page = sign_in(&app, "mia@example.com").await;
    let page = mia_page.get(&format!("/leads/{id}")).await;
    assert_shows(&page.body, &["do not call this number: (512) 555-0192"]);
    let to = work_on(
        &mut mia_page,
        id,
        "numbers/not-to-call",
        &[("phone", "+15125550192")],
        "number-not-to-call#work",
    )
    .await;
    assert_shows(
        &to,
        &[
            "Number taken off the lead",
            "Not to call, taken off the lead:",
            "Not to call, taken off the lead: (512) 555-0192",
        ],
    );
    assert!(
        !to.contains("may be called again: (512) 555-0192"),
        "a member lifts nothing"
    );
    let mut adam_page = sign_in(&app, "adam@example.com").await;
    let page = adam_page.get(&format!("/leads/{id}")).await;
    assert_shows(&page.body, &["may be called again: (512) 555-0192"]);
    work_on(
        &mut adam_page,
        id,
        "numbers/may-call",
        &[("phone", "+15125550192")],
        "number-may-call#work",
    )
    .await;
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), adam).await;
    assert_eq!(lead["do_not_call_phones"], json!([]), "{lead}");
}
