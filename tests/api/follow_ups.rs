//! Follow-up days (docs/working-leads.md "Follow-ups"): set, moved and cleared over the API, in
//! bulk and from the lead page; the list's `follow_up_by` filter and `follow_up_on` order, the
//! "Follow-ups due" view, the timeline and the exports. The app's clock stands at 2026-12-03.
use std::sync::{Arc, Mutex};

use chrono::{TimeZone, Utc};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::leads;
use leadhub_tests::{backend_tests, TestApp};

use crate::clock::TestClock;
use crate::helpers::locs;
use crate::lead_contacts::log;
use crate::lead_pages::fetch_csv;
use crate::lead_work::{cast, ids, lead_at, newest_of_kind, patch};
use crate::pages::{assert_shows, sign_in, Browser};

backend_tests!(
    a_follow_up_day_is_set_listed_exported_and_cleared,
    the_pages_set_follow_ups_and_list_the_due_ones,
    the_pages_count_today_by_the_persons_own_day,
    the_pages_filter_by_the_persons_own_days,
);

/// The test app with its clock at 2026-12-03 15:00 UTC.
async fn on_december_third(app: TestApp) -> TestApp {
    let noon = Utc.with_ymd_and_hms(2026, 12, 3, 15, 0, 0).unwrap();
    let clock = Arc::new(TestClock(Mutex::new(noon)));
    app.restart().clock(clock).build().await
}

