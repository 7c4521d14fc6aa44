//! What people filter, search and sort by (issue 27 points 7 and 9, docs/search.md): text
//! filters ignore case and surrounding space, `source` is a slug, `q` finds a lead by any
//! writing of its phone or by its e-mail, `sort`, the business list's `q` and a business PATCH
//! of any imported field.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, Backend, TestApp};

use crate::helpers::{
    assert_query_refused, each, listed, locs, problem_type, submit, submit_leads, team,
};
use crate::lead_pages::fetch_csv;

const BUSINESSES: &str = "/api/v1/lead-sources/businesses";

fn ids(page: &Value) -> Vec<i64> {
    each(&page["items"], "id")
        .map(|id| id.as_i64().unwrap())
        .collect()
}

/// Archives a lead as the archive endpoint does (which only a team's owner or admin may call).
async fn archive(app: &TestApp, id: i64) {
    app.write_db(move |conn| {
        use diesel::prelude::*;
        use leadhub_db::schema::leads;
        diesel::update(leads::table.find(id))
            .set(leads::archived_at.eq(Some(chrono::Utc::now().naive_utc())))
            .execute(conn)
    })
    .await;
}

/// Each of `queries` finds exactly the leads `want`, in that order.
async fn assert_each_finds(app: &TestApp, key: &str, queries: &[&str], want: &[i64]) {
    for query in queries {
        assert_eq!(listed(app, key, query).await, want, "{query}");
    }
}

async fn text_filters_ignore_case_and_space(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let [a, b, c] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "1 Alpha St", "city": "Austin", "state": "TX",
            "county": "Travis", "permit_status": "Issued", "work_type": "Re-Roof", "source": "Permit Scrape"}),
            json!({"address": "2 Beta St", "city": "austin", "state": "tx",
            "county": "TRAVIS", "permit_status": "issued", "work_type": "re-roof", "source": "permit_scrape"}),
            json!({"address": "3 Gamma St", "city": "Dallas", "state": "TX",
            "permit_status": "Final", "source": "Door Knock"}),
        ],
    )
    .await;
    let queries = [
        "?city=austin",
        "?city=AUSTIN",
        "?city=%20Austin%20",
        "?county=travis",
        "?permit_status=ISSUED",
        "?permit_status=%20issued",
        "?work_type=RE-ROOF",
        "?source=Permit%20Scrape",
        "?source=permit_scrape",
        "?source=PERMIT-SCRAPE",
        "?state=%20tx%20&city=austin",
        "?source=permit%20scrape&permit_status=issued",
    ];
    assert_each_finds(&app, &alice.key, &queries, &[b, a]).await;
    assert_eq!(
        listed(&app, &alice.key, "?source=door_knock").await,
        vec![c]
    );
    assert_eq!(
        listed(&app, &alice.key, "?city=aust").await,
        Vec::<i64>::new()
    );
    // The source is stored as its slug; the submission keeps what was sent.
    let (_, stored) = app.get(&format!("/api/v1/leads/{a}"), &alice.key).await;
    assert_eq!(stored["source"], "permit_scrape");
    assert_eq!(stored["city"], "Austin", "the city keeps its writing");
}

async fn q_finds_phones_written_any_way_and_e_mails(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let [a, b] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "12 Lamar Blvd", "city": "Austin", "state": "TX",
            "zip_code": "78704", "first_name": "Ann", "last_name": "Lee", "primary_phone": "(512) 867-5309",
            "email_1": "Ann.Lee@Example.com", "project_number": "BP-2025-0042"}),
            json!({"address": "9 Oak St", "city": "Austin", "state": "TX",
            "zip_code": "78704", "primary_phone": "214-555-0188"}),
        ],
    )
    .await;
    let queries = [
        "?q=512-867-5309",
        "?q=(512)%20867-5309",
        "?q=%2B1%20512.867.5309",
        "?q=5128675309",
        "?q=867-5309",
        "?q=ann.lee@example.com",
        "?q=ANN.LEE@EXAMPLE",
        "?q=lamar",
        "?q=Ann%20Lee",
        "?q=bp-2025-00",
        "?q=%20Lamar%20Blvd%20",
    ];
    assert_each_finds(&app, &alice.key, &queries, &[a]).await;
    for nothing in [
        "?q=867-5310",
        "?q=nobody@example.com",
        "?q=Lamar%20Oak",
        "?q=zzzz",
    ] {
        assert_eq!(
            listed(&app, &alice.key, nothing).await,
            Vec::<i64>::new(),
            "{nothing}"
        );
    }
    // Short text is searched too.
    assert_eq!(listed(&app, &alice.key, "?q=Oa").await, vec![b]);
    // The middle of a word: PostgreSQL's trigram index finds any substring, SQLite's word index
    // the starts of words only (docs/search.md).
    let middle = listed(&app, &alice.key, "?q=amar%20blvd").await;
    match app.db.backend {
        Backend::Sqlite => assert_eq!(middle, Vec::<i64>::new()),
        Backend::Postgres => assert_eq!(middle, vec![a]),
    }
    // A merge that adds a phone and an e-mail makes the lead findable by them at once.
    submit(
        &app,
        &alice.key,
        json!({"address": "9 Oak St", "city": "Austin", "state": "TX",
        "zip_code": "78704", "primary_phone": "(737) 555-0123", "email_1": "owner@oak.example"}),
    )
    .await;
    assert_eq!(
        listed(&app, &alice.key, "?q=737%20555%200123").await,
        vec![b]
    );
    assert_eq!(listed(&app, &alice.key, "?q=owner@oak").await, vec![b]);
    assert_eq!(listed(&app, &alice.key, "?q=2145550188").await, vec![b]);
    // With another filter.
    assert_eq!(
        listed(&app, &alice.key, "?q=austin&city=austin").await,
        Vec::<i64>::new()
    );
    assert_eq!(
        listed(&app, &alice.key, "?q=Lee&zip_code=78704").await,
        vec![a]
    );
    // A ZIP's first digits, newest first.
    assert_eq!(listed(&app, &alice.key, "?zip_code=787").await, vec![b, a]);
    assert_eq!(
        listed(&app, &alice.key, "?zip_code=786").await,
        Vec::<i64>::new()
    );
}

