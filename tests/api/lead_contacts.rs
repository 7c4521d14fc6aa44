//! Logging a contact (docs/working-leads.md "Contacts"): over the API, in `lead.updated`, and
//! from the lead page, on a walk down a list.
use chrono::{Days, Utc};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::lead_activity;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{list_refuses, listed, locs, submit};
use crate::lead_pages::fetch_csv;
use crate::lead_walk::answers;
use crate::lead_work::{cast, ids, lead_at, Cast};
use crate::pages::{assert_shows, page_shows, sign_in};
use crate::webhooks::{first_payload, hooked_team};

backend_tests!(
    a_contact_is_logged_with_its_note_status_and_follow_up,
    a_contact_log_is_refused_as_the_contract_says,
    a_logged_contact_sends_lead_updated_naming_its_outcome,
    the_lead_page_logs_a_contact_and_goes_on_down_the_list,
    the_team_page_and_the_dashboard_count_contacts_by_who_logged_them,
    the_list_finds_the_leads_not_contacted_yet_and_those_gone_quiet,
    a_contact_is_logged_on_every_ticked_lead_at_once,
    the_dashboard_counts_my_open_leads_nobody_contacted_yet,
    a_wrong_number_is_taken_off_the_lead_and_never_comes_back,
    the_number_that_reached_the_owner_goes_first,
);

pub(crate) async fn log(app: &TestApp, key: &str, lead: i64, body: Value) -> (StatusCode, Value) {
    app.post(&format!("/api/v1/leads/{lead}/contacts"), key, body)
        .await
}

/// The lead's timeline kinds, newest first, with their details.
async fn timeline(app: &TestApp, key: &str, lead: i64) -> Vec<(String, Value)> {
    let (status, page) = app
        .get(&format!("/api/v1/leads/{lead}/activity"), key)
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] != "submission")
        .map(|e| (e["kind"].as_str().unwrap().to_owned(), e["detail"].clone()))
        .collect()
}

