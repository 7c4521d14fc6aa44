//! Lead submissions end to end (contract section 3).
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{
    austin_lead, austin_leads, batch_ok, batch_path, completed_batch, each, has_warning,
    lead_total, locs, onlookers, post_with_key, problem_type, raw_json, raw_text,
    settled_submission, submission_count, submit, submit_and_get, team, warning_codes, BATCH,
    SINGLE,
};

async fn single_then_duplicate_then_update(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let lead = json!({"address": "123 North Main Street, Apt 4", "city": "Austin", "state": "tx",
                      "zip_code": "78701-1234", "primary_phone": "(512) 555-0100", "latitude": 30.27, "longitude": -97.74});
    let (status, first) = app.post(SINGLE, &alice.key, lead.clone()).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "completed");
    assert_eq!(first["result_action"], "created");
    let (_, again) = app.post(SINGLE, &alice.key, lead).await;
    assert_eq!(again["result_action"], "skipped", "{again}");
    assert_eq!(again["status"], "duplicate");
    assert_eq!(again["result_lead_id"], first["result_lead_id"]);
    let (_, third) = app
        .post(SINGLE, &alice.key,
              json!({"address": "123 N Main St #4", "city": "Austin", "state": "TX", "zip_code": "78701", "primary_phone": "512-555-0199"}))
        .await;
    assert_eq!(third["result_action"], "updated", "{third}");
    assert_eq!(third["result_lead_id"], first["result_lead_id"]);
    let id = first["result_lead_id"].as_i64().unwrap();
    let (status, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lead["primary_phone"], "+15125550100");
    assert_eq!(lead["phone_2"], "+15125550199");
    assert_eq!(lead["submission_count"], 3);
    assert_eq!(lead["state"], "TX");
}

/// Posts `body` to `path`, expects 422, and checks nothing was stored.
async fn rejected(app: &TestApp, key: &str, path: &str, body: Value) -> Value {
    let before = submission_count(app).await;
    let (status, answer) = app.post(path, key, body.clone()).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{body} -> {answer}"
    );
    assert_eq!(
        submission_count(app).await,
        before,
        "stored after a 422: {body}"
    );
    answer
}

async fn wrong_json_types_are_422(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let cases = [
        (
            json!({"address": 12, "city": "Austin"}),
            "address",
            "string_type",
        ),
        (json!({"state": true}), "state", "string_type"),
        (json!({"bedrooms": "three"}), "bedrooms", "int_type"),
        (json!({"bedrooms": 2.5}), "bedrooms", "int_type"),
        (
            json!({"latitude": "north", "longitude": 1.0}),
            "latitude",
            "float_type",
        ),
        (json!({"team_id": "x"}), "team_id", "int_type"),
        (
            json!({"primary_phone": ["5125550100"]}),
            "primary_phone",
            "string_type",
        ),
    ];
    for (body, field, kind) in cases {
        let answer = rejected(&app, &alice.key, SINGLE, body).await;
        let found = problem_type(&answer, &json!(["body", field])).unwrap_or_default();
        // pydantic's words: *_type for a wrong JSON type, *_parsing for an unreadable string.
        let family = kind.trim_end_matches("_type");
        assert!(
            found == kind
                || found == format!("{family}_parsing")
                || found == format!("{family}_from_float"),
            "{field}: {answer}"
        );
    }
    // Several problems at once are all listed.
    let answer = rejected(
        &app,
        &alice.key,
        SINGLE,
        json!({"address": 1, "bedrooms": "x", "state": "ZZ"}),
    )
    .await;
    let found = locs(&answer);
    for field in ["address", "bedrooms", "state"] {
        assert!(found.contains(&json!(["body", field])), "{answer}");
    }
    // A body that is not an object, and a batch with wrong types.
    rejected(&app, &alice.key, SINGLE, json!([1, 2])).await;
    let answer = rejected(&app, &alice.key, BATCH, json!({"leads": "x"})).await;
    assert!(
        locs(&answer).contains(&json!(["body", "leads"])),
        "{answer}"
    );
    let answer = rejected(
        &app,
        &alice.key,
        BATCH,
        json!({"leads": [{"address": "1 A St"}], "process_immediately": "yes"}),
    )
    .await;
    assert_eq!(
        problem_type(&answer, &json!(["body", "process_immediately"])).as_deref(),
        Some("bool_type"),
        "{answer}"
    );
    assert_eq!(lead_total(&app, &alice.key, "").await, 0);
}

async fn state_and_enum_rules(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    for (field, bad) in [
        ("state", "ZZ"),
        ("state", "Texas"),
        ("mail_state", "XX"),
        ("primary_phone_type", "pager"),
        ("property_type", "industrial"),
    ] {
        let answer = rejected(
            &app,
            &alice.key,
            SINGLE,
            json!({"address": "1 Elm St", "city": "Austin", field: bad}),
        )
        .await;
        assert!(locs(&answer).contains(&json!(["body", field])), "{answer}");
    }
    // Valid codes in any case, territories and DC accepted; enums compared case-insensitively.
    for (i, st) in ["tx", "Tx", "dc", "PR", "gu", "as", "mp", "vi", "um"]
        .iter()
        .enumerate()
    {
        let (r, lead) = submit_and_get(
            &app,
            &alice.key,
            json!({"address": format!("{} Elm St", i + 1), "city": "Town", "state": st, "mail_state": st.to_lowercase()}),
        )
        .await;
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(lead["state"], st.to_uppercase());
        assert_eq!(lead["mail_state"], st.to_uppercase());
    }
    let (_, lead) = submit_and_get(
        &app,
        &alice.key,
        json!({"address": "50 Oak St", "city": "Austin", "state": "TX",
               "primary_phone_type": "MOBILE", "property_type": "Vacant_Land"}),
    )
    .await;
    assert_eq!(lead["primary_phone_type"], "mobile");
    assert_eq!(lead["property_type"], "vacant_land");
    for (i, t) in ["Landline", "voip"].iter().enumerate() {
        submit(
            &app,
            &alice.key,
            json!({"address": format!("{} Pine St", i + 1), "primary_phone_type": t}),
        )
        .await;
    }
    for (i, t) in ["RESIDENTIAL", "commercial", "Agricultural"]
        .iter()
        .enumerate()
    {
        submit(
            &app,
            &alice.key,
            json!({"address": format!("{} Birch St", i + 1), "property_type": t}),
        )
        .await;
    }
}

