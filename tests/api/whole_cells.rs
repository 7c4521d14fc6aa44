//! A lead list with the owner's whole name in one column and the whole address in another, as
//! county rolls and hand-made spreadsheets hold them (docs/imports.md): imported through the CLI's
//! path, the names and addresses land in their fields, so two writings of one property merge; the
//! notes go on the leads, once each however often the file is imported; and each row stays in its
//! submission as written.
use diesel::prelude::*;
use serde_json::{json, Value};

use leadhub_db::schema::submissions;
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{assert_fields, team};
use crate::messy_imports::import_file;

backend_tests!(whole_names_and_addresses_fill_their_fields);

const FILE: &str = "\
Owner Name,Property Address,Mailing Address,Phone,Notes\r
\"SMITH, JOHN A\",\"123 Main St, Austin, TX 78701\",\"PO Box 9, Dallas, Texas 75201\",512-555-0100,\"No answer twice.\r
Try evenings.\"\r
Acme Holdings LLC,\"9 Elm Rd, Apt 4, Dallas, TX 75201\",,,\r
Maria de la Cruz,500 Oak Ave Austin TX 78701,,,Wants a quote for the roof\r
John Smith,\"123 Main St., Austin TX 78701-1234\",,512-555-0101,\"No answer twice.\r
Try evenings.\"\r
";

async fn whole_names_and_addresses_fill_their_fields(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Rolls", &alice).await;
    let (summary, _) = import_file(&app, &alice, team_id, FILE.as_bytes()).await;
    assert_eq!(
        (summary.rows, summary.created),
        (4, 3),
        "{}",
        summary.render()
    );
    assert_eq!(summary.updated, 1, "the fourth row is the first's property");
    assert!(summary
        .mapping
        .contains(&("Owner Name".to_owned(), "full_name".to_owned())));
    assert_eq!(summary.notes, 2, "the fourth row's note is the first's");

    let (_, leads) = app.get("/api/v1/leads?sort=created_at", &alice.key).await;
    let items = leads["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{leads}");
    // The first row, with the fourth merged in: what the fourth supplies overwrites (its name,
    // street and ZIP+4), the phones add up.
    assert_fields(
        &items[0],
        json!({
            "first_name": "John", "last_name": "Smith",
            "address": "123 Main St.", "city": "Austin", "state": "TX", "zip_code": "78701-1234",
            "mail_address": "PO Box 9", "mail_city": "Dallas", "mail_state": "TX", "mail_zip": "75201",
            "primary_phone": "+15125550100", "phone_2": "+15125550101",
        }),
    );
    assert_fields(
        &items[1],
        json!({
            "first_name": null, "last_name": "Acme Holdings LLC",
            "address": "9 Elm Rd, Apt 4", "city": "Dallas", "state": "TX", "zip_code": "75201",
        }),
    );
    // No comma between street and city: the line stays whole.
    assert_fields(
        &items[2],
        json!({
            "first_name": "Maria", "last_name": "de la Cruz",
            "address": "500 Oak Ave Austin TX 78701", "city": null, "zip_code": null,
        }),
    );

    // The notes, by the person who imported, lines kept; none is added again by a second import.
    let notes = |lead: &Value| notes_of(&app, &alice.key, lead["id"].as_i64().unwrap());
    let first = notes(&items[0]).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0]["body"], "No answer twice.\nTry evenings.");
    assert_eq!(first[0]["author"]["email"], "alice@example.com");
    assert!(notes(&items[1]).await.is_empty());
    assert_eq!(
        notes(&items[2]).await[0]["body"],
        "Wants a quote for the roof"
    );
    let (again, _) = import_file(&app, &alice, team_id, FILE.as_bytes()).await;
    // Only Maria's row makes a lead again (a street without a city, state or ZIP is never
    // matched: contract 3.3), and only that new lead gets its note.
    assert_eq!((again.created, again.notes), (1, 1), "{}", again.render());
    assert_eq!(notes(&items[0]).await.len(), 1);

    // Each row as written, in its submission.
    let raw: Vec<String> = app
        .read_db(|conn| {
            conn.load(
                submissions::table
                    .order(submissions::id)
                    .select(submissions::raw_json),
            )
        })
        .await;
    let first: Value = serde_json::from_str(&raw[0]).unwrap();
    assert_eq!(first["Owner Name"], "SMITH, JOHN A");
    assert_eq!(first["Property Address"], "123 Main St, Austin, TX 78701");
}

/// The lead's notes, newest first, as the API lists them.
async fn notes_of(app: &TestApp, key: &str, lead: i64) -> Vec<Value> {
    let (_, notes) = app.get(&format!("/api/v1/leads/{lead}/notes"), key).await;
    notes["items"].as_array().unwrap().clone()
}
