//! The business directory page (`/businesses`) over HTTP: the API's filters in the URL, paging,
//! the count, the charts' numbers against `GET /api/v1/lead-sources/statistics`, the empty
//! state and the import link.
use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::businesses::{import, list, STATS};
use crate::dashboard_page::chart_numbers;
use crate::helpers::team;
use crate::pages::{assert_filters_refused, first_look, sign_in};

backend_tests!(
    the_directory_filters_pages_and_charts_the_statistics,
    a_new_user_sees_the_empty_directory,
);

/// Rows of the business table on a page.
fn rows(page: &str) -> usize {
    page.matches("<td data-label=\"Name\">").count()
}

/// The API's statistics as the page labels them (`lead_buyer` is "lead buyer").
fn as_labelled(counts: &Value) -> BTreeMap<String, i64> {
    counts
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.replace('_', " "), v.as_i64().unwrap()))
        .collect()
}

/// Each chart of the page has the numbers of the API's statistics for the same filter.
async fn assert_charts_match(app: &TestApp, key: &str, page: &str, query: &str) {
    let (status, stats) = app.get(&format!("{STATS}{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{stats}");
    for (chart, field) in [
        ("by-relationship", "by_relationship_type"),
        ("by-industry", "by_industry"),
        ("by-state", "by_state"),
        ("by-status", "by_status"),
    ] {
        assert_eq!(
            chart_numbers(page, chart),
            as_labelled(&stats[field]),
            "{chart} for {query:?}"
        );
    }
}

async fn the_directory_filters_pages_and_charts_the_statistics(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let t = team(&app, "Roofers", &alice).await;
    let states = ["TX", "OK", "CA"];
    let many: Vec<Value> = (1..=55)
        .map(|i| {
            json!({"name": format!("Shop {i}"), "city": "Austin", "state": states[i % 3],
                        "industry": if i % 2 == 0 { "plumbing" } else { "hvac" }})
        })
        .collect();
    import(&app, &alice.key, json!({"businesses": many})).await;
    import(
        &app,
        &alice.key,
        json!({"relationship_type": "lead_buyer", "team_id": t, "businesses": [
            {"name": "Apex Roofing <b>Co</b>", "city": "Dallas", "state": "TX",
             "website": "javascript:alert(1)"},
            {"name": "Nameless Goods"}]}),
    )
    .await;
    let mut b = sign_in(&app, "alice@example.com").await;

    let first = b.get("/businesses").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let body = &first.body;
    assert!(body.contains("57 businesses"), "{body}");
    assert_eq!(rows(body), 50);
    assert!(body.contains("href=\"/businesses?offset=50\""));
    assert!(body.contains("href=\"/businesses/import\""));
    assert!(body.contains("href=\"/businesses\" aria-current=\"page\""));
    assert_charts_match(&app, &alice.key, body, "").await;
    // Imported text is escaped, and a website is never a link.
    assert!(
        body.contains("Apex Roofing &lt;b&gt;Co&lt;/b&gt;"),
        "{body}"
    );
    assert!(!body.contains("href=\"javascript"));
    assert_eq!(rows(&b.get("/businesses?offset=50").await.body), 7);
    let past = b.get("/businesses?offset=9223372036854775807").await;
    assert_eq!(past.status, StatusCode::OK, "{}", past.body);
    assert_eq!(rows(&past.body), 0);
    assert!(past
        .body
        .contains("href=\"/businesses?offset=50\" rel=\"prev\""));

    // Filters as the API takes them, kept in the page's links and form.
    let query = "?state=tx&industry=PLUMBING&relationship_type=prospect";
    let filtered = b.get(&format!("/businesses{query}&team_id=")).await;
    assert_eq!(filtered.status, StatusCode::OK);
    let api = list(&app, &alice.key, &format!("{query}&limit=500")).await;
    let total = api["total"].as_i64().unwrap();
    assert!(total > 0);
    assert_eq!(rows(&filtered.body), total as usize);
    assert!(filtered
        .body
        .contains(&format!("{total} businesses match these filters")));
    assert!(filtered.body.contains("value=\"PLUMBING\""));
    assert!(filtered
        .body
        .contains("<option value=\"prospect\" selected>"));
    assert_charts_match(&app, &alice.key, &filtered.body, query).await;
    let team_only = b.get(&format!("/businesses?team_id={t}")).await;
    assert_eq!(rows(&team_only.body), 2);
    assert_charts_match(&app, &alice.key, &team_only.body, &format!("?team_id={t}")).await;

    let none = b.get("/businesses?status=inactive").await;
    assert_eq!(rows(&none.body), 0);
    assert!(none.body.contains("No business matches these filters"));
    let bad = "/businesses?status=closed&relationship_type=friend";
    assert_filters_refused(&mut b, bad, &["relationship type"]).await;
}

async fn a_new_user_sees_the_empty_directory(app: TestApp) {
    let page = first_look(&app, "/businesses", "No businesses yet").await;
    assert!(page.body.contains("href=\"/businesses/import\""));
    assert!(page.body.contains("href=\"/docs\""));
    assert!(!page.body.contains("<svg"));
    let signed_out = crate::pages::Browser::new(&app).get("/businesses").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
}