async fn numeric_ranges(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let bad = [
        (
            json!({"bedrooms": -1}),
            json!(["body", "bedrooms"]),
            "greater_than_equal",
        ),
        (
            json!({"bedrooms": 101}),
            json!(["body", "bedrooms"]),
            "less_than_equal",
        ),
        (
            json!({"latitude": 90.5, "longitude": 0.0}),
            json!(["body", "latitude"]),
            "less_than_equal",
        ),
        (
            json!({"latitude": -90.5, "longitude": 0.0}),
            json!(["body", "latitude"]),
            "greater_than_equal",
        ),
        (
            json!({"latitude": 0.0, "longitude": 180.5}),
            json!(["body", "longitude"]),
            "less_than_equal",
        ),
        (
            json!({"latitude": 0.0, "longitude": -181}),
            json!(["body", "longitude"]),
            "greater_than_equal",
        ),
    ];
    for (body, at, kind) in bad {
        let answer = rejected(&app, &alice.key, SINGLE, body).await;
        assert_eq!(
            problem_type(&answer, &at).as_deref(),
            Some(kind),
            "{answer}"
        );
    }
    // Only one of latitude/longitude.
    let answer = rejected(
        &app,
        &alice.key,
        SINGLE,
        json!({"address": "1 A St", "latitude": 30.0}),
    )
    .await;
    assert!(!locs(&answer).is_empty(), "{answer}");
    let answer = rejected(
        &app,
        &alice.key,
        SINGLE,
        json!({"address": "1 A St", "longitude": -97.0}),
    )
    .await;
    assert!(!locs(&answer).is_empty(), "{answer}");
    // Bounds are inclusive.
    for (i, body) in [
        json!({"bedrooms": 0}),
        json!({"bedrooms": 100}),
        json!({"latitude": 90, "longitude": 180}),
        json!({"latitude": -90.0, "longitude": -180.0}),
    ]
    .into_iter()
    .enumerate()
    {
        let mut body = body;
        body["address"] = json!(format!("{} Range Rd", i + 1));
        let r = submit(&app, &alice.key, body).await;
        assert_eq!(r["status"], "completed", "{r}");
    }
}

async fn string_limits(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    for (field, max) in [
        ("address", 255),
        ("first_name", 255),
        ("source", 255),
        ("related_url", 2048),
        ("project_description", 5000),
    ] {
        let too_long = if field == "related_url" {
            format!("https://example.com/{}", "a".repeat(max))
        } else {
            "a".repeat(max + 1)
        };
        let answer = rejected(
            &app,
            &alice.key,
            SINGLE,
            json!({"city": "Austin", field: too_long}),
        )
        .await;
        assert_eq!(
            problem_type(&answer, &json!(["body", field])).as_deref(),
            Some("too_long"),
            "{field}: {answer}"
        );
        let fits = if field == "related_url" {
            let prefix = "https://example.com/";
            format!("{prefix}{}", "a".repeat(max - prefix.len()))
        } else {
            "a".repeat(max)
        };
        let r = submit(&app, &alice.key, json!({"city": "Austin", field: fits})).await;
        assert_eq!(r["status"], "completed", "{field}: {r}");
    }
}

async fn batch_validation(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let many: Vec<Value> = (0..1001)
        .map(|i| json!({"address": format!("{i} Main St")}))
        .collect();
    let answer = rejected(&app, &alice.key, BATCH, json!({"leads": many})).await;
    assert_eq!(
        problem_type(&answer, &json!(["body", "leads"])).as_deref(),
        Some("too_long"),
        "{answer}"
    );
    let answer = rejected(&app, &alice.key, BATCH, json!({"leads": []})).await;
    assert_eq!(
        problem_type(&answer, &json!(["body", "leads"])).as_deref(),
        Some("too_short"),
        "{answer}"
    );
    let answer = rejected(&app, &alice.key, BATCH, json!({})).await;
    assert_eq!(
        problem_type(&answer, &json!(["body", "leads"])).as_deref(),
        Some("missing"),
        "{answer}"
    );
    // Several bad elements, each named by index; the good ones are not stored either.
    let leads = json!([
        {"address": "1 Good St", "city": "Austin", "state": "TX"},
        {"address": "2 Bad St", "bedrooms": 500},
        {"address": "3 Good St"},
        {"address": "4 Bad St", "state": "zz"},
        {"address": "5 Bad St", "latitude": 12.0, "property_type": "castle"},
        {"address": 6},
    ]);
    let answer = rejected(&app, &alice.key, BATCH, json!({"leads": leads})).await;
    let found = locs(&answer);
    for at in [
        json!(["body", "leads", 1, "bedrooms"]),
        json!(["body", "leads", 3, "state"]),
        json!(["body", "leads", 4, "property_type"]),
        json!(["body", "leads", 5, "address"]),
    ] {
        assert!(found.contains(&at), "{at} missing in {answer}");
    }
    assert!(
        found
            .iter()
            .any(|l| l.as_array().unwrap().get(2) == Some(&json!(4))
                && (l[3] == "longitude" || l[3] == "latitude")),
        "{answer}"
    );
    assert!(
        !found
            .iter()
            .any(|l| l.get(2) == Some(&json!(0)) || l.get(2) == Some(&json!(2))),
        "{answer}"
    );
    assert_eq!(lead_total(&app, &alice.key, "").await, 0);
    // Exactly 1000 is fine.
    let thousand = austin_leads(0..1000, "Main St");
    let body = batch_ok(
        &app,
        &alice.key,
        json!({"leads": thousand, "process_immediately": false}),
    )
    .await;
    assert_eq!(body["total"], 1000);
    assert_eq!(body["pending"], 1000);
}

