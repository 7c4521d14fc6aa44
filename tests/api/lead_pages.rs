//! The lead pages (`/leads`, `/leads/{id}`) and the CSV export, over HTTP: filters in the URL,
//! paging, the submission history after a merge, "Enrich again", and the CSV read back.
use diesel::{ExpressionMethods, QueryDsl, RunQueryDsl};
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::leads;
use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::enrichment::with_geocoders;
use crate::helpers::{each, post_batch, team};
use crate::pages::{assert_filters_refused, first_look, sign_in, Browser};

backend_tests!(
    the_list_filters_counts_and_pages,
    the_list_orders_as_chosen,
    a_new_user_sees_the_empty_state,
    the_detail_shows_the_history_of_a_merge,
    enrich_again_follows_the_api_rule,
    the_export_streams_every_match_as_csv,
    the_export_and_the_standardised_address_are_documented,
);

pub(crate) async fn batch(app: &TestApp, user: &TestUser, leads: Vec<Value>) {
    let (status, answer) = post_batch(app, &user.key, leads).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["failed"], 0, "{answer}");
}

pub(crate) fn lead(i: usize, city: &str, source: &str) -> Value {
    json!({"address": format!("{i} Elm Street"), "city": city, "state": "TX",
           "zip_code": "78701", "first_name": "Owner", "last_name": format!("Number{i}"),
           "source": source, "property_type": "residential"})
}

/// Rows of the lead table on a page.
fn rows(page: &str) -> usize {
    page.matches("<td data-label=\"Address\">").count()
}

async fn the_list_filters_counts_and_pages(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let mut leads: Vec<Value> = (1..=55).map(|i| lead(i, "Austin", "permits")).collect();
    leads.push(lead(900, "Dallas", "referral"));
    leads.push(lead(901, "Dallas", "permits"));
    batch(&app, &alice, leads).await;
    let mut b = sign_in(&app, "alice@example.com").await;

    let first = b.get("/leads").await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.body.contains("57 leads"), "{}", first.body);
    assert_eq!(rows(&first.body), 50);
    assert!(first.body.contains("href=\"/leads?offset=50\""));
    assert!(first.body.contains("href=\"/leads/export\""));
    let second = b.get("/leads?offset=50").await;
    assert_eq!(rows(&second.body), 7);
    assert!(second.body.contains("href=\"/leads?offset=0\""));
    assert!(second.body.contains("showing 51–57"));
    // An offset past the end, however large (a URL is typed by people), is a page with no rows
    // and a link back to the last page.
    for offset in ["57", "9223372036854775807"] {
        let past = b.get(&format!("/leads?offset={offset}")).await;
        assert_eq!(past.status, StatusCode::OK, "{offset}: {}", past.body);
        assert_eq!(rows(&past.body), 0);
        assert!(past.body.contains("57 leads"), "{}", past.body);
        assert!(!past.body.contains("showing"), "{}", past.body);
        assert!(
            past.body.contains("href=\"/leads?offset=50\" rel=\"prev\""),
            "{}",
            past.body
        );
        assert!(!past.body.contains("rel=\"next\""));
    }

    // A search and two filters, kept in the page's links.
    let found = b
        .get("/leads?q=number90&city=Dallas&source=referral&state=")
        .await;
    assert_eq!(found.status, StatusCode::OK);
    assert_eq!(rows(&found.body), 1, "{}", found.body);
    assert!(found.body.contains("900 ELM ST"));
    assert!(found.body.contains("1 lead matches these filters"));
    assert!(found
        .body
        .contains("href=\"/leads/export?q=number90&amp;city=Dallas&amp;source=referral\""));
    assert!(found.body.contains("value=\"number90\""));
    // The lesser filters (all but search, status, owner and order) fold under "More filters",
    // whose summary counts those set: city and source here (a blank state is none).
    assert!(
        found
            .body
            .contains("<summary>More filters (2 set)</summary>"),
        "{}",
        found.body
    );
    assert!(first.body.contains("<summary>More filters</summary>"));

    let none = b.get("/leads?enrichment_status=complete").await;
    assert_eq!(rows(&none.body), 0);
    assert!(none.body.contains("No lead matches these filters"));

    let bad = "/leads?property_type=castle&created_after=soon";
    assert_filters_refused(&mut b, bad, &["property type", "created after"]).await;
}

