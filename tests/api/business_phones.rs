//! Business phones follow the leads' rule (the `phonenumber` crate): stored in E.164; an invalid
//! one makes an imported element bad (in `errors`), a PATCH setting one is a 422, and a
//! spreadsheet row keeps its other cells with an `invalid_phone` warning (docs/businesses.md).
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::businesses::import;
use crate::helpers::{locs, problem_type, team};
use crate::lead_uploads::{assert_counts, finished, upload};
use crate::pages::sign_in;

const LIST: &str = "/api/v1/lead-sources/businesses";

backend_tests!(
    an_invalid_phone_is_a_bad_element_and_a_valid_one_e164,
    a_patch_setting_an_invalid_phone_is_422,
    a_spreadsheet_drops_an_invalid_phone_and_keeps_the_row,
);

async fn an_invalid_phone_is_a_bad_element_and_a_valid_one_e164(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let result = import(
        &app,
        &alice.key,
        json!({"businesses": [
            {"name": "Good", "phone": "(512) 867-5309"},
            {"name": "Flowers", "phone": "1-800-FLOWERS"},
            {"name": "Zeros", "phone": "000-000-0000"},
            {"name": "Short", "phone": "555-1234"},
            {"name": "London", "phone": "+44 20 7946 0958"},
            {"name": "Blank", "phone": "  "}
        ]}),
    )
    .await;
    assert_eq!(result["imported_count"], 3, "{result}");
    let bad: Vec<(i64, String)> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["index"].as_i64().unwrap(),
                e["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        bad.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        [1, 2, 3],
        "{result}"
    );
    assert_eq!(
        bad[0].1,
        "phone: \"1-800-FLOWERS\" is not a valid phone number (a US number with its area code, or + and a country code)"
    );
    let (_, page) = app.get(&format!("{LIST}?limit=10"), &alice.key).await;
    let mut phones: Vec<(String, Value)> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["name"].as_str().unwrap().to_owned(), b["phone"].clone()))
        .collect();
    phones.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        phones,
        [
            ("Blank".to_owned(), Value::Null),
            ("Good".to_owned(), json!("+15128675309")),
            ("London".to_owned(), json!("+442079460958")),
        ]
    );
}

async fn a_patch_setting_an_invalid_phone_is_422(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let r = import(
        &app,
        &alice.key,
        json!({"businesses": [{"name": "Delta", "phone": "512-867-5309"}]}),
    )
    .await;
    let id = r["imported_ids"][0].as_i64().unwrap();
    let path = format!("{LIST}/{id}");
    let (status, body) = app
        .patch(
            &path,
            &alice.key,
            json!({"phone": "call us", "state": "XX"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        locs(&body),
        vec![json!(["body", "phone"]), json!(["body", "state"])],
        "every problem listed: {body}"
    );
    assert_eq!(
        problem_type(&body, &json!(["body", "phone"])).as_deref(),
        Some("value_error")
    );
    assert_eq!(
        body["detail"][0]["msg"],
        "Value error, \"call us\" is not a valid phone number (a US number with its area code, or + and a country code)"
    );
    let (_, stored) = app.get(&path, &alice.key).await;
    assert_eq!(stored["phone"], "+15128675309", "nothing changed");
    // A valid one in any writing is stored in E.164; null clears it.
    let (status, changed) = app
        .patch(&path, &alice.key, json!({"phone": "512.555.0199 ext. 12"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["phone"], "+15125550199;ext=12");
    let (status, cleared) = app.patch(&path, &alice.key, json!({"phone": null})).await;
    assert_eq!(status, StatusCode::OK, "{cleared}");
    assert_eq!(cleared["phone"], Value::Null);
}

async fn a_spreadsheet_drops_an_invalid_phone_and_keeps_the_row(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Alpha", &alice).await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let csv = "name,phone,city\nAcme Roofing,call us,Austin\nBeta Pools,(512) 867-5309,Austin\n";
    let sent = upload(&mut b, "/businesses/import", team_id, None, csv.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let location = sent.location().to_owned();
    let done = finished(&mut b, &location).await;
    assert_counts(&done, &[("created", 2), ("rejected", 0), ("warnings", 1)]);
    assert!(
        done.body.contains("<code>invalid_phone</code>: 1"),
        "{}",
        done.body
    );
    let report = b.get(&format!("{location}/report")).await;
    let warned = report.body.lines().nth(1).unwrap_or_default().to_owned();
    assert!(
        warned.starts_with("2,phone,call us,invalid_phone,"),
        "{}",
        report.body
    );
    let (_, page) = app.get(&format!("{LIST}?q=Acme"), &alice.key).await;
    assert_eq!(page["items"][0]["phone"], Value::Null, "{page}");
    assert_eq!(page["items"][0]["city"], "Austin");
    let (_, page) = app.get(&format!("{LIST}?q=Beta"), &alice.key).await;
    assert_eq!(page["items"][0]["phone"], "+15128675309", "{page}");
    // The directory page reads it as people write it.
    let directory = b.get("/businesses").await;
    assert!(
        directory
            .body
            .contains("<td data-label=\"Phone\" class=\"phone\">(512) 867-5309</td>"),
        "{}",
        directory.body
    );
}