async fn unknown_fields_ignored_and_blanks_absent(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (r, lead) = submit_and_get(
        &app,
        &alice.key,
        json!({"address": "  10   Main   St ", "city": "Austin", "state": "  ", "zip_code": "",
               "email_1": "   ", "primary_phone_type": "", "property_type": " ", "mystery": {"x": 1}, "color": "blue"}),
    )
    .await;
    assert_eq!(r["status"], "completed", "{r}");
    assert!(warning_codes(&r).is_empty(), "{r}");
    assert_eq!(lead["address"], "10 Main St");
    assert!(lead["state"].is_null(), "{lead}");
    assert!(lead["zip_code"].is_null(), "{lead}");
    assert!(lead["email_1"].is_null(), "{lead}");
    assert!(lead["property_type"].is_null(), "{lead}");
    assert!(
        lead.get("mystery").is_none() && lead.get("color").is_none(),
        "{lead}"
    );
    // Without ZIP or state nothing can match, but the second submission is stored (not failed).
    let again = submit(
        &app,
        &alice.key,
        json!({"address": "10 Main St", "city": "Austin", "first_name": "  "}),
    )
    .await;
    assert_eq!(again["status"], "completed", "{again}");
    assert_eq!(again["result_action"], "created", "{again}");
    assert_ne!(again["result_lead_id"], r["result_lead_id"], "{again}");
    // Blank strings don't overwrite stored values on a merge.
    let full = json!({"address": "11 Main St", "city": "Austin", "state": "TX", "zip_code": "78701", "first_name": "Ann"});
    let first = submit(&app, &alice.key, full).await;
    let blank = submit(
        &app,
        &alice.key,
        json!({"address": "11 Main St", "city": " ", "state": "", "zip_code": "78701", "first_name": "  "}),
    )
    .await;
    assert_eq!(blank["result_lead_id"], first["result_lead_id"], "{blank}");
    assert_eq!(blank["result_action"], "skipped", "{blank}");
}

async fn team_membership_is_403(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let bobs = team(&app, "Bob's", &bob).await;
    let alices = team(&app, "Alice's", &alice).await;
    let before = submission_count(&app).await;
    for body in [
        json!({"address": "1 A St", "team_id": bobs}),
        json!({"address": "1 A St", "team_id": 999_999}),
    ] {
        let (status, answer) = app.post(SINGLE, &alice.key, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
        assert!(answer["detail"].is_string(), "{answer}");
    }
    for body in [
        json!({"leads": [{"address": "1 A St"}], "team_id": bobs}),
        json!({"leads": [{"address": "1 A St"}], "team_id": 424_242}),
        json!({"leads": [{"address": "1 A St"}, {"address": "2 A St", "team_id": bobs}], "team_id": alices}),
        json!({"leads": [{"address": "1 A St", "team_id": 777_777}]}),
    ] {
        let (status, answer) = app.post(BATCH, &alice.key, body.clone()).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body} -> {answer}");
    }
    assert_eq!(submission_count(&app).await, before);
    // Her own team is fine.
    let r = submit(
        &app,
        &alice.key,
        json!({"address": "1 A St", "team_id": alices}),
    )
    .await;
    assert_eq!(r["status"], "completed", "{r}");
}

async fn warnings(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (r, lead) = submit_and_get(
        &app,
        &alice.key,
        json!({"address": "1 Warn St", "city": "Austin", "state": "TX", "zip_code": "787",
               "email_1": "not-an-email", "primary_phone": "555-12", "permit_date": "someday",
               "lot_size": "big", "related_url": "not a url", "mail_zip": "ABCDE"}),
    )
    .await;
    assert_eq!(r["status"], "completed", "{r}");
    for (field, code) in [
        ("email_1", "invalid_email"),
        ("primary_phone", "invalid_phone"),
        ("zip_code", "invalid_zip"),
        ("mail_zip", "invalid_zip"),
        ("permit_date", "unparsed_date"),
        ("lot_size", "unparsed_lot_size"),
        ("related_url", "invalid_url"),
    ] {
        assert!(has_warning(&r, field, code), "{field}/{code}: {r}");
    }
    for w in r["validation_warnings"].as_array().unwrap() {
        assert!(w["message"].as_str().is_some_and(|m| !m.is_empty()), "{w}");
    }
    assert!(lead["email_1"].is_null(), "{lead}");
    // An invalid phone and an unreadable date are dropped (the submission keeps them verbatim).
    assert!(lead["primary_phone"].is_null(), "{lead}");
    assert!(lead["permit_date"].is_null(), "{lead}");
    assert_eq!(lead["lot_size"], "big");
    assert!(lead["lot_size_acres"].is_null(), "{lead}");
    assert!(lead["related_url"].is_null(), "{lead}");
    // No address: warned, never merged.
    let a = submit(
        &app,
        &alice.key,
        json!({"first_name": "Ann", "city": "Austin", "state": "TX"}),
    )
    .await;
    assert!(has_warning(&a, "address", "no_address"), "{a}");
    let b = submit(
        &app,
        &alice.key,
        json!({"first_name": "Ann", "city": "Austin", "state": "TX"}),
    )
    .await;
    assert_eq!(b["result_action"], "created", "{b}");
    assert_ne!(a["result_lead_id"], b["result_lead_id"]);
    // Contact slots full.
    let full = json!({"address": "9 Full St", "city": "Austin", "state": "TX",
        "primary_phone": "5125550101", "phone_2": "5125550102", "phone_3": "5125550103",
        "phone_4": "5125550104", "phone_5": "5125550105",
        "email_1": "a@x.com", "email_2": "b@x.com", "email_3": "c@x.com"});
    let first = submit(&app, &alice.key, full).await;
    let more = submit(
        &app,
        &alice.key,
        json!({"address": "9 Full St", "city": "Austin", "state": "TX", "primary_phone": "5125550199", "email_1": "d@x.com"}),
    )
    .await;
    assert_eq!(more["result_lead_id"], first["result_lead_id"]);
    assert!(
        warning_codes(&more)
            .iter()
            .any(|(_, c)| c == "contact_slots_full"),
        "{more}"
    );
    let id = first["result_lead_id"].as_i64().unwrap();
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(lead["primary_phone"], "+15125550101");
    assert_eq!(lead["phone_5"], "+15125550105");
    assert_eq!(lead["email_1"], "a@x.com");
}

