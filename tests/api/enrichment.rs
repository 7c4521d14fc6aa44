//! Geocoding and appraisal through the whole pipeline (contract section 4).
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::jobs;
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{austin_lead, each, post_batch, result_lead_ids, submit};

/// The app again with the geocoder chain `names` (Census and Nominatim unreachable), cached in
/// the test's database.
pub(crate) async fn with_geocoders(app: TestApp, names: &[&str]) -> TestApp {
    let geocoder = geocoder_chain(&app, names);
    app.restart().geocoder(geocoder).build().await
}

/// The geocoder chain `names` over the test's database, Census and Nominatim unreachable.
pub(crate) fn geocoder_chain(
    app: &TestApp,
    names: &[&str],
) -> Option<Arc<dyn leadhub_domain::enrich::Geocoder>> {
    let db = leadhub_db::Database::connect(&app.db.url, 2).unwrap();
    let mut settings = leadhub_geocode::GeocodeSettings::new(
        "http://127.0.0.1:9",
        "http://127.0.0.1:9",
        "leadhub-test",
    );
    settings.timeout = Duration::from_millis(500);
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    leadhub_geocode::build(&names, &settings, Arc::new(db)).unwrap()
}

/// A one-line HTTP server answering every request with `body`.
fn fake_server(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        }
    });
    url
}

async fn zip_geocoder_places_78701_in_austin(app: TestApp) {
    let app = with_geocoders(app, &["zip"]).await;
    let alice = app.user("alice@example.com").await;
    let r = submit(&app, &alice.key, austin_lead("100 Congress Ave")).await;
    let id = r["result_lead_id"].as_i64().unwrap();
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    let (lat, lon) = (
        lead["latitude"].as_f64().unwrap(),
        lead["longitude"].as_f64().unwrap(),
    );
    assert!(
        (30.25..30.30).contains(&lat) && (-97.76..-97.72).contains(&lon),
        "{lead}"
    );
    assert_eq!(lead["geocode"]["source"], "zip");
    assert_eq!(lead["geocode"]["match"], "zip_centroid");
    assert_eq!(lead["enrichment_status"], "complete");
}

