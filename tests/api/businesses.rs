//! The business directory end to end (contract section 5).
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::teams;
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{assert_query_refused, each, join, locs, problem_type, team};

const IMPORT: &str = "/api/v1/lead-sources/import";
const LIST: &str = "/api/v1/lead-sources/businesses";
pub(crate) const STATS: &str = "/api/v1/lead-sources/statistics";

pub(crate) async fn import(app: &TestApp, key: &str, body: Value) -> Value {
    let (status, result) = app.post(IMPORT, key, body).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    result
}

async fn get(app: &TestApp, key: &str, id: i64) -> Value {
    let (status, body) = app.get(&format!("{LIST}/{id}"), key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

pub(crate) async fn list(app: &TestApp, key: &str, query: &str) -> Value {
    let (status, body) = app.get(&format!("{LIST}{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

/// The ids of a page's items, or of an import's `imported_ids`.
fn ids(v: &Value) -> Vec<i64> {
    match v.get("items") {
        Some(items) => each(items, "id").map(|id| id.as_i64().unwrap()).collect(),
        None => v["imported_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_i64().unwrap())
            .collect(),
    }
}

fn error_indexes(result: &Value) -> Vec<i64> {
    each(&result["errors"], "index")
        .map(|i| i.as_i64().unwrap())
        .collect()
}

/// PATCH {LIST}/{id} to `active`, the status change most cases make.
async fn activate(app: &TestApp, key: &str, id: i64) -> (StatusCode, Value) {
    let body = json!({"status": "active"});
    app.patch(&format!("{LIST}/{id}"), key, body).await
}

async fn deactivate(app: &TestApp, team_id: i64) {
    app.write_db(move |conn| {
        diesel::update(teams::table.find(team_id))
            .set(teams::is_active.eq(false))
            .execute(conn)
    })
    .await;
}

async fn defaults_and_stored_shape(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let result = import(
        &app,
        &alice.key,
        json!({"businesses": [
            {"name": "  Joe's   Plumbing LLC ", "phone": "(512) 555-0100", "website": "https://joesplumbing.com",
             "address": "1 Main St", "city": "Austin", "state": "tx", "zip_code": "78701",
             "rating": 4.5, "review_count": 132, "unknown_field": "ignored"},
            {"name": "Bare Minimum"}
        ]}),
    )
    .await;
    assert_eq!(result["imported_count"], 2, "{result}");
    assert_eq!(result["skipped_count"], 0);
    assert_eq!(result["error_count"], 0);
    assert_eq!(result["errors"], json!([]));
    let [first, second] = ids(&result)[..] else {
        panic!("{result}")
    };
    let stored = get(&app, &alice.key, first).await;
    for (field, want) in [
        ("id", json!(first)),
        ("name", json!("Joe's Plumbing LLC")),
        ("phone", json!("+15125550100")),
        ("website", json!("https://joesplumbing.com")),
        ("address", json!("1 Main St")),
        ("city", json!("Austin")),
        ("state", json!("TX")),
        ("zip_code", json!("78701")),
        ("industry", json!("plumbing")),
        ("rating", json!(4.5)),
        ("review_count", json!(132)),
        ("relationship_type", json!("prospect")),
        ("status", json!("prospect")),
        ("team_id", Value::Null),
    ] {
        assert_eq!(stored[field], want, "{field}: {stored}");
    }
    let created = stored["created_at"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 20, "{created}");
    assert!(stored["updated_at"].as_str().unwrap().ends_with('Z'));
    assert!(stored.get("unknown_field").is_none());
    let bare = get(&app, &alice.key, second).await;
    assert_eq!(bare["industry"], Value::Null);
    assert_eq!(bare["phone"], Value::Null);
    // An invalid phone: tests/api/business_phones.rs.
    // Every allowed relationship type; each one stored as given.
    for rt in ["lead_buyer", "lead_source", "marketing_partner", "prospect"] {
        let r = import(
            &app,
            &alice.key,
            json!({"relationship_type": rt, "businesses": [{"name": format!("RT {rt}")}]}),
        )
        .await;
        let b = get(&app, &alice.key, ids(&r)[0]).await;
        assert_eq!(b["relationship_type"], rt);
        assert_eq!(b["status"], "prospect");
    }
}

async fn element_errors_are_listed_by_index(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let result = import(
        &app,
        &alice.key,
        json!({"businesses": [
            {"name": "Good One", "rating": 0, "review_count": 0},
            {"phone": "512-555-0100"},
            {"name": "   "},
            {"name": "Bad State", "state": "XX"},
            {"name": "Too Good", "rating": 5.01},
            {"name": "Too Bad", "rating": -0.5},
            {"name": "Negative", "review_count": -1},
            {"name": "Typed", "rating": "excellent"},
            "not an object",
            {"name": "x".repeat(256)},
            {"name": "Good Two", "rating": 5, "state": "pr"}
        ]}),
    )
    .await;
    assert_eq!(result["imported_count"], 2, "{result}");
    assert_eq!(result["error_count"], 9);
    assert_eq!(result["skipped_count"], 0);
    assert_eq!(error_indexes(&result), vec![1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let detail = |i: usize| result["errors"][i]["detail"].as_str().unwrap().to_owned();
    assert!(detail(0).contains("name"), "{result}");
    assert!(detail(2).contains("state"), "{result}");
    assert!(detail(3).contains("rating"), "{result}");
    assert!(detail(5).contains("review_count"), "{result}");
    assert!(detail(6).contains("rating"), "{result}");
    assert!(detail(8).contains("name"), "{result}");
    let page = list(&app, &alice.key, "").await;
    assert_eq!(page["total"], 2);
    // All bad: nothing stored, still a 200.
    let none = import(&app, &alice.key, json!({"businesses": [{"state": "TX"}]})).await;
    assert_eq!(none["imported_count"], 0);
    assert_eq!(none["error_count"], 1);
    assert_eq!(none["imported_ids"], json!([]));
}

async fn request_level_problems_are_422(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let one = json!([{"name": "A"}]);
    let many: Vec<Value> = (0..1001)
        .map(|i| json!({"name": format!("B{i}")}))
        .collect();
    for (body, loc, kind) in [
        (json!({}), json!(["body", "businesses"]), "missing"),
        (
            json!({"businesses": []}),
            json!(["body", "businesses"]),
            "too_short",
        ),
        (
            json!({"businesses": many}),
            json!(["body", "businesses"]),
            "too_long",
        ),
        (
            json!({"businesses": {"name": "A"}}),
            json!(["body", "businesses"]),
            "list_type",
        ),
        (
            json!({"businesses": one, "relationship_type": "friend"}),
            json!(["body", "relationship_type"]),
            "enum",
        ),
        (
            json!({"businesses": one, "skip_duplicates": "maybe"}),
            json!(["body", "skip_duplicates"]),
            "bool_type",
        ),
        (
            json!({"businesses": one, "auto_categorize": 3}),
            json!(["body", "auto_categorize"]),
            "bool_type",
        ),
        (
            json!({"businesses": one, "team_id": "x"}),
            json!(["body", "team_id"]),
            "int_parsing",
        ),
    ] {
        let (status, body) = app.post(IMPORT, &alice.key, body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{loc}: {body}");
        assert_eq!(problem_type(&body, &loc).as_deref(), Some(kind), "{body}");
    }
    let (status, body) = app
        .post(
            IMPORT,
            &alice.key,
            json!({"relationship_type": "nope", "skip_duplicates": "x"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&body).len(), 3, "every problem listed: {body}");
    assert_eq!(
        list(&app, &alice.key, "").await["total"],
        0,
        "nothing stored"
    );
    let (status, _) = app.post_public(IMPORT, json!({"businesses": one})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn duplicates_by_name_in_city_and_state(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let first = import(
        &app,
        &alice.key,
        json!({"businesses": [{"name": "Acme Plumbing & Heating, LLC", "city": "Austin", "state": "TX"}]}),
    )
    .await;
    let acme = ids(&first)[0];
    let result = import(
        &app,
        &alice.key,
        json!({"businesses": [
            {"name": "ACME PLUMBING AND HEATING", "city": "austin", "state": "tx"},
            {"name": "Acme Plumbing & Heating Inc.", "city": "Austin", "state": "TX"},
            {"name": "acme plumbing & heating co", "city": "Austin", "state": "TX"},
            {"name": "Acme Plumbing & Heating Corp", "city": "Dallas", "state": "TX"},
            {"name": "Acme Plumbing & Heating", "city": "Austin", "state": "OK"},
            {"name": "Acme Plumbing & Heating"},
            {"name": "Acme Plumbing", "city": "Austin", "state": "TX"},
            {"name": "Acme Plumbing & Heating Ltd", "city": "Dallas", "state": "TX"}
        ]}),
    )
    .await;
    assert_eq!(result["imported_count"], 4, "{result}");
    assert_eq!(result["skipped_count"], 4);
    let skipped: Vec<(i64, i64)> = result["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["index"].as_i64().unwrap(),
                s["duplicate_of"].as_i64().unwrap(),
            )
        })
        .collect();
    let dallas = ids(&result)[0];
    // The last one duplicates a business of this same import.
    assert_eq!(skipped, vec![(0, acme), (1, acme), (2, acme), (7, dallas)]);
    assert_eq!(list(&app, &alice.key, "").await["total"], 5);
}

async fn duplicates_by_phone_and_domain(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    import(
        &app,
        &alice.key,
        json!({"businesses": [{"name": "Alpha", "phone": "512-555-0100", "website": "https://www.alpha.com/about"}]}),
    )
    .await;
    let result = import(
        &app,
        &alice.key,
        json!({"businesses": [
            {"name": "Different Name", "phone": "(512) 555-0100"},
            {"name": "Other Name", "phone": "+1 512 555 0100"},
            {"name": "Third Name", "website": "alpha.com"},
            {"name": "Fourth Name", "website": "HTTP://ALPHA.COM"},
            {"name": "Sub Domain", "website": "https://shop.alpha.com"},
            {"name": "Other Phone", "phone": "512-555-0199"},
            {"name": "Same New Phone", "phone": "512.555.0199"}
        ]}),
    )
    .await;
    assert_eq!(result["skipped_count"], 5, "{result}");
    assert_eq!(result["imported_count"], 2);
    let skipped: Vec<i64> = each(&result["skipped"], "index")
        .map(|i| i.as_i64().unwrap())
        .collect();
    assert_eq!(skipped, vec![0, 1, 2, 3, 6]);
}

async fn skip_duplicates_false_imports_them(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let body = json!({"businesses": [
        {"name": "Beta LLC", "city": "Austin", "state": "TX", "phone": "512-555-0101"},
        {"name": "Beta Inc", "city": "Austin", "state": "TX"}
    ]});
    let first = import(&app, &alice.key, body.clone()).await;
    assert_eq!(first["imported_count"], 1);
    assert_eq!(first["skipped_count"], 1);
    let mut again = body;
    again["skip_duplicates"] = json!(false);
    let second = import(&app, &alice.key, again).await;
    assert_eq!(second["imported_count"], 2, "{second}");
    assert_eq!(second["skipped_count"], 0);
    assert_eq!(list(&app, &alice.key, "").await["total"], 3);
}

async fn duplicates_are_scoped(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t1 = team(&app, "One", &alice).await;
    let t2 = team(&app, "Two", &alice).await;
    let b = json!([{"name": "Gamma", "phone": "512-555-0102"}]);
    // Each scope (unassigned, each team) imports it once, then skips it.
    for counted in ["imported_count", "skipped_count"] {
        for team_id in [Value::Null, json!(t1), json!(t2)] {
            let r = import(
                &app,
                &alice.key,
                json!({"businesses": b, "team_id": team_id}),
            )
            .await;
            assert_eq!(r[counted], 1, "{counted}, {team_id}: {r}");
        }
    }
    let stored = list(&app, &alice.key, &format!("?team_id={t1}")).await;
    assert_eq!(stored["total"], 1);
    assert_eq!(stored["items"][0]["team_id"], t1);
}

async fn auto_categorize(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let businesses = json!([
        {"name": "A", "industry": "Plumbing Services"},
        {"name": "B", "industry": "Heating & Air"},
        {"name": "C", "industry": "Real Estate Agency"},
        {"name": "D", "industry": "Bakery"},
        {"name": "Top Notch Roofing LLC"},
        {"name": "Bright Spark Electricians"},
        {"name": "Acme Services", "website": "https://www.austinplumbingpros.com"},
        {"name": "Green Lawn Care"},
        {"name": "Bug Busters Pest Control"},
        {"name": "Blue Water Pools"},
        {"name": "Sun Power Solar"},
        {"name": "Fresh Coat Painting"},
        {"name": "Smith Construction"},
        {"name": "Keller Realty"},
        {"name": "Cool Breeze HVAC"},
        {"name": "Acme Holdings"}
    ]);
    let on = import(&app, &alice.key, json!({"businesses": businesses})).await;
    let want = [
        json!("plumbing"),
        json!("hvac"),
        json!("real_estate"),
        json!("Bakery"),
        json!("roofing"),
        json!("electrical"),
        json!("plumbing"),
        json!("landscaping"),
        json!("pest_control"),
        json!("pools"),
        json!("solar"),
        json!("painting"),
        json!("general_contractor"),
        json!("real_estate"),
        json!("hvac"),
        Value::Null,
    ];
    for (id, want) in ids(&on).into_iter().zip(&want) {
        let b = get(&app, &alice.key, id).await;
        assert_eq!(&b["industry"], want, "{b}");
    }
    let off = import(
        &app,
        &alice.key,
        json!({"auto_categorize": false, "skip_duplicates": false, "businesses": [
            {"name": "A2", "industry": "Plumbing Services"},
            {"name": "Top Notch Roofing"}
        ]}),
    )
    .await;
    let off = ids(&off);
    assert_eq!(
        get(&app, &alice.key, off[0]).await["industry"],
        "Plumbing Services"
    );
    assert_eq!(get(&app, &alice.key, off[1]).await["industry"], Value::Null);
}

async fn filters_and_paging(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t = team(&app, "T", &alice).await;
    // One import each, oldest first.
    let mut made = Vec::new();
    for body in [
        json!({"relationship_type": "lead_buyer", "businesses": [{"name": "A Plumbing", "state": "TX"}]}),
        json!({"relationship_type": "lead_source", "businesses": [{"name": "B HVAC", "state": "OK"}]}),
        json!({"team_id": t, "businesses": [{"name": "C Plumbing", "state": "tx"}]}),
    ] {
        made.extend(ids(&import(&app, &alice.key, body).await));
    }
    let [a, b, c] = made[..] else {
        panic!("three imported: {made:?}")
    };
    let (status, _) = activate(&app, &alice.key, b).await;
    assert_eq!(status, StatusCode::OK);
    let all = list(&app, &alice.key, "").await;
    assert_eq!(ids(&all), vec![c, b, a], "newest first");
    assert_eq!(all["total"], 3);
    assert_eq!(all["limit"], 50);
    assert_eq!(all["offset"], 0);
    for (query, want) in [
        ("?relationship_type=lead_buyer".to_owned(), vec![a]),
        ("?relationship_type=prospect".into(), vec![c]),
        ("?relationship_type=MARKETING_PARTNER".into(), vec![]),
        ("?industry=plumbing".into(), vec![c, a]),
        ("?industry=HVAC".into(), vec![b]),
        ("?industry=roofing".into(), vec![]),
        ("?status=active".into(), vec![b]),
        ("?status=prospect".into(), vec![c, a]),
        ("?state=tx".into(), vec![c, a]),
        ("?state=OK".into(), vec![b]),
        (format!("?team_id={t}"), vec![c]),
        (
            "?state=TX&industry=plumbing&relationship_type=lead_buyer".into(),
            vec![a],
        ),
        ("?limit=2".into(), vec![c, b]),
        ("?limit=2&offset=2".into(), vec![a]),
        ("?offset=5".into(), vec![]),
    ] {
        let page = list(&app, &alice.key, &query).await;
        assert_eq!(ids(&page), want, "{query}: {page}");
    }
    let page = list(&app, &alice.key, "?limit=1&offset=1").await;
    assert_eq!(page["total"], 3);
    assert_eq!(page["limit"], 1);
    assert_eq!(page["offset"], 1);
    assert_query_refused(
        &app,
        LIST,
        &alice.key,
        &[
            "?limit=0",
            "?limit=501",
            "?offset=-1",
            "?status=gone",
            "?relationship_type=friend",
            "?team_id=x",
        ],
    )
    .await;
    // Filter and paging problems together, in parameter order.
    let (_, body) = app
        .get(&format!("{LIST}?offset=-1&status=gone"), &alice.key)
        .await;
    assert_eq!(
        locs(&body),
        [json!(["query", "status"]), json!(["query", "offset"])],
        "{body}"
    );
    // Trailing slash is the same route.
    assert_eq!(list(&app, &alice.key, "/").await["total"], 3);
}

async fn patch_changes_status_type_and_industry(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let r = import(
        &app,
        &alice.key,
        json!({"businesses": [{"name": "Delta Plumbing", "city": "Austin"}]}),
    )
    .await;
    let id = ids(&r)[0];
    let before = get(&app, &alice.key, id).await;
    let path = format!("{LIST}/{id}");
    let (status, changed) = app
        .patch(&path, &alice.key, json!({"status": "Active", "relationship_type": "lead_buyer", "industry": "Commercial Plumbing", "name": "Delta Plumbing & Heating"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["status"], "active");
    assert_eq!(changed["relationship_type"], "lead_buyer");
    assert_eq!(changed["industry"], "Commercial Plumbing");
    assert_eq!(
        changed["name"], "Delta Plumbing & Heating",
        "the name is a field too"
    );
    assert_eq!(changed["created_at"], before["created_at"]);
    assert_eq!(get(&app, &alice.key, id).await, changed);
    // Absent fields stay; null clears the industry.
    let (status, cleared) = app
        .patch(&path, &alice.key, json!({"industry": null}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cleared["industry"], Value::Null);
    assert_eq!(cleared["status"], "active");
    let (status, same) = app.patch(&path, &alice.key, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same, cleared);
    let (status, body) = app
        .patch(
            &path,
            &alice.key,
            json!({"status": "archived", "relationship_type": "friend"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        locs(&body),
        vec![
            json!(["body", "status"]),
            json!(["body", "relationship_type"])
        ]
    );
    let (status, body) = activate(&app, &alice.key, 999999).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body, json!({"detail": "Business not found"}));
    let (status, _) = app.get(&format!("{LIST}/abc"), &alice.key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn statistics(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let t = team(&app, "T", &alice).await;
    let empty = app.get(STATS, &alice.key).await;
    assert_eq!(empty.0, StatusCode::OK);
    assert_eq!(
        empty.1,
        json!({"total": 0, "by_relationship_type": {}, "by_industry": {}, "by_state": {}, "by_status": {}})
    );
    import(
        &app,
        &alice.key,
        json!({"relationship_type": "lead_buyer", "businesses": [
            {"name": "A Plumbing", "state": "TX"},
            {"name": "B Plumbing", "state": "TX"},
            {"name": "C HVAC", "state": "OK"},
            {"name": "D Nothing"}
        ]}),
    )
    .await;
    let r = import(
        &app,
        &alice.key,
        json!({"team_id": t, "businesses": [{"name": "E Roofing", "state": "TX"}]}),
    )
    .await;
    activate(&app, &alice.key, ids(&r)[0]).await;
    let (status, stats) = app.get(STATS, &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        stats,
        json!({
            "total": 5,
            "by_relationship_type": {"lead_buyer": 4, "prospect": 1},
            "by_industry": {"plumbing": 2, "hvac": 1, "roofing": 1, "unknown": 1},
            "by_state": {"TX": 3, "OK": 1, "unknown": 1},
            "by_status": {"prospect": 4, "active": 1}
        })
    );
    // Bob is in no team: the team's business is not counted for him.
    let (_, bobs) = app.get(STATS, &bob.key).await;
    assert_eq!(bobs["total"], 4);
    assert_eq!(bobs["by_status"], json!({"prospect": 4}));
    let (_, team_only) = app.get(&format!("{STATS}?team_id={t}"), &alice.key).await;
    assert_eq!(team_only["total"], 1);
}

async fn visibility_and_permissions(app: TestApp) {
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let admin = app.admin("root@example.com").await;
    let t = team(&app, "T", &alice).await;
    let r = import(
        &app,
        &alice.key,
        json!({"team_id": t, "businesses": [{"name": "Team Biz"}]}),
    )
    .await;
    let team_biz = ids(&r)[0];
    let r = import(
        &app,
        &bob.key,
        json!({"businesses": [{"name": "Open Biz"}]}),
    )
    .await;
    let open_biz = ids(&r)[0];
    // Unassigned: everyone; a team's: its members and admins; else 404 like an unknown id.
    assert_eq!(get(&app, &alice.key, open_biz).await["name"], "Open Biz");
    assert_eq!(get(&app, &admin.key, team_biz).await["name"], "Team Biz");
    for path in [format!("{LIST}/{team_biz}"), format!("{LIST}/999999")] {
        let (status, body) = app.get(&path, &bob.key).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body, json!({"detail": "Business not found"}));
    }
    let (status, _) = activate(&app, &bob.key, team_biz).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(ids(&list(&app, &bob.key, "").await), vec![open_biz]);
    assert_eq!(
        list(&app, &bob.key, &format!("?team_id={t}")).await["total"],
        0
    );
    assert_eq!(
        ids(&list(&app, &alice.key, "").await),
        vec![open_biz, team_biz]
    );
    assert_eq!(list(&app, &admin.key, "").await["total"], 2);
    // Importing into a team: members and admins only; an unknown team answers like a foreign one.
    for team_id in [t, 999_999] {
        let (status, body) = app
            .post(
                IMPORT,
                &bob.key,
                json!({"team_id": team_id, "businesses": [{"name": "X"}]}),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body, json!({"detail": "Not a member of this team"}));
    }
    let r = import(
        &app,
        &admin.key,
        json!({"team_id": t, "businesses": [{"name": "By Admin"}]}),
    )
    .await;
    assert_eq!(r["imported_count"], 1);
    join(&app, t, &bob).await;
    assert_eq!(get(&app, &bob.key, team_biz).await["team_id"], t);
    // An inactive team takes no businesses; reads still work.
    deactivate(&app, t).await;
    for key in [&alice.key, &admin.key] {
        let (status, body) = app
            .post(
                IMPORT,
                key,
                json!({"team_id": t, "businesses": [{"name": "Late"}]}),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(body, json!({"detail": "Team is inactive"}));
    }
    assert_eq!(get(&app, &alice.key, team_biz).await["name"], "Team Biz");
    let (status, _) = app.get(LIST, "lhk_not_a_key").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.get(STATS, "lhk_not_a_key").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

backend_tests!(
    defaults_and_stored_shape,
    element_errors_are_listed_by_index,
    request_level_problems_are_422,
    duplicates_by_name_in_city_and_state,
    duplicates_by_phone_and_domain,
    skip_duplicates_false_imports_them,
    duplicates_are_scoped,
    auto_categorize,
    filters_and_paging,
    patch_changes_status_type_and_industry,
    statistics,
    visibility_and_permissions,
);