async fn normalisation(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (_, lead) = submit_and_get(
        &app,
        &alice.key,
        json!({"address": "  1  Norm   St ", "city": " Austin ", "state": "tx", "zip_code": "787011234",
               "primary_phone": "(512) 555-0100 ext. 12", "phone_2": "1-512-555-0101",
               "email_1": "Bob@Example.COM", "permit_date": "Jan 5, 2025", "lot_size": "1/4 acre",
               "property_type": "Residential", "mail_zip": "78701 - 1234"}),
    )
    .await;
    assert_eq!(lead["address"], "1 Norm St");
    assert_eq!(lead["city"], "Austin");
    assert_eq!(lead["state"], "TX");
    assert_eq!(lead["zip_code"], "78701-1234");
    assert_eq!(lead["primary_phone"], "+15125550100;ext=12");
    assert_eq!(lead["phone_2"], "+15125550101");
    assert_eq!(lead["email_1"], "bob@example.com");
    assert_eq!(lead["permit_date"], "2025-01-05");
    assert_eq!(lead["lot_size"], "1/4 acre");
    assert!(
        (lead["lot_size_acres"].as_f64().unwrap() - 0.25).abs() < 1e-6,
        "{lead}"
    );
    assert_eq!(lead["property_type"], "residential");
    let dates = [
        "2025-01-05",
        "2025/01/05",
        "01/05/2025",
        "1/5/2025",
        "1/5/25",
        "01-05-2025",
        "2025-01-05T10:00:00Z",
        "Jan 5, 2025",
        "January 5, 2025",
        "5 Jan 2025",
    ];
    let sizes = [
        ("0.25 acres", 0.25),
        ("1/4 acre", 0.25),
        ("10,890 sqft", 0.25),
        ("10890 sq ft", 0.25),
        ("2.5 ac", 2.5),
    ];
    for (i, date) in dates.iter().enumerate() {
        let (size, acres) = sizes[i % sizes.len()];
        let (r, lead) = submit_and_get(
            &app,
            &alice.key,
            json!({"address": format!("{} Date Ave", i + 1), "city": "Austin", "state": "TX",
                   "zip_code": "78701", "permit_date": date, "lot_size": size}),
        )
        .await;
        assert_eq!(lead["permit_date"], "2025-01-05", "{date}: {r}");
        assert!(
            (lead["lot_size_acres"].as_f64().unwrap_or(-1.0) - acres).abs() < 1e-3,
            "{size}: {lead}"
        );
        assert_eq!(lead["zip_code"], "78701");
    }
}

async fn duplicate_rules(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let base = submit(
        &app,
        &alice.key,
        austin_lead("123 North Main Street Apartment 4"),
    )
    .await;
    let id = base["result_lead_id"].clone();
    // Same property, other spellings.
    for addr in [
        "123 N Main St Apt 4",
        "123 N. Main St., #4",
        "123 north main street unit 4",
        "123 N MAIN ST STE 4",
    ] {
        let r = submit(
            &app,
            &alice.key,
            json!({"address": addr, "city": "Austin", "state": "TX", "zip_code": "78701-9999"}),
        )
        .await;
        assert_eq!(r["result_lead_id"], id, "{addr}: {r}");
        assert_ne!(r["result_action"], "created", "{addr}: {r}");
    }
    // Missing ZIP: matched by city + state.
    let r = submit(
        &app,
        &alice.key,
        json!({"address": "123 N Main St Apt 4", "city": "austin", "state": "tx"}),
    )
    .await;
    assert_eq!(r["result_lead_id"], id, "{r}");
    // Different properties.
    for (addr, zip) in [
        ("125 N Main St Apt 4", "78701"),
        ("123 N Main St Apt 5", "78701"),
        ("123 S Main St Apt 4", "78701"),
        ("123 Main St Apt 4", "78701"),
        ("123 N Main St", "78701"),
        ("123 N Main Ave Apt 4", "78701"),
        ("123 N Main St Apt 4", "78702"),
    ] {
        let r = submit(
            &app,
            &alice.key,
            json!({"address": addr, "city": "Austin", "state": "TX", "zip_code": zip}),
        )
        .await;
        assert_eq!(r["result_action"], "created", "{addr} {zip}: {r}");
        assert_ne!(r["result_lead_id"], id);
    }
    // Ordinals spelled out.
    let fifth = submit(&app, &alice.key, austin_lead("7 Fifth Avenue")).await;
    let r = submit(&app, &alice.key, austin_lead("7 5th Ave")).await;
    assert_eq!(r["result_lead_id"], fifth["result_lead_id"], "{r}");
    // No ZIP on either side and another city: different.
    let r = submit(
        &app,
        &alice.key,
        json!({"address": "7 5th Ave", "city": "Dallas", "state": "TX"}),
    )
    .await;
    assert_eq!(r["result_action"], "created", "{r}");
    // A box: its number after it, as Publication 28 writes it; other spellings merge into it.
    for (written, standard) in [
        ("P.O. Box 55", "PO BOX 55"),
        ("Rural Route 2, Box 15", "RR 2 BOX 15"),
    ] {
        let (first, lead) = submit_and_get(&app, &alice.key, austin_lead(written)).await;
        assert_eq!(lead["address_standardized"], standard, "{lead}");
        let again = submit(&app, &alice.key, austin_lead(&standard.to_lowercase())).await;
        assert_eq!(again["result_lead_id"], first["result_lead_id"], "{again}");
    }
}