/// A number stored with an extension (`+15125550100;ext=12`) is found by every documented form
/// of its number, in any of the five phone fields, and by the extension's digits on their own
/// (SQLite's word index took the extension in as part of the number, docs/search.md).
async fn q_finds_a_phone_with_an_extension(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let [a, b, _other] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "12 Lamar Blvd", "city": "Austin", "state": "TX",
            "zip_code": "78704", "primary_phone": "(512) 555-0100 ext. 12"}),
            json!({"address": "9 Oak St", "city": "Austin", "state": "TX",
            "zip_code": "78704", "primary_phone": "214-555-0188", "phone_2": "737-555-0123 x 4567"}),
            json!({"address": "5 Elm St", "city": "Austin", "state": "TX",
            "zip_code": "78704", "primary_phone": "214-555-0101"}),
        ],
    )
    .await;
    let (_, stored) = app.get(&format!("/api/v1/leads/{a}"), &alice.key).await;
    assert_eq!(stored["primary_phone"], "+15125550100;ext=12");
    let forms = [
        "?q=%2B15125550100",
        "?q=15125550100",
        "?q=5125550100",
        "?q=(512)%20555-0100",
        "?q=512-555-0100",
        "?q=555-0100",
        "?q=5550100",
        "?q=512555",
    ];
    assert_each_finds(&app, &alice.key, &forms, &[a]).await;
    let second = [
        "?q=7375550123",
        "?q=555-0123",
        "?q=%2B1%20737%20555%200123",
        "?q=4567",
    ];
    assert_each_finds(&app, &alice.key, &second, &[b]).await;
}

async fn sort(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let [a, b, c, d] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "1 A St", "city": "dallas", "state": "TX", "permit_date": "2025-03-01"}),
            json!({"address": "2 B St", "city": "Austin"}),
            json!({"address": "3 C St", "city": "Waco", "permit_date": "2024-12-31"}),
            json!({"address": "4 D St", "permit_date": "2025-01-15"}),
        ],
    )
    .await;
    // Touch a: a merge that changes something moves its updated_at.
    submit(
        &app,
        &alice.key,
        json!({"address": "1 A St", "city": "Dallas", "state": "TX", "first_name": "Ann"}),
    )
    .await;
    for (query, want) in [
        ("", vec![d, c, b, a]),
        ("?sort=-created_at", vec![d, c, b, a]),
        ("?sort=created_at", vec![a, b, c, d]),
        ("?sort=-updated_at", vec![a, d, c, b]),
        ("?sort=updated_at", vec![b, c, d, a]),
        ("?sort=city", vec![d, b, a, c]),
        ("?sort=-city", vec![c, a, b, d]),
        ("?sort=permit_date", vec![b, c, d, a]),
        ("?sort=-permit_date", vec![a, d, c, b]),
        ("?sort=city&limit=2&offset=1", vec![b, a]),
    ] {
        let (status, page) = app.get(&format!("/api/v1/leads{query}"), &alice.key).await;
        assert_eq!(status, StatusCode::OK, "{query}: {page}");
        assert_eq!(ids(&page), want, "{query}");
        assert_eq!(page["total"], 4, "{query}");
    }
    assert_query_refused(
        &app,
        "/api/v1/leads",
        &alice.key,
        &["?sort=name", "?sort=--city", "?sort=city,-created_at"],
    )
    .await;
    let (_, body) = app.get("/api/v1/leads?sort=name", &alice.key).await;
    assert_eq!(
        problem_type(&body, &json!(["query", "sort"])).as_deref(),
        Some("enum"),
        "{body}"
    );
}

