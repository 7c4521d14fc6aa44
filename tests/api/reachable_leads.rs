//! The leads one can call or write to (`has_phone`, `has_email`: docs/working-leads.md "Lists and
//! exports"), and those to find a number for first.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, list_refuses};
use crate::lead_contacts::listed;
use crate::lead_pages::fetch_csv;
use crate::pages::{assert_shows, sign_in};

backend_tests!(the_list_finds_the_leads_with_a_phone_or_an_email_and_those_without);

async fn the_list_finds_the_leads_with_a_phone_or_an_email_and_those_without(app: TestApp) {
    let ann = app.user("ann@example.com").await;
    let lead = |n: u32, more: serde_json::Value| {
        let mut lead = json!({"address": format!("{n} Oak St"), "city": "Austin", "state": "TX",
            "zip_code": "78701", "first_name": "Lee"});
        lead.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        lead
    };
    let leads = json!([
        lead(1, json!({"primary_phone": "(512) 555-0101"})),
        lead(2, json!({"email_1": "two@example.com"})),
        lead(3, json!({})),
        lead(
            4,
            json!({"primary_phone": "512-555-0104", "email_2": "four@example.com"})
        ),
        lead(5, json!({"phone_3": "512 555 0105"})),
    ]);
    batch_ok(&app, &ann.key, json!({"leads": leads})).await;
    let all = listed(&app, &ann.key, "sort=created_at".into()).await;
    let [one, two, three, four, five] = all[..] else {
        panic!("{all:?}")
    };
    let list = |query: &str| listed(&app, &ann.key, format!("{query}&sort=created_at"));

    assert_eq!(list("has_phone=true").await, [one, four, five]);
    assert_eq!(list("has_phone=false").await, [two, three]);
    assert_eq!(list("has_email=true").await, [two, four]);
    assert_eq!(list("has_email=false").await, [one, three, five]);
    assert_eq!(list("has_phone=false&has_email=false").await, [three]);
    assert_eq!(list("has_phone=true&has_email=true&state=tx").await, [four]);

    list_refuses(&app, &ann.key, "has_phone=maybe").await;

    // The export of the leads to look a number up for: a header and two rows.
    let (_, csv) = fetch_csv(&app, "/api/v1/leads/export?has_phone=false", &ann.key).await;
    assert_eq!(csv.lines().count(), 3, "{csv}");

    let mut page = sign_in(&app, "ann@example.com").await;
    let shown = page.get("/leads?has_phone=false").await;
    assert_eq!(shown.status, StatusCode::OK, "{}", shown.body);
    assert_shows(
        &shown.body,
        &[
            "<option value=\"false\" selected>without one (to look up)</option>",
            "2 leads match these filters",
        ],
    );
}