async fn a_failed_geocode_is_a_warning_and_retried_later(app: TestApp) {
    // Census at a port nothing listens on: a failure, never a failed submission.
    let app = with_geocoders(app, &["census"]).await;
    let alice = app.user("alice@example.com").await;
    let r = submit(&app, &alice.key, austin_lead("1 Nowhere Rd")).await;
    assert_eq!(r["status"], "completed");
    let codes: Vec<&str> = each(&r["validation_warnings"], "code")
        .filter_map(Value::as_str)
        .collect();
    assert!(codes.contains(&"geocode_failed"), "{r}");
    // For people: the provider and what happened, never our URL or the library's words.
    let message = r["validation_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "geocode_failed")
        .and_then(|w| w["message"].as_str())
        .unwrap();
    assert_eq!(
        message,
        "census: could not be reached; retried in the background"
    );
    for internal in ["http", "127.0.0.1", "request", "url"] {
        assert!(!r.to_string().contains(internal), "{internal}: {r}");
    }
    let id = r["result_lead_id"].as_i64().unwrap();
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(lead["enrichment_status"], "pending_retry");
    let queued: i64 = app
        .read_db(|conn| {
            conn.get_result(
                jobs::table
                    .filter(jobs::kind.eq("enrich_lead"))
                    .filter(jobs::status.eq("queued"))
                    .count(),
            )
        })
        .await;
    assert_eq!(queued, 1, "a retry job waits");
}

async fn enrich_endpoint_runs_again(app: TestApp) {
    // Stored while no geocoder was configured: no coordinates.
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let team = crate::helpers::team(&app, "Alpha", &alice).await;
    let lead_of = |r: Value| r["result_lead_id"].as_i64().unwrap();
    let id = lead_of(
        submit(
            &app,
            &alice.key,
            json!({"address": "5 Elm St", "zip_code": "78701"}),
        )
        .await,
    );
    let team_lead = json!({"address": "6 Elm St", "zip_code": "78701", "team_id": team});
    let team_lead = lead_of(submit(&app, &alice.key, team_lead).await);
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(lead["geocode"], serde_json::Value::Null);
    // The operator configures the offline geocoder; enrichment runs again on request.
    let app = with_geocoders(app, &["zip"]).await;
    let (status, lead) = app
        .post(&format!("/api/v1/leads/{id}/enrich"), &alice.key, json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(lead["geocode"]["source"], "zip", "{lead}");
    assert!(lead["latitude"].as_f64().is_some());
    // Unassigned leads are everyone's; a team's lead is not.
    let enrich = format!("/api/v1/leads/{team_lead}/enrich");
    for (key, expected) in [
        (&bob.key, StatusCode::NOT_FOUND),
        (&alice.key, StatusCode::OK),
    ] {
        let (status, _) = app.post(&enrich, key, json!({})).await;
        assert_eq!(status, expected);
    }
}

const TRAVIS: &str =
    include_str!("../../crates/appraisal/tests/fixtures/travis-parcel-query-response.json");

async fn appraisal_comes_from_the_county_layer(app: TestApp) {
    let layer = fake_server(TRAVIS);
    let counties = format!(
        "[[county]]\nstate = \"TX\"\ncounty = \"Travis\"\nfips = \"48453\"\nlayer_url = \"{layer}/arcgis/rest/services/x/FeatureServer/0\"\nparcel_id_field = \"PROP_ID\"\n[county.fields]\naccount_id = \"PROP_ID\"\nowner_name = \"py_owner_name\"\nmarket_value = \"market_value\"\n"
    );
    let appraisal = leadhub_appraisal::from_toml_str(&counties, Duration::from_secs(2)).unwrap();
    let app = app.restart().appraisal(Some(appraisal)).build().await;
    let alice = app.user("alice@example.com").await;
    let (_, r) = app
        .post("/api/v1/submissions/single", &alice.key,
              json!({"address": "1407 W 9th St", "city": "Austin", "state": "TX", "county": "Travis", "parcel_number": "102345", "zip_code": "78703"}))
        .await;
    let id = r["result_lead_id"].as_i64().unwrap();
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(
        lead["appraisal"]["owner_name"], "GARCIA MARIA & JOSE",
        "{lead}"
    );
    assert_eq!(lead["appraisal"]["market_value"], 812500);
    assert_eq!(lead["appraisal"]["raw"]["PROP_ID"], 102345);
    assert_eq!(lead["enrichment_status"], "complete");
}

/// A single submission that merges into a geocoded lead (no appraisal configured) leaves it
/// `complete`, and one merging into a lead whose submitter gave its coordinates leaves it
/// `skipped`: neither waits on a stage that does not apply (they stayed `pending_retry` for
/// ever), and no `enriched` entry says a lookup ran.
async fn a_merge_with_no_stage_to_run_waits_on_nothing(app: TestApp) {
    let app = with_geocoders(app, &["zip"]).await;
    let alice = app.user("alice@example.com").await;
    let placed = json!({"address": "7 Placed Ln", "city": "Austin", "state": "TX",
                        "latitude": 30.27, "longitude": -97.74});
    for (first, expected) in [
        (austin_lead("901 Repro Way"), "complete"),
        (placed, "skipped"),
    ] {
        let created = submit(&app, &alice.key, first.clone()).await;
        let id = created["result_lead_id"].as_i64().unwrap();
        let lead = format!("/api/v1/leads/{id}");
        let (_, before) = app.get(&lead, &alice.key).await;
        assert_eq!(before["enrichment_status"], expected, "{before}");
        let (_, timeline) = app.get(&format!("{lead}/activity"), &alice.key).await;
        let mut again = first;
        again["first_name"] = json!("Second");
        let merged = submit(&app, &alice.key, again).await;
        assert_eq!(merged["result_action"], "updated", "{merged}");
        let (_, after) = app.get(&lead, &alice.key).await;
        assert_eq!(after["enrichment_status"], expected, "{after}");
        assert_eq!(after["first_name"], "Second", "{after}");
        let enriched = |t: &Value| {
            t["items"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["kind"] == "enriched")
                .count()
        };
        let (_, now) = app.get(&format!("{lead}/activity"), &alice.key).await;
        assert_eq!(enriched(&now), enriched(&timeline), "{now}");
    }
}

backend_tests!(
    a_merge_with_no_stage_to_run_waits_on_nothing,
    zip_geocoder_places_78701_in_austin,
    a_failed_geocode_is_a_warning_and_retried_later,
    enrich_endpoint_runs_again,
    appraisal_comes_from_the_county_layer,
    enrich_again_queues_no_second_retry_for_a_lead,
);

/// The lead ids of the `enrich_lead` jobs with `status`, one list per job, oldest first.
async fn retry_jobs(app: &TestApp, status: &'static str) -> Vec<Vec<i64>> {
    let payloads: Vec<String> = app
        .read_db(move |conn| {
            conn.load(
                jobs::table
                    .filter(jobs::kind.eq("enrich_lead"))
                    .filter(jobs::status.eq(status))
                    .order(jobs::id)
                    .select(jobs::payload),
            )
        })
        .await;
    payloads
        .iter()
        .map(|p| {
            let payload: Value = serde_json::from_str(p).unwrap();
            serde_json::from_value(payload["lead_ids"].clone()).unwrap()
        })
        .collect()
}

async fn enrich_again_queues_no_second_retry_for_a_lead(app: TestApp) {
    // Census unreachable: every lead waits, and one retry job covers the batch's two.
    let app = with_geocoders(app, &["census"]).await;
    let alice = app.user("alice@example.com").await;
    let leads: Vec<Value> = (1..=2)
        .map(|n| {
            json!({"address": format!("{n} Nowhere Rd"), "city": "Austin", "state": "TX",
                       "zip_code": "78701"})
        })
        .collect();
    let (status, answer) = post_batch(&app, &alice.key, leads).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let ids = result_lead_ids(&answer);
    assert_eq!(retry_jobs(&app, "queued").await, std::slice::from_ref(&ids));

    // "Enrich again" on the second lead, twice: it still waits, and the queued job retries it.
    let enrich = format!("/api/v1/leads/{}/enrich", ids[1]);
    for _ in 0..2 {
        let (status, lead) = app.post(&enrich, &alice.key, json!({})).await;
        assert_eq!(status, StatusCode::OK, "{lead}");
        assert_eq!(lead["enrichment_status"], "pending_retry", "{lead}");
    }
    assert_eq!(retry_jobs(&app, "queued").await, std::slice::from_ref(&ids));

    // With that job dead, "Enrich again" queues the lead a retry of its own, once.
    app.write_db(|conn| {
        diesel::update(jobs::table.filter(jobs::kind.eq("enrich_lead")))
            .set(jobs::status.eq("dead"))
            .execute(conn)
    })
    .await;
    for _ in 0..2 {
        let (status, lead) = app.post(&enrich, &alice.key, json!({})).await;
        assert_eq!(status, StatusCode::OK, "{lead}");
    }
    assert_eq!(retry_jobs(&app, "queued").await, [vec![ids[1]]]);
}