async fn duplicate_scope_by_team(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t1 = team(&app, "One", &alice).await;
    let t2 = team(&app, "Two", &alice).await;
    let addr = austin_lead("5 Scope Rd");
    let mut ids = Vec::new();
    for team_id in [Some(t1), Some(t2), None] {
        let mut body = addr.clone();
        if let Some(t) = team_id {
            body["team_id"] = json!(t);
        }
        let r = submit(&app, &alice.key, body.clone()).await;
        assert_eq!(r["result_action"], "created", "{r}");
        ids.push(r["result_lead_id"].clone());
        let again = submit(&app, &alice.key, body).await;
        assert_eq!(again["result_lead_id"], r["result_lead_id"], "{again}");
    }
    assert_ne!(ids[0], ids[1]);
    assert_ne!(ids[0], ids[2]);
    assert_ne!(ids[1], ids[2]);
    assert_eq!(lead_total(&app, &alice.key, "").await, 3);
}

async fn merge_rules(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let first = submit(
        &app,
        &alice.key,
        json!({"address": "8 Merge Ln", "city": "Austin", "state": "TX", "zip_code": "78701",
               "first_name": "Ann", "permit_status": "Issued", "primary_phone": "5125550100", "email_1": "a@x.com"}),
    )
    .await;
    let id = first["result_lead_id"].as_i64().unwrap();
    // Overwrite a differing field, add a phone and an email, keep the rest.
    let second = submit(
        &app,
        &alice.key,
        json!({"address": "8 Merge Lane", "city": "Austin", "state": "TX",
               "permit_status": "Final", "primary_phone": "512 555 0177", "email_1": "B@x.com"}),
    )
    .await;
    assert_eq!(second["result_action"], "updated", "{second}");
    assert_eq!(second["status"], "completed");
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(lead["permit_status"], "Final");
    assert_eq!(lead["first_name"], "Ann");
    assert_eq!(lead["primary_phone"], "+15125550100");
    assert_eq!(lead["phone_2"], "+15125550177");
    assert_eq!(lead["email_1"], "a@x.com");
    assert_eq!(lead["email_2"], "b@x.com");
    assert_eq!(lead["submission_count"], 2);
    // Nothing new: skipped / duplicate. A known phone in another slot is not a change either.
    let third = submit(
        &app,
        &alice.key,
        json!({"address": "8 Merge Lane", "city": "Austin", "state": "TX", "zip_code": "78701",
               "phone_3": "(512) 555-0177", "first_name": "Ann"}),
    )
    .await;
    assert_eq!(third["result_action"], "skipped", "{third}");
    assert_eq!(third["status"], "duplicate");
    assert_eq!(third["result_lead_id"], json!(id));
    let (_, status) = app
        .get(
            &format!("/api/v1/submissions/status/{}", third["id"]),
            &alice.key,
        )
        .await;
    assert_eq!(status["status"], "duplicate");
    assert_eq!(status["result_action"], "skipped");
}

async fn batch_results_and_order(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t = team(&app, "T", &alice).await;
    let t2 = team(&app, "T2", &alice).await;
    let body = json!({"team_id": t, "leads": [
        {"address": "1 Batch St", "city": "Austin", "state": "TX", "zip_code": "78701"},
        {"address": "1 Batch Street", "city": "Austin", "state": "TX", "zip_code": "78701", "first_name": "Zed"},
        {"address": "1 Batch Street", "city": "Austin", "state": "TX", "zip_code": "78701"},
        {"address": "2 Batch St", "city": "Austin", "state": "TX", "team_id": t2},
        {"first_name": "Nobody"},
    ]});
    let r = batch_ok(&app, &alice.key, body.clone()).await;
    let results = r["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    for (i, e) in results.iter().enumerate() {
        assert_eq!(e["index"], i);
        assert!(e["submission_id"].as_i64().is_some(), "{e}");
    }
    assert_eq!(results[0]["action"], "created");
    assert_eq!(results[0]["status"], "success");
    assert_eq!(results[1]["action"], "updated", "{r}");
    assert_eq!(results[1]["status"], "success");
    assert_eq!(results[2]["action"], "skipped", "{r}");
    assert_eq!(results[2]["status"], "duplicate");
    assert_eq!(results[1]["lead_id"], results[0]["lead_id"]);
    assert_eq!(results[2]["lead_id"], results[0]["lead_id"]);
    assert_eq!(results[3]["action"], "created");
    assert!(has_warning(&results[4], "address", "no_address"), "{r}");
    assert_eq!(r["total"], 5);
    assert_eq!(r["succeeded"], 4);
    assert_eq!(r["duplicates"], 1);
    assert_eq!(r["failed"], 0);
    assert_eq!(r["pending"], 0);
    assert!(r["batch_id"].as_str().is_some_and(|b| !b.is_empty()));
    // team_id applies to every element; an element's own overrides it.
    let lead0 = results[0]["lead_id"].as_i64().unwrap();
    let lead3 = results[3]["lead_id"].as_i64().unwrap();
    let (_, l0) = app.get(&format!("/api/v1/leads/{lead0}"), &alice.key).await;
    let (_, l3) = app.get(&format!("/api/v1/leads/{lead3}"), &alice.key).await;
    assert_eq!(l0["team_id"], t);
    assert_eq!(l0["first_name"], "Zed");
    assert_eq!(l0["submission_count"], 3);
    assert_eq!(l3["team_id"], t2);
    // Each element's submission carries the batch id and outcome.
    let (_, s) = app
        .get(
            &format!("/api/v1/submissions/status/{}", results[1]["submission_id"]),
            &alice.key,
        )
        .await;
    assert_eq!(s["batch_id"], r["batch_id"]);
    assert_eq!(s["status"], "completed");
    assert_eq!(s["result_action"], "updated");
    assert_eq!(s["result_lead_id"], results[0]["lead_id"]);
    let (_, b) = app
        .get(
            &format!(
                "/api/v1/submissions/batches/{}",
                r["batch_id"].as_str().unwrap()
            ),
            &alice.key,
        )
        .await;
    assert_eq!(b["total"], 5, "{b}");
    assert_eq!(b["succeeded"], 4, "{b}");
    assert_eq!(b["duplicates"], 1, "{b}");
    assert_eq!(b["pending"], 0, "{b}");
    assert_eq!(b["failed"], 0, "{b}");
    assert!(
        b["completed_at"].as_str().is_some_and(|c| c.ends_with('Z')),
        "{b}"
    );
    assert!(
        b["created_at"].as_str().is_some_and(|c| c.ends_with('Z')),
        "{b}"
    );
}