async fn business_q(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (status, result) = app
        .post("/api/v1/lead-sources/import", &alice.key, json!({"businesses": [
            {"name": "Acme Plumbing LLC", "phone": "(512) 867-5309", "website": "https://acme-plumbing.example", "city": "Austin", "state": "TX"},
            {"name": "Best Roofing", "phone": "214-555-0188", "website": "https://bestroof.example", "city": "Dallas", "state": "TX"},
        ]}))
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    let [acme, best] = [0, 1].map(|i| result["imported_ids"][i].as_i64().unwrap());
    for (query, want) in [
        ("?q=acme", vec![acme]),
        ("?q=ACME%20plumbing", vec![acme]),
        ("?q=512.867.5309", vec![acme]),
        ("?q=8675309", vec![acme]),
        ("?q=bestroof.example", vec![best]),
        ("?q=dallas", vec![best]),
        ("?q=example", vec![best, acme]),
        ("?q=nothing", vec![]),
        ("?q=acme&state=tx", vec![acme]),
    ] {
        let (status, page) = app.get(&format!("{BUSINESSES}{query}"), &alice.key).await;
        assert_eq!(status, StatusCode::OK, "{query}: {page}");
        assert_eq!(ids(&page), want, "{query}");
        assert_eq!(page["total"], want.len(), "{query}");
    }
}