/// Where each of `needles` first stands in `page`, in `needles`' order.
fn positions(page: &str, needles: &[&str]) -> Vec<usize> {
    needles
        .iter()
        .map(|n| page.find(n).unwrap_or_else(|| panic!("no {n} in:\n{page}")))
        .collect()
}

async fn the_list_orders_as_chosen(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team = team(&app, "Sales", &alice).await;
    let cities = ["Waco", "Austin", "Dallas"];
    let leads = (1..=3).map(|i| {
        let mut lead = lead(i, cities[i - 1], "permits");
        lead["team_id"] = json!(team);
        lead
    });
    batch(&app, &alice, leads.collect()).await;
    let (_, list) = app.get("/api/v1/leads?city=waco", &alice.key).await;
    let waco = list["items"][0]["id"].as_i64().unwrap();
    // The last change an hour after the others (the batch wrote all three in one second).
    let later = chrono::Utc::now().naive_utc() + chrono::Duration::hours(1);
    app.write_db(move |conn| {
        diesel::update(leads::table.find(waco))
            .set(leads::updated_at.eq(later))
            .execute(conn)
    })
    .await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let (one, two, three) = ("1 ELM ST", "2 ELM ST", "3 ELM ST");
    let order = |page: &str, want: [&str; 3]| {
        let at = positions(page, &want);
        assert!(at[0] < at[1] && at[1] < at[2], "{want:?}: {at:?}");
    };

    order(&b.get("/leads").await.body, [three, two, one]);
    let by_city = b.get("/leads?sort=city").await.body;
    order(&by_city, [two, three, one]);
    assert!(by_city.contains("<option value=\"city\" selected>city, A to Z</option>"));
    // An order is no filter: every lead is still counted as all of them.
    assert!(by_city.contains(">3 leads ·"), "{by_city}");
    assert!(by_city.contains("href=\"/leads/export?sort=city\""));
    order(
        &b.get("/leads?sort=updated_at").await.body,
        [two, three, one],
    );
    order(
        &b.get("/leads?sort=-updated_at").await.body,
        [one, three, two],
    );
    let waco_only = b.get("/leads?sort=created_at&city=Waco").await.body;
    assert!(
        waco_only.contains("1 lead matches these filters"),
        "{waco_only}"
    );
    assert_filters_refused(&mut b, "/leads?sort=zip", &["sort"]).await;
}

async fn a_new_user_sees_the_empty_state(app: TestApp) {
    let page = first_look(&app, "/leads", "No leads yet").await;
    assert!(page.body.contains("href=\"/docs\""));
    assert!(!page.body.contains("Export CSV"));
    // Navigation between the pages.
    for link in ["href=\"/leads\"", "href=\"/teams\"", "href=\"/api-keys\""] {
        assert!(page.body.contains(link), "{link}");
    }
}

