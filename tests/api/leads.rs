//! Lead queries end to end (contract section 3.5).
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_domain::lead::fields::STRING_FIELDS;
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{
    assert_query_refused, each, lead_total, onlookers, submit, submit_and_get, submit_leads, team,
};

fn ids(page: &Value) -> Vec<i64> {
    each(&page["items"], "id")
        .map(|id| id.as_i64().unwrap())
        .collect()
}

async fn list(app: &TestApp, key: &str, query: &str) -> Value {
    let (status, body) = app.get(&format!("/api/v1/leads{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

async fn filters(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t = team(&app, "T", &alice).await;
    let [a, b, c] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "1 Alpha St", "city": "Austin", "state": "TX", "zip_code": "78701",
                "property_type": "residential", "permit_status": "Issued", "source": "scrape", "first_name": "Zelda",
                "last_name": "Quux", "project_number": "BP-2025-001", "team_id": t}),
            json!({"address": "2 Beta Rd", "city": "Dallas", "state": "TX", "zip_code": "75201",
                "property_type": "commercial", "permit_status": "Final", "source": "manual"}),
            json!({"address": "3 Gamma Ave", "city": "Tulsa", "state": "OK", "zip_code": "74103",
                "property_type": "vacant_land", "source": "scrape"}),
        ],
    )
    .await;
    let all = list(&app, &alice.key, "").await;
    assert_eq!(all["total"], 3);
    assert_eq!(all["limit"], 50);
    assert_eq!(all["offset"], 0);
    assert_eq!(ids(&all), vec![c, b, a], "newest first");
    for (query, want) in [
        (format!("?team_id={t}"), vec![a]),
        ("?state=OK".into(), vec![c]),
        ("?state=tx".into(), vec![b, a]),
        // A state's name, as imports read it, is its code.
        ("?state=Texas".into(), vec![b, a]),
        ("?state=Okla.".into(), vec![c]),
        ("?city=Dallas".into(), vec![b]),
        ("?zip_code=78701".into(), vec![a]),
        ("?property_type=commercial".into(), vec![b]),
        ("?property_type=VACANT_LAND".into(), vec![c]),
        ("?permit_status=Issued".into(), vec![a]),
        ("?source=scrape".into(), vec![c, a]),
        ("?q=beta".into(), vec![b]),
        ("?q=Quux".into(), vec![a]),
        ("?q=BP-2025".into(), vec![a]),
        ("?q=nothing-matches".into(), vec![]),
        ("?state=TX&source=manual".into(), vec![b]),
        ("?created_after=2000-01-01".into(), vec![c, b, a]),
        ("?created_before=2000-01-01T00:00:00Z".into(), vec![]),
        ("?created_after=2999-01-01T00:00:00Z".into(), vec![]),
        ("?created_before=2999-01-01".into(), vec![c, b, a]),
    ] {
        let page = list(&app, &alice.key, &query).await;
        assert_eq!(ids(&page), want, "{query}: {page}");
        assert_eq!(page["total"], want.len(), "{query}");
    }
    for bad in [
        "?property_type=castle",
        "?team_id=abc",
        "?created_after=yesterday",
    ] {
        let (status, body) = app.get(&format!("/api/v1/leads{bad}"), &alice.key).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
}

async fn paging(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut made = Vec::new();
    for i in 0..5 {
        let r = submit(
            &app,
            &alice.key,
            json!({"address": format!("{i} Page St"), "city": "Austin", "state": "TX"}),
        )
        .await;
        made.push(r["result_lead_id"].as_i64().unwrap());
    }
    made.reverse();
    let page = list(&app, &alice.key, "?limit=2").await;
    assert_eq!(ids(&page), made[..2].to_vec());
    assert_eq!(page["total"], 5);
    assert_eq!(page["limit"], 2);
    let page = list(&app, &alice.key, "?limit=2&offset=2").await;
    assert_eq!(ids(&page), made[2..4].to_vec());
    assert_eq!(page["offset"], 2);
    let page = list(&app, &alice.key, "?limit=2&offset=4").await;
    assert_eq!(ids(&page), made[4..].to_vec());
    let page = list(&app, &alice.key, "?limit=500&offset=10").await;
    assert!(ids(&page).is_empty());
    assert_eq!(page["total"], 5);
    assert_query_refused(
        &app,
        "/api/v1/leads",
        &alice.key,
        &[
            "?limit=0",
            "?limit=501",
            "?limit=-1",
            "?offset=-1",
            "?limit=x",
        ],
    )
    .await;
}