async fn deferred_batch(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let body = json!({"process_immediately": false, "leads": [
        {"address": "3 Later St", "city": "Austin", "state": "TX", "zip_code": "78701"},
        {"address": "3 Later St", "city": "Austin", "state": "TX", "zip_code": "78701"},
        {"address": "4 Later St", "city": "Austin", "state": "TX", "zip_code": "78701"},
    ]});
    let r = batch_ok(&app, &alice.key, body).await;
    assert_eq!(r["pending"], 3);
    assert_eq!(r["total"], 3);
    assert_eq!(r["succeeded"], 0);
    for e in r["results"].as_array().unwrap() {
        assert_eq!(e["status"], "pending", "{e}");
        assert!(e["lead_id"].is_null() && e["action"].is_null(), "{e}");
    }
    let b = completed_batch(&app, &alice.key, &r).await;
    assert_eq!(b["pending"], 0, "{b}");
    assert_eq!(b["succeeded"], 2, "{b}");
    assert_eq!(b["duplicates"], 1, "{b}");
    let ids: Vec<i64> = each(&r["results"], "submission_id")
        .map(|id| id.as_i64().unwrap())
        .collect();
    let s0 = settled_submission(&app, &alice.key, ids[0]).await;
    let s1 = settled_submission(&app, &alice.key, ids[1]).await;
    assert_eq!(s0["result_action"], "created", "{s0}");
    assert_eq!(s1["result_action"], "skipped", "{s1}");
    assert_eq!(s1["status"], "duplicate");
    assert_eq!(s1["result_lead_id"], s0["result_lead_id"]);
    assert!(
        s0["processed_at"]
            .as_str()
            .is_some_and(|p| p.ends_with('Z')),
        "{s0}"
    );
    assert_eq!(lead_total(&app, &alice.key, "").await, 2);
}