async fn the_detail_shows_the_history_of_a_merge(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let first = json!({"address": "1 North Main Street Apt 4", "city": "Austin", "state": "TX",
                       "zip_code": "78701", "first_name": "<b>Ann</b>", "latitude": 30.27,
                       "longitude": -97.74});
    let second = json!({"address": "1 N Main St #4", "city": "Austin", "state": "TX",
                        "zip_code": "78701-1234", "primary_phone": "512 555 0100"});
    let (_, one) = app
        .post("/api/v1/submissions/single", &alice.key, first)
        .await;
    let (_, two) = app
        .post("/api/v1/submissions/single", &alice.key, second)
        .await;
    let id = one["result_lead_id"].as_i64().unwrap();
    assert_eq!(two["result_lead_id"], id);
    assert_eq!(two["result_action"], "updated");

    let (status, api) = app.get(&format!("/api/v1/leads/{id}"), &alice.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(api["address_standardized"], "1 N MAIN ST #4");

    let mut b = sign_in(&app, "alice@example.com").await;
    // A timeline page past the end, however far: the lead, and a link back to the newest.
    let past = b
        .get(&format!("/leads/{id}?timeline=9223372036854775807"))
        .await;
    assert_eq!(past.status, StatusCode::OK, "{}", past.body);
    assert!(past
        .body
        .contains(&format!("href=\"/leads/{id}?timeline=0#timeline\"")));
    let page = b.get(&format!("/leads/{id}")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let body = &page.body;
    assert!(body.contains("<code>1 N MAIN ST #4</code>"));
    // Dialled as stored, read as people write it, on the lead and in the list.
    assert!(
        body.contains("<a href=\"tel:+15125550100\">(512) 555-0100</a>"),
        "{body}"
    );
    let list = b.get("/leads").await;
    assert!(
        list.body
            .contains("<td data-label=\"Phone\" class=\"phone\">(512) 555-0100</td>"),
        "{}",
        list.body
    );
    assert!(body.contains("&lt;b&gt;Ann&lt;/b&gt;"));
    assert!(!body.contains("<b>Ann</b>"));
    assert!(body.contains("openstreetmap.org/?mlat=30.27&amp;mlon=-97.74"));
    for section in [
        "Property",
        "Property owner",
        "Permit and project",
        "Enrichment",
    ] {
        assert!(body.contains(&format!("<h2>{section}</h2>")), "{section}");
    }
    // Both submissions, newest first, each with its verbatim JSON.
    let updated = body
        .find("<strong class=\"action\">updated</strong>")
        .unwrap();
    let created = body
        .find("<strong class=\"action\">created</strong>")
        .unwrap();
    assert!(updated < created);
    assert!(body.contains("Test User &lt;alice@example.com&gt;"));
    assert!(body.contains("&quot;1 N Main St #4&quot;"));
    assert!(body.contains("<summary>Submitted JSON</summary>"));
    // No enrichment configured here: no button that would do nothing.
    assert!(!body.contains("Enrich again"));

    // Missing and malformed ids: the same 404 page.
    let missing = b.get("/leads/999999999").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.body.contains("Lead not found."));
    assert_eq!(b.get("/leads/abc").await.body, missing.body);
}

async fn enrich_again_follows_the_api_rule(app: TestApp) {
    let app = with_geocoders(app, &["zip"]).await;
    let alice = app.user("alice@example.com").await;
    let (_, one) = app
        .post(
            "/api/v1/submissions/single",
            &alice.key,
            json!({"address": "5 Oak Street", "city": "Austin", "state": "TX", "zip_code": "78701"}),
        )
        .await;
    let id = one["result_lead_id"].as_i64().unwrap();
    let mut b = sign_in(&app, "alice@example.com").await;
    let page = b.get(&format!("/leads/{id}")).await;
    assert!(page.body.contains("Enrich again"), "{}", page.body);
    let csrf = page.field("csrf");
    let path = format!("/leads/{id}/enrich");
    assert_eq!(b.post(&path, &[]).await.status, StatusCode::FORBIDDEN);
    let (done, after) = b.post_and_follow(&path, &[("csrf", &csrf)]).await;
    assert_eq!(
        done.location(),
        format!("/leads/{id}?done=enriched#enrichment")
    );
    assert!(after.body.contains("Enrichment ran again"));
    assert!(
        after.body.contains("<dt>Source</dt><dd>zip</dd>"),
        "{}",
        after.body
    );
}

/// The rows of the export `csv` after its header, which must end with the columns `last` (each
/// after a comma).
pub(crate) fn rows_after_header<'a>(csv: &'a str, last: &str) -> std::str::Lines<'a> {
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(last), "{csv}");
    lines
}

pub(crate) async fn fetch_csv(
    app: &TestApp,
    path: &str,
    key: &str,
) -> (reqwest::header::HeaderMap, String) {
    let response = reqwest::Client::new()
        .get(app.url(path))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    (headers, response.text().await.unwrap())
}

fn parse(text: &str) -> (Vec<String>, Vec<csv::StringRecord>) {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let records = reader.records().map(Result::unwrap).collect();
    (header, records)
}