async fn visibility(app: TestApp) {
    let o = onlookers(&app).await;
    let (team_sub, open_sub) = o.team_and_own(&app, "Vis St").await;
    let team_lead = team_sub["result_lead_id"].as_i64().unwrap();
    let open_lead = open_sub["result_lead_id"].as_i64().unwrap();
    let team_path = format!("/api/v1/leads/{team_lead}");
    let open_path = format!("/api/v1/leads/{open_lead}");
    for (who, key, sees_team) in [
        ("alice", &o.alice.key, true),
        ("mate", &o.mate.key, true),
        ("admin", &o.admin.key, true),
        ("stranger", &o.stranger.key, false),
    ] {
        let (status, body) = app.get(&team_path, key).await;
        let want = if sees_team {
            StatusCode::OK
        } else {
            StatusCode::NOT_FOUND
        };
        assert_eq!(status, want, "{who}: {body}");
        let (status, _) = app.get(&open_path, key).await;
        assert_eq!(status, StatusCode::OK, "{who}");
        let total = lead_total(&app, key, "").await;
        assert_eq!(total, if sees_team { 2 } else { 1 }, "{who}");
        // Filtering by a team one cannot see shows nothing.
        let total = lead_total(&app, key, &format!("?team_id={}", o.team)).await;
        assert_eq!(total, if sees_team { 1 } else { 0 }, "{who}");
    }
    let (status, body) = app.get(&team_path, &o.stranger.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body["detail"].is_string(), "{body}");
    assert_eq!(
        app.get("/api/v1/leads/987654", &o.admin.key).await.0,
        StatusCode::NOT_FOUND
    );
    // A deactivated team's leads stay visible to its members.
    app.write_db(move |conn| {
        use diesel::prelude::*;
        use leadhub_db::schema::teams;
        diesel::update(teams::table.filter(teams::id.eq(o.team)))
            .set(teams::is_active.eq(false))
            .execute(conn)
    })
    .await;
    assert_eq!(app.get(&team_path, &o.mate.key).await.0, StatusCode::OK);
    assert_eq!(
        app.get(&team_path, &o.stranger.key).await.0,
        StatusCode::NOT_FOUND
    );
}

async fn lead_fields(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let fields = json!({"address": "4 Field St", "city": "Austin", "state": "tx", "zip_code": "78701",
        "lot_size": "10,890 sqft", "bedrooms": 3, "latitude": 30.25, "longitude": -97.75,
        "first_name": "Ann", "source": "manual"});
    let (r, lead) = submit_and_get(&app, &alice.key, fields).await;
    let id = r["result_lead_id"].as_i64().unwrap();
    // Every field a submission may carry, then what the service adds.
    let added = [
        "id",
        "team_id",
        "bedrooms",
        "latitude",
        "longitude",
        "lot_size_acres",
        "geocode",
        "appraisal",
        "enrichment_status",
        "submission_count",
        "created_at",
        "updated_at",
    ];
    for key in STRING_FIELDS.iter().chain(&added) {
        assert!(lead.get(key).is_some(), "{key} missing: {lead}");
    }
    assert_eq!(lead["id"], id);
    assert!(lead["team_id"].is_null());
    assert_eq!(lead["bedrooms"], 3);
    assert_eq!(lead["latitude"], 30.25);
    assert_eq!(lead["longitude"], -97.75);
    assert!(
        (lead["lot_size_acres"].as_f64().unwrap() - 0.25).abs() < 1e-6,
        "{lead}"
    );
    assert!(lead["geocode"].is_null(), "{lead}");
    assert!(lead["appraisal"].is_null(), "{lead}");
    assert!(
        ["complete", "partial", "pending_retry", "skipped"]
            .contains(&lead["enrichment_status"].as_str().unwrap()),
        "{lead}"
    );
    assert_eq!(lead["submission_count"], 1);
    for ts in ["created_at", "updated_at"] {
        let v = lead[ts].as_str().unwrap();
        assert!(v.ends_with('Z'), "{ts}: {v}");
        assert!(chrono::DateTime::parse_from_rfc3339(v).is_ok(), "{ts}: {v}");
    }
    // The list shows the same shape.
    let page = list(&app, &alice.key, "").await;
    assert_eq!(page["items"][0], lead);
    assert_eq!(
        app.get("/api/v1/leads/abc", &alice.key).await.0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
}

backend_tests!(filters, paging, visibility, lead_fields);