/// The ids of a list page and its total.
async fn listed(app: &TestApp, key: &str, query: &str) -> (Vec<i64>, i64) {
    let (status, body) = app.get(&format!("/api/v1/leads{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    (ids(&body), body["total"].as_i64().unwrap())
}

async fn a_follow_up_day_is_set_listed_exported_and_cleared(app: TestApp) {
    let app = on_december_third(app).await;
    let c = cast(&app).await;
    let key = &c.mia.key;
    let early = lead_at(&app, key, 1, Some(c.a)).await;
    let late = lead_at(&app, key, 2, Some(c.a)).await;
    let none = lead_at(&app, key, 3, Some(c.a)).await;

    let (status, body) = patch(&app, early, key, json!({"follow_up_on": "2026-12-01"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["follow_up_on"], "2026-12-01");
    assert_eq!(body["version"], 2);
    let (status, body) = patch(&app, late, key, json!({"follow_up_on": " 2026-12-10 "})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["follow_up_on"], "2026-12-10");
    // The same day again changes nothing: no new version, no timeline row.
    let (_, body) = patch(&app, late, key, json!({"follow_up_on": "2026-12-10"})).await;
    assert_eq!(body["version"], 2, "{body}");
    let (_, body) = app.get(&format!("/api/v1/leads/{none}"), key).await;
    assert_eq!(body["follow_up_on"], Value::Null);

    // Due by a day: on or before it, leads without a day never; in any order asked for.
    assert_eq!(
        listed(&app, key, "?follow_up_by=2026-12-03").await,
        (vec![early], 1)
    );
    assert_eq!(
        listed(&app, key, "?follow_up_by=2026-12-10&sort=follow_up_on").await,
        (vec![early, late], 2)
    );
    // With filters SQLite's word index holds, the day is still applied (and counted).
    assert_eq!(
        listed(&app, key, "?state=tx&city=austin&follow_up_by=2026-12-09").await,
        (vec![early], 1)
    );
    // A lead without a day sorts as the smallest, as every other order has it.
    assert_eq!(
        listed(&app, key, "?sort=follow_up_on").await.0,
        [none, early, late]
    );
    assert_eq!(
        listed(&app, key, "?sort=-follow_up_on").await.0,
        [late, early, none]
    );

    // Refused: a day that is not one, a year out of range, another JSON type; nothing changes.
    let (status, body) = app.get("/api/v1/leads?follow_up_by=2026-13-01", key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["query", "follow_up_by"])]);
    for wrong in [json!("12/05/2026"), json!("0226-12-05"), json!(20261205)] {
        let (status, body) = patch(&app, none, key, json!({ "follow_up_on": wrong })).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{wrong}: {body}");
        assert_eq!(locs(&body), [json!(["body", "follow_up_on"])], "{body}");
    }
    let (_, body) = patch(&app, none, key, json!({"follow_up_on": "2026-12-05x"})).await;
    assert_eq!(body["detail"][0]["type"], "date_parsing", "{body}");

    // The timeline tells the day, old and new.
    let set = newest_of_kind(&app, early, key, "follow_up_set").await;
    assert_eq!(set["detail"], json!({"old": null, "new": "2026-12-01"}));

    // The exports end with the day, then the contacts logged, the do-not-call mark, the tags and
    // the barred numbers.
    let export = fetch_csv(&app, "/api/v1/leads/export", key).await.1;
    let mut rows = csv::Reader::from_reader(export.as_bytes());
    assert_eq!(
        rows.headers().unwrap().iter().nth_back(7),
        Some("follow_up_on")
    );
    let days: Vec<(String, String)> = rows
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r.iter().nth_back(7).unwrap().to_owned())
        })
        .collect();
    assert!(
        days.contains(&(late.to_string(), "2026-12-10".to_owned())),
        "{export}"
    );

    // Bulk: one day on many leads; null clears.
    let (status, body) = app
        .post(
            "/api/v1/leads/bulk",
            key,
            json!({"ids": [early, none], "set": {"follow_up_on": "2026-12-04"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["updated"], 2);
    assert_eq!(
        listed(&app, key, "?follow_up_by=2026-12-04&sort=follow_up_on").await,
        (vec![early, none], 2)
    );
    let (status, body) = patch(&app, early, key, json!({"follow_up_on": null})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["follow_up_on"], Value::Null);
    let cleared = newest_of_kind(&app, early, key, "follow_up_set").await;
    assert_eq!(cleared["detail"], json!({"old": "2026-12-04", "new": null}));

    // Someone outside the lead's team learns nothing and changes nothing.
    let (status, _) = patch(
        &app,
        late,
        &c.otto.key,
        json!({"follow_up_on": "2026-12-05"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        listed(&app, &c.otto.key, "?follow_up_by=2199-12-31").await,
        (vec![], 0)
    );
}

async fn the_pages_set_follow_ups_and_list_the_due_ones(app: TestApp) {
    let app = on_december_third(app).await;
    let c = cast(&app).await;
    let id = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let later = lead_at(&app, &c.olive.key, 2, Some(c.a)).await;
    patch(
        &app,
        later,
        &c.olive.key,
        json!({"follow_up_on": "2026-12-20"}),
    )
    .await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = mia.get(&format!("/leads/{id}")).await;
    assert!(page.body.contains("id=\"w-follow-up\""), "{}", page.body);
    assert!(!page.body.contains("id=\"follow-up\""), "no day yet");

    let csrf = page.field("csrf");
    let form = |version: &str, day: Option<&str>| {
        let mut form = vec![
            ("csrf".to_owned(), csrf.clone()),
            ("version".to_owned(), version.to_owned()),
            ("status".to_owned(), "contacted".to_owned()),
            ("assignee".to_owned(), String::new()),
        ];
        if let Some(day) = day {
            form.push(("follow_up".to_owned(), day.to_owned()));
        }
        form
    };
    let path = format!("/leads/{id}/work");
    // A day that is not one: refused with the reason, nothing saved.
    let refused = mia
        .post(&path, &pairs(&form("1", Some("0026-12-02"))))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(
        &refused.body,
        &["The follow-up day must be a date in the format YYYY-MM-DD, from 2000 to 2199"],
    );

    let page = saved(&mut mia, &path, &form("1", Some("2026-12-02"))).await;
    assert_shows(
        &page,
        &[
            "Follow-up set for 2026-12-02",
            "<strong>Follow up on</strong> 2026-12-02 <span class=\"badge due\">due</span>",
            "value=\"2026-12-02\"",
        ],
    );
    // A form without the field (a page from before follow-ups) leaves the day as it is.
    saved(&mut mia, &path, &form("2", None)).await;
    let (_, api) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(api["follow_up_on"], "2026-12-02", "{api}");

    // The list: the view of the leads due today (the clock's day), soonest first.
    let list = mia.get("/leads").await;
    let due = "/leads?follow_up_by=2026-12-03&amp;sort=follow_up_on";
    assert!(list.body.contains(due), "{}", list.body);
    let view = mia
        .get("/leads?follow_up_by=2026-12-03&sort=follow_up_on")
        .await;
    assert_eq!(view.status, StatusCode::OK);
    assert_shows(
        &view.body,
        &[
            "1 lead matches these filters",
            "id=\"follow-ups-due\" data-today-param=\"follow_up_by\" aria-current=\"page\"",
            "<span class=\"badge due\" title=\"Due: today or earlier\">2026-12-02</span>",
        ],
    );
    assert!(!view.body.contains("2026-12-20"), "not due yet");
    // The dashboard counts the viewer's open leads that are due, and links to them.
    let mia_id = c.mia.user.user_id.clone();
    let (status, _) = patch(&app, id, &c.olive.key, json!({ "assignee_id": mia_id })).await;
    assert_eq!(status, StatusCode::OK);
    let dashboard = mia.get("/").await;
    assert_shows(
        &dashboard.body,
        &["id=\"my-due\" href=\"/leads?assignee=me&amp;status=open&amp;follow_up_by=2026-12-03&amp;sort=follow_up_on\" data-today-param=\"follow_up_by\">1</a>"],
    );
    // Clearing the field clears the day (the form also takes the owner off).
    let page = saved(&mut mia, &path, &form("3", Some(""))).await;
    assert_shows(&page, &["Follow-up of 2026-12-02 cleared"]);

    // The list's bulk bar: one day for every ticked lead, the day picked beside the action.
    let (id_tick, later_tick) = (format!("lead-{id}"), format!("lead-{later}"));
    let ticked = |action: &'static str, day: &'static str| {
        vec![
            ("csrf", csrf.as_str()),
            (id_tick.as_str(), "on"),
            (later_tick.as_str(), "on"),
            ("action", action),
            ("follow_up", day),
        ]
    };
    let without_day = mia.post("/leads/bulk", &ticked("follow-up", "")).await;
    assert_eq!(without_day.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(
        &without_day.body,
        &["Give the follow-up day beside the action"],
    );
    let (redirect, _) = mia
        .post_and_follow("/leads/bulk", &ticked("follow-up", "2026-12-04"))
        .await;
    assert_eq!(redirect.location(), "/leads?done=bulk");
    for lead in [id, later] {
        let (_, api) = app.get(&format!("/api/v1/leads/{lead}"), &c.mia.key).await;
        assert_eq!(api["follow_up_on"], "2026-12-04", "{api}");
    }
}

/// Posts the lead's work form and follows the redirect back to the lead; that page's HTML.
async fn saved(b: &mut Browser, path: &str, form: &[(String, String)]) -> String {
    let (_, page) = b.post_and_follow(path, &pairs(form)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    page.body
}

fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// "Today" on the pages is the person's own day, by the offset their browser keeps in
/// `leadhub_utc_offset`: at 15:00 UTC on the 3rd it is already the 4th at UTC+10, and at 05:00
/// UTC on the 4th it is still the evening of the 3rd in Chicago (UTC-6).
async fn the_pages_count_today_by_the_persons_own_day(app: TestApp) {
    let three_pm = Utc.with_ymd_and_hms(2026, 12, 3, 15, 0, 0).unwrap();
    let clock = Arc::new(TestClock(Mutex::new(three_pm)));
    let app = app.restart().clock(clock.clone()).build().await;
    let c = cast(&app).await;
    let lead = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    let mia_id = c.mia.user.user_id.clone();
    let work = json!({"assignee_id": mia_id, "follow_up_on": "2026-12-04"});
    let (status, body) = patch(&app, lead, &c.olive.key, work).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let contact = json!({"outcome": "left_message"});
    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{lead}/contacts"),
            &c.mia.key,
            contact,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["follow_up_on"], "2026-12-04", "{body}");

    let mut mia = sign_in(&app, "mia@example.com").await;
    let mut olive = sign_in(&app, "olive@example.com").await;
    let due_badge = "<span class=\"badge due\" title=\"Due: today or earlier\">2026-12-04</span>";
    let later = three_pm + chrono::Duration::hours(14);
    // (the hour, the offset cookie, the person's day, due, contacts logged by Mia that day,
    // the contact's time as the lead page shows it)
    let cases = [
        (three_pm, None, "2026-12-03", 0, 1, "3 Dec 2026 15:00 UTC"),
        (
            three_pm,
            Some("600"),
            "2026-12-04",
            1,
            1,
            "4 Dec 2026 01:00<",
        ),
        (
            three_pm,
            Some("-360"),
            "2026-12-03",
            0,
            1,
            "3 Dec 2026 09:00<",
        ),
        // An offset no place has, or no number: UTC's day.
        (
            three_pm,
            Some("900"),
            "2026-12-03",
            0,
            1,
            "3 Dec 2026 15:00 UTC",
        ),
        (
            three_pm,
            Some("east"),
            "2026-12-03",
            0,
            1,
            "3 Dec 2026 15:00 UTC",
        ),
        (later, None, "2026-12-04", 1, 0, "3 Dec 2026 15:00 UTC"),
        (later, Some("-360"), "2026-12-03", 0, 1, "3 Dec 2026 09:00<"),
    ];
    for (now, offset, day, due, contacts, contact_time) in cases {
        *clock.0.lock().unwrap() = now;
        let case = format!("{now} at {offset:?}");
        for browser in [&mut mia, &mut olive] {
            browser.set_cookie("leadhub_utc_offset", offset);
        }
        let home = mia.get("/").await;
        assert_eq!(home.status, StatusCode::OK, "{case}");
        let link =
            format!("href=\"/leads?assignee=me&amp;status=open&amp;follow_up_by={day}&amp;sort=follow_up_on\"");
        for shown in [
            format!("id=\"my-due\" {link} data-today-param=\"follow_up_by\">{due}</a>"),
            format!("id=\"my-contacts\" href=\"/leads?contacted_by=me&amp;contacted_since={day}&amp;sort=-last_contact_at\" data-today-param=\"contacted_since\">{contacts}</a>"),
        ] {
            assert!(
                home.body.contains(&shown),
                "{case}: {shown} in\n{}",
                home.body
            );
        }
        let list = mia.get("/leads").await;
        assert!(
            list.body
                .contains(&format!("/leads?follow_up_by={day}&amp;sort=follow_up_on")),
            "{case}"
        );
        assert_eq!(list.body.contains(due_badge), due == 1, "{case}");
        let page = mia.get(&format!("/leads/{lead}")).await;
        let shown = page.body.contains(contact_time);
        assert!(shown, "{case}: {contact_time} in\n{}", page.body);
        let team = olive.get(&format!("/teams/{}", c.a)).await;
        // A count of some opens the leads they were logged on, from the same day.
        let today = if contacts == 0 {
            format!("id=\"contacts-today-{mia_id}\">0</td>")
        } else {
            format!(
                "id=\"contacts-today-{mia_id}\"><a href=\"/leads?team_id={}&amp;contacted_by={mia_id}&amp;contacted_since={day}&amp;sort=-last_contact_at\" data-today-param=\"contacted_since\">{contacts}</a></td>",
                c.a
            )
        };
        assert!(
            team.body.contains(&today),
            "{case}: {today} in\n{}",
            team.body
        );
    }
}

/// The list's date filters read a day as the API does (UTC's) over the API, and as the person
/// lives it on the pages (list, walk and exports), whose times they read on their own clock.
async fn the_pages_filter_by_the_persons_own_days(app: TestApp) {
    // 03:00 UTC on 3 Dec is 21:00 on 2 Dec in Chicago (UTC-6); 15:00 UTC is 09:00 there.
    let early = Utc.with_ymd_and_hms(2026, 12, 3, 3, 0, 0).unwrap();
    let clock = Arc::new(TestClock(Mutex::new(early)));
    let app = app.restart().clock(clock.clone()).build().await;
    let c = cast(&app).await;
    let key = &c.mia.key;
    let evening = lead_at(&app, key, 1, Some(c.a)).await;
    let (status, body) = log(&app, key, evening, json!({"outcome": "no_answer"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let later = early + chrono::Duration::hours(12);
    *clock.0.lock().unwrap() = later;
    let morning = lead_at(&app, key, 2, Some(c.a)).await;
    // The store stamps a lead's creation with its own clock: put both at the test's hours.
    for (id, at) in [(evening, early), (morning, later)] {
        app.write_db(move |conn| {
            diesel::update(leads::table.find(id))
                .set(leads::created_at.eq(at.naive_utc()))
                .execute(conn)
        })
        .await;
    }

    let mut mia = sign_in(&app, "mia@example.com").await;
    // (the filter, what the API lists (UTC's days), what a page at UTC-6 lists)
    let cases = [
        (
            "created_after=2026-12-03",
            vec![morning, evening],
            vec![morning],
        ),
        ("created_before=2026-12-03", vec![], vec![evening]),
        ("last_contact_before=2026-12-03", vec![], vec![evening]),
        // A time without an offset (as Python's `isoformat()` writes one) is on the same clock as
        // a day: 10:00 UTC over the API, 10:00 in Chicago (16:00 UTC) on the page.
        ("created_after=2026-12-03T10:00:00", vec![morning], vec![]),
        // A timestamp with its offset means what it says everywhere.
        (
            "created_after=2026-12-03T06:00:00Z",
            vec![morning],
            vec![morning],
        ),
    ];
    for (filter, by_api, on_page) in cases {
        let (ids, _) = listed(&app, key, &format!("?{filter}")).await;
        assert_eq!(ids, by_api, "API {filter}");
        for (offset, want) in [(None, &by_api), (Some("-360"), &on_page)] {
            mia.set_cookie("leadhub_utc_offset", offset);
            let case = format!("{filter} at {offset:?}");
            let list = mia.get(&format!("/leads?{filter}")).await;
            assert_eq!(list.status, StatusCode::OK, "{case}");
            for id in [evening, morning] {
                let shown = list.body.contains(&format!("id=\"pick-{id}\""));
                assert_eq!(shown, want.contains(&id), "{case}: lead {id}");
            }
            let csv = mia.get(&format!("/leads/export?{filter}")).await;
            assert_eq!(csv.status, StatusCode::OK, "{case}");
            let rows = csv.body.lines().skip(1).filter(|l| !l.is_empty()).count();
            assert_eq!(rows, want.len(), "{case}: export\n{}", csv.body);
            // The lead page's previous and next walk the same list.
            if let [first, ..] = want.as_slice() {
                let list = filter.replace('=', "%3D").replace(':', "%3A");
                let page = mia.get(&format!("/leads/{first}?in={list}&at=0")).await;
                let place = format!("Lead 1 of {} in the list", want.len());
                assert!(page.body.contains(&place), "{case}: {place}\n{}", page.body);
            }
        }
    }
}