async fn the_export_streams_every_match_as_csv(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    // More than one chunk of matches, and a few that do not match.
    let matches = usize::try_from(leadhub_api::lead_export::CHUNK).unwrap() + 20;
    let many: Vec<Value> = (1..=matches)
        .map(|i| lead(i, "Austin", "permits"))
        .collect();
    for part in many.chunks(1000) {
        batch(&app, &alice, part.to_vec()).await;
    }
    batch(
        &app,
        &alice,
        vec![
            json!({"address": "7 Formula Way", "city": "Austin", "state": "TX", "zip_code": "78701",
                   "first_name": "=HYPERLINK(\"http://x\",\"y\")", "last_name": "@SUM(A1)",
                   "project_description": "+1 and \"quoted\", with, comma", "source": "permits",
                   "latitude": 30.27, "longitude": -97.74}),
            lead(matches + 1, "Dallas", "permits"),
        ],
    )
    .await;

    let (headers, text) = fetch_csv(&app, "/api/v1/leads/export?city=Austin", &alice.key).await;
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert!(headers["content-disposition"]
        .to_str()
        .unwrap()
        .contains("leads.csv"));
    let (header, records) = parse(&text);
    assert_eq!(header[..4], ["id", "team_id", "address", "city"]);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let want = matches + 1;
    assert_eq!(records.len(), want);
    let ids: std::collections::BTreeSet<&str> = records.iter().map(|r| &r[0]).collect();
    assert_eq!(ids.len(), want, "no lead twice across chunks");
    assert!(records.iter().all(|r| &r[column("city")] == "Austin"));
    // Newest first: the formula lead came last.
    let formula = &records[0];
    assert_eq!(
        &formula[column("first_name")],
        "'=HYPERLINK(\"http://x\",\"y\")"
    );
    assert_eq!(&formula[column("last_name")], "'@SUM(A1)");
    assert_eq!(
        &formula[column("project_description")],
        "'+1 and \"quoted\", with, comma"
    );
    assert_eq!(&formula[column("longitude")], "-97.74");
    assert_eq!(&formula[column("address_standardized")], "7 FORMULA WAY");

    // The page's export: the same filter, the same file, for the session, with a byte-order
    // mark so that Excel reads it as UTF-8.
    let mut b = sign_in(&app, "alice@example.com").await;
    let (status, _, bytes) = b.download("/leads/export?city=Austin").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bytes, [b"\xEF\xBB\xBF", text.as_bytes()].concat());
    let dallas = b
        .get(&format!(
            "/leads/export?city=Dallas&q=number{}",
            matches + 1
        ))
        .await;
    assert_eq!(parse(&dallas.body).1.len(), 1);

    let (status, problems) = app
        .get("/api/v1/leads/export?enrichment_status=done", &alice.key)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        problems["detail"][0]["loc"],
        json!(["query", "enrichment_status"])
    );
    let unauthenticated = reqwest::get(app.url("/api/v1/leads/export")).await.unwrap();
    assert_eq!(unauthenticated.status(), StatusCode::UNAUTHORIZED);
    let signed_out = Browser::new(&app).get("/leads/export").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
}

async fn the_export_and_the_standardised_address_are_documented(app: TestApp) {
    let spec: Value = reqwest::get(app.url("/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let export = &spec["paths"]["/api/v1/leads/export"]["get"];
    assert_eq!(export["operationId"], "export_leads");
    assert_eq!(
        export["responses"]["200"]["content"]["text/csv"]["schema"]["type"],
        "string"
    );
    let parameters: Vec<&str> = each(&export["parameters"], "name")
        .filter_map(Value::as_str)
        .collect();
    for name in ["q", "team_id", "city", "enrichment_status", "created_after"] {
        assert!(parameters.contains(&name), "{name}: {parameters:?}");
    }
    let view = &spec["components"]["schemas"]["LeadView"]["properties"]["address_standardized"];
    assert!(
        view.is_object(),
        "{}",
        spec["components"]["schemas"]["LeadView"]
    );
}
