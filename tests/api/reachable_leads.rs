//! The leads one can call or write to (`has_phone`, `has_email`: docs/working-leads.md "Lists and
//! exports"), and those to find a number for first.
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, list_refuses, team};
use crate::lead_contacts::listed;
use crate::lead_pages::fetch_csv;
use crate::messy_imports::import_file;
use crate::pages::{page_shows, sign_in};

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
    let team_id = team(&app, "Skip tracing", &ann).await;
    batch_ok(&app, &ann.key, json!({"team_id": team_id, "leads": leads})).await;
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
    page_shows(
        &mut page,
        "/leads?has_phone=false",
        &[
            "<option value=\"false\" selected>without one (to look up)</option>",
            "2 leads match these filters",
        ],
    )
    .await;

    // The skip-tracing round trip: the export with a number added to each row (as a service
    // sends it back) imports as a merge into the same two leads, and none is left to look up.
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let mut traced = csv::Writer::from_writer(Vec::new());
    let mut header = rows.headers().unwrap().clone();
    header.push_field("Phone 1");
    traced.write_record(&header).unwrap();
    for (n, row) in rows.records().enumerate() {
        let mut row = row.unwrap();
        row.push_field(&format!("(512) 555-02{n:02}"));
        traced.write_record(&row).unwrap();
    }
    let traced = traced.into_inner().unwrap();
    let (summary, _) = import_file(&app, &ann, team_id, &traced).await;
    assert_eq!(
        (summary.created, summary.updated),
        (0, 2),
        "{}",
        summary.render()
    );
    assert_eq!(list("has_phone=false").await, Vec::<i64>::new());
    assert_eq!(list("has_phone=true").await, [one, two, three, four, five]);
}
