//! The leads one can call or write to (`has_phone`, `has_email`: docs/working-leads.md "Lists and
//! exports"), and those to find a number for first.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, list_refuses, listed, team};
use crate::lead_pages::fetch_csv;
use crate::lead_uploads::{count, imported, upload};
use crate::messy_imports::import_file;
use crate::pages::{assert_shows, page_shows, sign_in};
use crate::upload_columns::{imported_as_chosen, selections};

backend_tests!(
    the_list_finds_the_leads_with_a_phone_or_an_email_and_those_without,
    a_skip_tracing_file_of_numbered_mobiles_and_landlines_fills_the_phone_slots
);

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
    let all = listed(&app, &ann.key, "sort=created_at").await;
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

    // Beside what the lists leave out (PostgreSQL counts the leads with a phone as the visible
    // leads less those without one): another team's lead, an archived lead, another status.
    let ben = app.user("ben@example.com").await;
    let other = team(&app, "Other", &ben).await;
    // Each without what the list counts less: a count of them the list's visibility did not
    // bound would be wrong by one.
    let sent = json!({"team_id": other, "leads": [lead(6, json!({}))]});
    batch_ok(&app, &ben.key, sent).await;
    let written = json!({"email_1": "seven@example.com"});
    let sent = json!({"team_id": team_id, "leads": [lead(7, written)]});
    batch_ok(&app, &ann.key, sent).await;
    let (_, newest) = app.get("/api/v1/leads?limit=1", &ann.key).await;
    let seven = newest["items"][0]["id"].as_i64().unwrap();
    let bulk = |set: serde_json::Value, ids: Vec<i64>| {
        app.post(
            "/api/v1/leads/bulk",
            &ann.key,
            json!({"ids": ids, "set": set}),
        )
    };
    let root = app.admin("root@example.com").await;
    let (status, body) = app
        .delete(&format!("/api/v1/leads/{seven}"), &root.key)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = bulk(json!({"status": "qualified"}), vec![four]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(list("has_phone=true").await, [one, four, five]);
    assert_eq!(list("has_email=true").await, [two, four]);
    assert_eq!(list("has_phone=true&status=new").await, [one, five]);
    assert_eq!(list("has_email=true&status=qualified").await, [four]);
    assert_eq!(list("has_email=true&archived=true").await, [seven]);
    assert_eq!(
        list("has_phone=true&archived=true").await,
        Vec::<i64>::new()
    );

    // A phone cleared or an e-mail written moves the lead between the lists at once (SQLite
    // answers them from its word index, which the lead's every change writes again). Intake
    // keeps a lone phone or e-mail in the first slot.
    let path = format!("/api/v1/leads/{five}");
    let (status, body) = app
        .patch(
            &path,
            &ann.key,
            json!({"primary_phone": null, "email_1": "five@example.com"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(list("has_phone=false").await, [two, three, five]);
    assert_eq!(list("has_email=false").await, [one, three]);
    let (status, body) = app
        .patch(
            &path,
            &ann.key,
            json!({"primary_phone": "512 555 0105", "email_1": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(list("has_phone=false").await, [two, three]);
    assert_eq!(list("has_email=false").await, [one, three, five]);

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
    let traced = traced_export(&csv, &[("Phone 1", "(512) 555-02")]);
    let (summary, _) = import_file(&app, &ann, team_id, &traced).await;
    assert_eq!(
        (summary.created, summary.updated),
        (0, 2),
        "{}",
        summary.render()
    );
    assert_eq!(list("has_phone=false").await, Vec::<i64>::new());
    assert_eq!(list("has_phone=true").await, [one, two, three, four, five]);

    // Uploaded with a column of the service's own (`Litigator`), the file waits for its columns; the
    // step offers the numbers' column to the next free phone, and they merge as a second phone.
    let traced = traced_export(&csv, &[("Litigator", "N"), ("Phone 1", "(512) 555-03")]);
    let sent = upload(&mut page, "/leads/import", team_id, None, &traced).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let step = page.get(sent.location()).await;
    let chosen = selections(&step);
    let feeds = |header: usize| chosen[header].1.as_str();
    let headers = csv.lines().next().unwrap().split(',').count();
    assert_eq!(
        [feeds(headers), feeds(headers + 1)],
        ["", "next_free_phone"]
    );
    let done = imported_as_chosen(&mut page, sent.location(), &[]).await;
    assert_eq!(count(&done, "merged"), 2, "{}", done.body);
    // The export is newest first: lead two is its second row.
    let (_, lead) = app.get(&format!("/api/v1/leads/{two}"), &ann.key).await;
    assert_eq!(
        [&lead["primary_phone"], &lead["phone_2"]],
        ["+15125550201", "+15125550301"],
        "{lead}"
    );
}

/// The lead export `csv` as a skip-tracing service sends it back: each of `added` (header, and
/// the start of each row's cell, numbered by row) after the export's own columns.
fn traced_export(csv: &str, added: &[(&str, &str)]) -> Vec<u8> {
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let mut traced = csv::Writer::from_writer(Vec::new());
    let mut header = rows.headers().unwrap().clone();
    for (name, _) in added {
        header.push_field(name);
    }
    traced.write_record(&header).unwrap();
    for (n, row) in rows.records().enumerate() {
        let mut row = row.unwrap();
        for (_, start) in added {
            row.push_field(&if start.starts_with('(') {
                format!("{start}{n:02}")
            } else {
                (*start).to_owned()
            });
        }
        traced.write_record(&row).unwrap();
    }
    traced.into_inner().unwrap()
}

/// A skip-tracing service's own file (its `Property ...` columns, then `Mobile 1` ... and
/// `Landline 1` ..., `Email 1` ...): uploaded, it needs no columns step, and each lead's numbers
/// fill its phone slots in the file's order, a later column a slot the row leaves empty, and a sixth
/// number is dropped with a warning.
async fn a_skip_tracing_file_of_numbered_mobiles_and_landlines_fills_the_phone_slots(app: TestApp) {
    let ann = app.user("ann@example.com").await;
    let team_id = team(&app, "Skip tracing", &ann).await;
    let leads = json!([
        {"address": "1 Elm St", "city": "Austin", "state": "TX", "zip_code": "78701"},
        {"address": "2 Elm St", "city": "Austin", "state": "TX", "zip_code": "78701",
         "email_1": "two@example.com"},
    ]);
    batch_ok(&app, &ann.key, json!({"team_id": team_id, "leads": leads})).await;
    let traced = "Property Address,Property City,Property State,Property Zip,Mobile 1,Mobile 2,\
        Mobile 3,Landline 1,Landline 2,Landline 3,Email 1,Email 2\n\
        1 Elm St,Austin,TX,78701,512-555-0111,512-555-0112,512-555-0113,512-555-0114,\
        512-555-0115,512-555-0116,one@example.com,\n\
        2 Elm St,Austin,TX,78701,,,,,,512-555-0123,,two.b@example.com\n";
    let mut page = sign_in(&app, "ann@example.com").await;
    let done = imported(&mut page, team_id, traced.as_bytes(), "leads.csv").await;
    assert_eq!(count(&done, "merged"), 2, "{}", done.body);
    assert_eq!(count(&done, "warnings"), 1, "{}", done.body);
    assert_shows(&done.body, &["Landline 3 &rarr; <code>next_free_phone"]);

    let all = listed(&app, &ann.key, "sort=created_at").await;
    let lead = |id: i64| {
        let app = &app;
        let key = ann.key.clone();
        async move { app.get(&format!("/api/v1/leads/{id}"), &key).await.1 }
    };
    let one = lead(all[0]).await;
    let slots = ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"];
    assert_eq!(
        slots.map(|s| one[s].as_str().unwrap_or_default().to_owned()),
        [
            "+15125550111",
            "+15125550112",
            "+15125550113",
            "+15125550114",
            "+15125550115"
        ],
        "{one}"
    );
    assert_eq!(one["email_1"], "one@example.com", "{one}");
    let two = lead(all[1]).await;
    // Its one number, in the last landline column, is its first phone.
    assert_eq!(two["primary_phone"], "+15125550123", "{two}");
    assert_eq!(
        [&two["email_1"], &two["email_2"]],
        ["two@example.com", "two.b@example.com"],
        "{two}"
    );
}