async fn business_patch(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let (_, result) = app
        .post("/api/v1/lead-sources/import", &alice.key, json!({"businesses": [
            {"name": "Acme Plumbing", "phone": "512-867-5309", "city": "Austin", "state": "TX", "rating": 4.0}]}))
        .await;
    let id = result["imported_ids"][0].as_i64().unwrap();
    let path = format!("{BUSINESSES}/{id}");
    let (status, body) = app
        .patch(&path, &alice.key, json!({"name": "Renamed", "phone": "(214) 555-0188", "website": "https://renamed.example",
            "state": "ok", "city": " Tulsa ", "rating": null, "review_count": 7, "industry": "Roofing", "status": "active"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, stored) = app.get(&path, &alice.key).await;
    for (field, want) in [
        ("name", json!("Renamed")),
        ("phone", json!("+12145550188")),
        ("website", json!("https://renamed.example")),
        ("state", json!("OK")),
        ("city", json!("Tulsa")),
        ("rating", Value::Null),
        ("review_count", json!(7)),
        ("industry", json!("Roofing")),
        ("status", json!("active")),
    ] {
        assert_eq!(stored[field], want, "{field}: {stored}");
    }
    let (_, found) = app
        .get(&format!("{BUSINESSES}?q=renamed"), &alice.key)
        .await;
    assert_eq!(ids(&found), vec![id]);
    // An import of the new name is now a duplicate of it (the name key was rebuilt).
    let (_, again) = app
        .post(
            "/api/v1/lead-sources/import",
            &alice.key,
            json!({"businesses": [
            {"name": "Renamed", "city": "Tulsa", "state": "OK"}]}),
        )
        .await;
    assert_eq!(again["skipped_count"], 1, "{again}");

    // Unknown members are named, every one, with the other problems; nothing changes.
    let (status, body) = app
        .patch(
            &path,
            &alice.key,
            json!({"nmae": "Typo", "colour": "red", "rating": 9}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let found = locs(&body);
    for loc in [
        json!(["body", "nmae"]),
        json!(["body", "colour"]),
        json!(["body", "rating"]),
    ] {
        assert!(found.contains(&loc), "{loc}: {body}");
    }
    assert_eq!(
        problem_type(&body, &json!(["body", "nmae"])).as_deref(),
        Some("extra_forbidden")
    );
    for bad in [
        json!({"name": null}),
        json!({"name": "  "}),
        json!({"state": "XX"}),
        json!({"review_count": -1}),
    ] {
        let (status, body) = app.patch(&path, &alice.key, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    let (_, after) = app.get(&path, &alice.key).await;
    assert_eq!(after, stored, "refused changes change nothing");
}

/// `sort` and both `q`s are in /openapi.json, each with its description.
async fn documented(app: TestApp) {
    let spec: Value = serde_json::from_str(&app.get_text("/openapi.json").await).unwrap();
    let parameter = |path: &str, name: &str| {
        spec["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{path} has no {name}"))
    };
    for (path, name, words) in [
        ("/api/v1/leads", "sort", "-created_at"),
        ("/api/v1/leads", "q", "phone"),
        ("/api/v1/leads", "county", "case"),
        (BUSINESSES, "q", "phone"),
    ] {
        let p = parameter(path, name);
        assert_eq!(p["in"], "query");
        let description = p["description"].as_str().unwrap_or_default();
        assert!(description.contains(words), "{path} {name}: {p}");
    }
    let patch = &spec["paths"]["/api/v1/lead-sources/businesses/{id}"]["patch"];
    assert!(
        patch["description"]
            .as_str()
            .unwrap_or_default()
            .contains("name included")
            || patch["summary"]
                .as_str()
                .unwrap_or_default()
                .contains("name included"),
        "{patch}"
    );
}

/// `total` is exact however it is counted (the dashboard's rollup for the filters made of its
/// columns, the leads for the others): archived leads and other teams' leads left out, and
/// `team_id=0` (the rollup's scope of the unassigned leads) finding nothing.
async fn total_is_exact_however_counted(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let t = team(&app, "T", &alice).await;
    let other = team(&app, "O", &bob).await;
    let [own, open, archived] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": "1 Lamar Blvd", "source": "referral", "team_id": t}),
            json!({"address": "2 Lamar Blvd", "source": "referral"}),
            json!({"address": "3 Lamar Blvd", "source": "referral", "team_id": t}),
        ],
    )
    .await;
    submit(
        &app,
        &bob.key,
        json!({"address": "4 Lamar Blvd", "source": "referral", "team_id": other}),
    )
    .await;
    archive(&app, archived).await;
    for (query, want) in [
        (String::new(), vec![open, own]),
        ("?source=referral".into(), vec![open, own]),
        (format!("?team_id={t}"), vec![own]),
        ("?team_id=0".into(), vec![]),
        ("?q=lamar".into(), vec![open, own]),
        ("?q=lamar&source=referral".into(), vec![open, own]),
        ("?archived=true".into(), vec![archived]),
        // A negative team id names no team (and `t-1` is not FTS5's column exclusion).
        (format!("?team_id=-{t}&source=referral"), vec![]),
        ("?team_id=-9223372036854775808&city=K".into(), vec![]),
    ] {
        assert_eq!(listed(&app, &alice.key, &query).await, want, "{query}");
    }
    let (_, csv) = fetch_csv(
        &app,
        "/api/v1/leads/export?team_id=-9223372036854775808&city=K",
        &alice.key,
    )
    .await;
    assert_eq!(csv.lines().count(), 1, "only the header: {csv}");
}

/// What a lead says never stands for its team, a filter's value or whether it is live: a word
/// `T<id>` in another team's address does not show the lead to that team, a city written
/// `Austin,f0OK` is not a state, an archived lead whose address says `vlive` stays archived.
async fn lead_text_is_never_a_team_or_a_filter(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let bob = app.user("bob@example.com").await;
    let a = team(&app, "A", &alice).await;
    let b = team(&app, "B", &bob).await;
    let [hidden, stray, archived] = submit_leads(
        &app,
        &alice.key,
        [
            json!({"address": format!("1 Main St Unit T{b}"), "city": "Austin", "state": "TX",
            "team_id": a}),
            json!({"address": "2 Main St", "city": "Austin,f0OK,f4Dallas", "state": "TX"}),
            json!({"address": "3 Main St vlive live", "first_name": "vlive", "state": "TX",
            "team_id": a}),
        ],
    )
    .await;
    archive(&app, archived).await;
    for query in ["?state=TX", "?q=main"] {
        assert_eq!(listed(&app, &bob.key, query).await, [stray], "bob: {query}");
    }
    assert_eq!(
        listed(&app, &bob.key, &format!("?q=t{b}")).await,
        Vec::<i64>::new()
    );
    for query in ["?state=TX", "?q=main", "?q=vlive"] {
        let found = listed(&app, &alice.key, query).await;
        assert!(!found.contains(&archived), "alice: {query}: {found:?}");
    }
    assert_eq!(listed(&app, &alice.key, "?q=main").await, [stray, hidden]);
    assert_eq!(
        listed(&app, &alice.key, "?archived=true&q=vlive").await,
        [archived]
    );
    for query in ["?state=OK", "?city=dallas", "?city=f4dallas", "?q=f0ok"] {
        assert_eq!(
            listed(&app, &alice.key, query).await,
            Vec::<i64>::new(),
            "{query}"
        );
    }
}

backend_tests!(
    lead_text_is_never_a_team_or_a_filter,
    total_is_exact_however_counted,
    documented,
    text_filters_ignore_case_and_space,
    q_finds_phones_written_any_way_and_e_mails,
    q_finds_a_phone_with_an_extension,
    sort,
    business_q,
    business_patch
);
