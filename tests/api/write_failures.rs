//! A lead the database refuses fails its own submission and nothing else: every submission is
//! still stored verbatim, the neighbours' leads are written, and the answer, the submission's
//! status and the batch's counters say which one failed (contract 3.3: "no submitted data is
//! ever lost"; 3.4: status `failed`, action null). A trigger installed by the test refuses any
//! lead whose first name is "Refused", on insert and on update.
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::Backend;
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{lead_total, post_batch, raw_json, submission_count, submit};

pub(crate) const REFUSED: &str = "Refused";

pub(crate) async fn refuse_leads_named(app: &TestApp) {
    let statements: Vec<String> = match app.state.db.backend() {
        Backend::Sqlite => ["INSERT", "UPDATE"]
            .iter()
            .map(|event| {
                format!(
                    "CREATE TRIGGER refuse_lead_{event} BEFORE {event} ON leads \
                     WHEN NEW.first_name = '{REFUSED}' \
                     BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
                )
            })
            .collect(),
        Backend::Postgres => vec![
            format!(
                "CREATE FUNCTION refuse_lead() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN IF NEW.first_name = '{REFUSED}' THEN \
                 RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$"
            ),
            "CREATE TRIGGER refuse_lead BEFORE INSERT OR UPDATE ON leads \
             FOR EACH ROW EXECUTE FUNCTION refuse_lead()"
                .to_owned(),
        ],
    };
    app.write_db(move |conn| {
        for s in &statements {
            diesel::sql_query(s.as_str()).execute(conn)?;
        }
        Ok(())
    })
    .await;
}

fn lead(n: u32, first_name: &str) -> Value {
    json!({"address": format!("{n} Refusal Rd"), "city": "Austin", "state": "TX",
           "zip_code": "78701", "first_name": first_name, "latitude": 30.2, "longitude": -97.7})
}

async fn batch_element_refused_alone(app: TestApp) {
    refuse_leads_named(&app).await;
    let alice = app.user("alice@example.com").await;
    let leads = json!([
        lead(1, "Ann"),
        lead(2, REFUSED),
        lead(3, "Bo"),
        lead(1, "Ann")
    ]);
    let (status, b) = post_batch(&app, &alice.key, leads.clone()).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(
        (&b["total"], &b["succeeded"], &b["duplicates"], &b["failed"]),
        (&json!(4), &json!(2), &json!(1), &json!(1)),
        "{b}"
    );
    let results = b["results"].as_array().unwrap();
    let statuses: Vec<&str> = results
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["success", "failed", "success", "duplicate"],
        "{b}"
    );
    let failed = &results[1];
    assert!(
        failed["lead_id"].is_null() && failed["action"].is_null(),
        "{b}"
    );
    assert!(
        failed["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{b}"
    );
    // Every element is stored verbatim, the refused one included.
    assert_eq!(submission_count(&app).await, 4);
    for (i, e) in results.iter().enumerate() {
        assert_eq!(
            raw_json(&app, e["submission_id"].as_i64().unwrap()).await,
            leads[i]
        );
    }
    let id = failed["submission_id"].as_i64().unwrap();
    let (status, s) = app
        .get(&format!("/api/v1/submissions/status/{id}"), &alice.key)
        .await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["status"], "failed", "{s}");
    assert!(
        s["result_lead_id"].is_null() && s["processed_at"].is_string(),
        "{s}"
    );
    let batch_id = b["batch_id"].as_str().unwrap();
    let (_, counters) = app
        .get(
            &format!("/api/v1/submissions/batches/{batch_id}"),
            &alice.key,
        )
        .await;
    assert_eq!(
        (
            &counters["succeeded"],
            &counters["duplicates"],
            &counters["failed"],
            &counters["pending"]
        ),
        (&json!(2), &json!(1), &json!(1), &json!(0)),
        "{counters}"
    );
    assert!(counters["completed_at"].is_string(), "{counters}");
    assert_eq!(lead_total(&app, &alice.key, "").await, 2);
}

async fn single_refused_is_kept(app: TestApp) {
    refuse_leads_named(&app).await;
    let alice = app.user("alice@example.com").await;
    let sent = lead(7, REFUSED);
    let r = submit(&app, &alice.key, sent.clone()).await;
    assert_eq!(r["status"], "failed", "{r}");
    assert!(
        r["result_lead_id"].is_null() && r["result_action"].is_null(),
        "{r}"
    );
    let id = r["id"].as_i64().unwrap();
    assert_eq!(raw_json(&app, id).await, sent);
    let (_, s) = app
        .get(&format!("/api/v1/submissions/status/{id}"), &alice.key)
        .await;
    assert_eq!(s["status"], "failed", "{s}");
    // A merge the database refuses fails the same way, and leaves the stored lead as it was.
    let first = submit(&app, &alice.key, lead(8, "Cy")).await;
    assert_eq!(first["result_action"], "created", "{first}");
    let refused = submit(&app, &alice.key, lead(8, REFUSED)).await;
    assert_eq!(refused["status"], "failed", "{refused}");
    let lead_id = first["result_lead_id"].as_i64().unwrap();
    let (_, stored) = app
        .get(&format!("/api/v1/leads/{lead_id}"), &alice.key)
        .await;
    assert_eq!(stored["first_name"], "Cy", "{stored}");
    assert_eq!(stored["submission_count"], 1, "{stored}");
}

backend_tests!(batch_element_refused_alone, single_refused_is_kept);