async fn status_visibility(app: TestApp) {
    let o = onlookers(&app).await;
    let (team_sub, own_sub) = o.team_and_own(&app, "Vis St").await;
    let team_batch = batch_ok(
        &app,
        &o.alice.key,
        json!({"team_id": o.team, "leads": [{"address": "3 Vis St"}]}),
    )
    .await;
    let own_batch = batch_ok(
        &app,
        &o.alice.key,
        json!({"leads": [{"address": "4 Vis St"}]}),
    )
    .await;
    let path = |s: &Value| format!("/api/v1/submissions/status/{}", s["id"]);
    let (status, view) = app.get(&path(&team_sub), &o.alice.key).await;
    assert_eq!(status, StatusCode::OK);
    for key in [
        "id",
        "batch_id",
        "status",
        "result_lead_id",
        "result_action",
        "validation_warnings",
        "error",
        "created_at",
        "processed_at",
    ] {
        assert!(view.get(key).is_some(), "{key} missing: {view}");
    }
    assert!(view["created_at"].as_str().unwrap().ends_with('Z'));
    // (caller, sees the team's submission and batch, sees alice's own unassigned ones)
    let cases = [
        (&o.mate.key, true, false),
        (&o.admin.key, true, true),
        (&o.stranger.key, false, false),
    ];
    for (key, team_visible, own_visible) in cases {
        let want = |v: bool| {
            if v {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            }
        };
        assert_eq!(app.get(&path(&team_sub), key).await.0, want(team_visible));
        assert_eq!(app.get(&path(&own_sub), key).await.0, want(own_visible));
        assert_eq!(
            app.get(&batch_path(&team_batch), key).await.0,
            want(team_visible)
        );
        assert_eq!(
            app.get(&batch_path(&own_batch), key).await.0,
            want(own_visible)
        );
    }
    let (status, body) = app.get(&path(&own_sub), &o.stranger.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body["detail"].is_string(), "{body}");
    assert_eq!(
        app.get(&path(&own_sub), &o.alice.key).await.0,
        StatusCode::OK
    );
    assert_eq!(
        app.get(&batch_path(&own_batch), &o.alice.key).await.0,
        StatusCode::OK
    );
    assert_eq!(
        app.get("/api/v1/submissions/status/999999", &o.admin.key)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/api/v1/submissions/batches/bat_nope", &o.admin.key)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
}

async fn idempotency(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let body = json!({"address": "1 Idem St", "city": "Austin", "state": "TX"});
    let (s1, h1, first) = post_with_key(&app, SINGLE, &alice.key, "key-1", &body).await;
    assert_eq!(s1, StatusCode::OK, "{first}");
    assert!(h1.is_none());
    let count = submission_count(&app).await;
    let (s2, h2, second) = post_with_key(&app, SINGLE, &alice.key, "key-1", &body).await;
    assert_eq!(s2, StatusCode::OK);
    assert_eq!(h2.as_deref(), Some("true"));
    assert_eq!(second, first);
    assert_eq!(submission_count(&app).await, count);
    // Same key, another body.
    let other = json!({"address": "2 Idem St"});
    let (s3, _, answer) = post_with_key(&app, SINGLE, &alice.key, "key-1", &other).await;
    assert_eq!(s3, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(answer["detail"].is_array(), "{answer}");
    assert_eq!(submission_count(&app).await, count);
    // Too long a key.
    let long = "k".repeat(256);
    let (s4, _, answer) = post_with_key(&app, SINGLE, &alice.key, &long, &other).await;
    assert_eq!(s4, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(submission_count(&app).await, count);
    let ok = "k".repeat(255);
    let (s5, _, _) = post_with_key(&app, SINGLE, &alice.key, &ok, &other).await;
    assert_eq!(s5, StatusCode::OK);
    // Another user's identical key is their own.
    let (s6, h6, answer) = post_with_key(&app, SINGLE, &bob.key, "key-1", &body).await;
    assert_eq!(s6, StatusCode::OK, "{answer}");
    assert!(h6.is_none());
    // Batches too.
    let batch = json!({"leads": [{"address": "3 Idem St"}, {"address": "4 Idem St"}]});
    let (b1, _, first) = post_with_key(&app, BATCH, &alice.key, "batch-1", &batch).await;
    assert_eq!(b1, StatusCode::OK);
    let count = submission_count(&app).await;
    let (b2, h, again) = post_with_key(&app, BATCH, &alice.key, "batch-1", &batch).await;
    assert_eq!(b2, StatusCode::OK);
    assert_eq!(h.as_deref(), Some("true"));
    assert_eq!(again["batch_id"], first["batch_id"]);
    assert_eq!(again["results"], first["results"]);
    assert_eq!(submission_count(&app).await, count);
    let (b3, _, _) = post_with_key(
        &app,
        BATCH,
        &alice.key,
        "batch-1",
        &json!({"leads": [{"address": "5 Idem St"}]}),
    )
    .await;
    assert_eq!(b3, StatusCode::UNPROCESSABLE_ENTITY);
}

/// Twins sent at the same moment with one key: one runs, the others replay its answer, and a
/// single submission is stored.
async fn idempotent_twins_store_once(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let body = austin_lead("7 Twin St");
    let before = submission_count(&app).await;
    let answers = futures_util::future::join_all(
        (0..8).map(|_| post_with_key(&app, SINGLE, &alice.key, "twin-key", &body)),
    )
    .await;
    assert_eq!(submission_count(&app).await, before + 1);
    let first = &answers[0].2;
    let mut replayed = 0;
    for (status, header, answer) in &answers {
        assert_eq!(*status, StatusCode::OK, "{answer}");
        assert_eq!(answer, first);
        replayed += usize::from(header.as_deref() == Some("true"));
    }
    assert_eq!(replayed, 7);
}

/// A request that fails stores nothing, so its key is free for the corrected retry.
async fn failed_request_gives_its_key_up(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let bobs = team(&app, "Bob's", &bob).await;
    let body = json!({"address": "8 Retry St", "team_id": bobs});
    let (status, _, answer) = post_with_key(&app, SINGLE, &alice.key, "retry-key", &body).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    let (status, header, answer) =
        post_with_key(&app, SINGLE, &alice.key, "retry-key", &body).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(
        header.is_none(),
        "an error is not replayed: the request ran again"
    );
}

async fn raw_json_kept_verbatim(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let single = json!({"address": "  1 Raw   St ", "state": "tx", "email_1": "BAD", "extra": [1, {"a": null}], "zip_code": ""});
    let r = submit(&app, &alice.key, single.clone()).await;
    assert_eq!(raw_json(&app, r["id"].as_i64().unwrap()).await, single);
    let leads = json!([
        {"address": "2 Raw St", "unknown": true},
        {"address": "2 Raw Street", "phone_2": "(512) 555-0100", "bedrooms": 3},
    ]);
    let b = batch_ok(&app, &alice.key, json!({"leads": leads.clone()})).await;
    for (i, e) in b["results"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            raw_json(&app, e["submission_id"].as_i64().unwrap()).await,
            leads[i]
        );
    }
}

/// The text of each element as sent (key order, spacing, escapes, number forms), not the
/// same JSON written out again.
async fn raw_json_kept_byte_for_byte(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let send = |path: &'static str, body: String| {
        app.client
            .post(app.url(path))
            .bearer_auth(&alice.key)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
    };
    let single = "{ \"zip_code\" : \"78701\",\n  \"address\": \"1 Caf\\u00e9 St\", \"lot_size\": \"0.50 acres\", \"n\": 1.50 }";
    let answer: Value = send(SINGLE, format!("\n {single} \n"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(raw_text(&app, answer["id"].as_i64().unwrap()).await, single);
    let first = "{\"state\":\"TX\",   \"address\":\"2 Raw St\"}";
    let second =
        "{\n\t\"address\": \"3 Raw St\", \"bedrooms\": \"3\", \"x\": [1.0, {\"b\": null}]\n}";
    let batch = format!("{{\"process_immediately\": true, \"leads\": [ {first} ,{second}]}}");
    let answer: Value = send(BATCH, batch).await.unwrap().json().await.unwrap();
    let results = answer["results"].as_array().unwrap();
    for (result, sent) in results.iter().zip([first, second]) {
        let id = result["submission_id"].as_i64().unwrap();
        assert_eq!(raw_text(&app, id).await, sent);
    }
}

async fn concurrent_same_address(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let client = app.client.clone();
        let url = app.url(SINGLE);
        let key = alice.key.clone();
        tasks.spawn(async move {
            let body = json!({"address": "77 Race Ave", "city": "Austin", "state": "TX", "zip_code": "78701",
                              "primary_phone": format!("51255501{:02}", i % 2)});
            let response = client.post(url).bearer_auth(key).json(&body).send().await.unwrap();
            let status = response.status();
            let json: Value = response.json().await.unwrap();
            (status, json)
        });
    }
    let mut results = Vec::new();
    while let Some(done) = tasks.join_next().await {
        results.push(done.unwrap());
    }
    for (status, body) in &results {
        assert_eq!(*status, StatusCode::OK, "{body}");
    }
    let lead_id = &results[0].1["result_lead_id"];
    assert!(lead_id.is_i64(), "{}", results[0].1);
    assert!(
        results.iter().all(|(_, b)| &b["result_lead_id"] == lead_id),
        "{results:?}"
    );
    let created = results
        .iter()
        .filter(|(_, b)| b["result_action"] == "created")
        .count();
    assert_eq!(created, 1, "{results:?}");
    assert!(results
        .iter()
        .all(|(_, b)| ["created", "updated", "skipped"]
            .contains(&b["result_action"].as_str().unwrap_or(""))));
    assert_eq!(lead_total(&app, &alice.key, "").await, 1);
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{lead_id}"), &alice.key)
        .await;
    assert_eq!(lead["submission_count"], 20, "{lead}");
}

/// Single submissions of several callers arriving together are stored and processed as one
/// group (see single_intake.rs): each caller still gets its own answer, its own team's scope
/// and its own warnings, and sees only its own submissions.
async fn concurrent_singles_of_several_callers(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let alices = team(&app, "Alice's", &alice).await;
    let bobs = team(&app, "Bob's", &bob).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..24 {
        let (key, team_id, name) = if i % 2 == 0 {
            (alice.key.clone(), alices, "alice")
        } else {
            (bob.key.clone(), bobs, "bob")
        };
        let client = app.client.clone();
        let url = app.url(SINGLE);
        // Both teams submit the same twelve properties; a third of them with a bad e-mail.
        let body = json!({"address": format!("{} Group Ln", i / 2), "city": "Austin", "state": "TX",
                          "zip_code": "78701", "team_id": team_id, "first_name": name,
                          "email_1": if i % 3 == 0 { "nope" } else { "ok@example.com" }});
        tasks.spawn(async move {
            let response = client
                .post(url)
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            (i, status, response.json::<Value>().await.unwrap())
        });
    }
    let mut ids = std::collections::HashMap::new();
    while let Some(done) = tasks.join_next().await {
        let (i, status, r) = done.unwrap();
        assert_eq!(status, StatusCode::OK, "{r}");
        assert_eq!(r["result_action"], "created", "{i}: {r}");
        assert_eq!(
            has_warning(&r, "email_1", "invalid_email"),
            i % 3 == 0,
            "{i}: {r}"
        );
        ids.insert(i, (r["id"].clone(), r["result_lead_id"].clone()));
    }
    for i in 0..24 {
        let (submission, lead) = &ids[&i];
        let (own, other) = if i % 2 == 0 {
            (&alice, &bob)
        } else {
            (&bob, &alice)
        };
        let path = format!("/api/v1/submissions/status/{submission}");
        let (status, seen) = app.get(&path, &own.key).await;
        assert_eq!(status, StatusCode::OK, "{seen}");
        assert_eq!(&seen["result_lead_id"], lead, "{seen}");
        assert_eq!(app.get(&path, &other.key).await.0, StatusCode::NOT_FOUND);
        let (status, found) = app.get(&format!("/api/v1/leads/{lead}"), &own.key).await;
        assert_eq!(status, StatusCode::OK, "{found}");
        assert_eq!(
            found["first_name"],
            if i % 2 == 0 { "alice" } else { "bob" }
        );
        assert_eq!(found["address"], format!("{} Group Ln", i / 2));
    }
    assert_eq!(lead_total(&app, &alice.key, "").await, 12);
    assert_eq!(lead_total(&app, &bob.key, "").await, 12);
}

/// An element with no field at all is a failed element (contract 3.1), stored verbatim, in
/// its place, processed now or deferred; its neighbours are stored as usual and the batch
/// completes only when every element is final.
async fn batch_elements_with_no_field_fail(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    for immediately in [true, false] {
        let street = if immediately {
            "5 Now St"
        } else {
            "6 Later St"
        };
        let body = json!({"process_immediately": immediately, "leads": [
            {},
            {"address": street, "city": "Austin", "state": "TX", "zip_code": "78701"},
            {"nickname": "only a field we do not know"},
        ]});
        let r = batch_ok(&app, &alice.key, body).await;
        let results = r["results"].as_array().unwrap();
        assert_eq!(results.len(), 3, "{r}");
        for (i, e) in results.iter().enumerate() {
            assert_eq!(e["index"], i, "{r}");
        }
        for e in [&results[0], &results[2]] {
            assert_eq!(e["status"], "failed", "{r}");
            assert!(e["lead_id"].is_null(), "{r}");
            assert!(
                e["error"]
                    .as_str()
                    .is_some_and(|m| m.contains("at least one field")),
                "{r}"
            );
        }
        let b = completed_batch(&app, &alice.key, &r).await;
        assert_eq!(
            (b["total"].as_i64(), b["failed"].as_i64()),
            (Some(3), Some(2)),
            "{b}"
        );
        assert_eq!(
            (b["succeeded"].as_i64(), b["pending"].as_i64()),
            (Some(1), Some(0)),
            "{b}"
        );
        let (_, s) = app
            .get(
                &format!("/api/v1/submissions/status/{}", results[2]["submission_id"]),
                &alice.key,
            )
            .await;
        assert_eq!(s["status"], "failed", "{s}");
        assert_eq!(s["batch_id"], r["batch_id"], "{s}");
        let id = results[2]["submission_id"].as_i64().unwrap();
        assert_eq!(
            raw_json(&app, id).await,
            json!({"nickname": "only a field we do not know"})
        );
    }
    assert_eq!(lead_total(&app, &alice.key, "").await, 2);
}

backend_tests!(
    single_then_duplicate_then_update,
    wrong_json_types_are_422,
    state_and_enum_rules,
    numeric_ranges,
    string_limits,
    batch_validation,
    unknown_fields_ignored_and_blanks_absent,
    team_membership_is_403,
    warnings,
    normalisation,
    duplicate_rules,
    duplicate_scope_by_team,
    merge_rules,
    batch_results_and_order,
    deferred_batch,
    batch_elements_with_no_field_fail,
    status_visibility,
    idempotency,
    idempotent_twins_store_once,
    failed_request_gives_its_key_up,
    raw_json_kept_verbatim,
    raw_json_kept_byte_for_byte,
    concurrent_same_address,
    concurrent_singles_of_several_callers,
);