async fn a_contact_is_logged_with_its_note_status_and_follow_up(app: TestApp) {
    let c = cast(&app).await;
    let lead = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let key = &c.mia.key;
    let body = json!({"outcome": "left_message", "note": "  Call after 5pm ",
        "follow_up_on": "2026-12-08"});
    let (status, answer) = log(&app, key, lead, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["id"], json!(lead), "{answer}");
    assert_eq!(answer["status"], "contacted", "{answer}");
    assert_eq!(answer["follow_up_on"], "2026-12-08", "{answer}");
    let (_, notes) = app.get(&format!("/api/v1/leads/{lead}/notes"), key).await;
    assert_eq!(notes["items"][0]["body"], "Call after 5pm", "{notes}");
    assert_eq!(notes["items"][0]["author"]["email"], "mia@example.com");
    let kinds: Vec<String> = timeline(&app, key, lead)
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        kinds,
        [
            "note_added",
            "follow_up_set",
            "status_changed",
            "contact_logged"
        ]
    );
    let entries = timeline(&app, key, lead).await;
    assert_eq!(entries[3].1, json!({"outcome": "left_message"}));

    // Nobody answered the next call: the status and the day stay, no note is made.
    let (status, answer) = log(&app, key, lead, json!({"outcome": "no_answer"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "contacted");
    assert_eq!(answer["follow_up_on"], "2026-12-08");
    let entries = timeline(&app, key, lead).await;
    assert_eq!(
        entries[0],
        ("contact_logged".to_owned(), json!({"outcome": "no_answer"}))
    );
    assert_eq!(entries.len(), 5);
    // null clears the day; a blank note is no note.
    let body = json!({"outcome": "reached", "note": "  ", "follow_up_on": null});
    let (status, answer) = log(&app, key, lead, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["follow_up_on"], Value::Null, "{answer}");
    let (_, notes) = app.get(&format!("/api/v1/leads/{lead}/notes"), key).await;
    assert_eq!(notes["total"], 1, "{notes}");

    // Any user logs a contact on an unassigned lead, as they edit it.
    let loose = lead_at(&app, &c.otto.key, 2, None).await;
    let (status, answer) = log(&app, &c.otto.key, loose, json!({"outcome": "emailed"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "contacted");
}

async fn a_contact_log_is_refused_as_the_contract_says(app: TestApp) {
    let c = cast(&app).await;
    let lead = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let key = &c.mia.key;
    let outcome = || json!(["body", "outcome"]);
    let cases = [
        (json!({}), outcome()),
        (json!({"outcome": null}), outcome()),
        (json!({"outcome": ""}), outcome()),
        (json!({"outcome": "voicemail"}), outcome()),
        (json!({"outcome": 3}), outcome()),
        (
            json!({"outcome": "reached", "note": "x".repeat(10_001)}),
            json!(["body", "note"]),
        ),
        (
            json!({"outcome": "reached", "follow_up_on": "0226-12-05"}),
            json!(["body", "follow_up_on"]),
        ),
        (
            json!({"outcome": "reached", "status": "won"}),
            json!(["body", "status"]),
        ),
    ];
    for (body, at) in cases {
        let (status, answer) = log(&app, key, lead, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        assert_eq!(locs(&answer), [at], "{body}: {answer}");
    }
    // Another team's member is not told the lead exists; nor is anyone of a lead that is not.
    for (key, id) in [(&c.otto.key, lead), (key, lead + 1000)] {
        let (status, answer) = log(&app, key, id, json!({"outcome": "reached"})).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
    }
    let entries = timeline(&app, key, lead).await;
    assert!(entries.is_empty(), "nothing logged: {entries:?}");
}

async fn a_logged_contact_sends_lead_updated_naming_its_outcome(app: TestApp) {
    let (app, owner, team) = hooked_team(app, json!(["lead.updated"])).await;
    let lead = lead_at(&app, &owner.key, 9, Some(team)).await;
    let (status, body) = log(&app, &owner.key, lead, json!({"outcome": "reached"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let payload = first_payload(&app, "lead.updated").await;
    assert_eq!(payload["data"]["id"], json!(lead), "{payload}");
    assert_eq!(
        payload["contact"],
        json!({"outcome": "reached"}),
        "{payload}"
    );
    assert_eq!(
        payload["changes"],
        json!({"status": {"old": "new", "new": "contacted"}}),
        "{payload}"
    );
}

/// The "nobody works them" list, oldest first, as the lead links carry it.
const LIST: &str = "in=assignee%3Dnone%26sort%3Dcreated_at";

async fn the_lead_page_logs_a_contact_and_goes_on_down_the_list(app: TestApp) {
    let c = cast(&app).await;
    let first = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let second = lead_at(&app, &c.olive.key, 2, Some(c.a)).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{first}?{LIST}&at=0")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_shows(
        &page.body,
        &[
            &format!("action=\"/leads/{first}/contact?{LIST}&amp;at=0\""),
            "value=\"no_answer\"",
            "Left a message",
            "id=\"c-then-next\" checked",
        ],
    );
    let csrf = page.field("csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("outcome", "left_message"),
        ("note", "Voicemail, said I would call Friday"),
        ("follow_up", "2026-12-11"),
        ("then", "next"),
    ];
    let path = format!("/leads/{first}/contact?{LIST}&at=0");
    let next = format!("/leads/{second}?{LIST}&at=1&done=contact-logged-then-next");
    let page = answers(&mut mia, &path, &form, &next).await;
    assert_shows(
        &page.body,
        &[
            "Contact logged. This is the next lead in the list.",
            "Lead 2 of 2 in the list",
        ],
    );
    // The list and the lead page tell the last contact.
    let list = mia.get("/leads?assignee=none&sort=created_at").await;
    assert_shows(&list.body, &["<th>Last contact</th>", "left a message<br>"]);
    let page = mia.get(&format!("/leads/{first}")).await;
    assert_shows(
        &page.body,
        &[
            "<strong>Last contact:</strong> left a message, ",
            "Called: left a message",
            "Voicemail, said I would call Friday",
            "id=\"lead-status\">contacted",
            "2026-12-11",
        ],
    );

    // Without a walk (or without `then`), back to the lead; an outcome the form has no button
    // for is a form that could not be read, and nothing is logged.
    let csrf = page.field("csrf");
    let form = [("csrf", csrf.as_str()), ("outcome", "wrong_number")];
    let back = format!("/leads/{second}?done=contact-logged#work");
    let page = answers(&mut mia, &format!("/leads/{second}/contact"), &form, &back).await;
    assert_shows(&page.body, &["Contact logged.", "Called: wrong number"]);
    let csrf = page.field("csrf");
    let form = [("csrf", csrf.as_str()), ("outcome", "reached")];
    let page = answers(&mut mia, &format!("/leads/{second}/contact"), &form, &back).await;
    assert_shows(
        &page.body,
        &[
            "<strong>Last contact:</strong> spoke with them, ",
            "(2 logged)",
        ],
    );
    let list = mia.get("/leads?assignee=none&sort=created_at").await;
    assert_shows(&list.body, &["spoke with them<br>", " · 2 in all</span>"]);
    assert!(!page.body.contains("id=\"c-then-next\""), "no walk, no box");
    let bad = [("csrf", csrf.as_str()), ("outcome", "hung_up")];
    let refused = mia.post(&format!("/leads/{second}/contact"), &bad).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let entries = timeline(&app, &c.mia.key, second).await;
    let contacts = entries
        .iter()
        .filter(|(k, _)| k == "contact_logged")
        .count();
    assert_eq!(contacts, 2, "{entries:?}");
}

async fn the_team_page_and_the_dashboard_count_contacts_by_who_logged_them(app: TestApp) {
    let c = cast(&app).await;
    let lead = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let other = lead_at(&app, &c.otto.key, 2, Some(c.b)).await;
    for _ in 0..3 {
        let (status, _) = log(&app, &c.mia.key, lead, json!({"outcome": "no_answer"})).await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, _) = log(&app, &c.adam.key, lead, json!({"outcome": "reached"})).await;
    assert_eq!(status, StatusCode::OK);
    // Another team's contacts are that team's.
    let (status, _) = log(&app, &c.otto.key, other, json!({"outcome": "reached"})).await;
    assert_eq!(status, StatusCode::OK);
    // Two of Mia's were logged 3 and 10 days ago.
    let mia = c.mia.user.id;
    app.write_db(move |conn| {
        let ids: Vec<i64> = lead_activity::table
            .filter(lead_activity::actor_id.eq(mia))
            .filter(lead_activity::kind.eq("contact_logged"))
            .order(lead_activity::id)
            .select(lead_activity::id)
            .load(conn)?;
        let now = Utc::now().naive_utc();
        for (id, days) in ids.into_iter().zip([3, 10]) {
            let then = now.checked_sub_days(Days::new(days)).unwrap();
            diesel::update(lead_activity::table.find(id))
                .set(lead_activity::created_at.eq(then))
                .execute(conn)?;
        }
        Ok(())
    })
    .await;

    let mut olive = sign_in(&app, "olive@example.com").await;
    let team = olive.get(&format!("/teams/{}", c.a)).await;
    assert_eq!(team.status, StatusCode::OK, "{}", team.body);
    let (mia, adam, olive_id) = (
        &c.mia.user.user_id,
        &c.adam.user.user_id,
        &c.olive.user.user_id,
    );
    // Each count opens the leads it counts contacts on (the visitor's days: UTC here).
    let today = Utc::now().date_naive();
    let week_began = today.checked_sub_days(Days::new(6)).unwrap();
    let of = |who: &str, since| {
        format!(
            "/leads?team_id={}&amp;contacted_by={who}&amp;contacted_since={since}&amp;sort=-last_contact_at",
            c.a
        )
    };
    assert_shows(
        &team.body,
        &[
            "<th>Contacts today</th><th>Last 7 days</th>",
            &format!(
                "id=\"contacts-today-{mia}\"><a href=\"{}\" data-today-param=\"contacted_since\">1</a></td>",
                of(mia, today)
            ),
            &format!(
                "id=\"contacts-week-{mia}\"><a href=\"{}\">2</a></td>",
                of(mia, week_began)
            ),
            &format!(
                "id=\"contacts-today-{adam}\"><a href=\"{}\" data-today-param=\"contacted_since\">1</a></td>",
                of(adam, today)
            ),
            &format!("id=\"contacts-week-{adam}\"><a href=\"{}\">1</a></td>", of(adam, week_began)),
            &format!("id=\"contacts-today-{olive_id}\">0</td>"),
        ],
    );
    let week = olive.get(&of(mia, week_began).replace("&amp;", "&")).await;
    assert_shows(
        &week.body,
        &["1 lead matches", &format!("href=\"/leads/{lead}?")],
    );
    // Each person's dashboard counts their own of today, and opens the leads they are on.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let home = mia.get("/").await;
    let mine = format!(
        "href=\"/leads?contacted_by=me&amp;contacted_since={today}&amp;sort=-last_contact_at\" data-today-param=\"contacted_since\""
    );
    assert_shows(
        &home.body,
        &[&format!(
            "id=\"my-contacts\" {mine}>1</a> contact logged by you today"
        )],
    );
    let home = olive.get("/").await;
    assert_shows(
        &home.body,
        &[&format!("id=\"my-contacts\" {mine}>0</a> contacts logged")],
    );
}

/// Moves `lead`'s logged contacts `days` back in time.
pub(crate) async fn contacts_back(app: &TestApp, lead: i64, days: u64) {
    app.write_db(move |conn| {
        let then = Utc::now()
            .naive_utc()
            .checked_sub_days(Days::new(days))
            .unwrap();
        diesel::update(
            lead_activity::table
                .filter(lead_activity::lead_id.eq(lead))
                .filter(lead_activity::kind.eq("contact_logged")),
        )
        .set(lead_activity::created_at.eq(then))
        .execute(conn)?;
        Ok(())
    })
    .await;
}

async fn the_list_finds_the_leads_not_contacted_yet_and_those_gone_quiet(app: TestApp) {
    let c = cast(&app).await;
    let key = &c.mia.key;
    let made = team_a_leads(&app, &c, 4).await;
    let [fresh, today, quiet, merged] = made[..] else {
        unreachable!()
    };
    // Another team's lead, never contacted, is not Mia's to see.
    let other = lead_at(&app, &c.otto.key, 5, Some(c.b)).await;
    for lead in [today, quiet, merged] {
        let (status, body) = log(&app, key, lead, json!({"outcome": "no_answer"})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    contacts_back(&app, quiet, 10).await;
    contacts_back(&app, merged, 10).await;
    let list = |query: String| listed(&app, key, query);
    let day = |back: u64| {
        Utc::now()
            .date_naive()
            .checked_sub_days(Days::new(back))
            .unwrap()
    };
    assert_eq!(list("contacted=false".into()).await, [fresh]);
    assert_eq!(list("contacted=false&status=new".into()).await, [fresh]);
    assert_eq!(
        list(format!("contacted=false&team_id={}", c.a)).await,
        [fresh]
    );
    assert_eq!(list("contacted=true".into()).await, [merged, quiet, today]);
    // The call order: nobody called first, then the longest untried (quiet's and merged's
    // contacts went back first and second; a tie would go by creation, the same order).
    assert_eq!(
        list("sort=last_contact_at".into()).await,
        [fresh, quiet, merged, today]
    );
    assert_eq!(
        list("sort=-last_contact_at&contacted=true".into()).await,
        [today, merged, quiet]
    );
    // Beside a filter SQLite's word index holds, a page found by listing every match and
    // sorting them, and short pages found by walking the order's own index (a broad filter:
    // `walk_the_order`) say the same, and see no other team's lead.
    let call_order = "city=austin&sort=last_contact_at";
    assert_eq!(list(call_order.into()).await, [fresh, quiet, merged, today]);
    let mut walked = Vec::new();
    for offset in 0..4 {
        let path = format!("/api/v1/leads?{call_order}&limit=1&offset={offset}");
        let (_, page) = app.get(&path, key).await;
        assert_eq!(page["total"], 4, "{page}");
        walked.extend(ids(&page));
    }
    assert_eq!(walked, [fresh, quiet, merged, today]);
    let path = "/api/v1/leads?state=tx&sort=-last_contact_at&limit=2&offset=1";
    let (_, page) = app.get(path, key).await;
    assert_eq!(ids(&page), [merged, quiet], "{page}");
    let gone_quiet = format!("last_contact_before={}", day(3));
    assert_eq!(list(gone_quiet.clone()).await, [merged, quiet]);
    assert_eq!(
        list(format!("last_contact_before={}", day(11))).await,
        Vec::<i64>::new()
    );
    // Tomorrow: every lead contacted before it, none never contacted.
    let tomorrow = Utc::now().date_naive().succ_opt().unwrap();
    assert_eq!(
        list(format!("last_contact_before={tomorrow}")).await,
        [merged, quiet, today]
    );
    assert_eq!(
        list(format!("{gone_quiet}&contacted=false")).await,
        Vec::<i64>::new()
    );
    let (_, otto_sees) = app.get("/api/v1/leads?contacted=false", &c.otto.key).await;
    assert_eq!(ids(&otto_sees), [other], "{otto_sees}");

    // A lead merged into another brings its contacts: the survivor is contacted, and quiet
    // since its newest contact is today's.
    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{merged}/merge"),
            &c.olive.key,
            json!({"into": fresh}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(list("contacted=false".into()).await, Vec::<i64>::new());
    assert_eq!(list(gone_quiet.clone()).await, [quiet, fresh]);

    // The export takes the same filters, and ends with each lead's contacts: the last one's
    // time and outcome, and how many (the merged lead's and the survivor's own none).
    let export = fetch_csv(&app, &format!("/api/v1/leads/export?{gone_quiet}"), key)
        .await
        .1;
    let mut reader = csv::Reader::from_reader(export.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (when, outcome, count) = (
        at("last_contact_at"),
        at("last_contact_outcome"),
        at("contact_count"),
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let exported: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(exported, [quiet.to_string(), fresh.to_string()], "{export}");
    for row in &rows {
        assert!(row[when].starts_with(&day(10).to_string()), "{export}");
        assert!(row[when].ends_with('Z'), "{export}");
        assert_eq!((&row[outcome], &row[count]), ("no_answer", "1"), "{export}");
    }
    let all = fetch_csv(&app, "/api/v1/leads/export?contacted=false", &c.otto.key)
        .await
        .1;
    assert!(
        all.lines().nth(1).unwrap().ends_with(",,,0,false,,,"),
        "{all}"
    );

    // Words that are not a boolean or a day are refused, naming the parameter.
    for query in [
        "contacted=maybe",
        "last_contact_before=2026-13-01",
        "last_contact_before=yesterday",
    ] {
        list_refuses(&app, key, query).await;
    }

    // The page's "Not contacted yet" view.
    let mut mia = sign_in(&app, "mia@example.com").await;
    page_shows(
        &mut mia,
        "/leads?contacted=false",
        &[
            "id=\"not-contacted\" aria-current=\"page\">Not contacted yet</a>",
            "<option value=\"false\" selected>none logged yet</option>",
            "0 leads match these filters",
        ],
    )
    .await;
    let page = mia
        .get(&format!("/leads?{gone_quiet}&sort=last_contact_at"))
        .await;
    assert_shows(
        &page.body,
        &[
            &format!(
                "name=\"last_contact_before\" type=\"date\" value=\"{}\"",
                day(3)
            ),
            "2 leads match these filters",
            "<option value=\"last_contact_at\" selected>last contact, longest ago first (never first)</option>",
        ],
    );
}

/// `count` new leads of team A, oldest first.
pub(crate) async fn team_a_leads(app: &TestApp, c: &Cast, count: u32) -> Vec<i64> {
    let mut made = Vec::new();
    for n in 1..=count {
        made.push(lead_at(app, &c.olive.key, n, Some(c.a)).await);
    }
    made
}

async fn a_contact_is_logged_on_every_ticked_lead_at_once(app: TestApp) {
    let c = cast(&app).await;
    let key = &c.mia.key;
    let ours = team_a_leads(&app, &c, 3).await;
    let theirs = lead_at(&app, &c.otto.key, 9, Some(c.b)).await;
    let (status, _) = app
        .patch(
            &format!("/api/v1/leads/{}", ours[2]),
            key,
            json!({"status": "qualified"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let bulk = |ids: Vec<i64>, set: Value| {
        app.post("/api/v1/leads/bulk", key, json!({"ids": ids, "set": set}))
    };

    // Refused first, and nothing logged: an outcome that is none, a note too long, another
    // team's lead (named at its index, as in every bulk change).
    let (status, body) = bulk(ours.clone(), json!({"contact": "called"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "set", "contact"])]);
    let long = "x".repeat(10_001);
    let (status, body) = bulk(ours.clone(), json!({"contact": "emailed", "note": long})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "set", "note"])]);
    let mut mixed = ours.clone();
    mixed.push(theirs);
    let (status, body) = bulk(mixed, json!({"contact": "emailed"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "ids", 3])]);
    assert_eq!(listed(&app, key, "contacted=true").await, Vec::<i64>::new());

    // An e-mail sent to the whole list: each lead has its contact and its note; the new ones
    // are contacted now, the qualified one stays qualified.
    let set = json!({"contact": "emailed", "note": "  Sent the spring offer "});
    let (status, body) = bulk(ours.clone(), set).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["updated"], 3, "{body}");
    let statuses: Vec<&Value> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["status"])
        .collect();
    assert_eq!(statuses, ["contacted", "contacted", "qualified"], "{body}");
    for lead in &ours {
        let entries = timeline(&app, key, *lead).await;
        assert!(
            entries.contains(&("contact_logged".into(), json!({"outcome": "emailed"}))),
            "{entries:?}"
        );
        let (_, notes) = app.get(&format!("/api/v1/leads/{lead}/notes"), key).await;
        assert_eq!(
            notes["items"][0]["body"], "Sent the spring offer",
            "{notes}"
        );
        assert_eq!(notes["items"][0]["author"]["email"], "mia@example.com");
    }
    let mut contacted = listed(&app, key, "contacted=true").await;
    contacted.sort_unstable();
    assert_eq!(contacted, ours);

    // A status given beside the contact is the status the leads get.
    let set = json!({"contact": "reached", "status": "lost"});
    let (status, body) = bulk(vec![ours[0]], set).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["items"][0]["status"], "lost", "{body}");

    // The list page's "Log a contact on the ticked leads": the outcome's button, the note and
    // the next day, on each ticked lead; a day that is none is refused with nothing logged.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let bar = [
        "Log a contact on the ticked leads",
        "name=\"contact\" value=\"no_answer\"",
        "id=\"bulk-contact-note\"",
    ];
    let page = page_shows(&mut mia, "/leads", &bar).await;
    let csrf = page.field("csrf");
    let (one, two) = (format!("lead-{}", ours[1]), format!("lead-{}", ours[2]));
    let form = |day: &'static str| {
        vec![
            ("csrf", csrf.as_str()),
            (one.as_str(), "on"),
            (two.as_str(), "on"),
            ("action", ""),
            ("contact", "no_answer"),
            ("contact_note", "Rang both, nobody home"),
            ("contact_follow_up", day),
        ]
    };
    let bad = form("next week");
    let refused = mia.post("/leads/bulk", &bad).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(
        &refused.body,
        &["Give the next follow-up day as a calendar day"],
    );
    let good = form("2026-12-11");
    let (redirect, _) = mia.post_and_follow("/leads/bulk", &good).await;
    assert_eq!(redirect.location(), "/leads?done=bulk");
    for lead in [ours[1], ours[2]] {
        let page = mia.get(&format!("/leads/{lead}")).await;
        assert_shows(
            &page.body,
            &[
                "<strong>Last contact:</strong> no answer, ",
                "(2 logged)",
                "Rang both, nobody home",
                "2026-12-11",
            ],
        );
    }
    let page = mia.get(&format!("/leads/{}", ours[0])).await;
    assert!(
        !page.body.contains("Rang both"),
        "an unticked lead is left alone"
    );
}

async fn the_dashboard_counts_my_open_leads_nobody_contacted_yet(app: TestApp) {
    let c = cast(&app).await;
    let key = &c.mia.key;
    let [called, waiting, closed, theirs] = team_a_leads(&app, &c, 4).await[..] else {
        unreachable!()
    };
    let mine = json!({"assignee_id": c.mia.user.user_id});
    let (status, body) = app
        .post(
            "/api/v1/leads/bulk",
            key,
            json!({"ids": [called, waiting, closed], "set": mine}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let adams = json!({"assignee_id": c.adam.user.user_id});
    let (status, _) = app
        .patch(&format!("/api/v1/leads/{theirs}"), key, adams)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .patch(
            &format!("/api/v1/leads/{closed}"),
            key,
            json!({"status": "won"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = log(&app, key, called, json!({"outcome": "no_answer"})).await;
    assert_eq!(status, StatusCode::OK);

    // Mia's open leads: two; one of them called. Adam's lead and the closed one do not count.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let cards = [
        "id=\"my-open\" href=\"/leads?assignee=me&amp;status=open\">2</a>",
        "id=\"my-not-contacted\" href=\"/leads?assignee=me&amp;status=open&amp;contacted=false\">1</a> of them not contacted yet",
    ];
    page_shows(&mut mia, "/", &cards).await;
    // The card's list holds the lead still to call, and only it: the closed lead nobody
    // called is not a call to make (the count and the list agree).
    let list = mia
        .get("/leads?assignee=me&status=open&contacted=false")
        .await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body.contains(&format!("href=\"/leads/{waiting}?")),
        "{}",
        list.body
    );
    for not_listed in [called, closed] {
        assert!(!list.body.contains(&format!("href=\"/leads/{not_listed}?")));
    }
    assert_shows(&list.body, &["1 lead matches these filters"]);
    let all_mine = mia.get("/leads?assignee=me&contacted=false").await;
    assert!(all_mine.body.contains(&format!("href=\"/leads/{closed}?")));
    let home = sign_in(&app, "olive@example.com").await.get("/").await;
    assert_shows(
        &home.body,
        &["id=\"my-not-contacted\" href=\"/leads?assignee=me&amp;status=open&amp;contacted=false\">0</a>"],
    );
}

async fn a_wrong_number_is_taken_off_the_lead_and_never_comes_back(app: TestApp) {
    let c = cast(&app).await;
    let skip_traced = json!({"address": "7 Oak St", "city": "Austin", "state": "TX",
        "zip_code": "78701", "team_id": c.a, "primary_phone": "512-555-0100",
        "primary_phone_type": "landline", "phone_2": "512-555-0102"});
    let lead = submit(&app, &c.olive.key, skip_traced.clone()).await["result_lead_id"]
        .as_i64()
        .unwrap();
    let key = &c.mia.key;
    // A number that is not the lead's is refused, and nothing is logged.
    let body = json!({"outcome": "wrong_number", "phone": "512-555-0199"});
    let (status, answer) = log(&app, key, lead, body).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(locs(&answer), [json!(["body", "phone"])], "{answer}");
    let body = json!({"outcome": "wrong_number", "phone": "(512) 555-0100"});
    let (status, answer) = log(&app, key, lead, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["primary_phone"], "+15125550102", "{answer}");
    assert_eq!(answer["phone_2"], Value::Null, "{answer}");
    assert_eq!(answer["primary_phone_type"], Value::Null, "{answer}");
    assert_eq!(answer["wrong_phones"], json!(["+15125550100"]), "{answer}");
    let entries = timeline(&app, key, lead).await;
    assert_eq!(
        entries[0],
        (
            "contact_logged".to_owned(),
            json!({"outcome": "wrong_number", "phone": "+15125550100"})
        )
    );

    // The list sent again: the number stays off, the warning says why.
    let again = submit(&app, &c.olive.key, skip_traced).await;
    assert_eq!(again["result_action"], "skipped", "{again}");
    let codes: Vec<&str> = again["validation_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["wrong_number"], "{again}");
    let (_, stored) = app.get(&format!("/api/v1/leads/{lead}"), key).await;
    assert_eq!(stored["primary_phone"], "+15125550102", "{stored}");
    assert_eq!(stored["phone_2"], Value::Null, "{stored}");

    // From the lead page: the number called is chosen, the timeline names it.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{lead}")).await;
    assert_shows(
        &page.body,
        &[
            "<option value=\"+15125550102\">(512) 555-0102</option>",
            "Wrong numbers, taken off the lead: (512) 555-0100",
            "Called (512) 555-0100: wrong number, taken off the lead",
        ],
    );
    let csrf = page.field("csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("outcome", "wrong_number"),
        ("phone", "+15125550102"),
    ];
    let sent = mia.post(&format!("/leads/{lead}/contact"), &form).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let (_, stored) = app.get(&format!("/api/v1/leads/{lead}"), key).await;
    assert_eq!(stored["primary_phone"], Value::Null, "{stored}");
    assert_eq!(
        stored["wrong_phones"],
        json!(["+15125550100", "+15125550102"]),
        "{stored}"
    );
    let page = mia.get(&format!("/leads/{lead}")).await;
    assert!(
        !page.body.contains("id=\"c-phone\""),
        "no number left to choose"
    );

    // A person who types a wrong number back knows it is right after all: it is the lead's
    // again, and off its wrong numbers.
    let body = json!({"primary_phone": "512-555-0102"});
    let (status, edited) = app.patch(&format!("/api/v1/leads/{lead}"), key, body).await;
    assert_eq!(status, StatusCode::OK, "{edited}");
    assert_eq!(
        (&edited["primary_phone"], &edited["wrong_phones"]),
        (&json!("+15125550102"), &json!(["+15125550100"])),
        "{edited}"
    );
}

async fn the_number_that_reached_the_owner_goes_first(app: TestApp) {
    let c = cast(&app).await;
    let traced = json!({"address": "8 Oak St", "city": "Austin", "state": "TX",
        "zip_code": "78701", "team_id": c.a, "primary_phone": "512-555-0100",
        "phone_2": "512-555-0102", "phone_3": "512-555-0103"});
    let lead = submit(&app, &c.olive.key, traced).await["result_lead_id"]
        .as_i64()
        .unwrap();
    let body = json!({"outcome": "reached", "phone": "(512) 555-0103"});
    let (status, answer) = log(&app, &c.mia.key, lead, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let phones: Vec<&Value> = ["primary_phone", "phone_2", "phone_3"]
        .iter()
        .map(|f| &answer[*f])
        .collect();
    assert_eq!(
        phones,
        [
            &json!("+15125550103"),
            &json!("+15125550100"),
            &json!("+15125550102")
        ],
        "{answer}"
    );
    assert_eq!(answer["status"], "contacted", "{answer}");
    assert_eq!(answer["wrong_phones"], json!([]), "{answer}");
    // The list's Phone column shows the lead's first number: the one that reached the owner.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let list = mia.get("/leads?q=8%20Oak").await;
    assert_shows(&list.body, &["(512) 555-0103"]);
}
