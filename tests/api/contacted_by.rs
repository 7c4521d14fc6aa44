//! The leads someone contacted (`contacted_by`, `contacted_since`: docs/working-leads.md
//! "Contacts"): the list behind each count of contacts, over the API and on the list page.
use chrono::{Days, Utc};
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{list_refuses, listed};
use crate::lead_contacts::{contacts_back, log, team_a_leads};
use crate::lead_pages::fetch_csv;
use crate::lead_work::{cast, lead_at, patch};
use crate::pages::{page_shows, sign_in};

backend_tests!(the_list_finds_the_leads_someone_contacted_since_a_day);

async fn the_list_finds_the_leads_someone_contacted_since_a_day(app: TestApp) {
    let c = cast(&app).await;
    let made = team_a_leads(&app, &c, 4).await;
    let [today, long_ago, adams, untried] = made[..] else {
        unreachable!()
    };
    // Mia called two leads, one of them 10 days ago; Adam a third; Otto one of team B's.
    for (key, lead) in [
        (&c.mia.key, today),
        (&c.mia.key, long_ago),
        (&c.adam.key, adams),
    ] {
        let (status, body) = log(&app, key, lead, json!({"outcome": "no_answer"})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    contacts_back(&app, long_ago, 10).await;
    let others = lead_at(&app, &c.otto.key, 9, Some(c.b)).await;
    let (status, _) = log(&app, &c.otto.key, others, json!({"outcome": "reached"})).await;
    assert_eq!(status, StatusCode::OK);
    let day = |back: u64| {
        Utc::now()
            .date_naive()
            .checked_sub_days(Days::new(back))
            .unwrap()
    };
    let mia = |query: String| listed(&app, &c.mia.key, format!("{query}&sort=created_at"));
    let (adam, otto) = (&c.adam.user.user_id, &c.otto.user.user_id);

    assert_eq!(mia("contacted_by=me".into()).await, [today, long_ago]);
    assert_eq!(mia("contacted_by=ME".into()).await, [today, long_ago]);
    let since = format!("contacted_since={}", day(3));
    assert_eq!(mia(format!("contacted_by=me&{since}")).await, [today]);
    assert_eq!(mia(format!("contacted_by={adam}")).await, [adams]);
    assert_eq!(mia(format!("contacted_by={adam}&{since}")).await, [adams]);
    assert_eq!(
        mia(format!(
            "contacted_by={adam}&contacted_since={}",
            day(0).succ_opt().unwrap()
        ))
        .await,
        Vec::<i64>::new()
    );
    // Anyone's contacts since the day: the newest contact of each lead is that late.
    assert_eq!(mia(since.clone()).await, [today, adams]);
    assert_eq!(
        mia(format!("contacted_since={}", day(11))).await,
        [today, long_ago, adams]
    );
    // Beside the other filters; never a lead nobody contacted.
    assert_eq!(
        mia(format!("contacted_by=me&{since}&contacted=true")).await,
        [today]
    );
    assert_eq!(
        mia(format!("{since}&contacted=false")).await,
        Vec::<i64>::new()
    );
    assert!(!mia(format!("contacted_since={}", day(30)))
        .await
        .contains(&untried));
    // Another team's contacts are not Mia's to see, nor a user no one is.
    assert_eq!(mia(format!("contacted_by={otto}")).await, Vec::<i64>::new());
    assert_eq!(
        mia("contacted_by=usr_nobody".into()).await,
        Vec::<i64>::new()
    );
    assert_eq!(
        listed(&app, &c.otto.key, format!("contacted_by={otto}")).await,
        [others]
    );

    // A day that is not one is refused, naming the parameter.
    for query in ["contacted_since=yesterday", "contacted_since=2026-02-30"] {
        list_refuses(&app, &c.mia.key, query).await;
    }

    // The list page: the filters as chosen, the teammates to choose from.
    let mut page = sign_in(&app, "mia@example.com").await;
    page_shows(
        &mut page,
        &format!("/leads?contacted_by=me&{since}"),
        &[
            "<option value=\"me\" selected>me</option>",
            &format!(
                "name=\"contacted_since\" type=\"date\" value=\"{}\"",
                day(3)
            ),
            "1 lead matches these filters",
            &format!("href=\"/leads/{today}?"),
        ],
    )
    .await;
    page_shows(
        &mut page,
        &format!("/leads?contacted_by={adam}"),
        &[
            &format!("<option value=\"{adam}\" selected>"),
            "1 lead matches these filters",
        ],
    )
    .await;
    // The export takes the same filters.
    let (_, csv) = fetch_csv(
        &app,
        &format!("/api/v1/leads/export?contacted_by=me&{since}"),
        &c.mia.key,
    )
    .await;
    assert_eq!(csv.lines().count(), 2, "{csv}");

    // The list page's views: what Mia contacted today, and her call list (her open leads, the
    // one nobody called first).
    page_shows(
        &mut page,
        &format!(
            "/leads?contacted_by=me&contacted_since={}&sort=-last_contact_at",
            day(0)
        ),
        &[
            "id=\"contacted-today\" data-today-param=\"contacted_since\" aria-current=\"page\">Contacted by me today</a>",
            "1 lead matches these filters",
        ],
    )
    .await;
    for lead in [today, untried] {
        let (status, body) = patch(
            &app,
            lead,
            &c.olive.key,
            json!({"assignee_id": c.mia.user.user_id, "primary_phone": "512-555-0101"}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let calls = page_shows(
        &mut page,
        "/leads?status=open&assignee=me&has_phone=true&do_not_call=false&sort=last_contact_at",
        &["id=\"call-list\" title=\"Your open leads with a number one may call: never contacted first, then the longest untried\" aria-current=\"page\">My call list</a>", "2 leads match these filters"],
    )
    .await;
    let first = calls
        .body
        .find(&format!("href=\"/leads/{untried}?"))
        .unwrap();
    let second = calls.body.find(&format!("href=\"/leads/{today}?")).unwrap();
    assert!(first < second, "the lead nobody called comes first");
}
