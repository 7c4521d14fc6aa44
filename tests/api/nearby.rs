//! The leads near a place (`near`, `within_miles`, `sort=distance`: docs/working-leads.md "Leads
//! nearby"): a canvasser's list of the doors to knock on while in the street.
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::enrichment::with_geocoders;
use crate::helpers::{batch_ok, list_refuses, listed, team};
use crate::lead_pages::fetch_csv;
use crate::pages::{page_shows, sign_in};

backend_tests!(
    the_list_finds_the_leads_within_miles_of_a_place_nearest_first,
    a_leads_page_names_the_leads_nearby_and_lists_them_nearest_first
);

/// Austin's Capitol, the place the lists measure from.
const CAPITOL: (f64, f64) = (30.2747, -97.7404);
const NEAR_CAPITOL: &str = "near=30.2747,-97.7404";

/// Degrees of latitude in a mile, and of longitude at the Capitol's latitude.
const LAT_MILE: f64 = 1.0 / 69.0934;
const LON_MILE: f64 = LAT_MILE / 0.863_626;

/// A lead of `street` so many miles north and east of the Capitol (None: not geocoded).
fn lead_at(street: &str, miles: Option<(f64, f64)>) -> Value {
    let mut lead = json!({"address": street, "city": "Austin", "state": "TX",
        "zip_code": "78701", "primary_phone": "(512) 555-0100"});
    if let Some((north, east)) = miles {
        lead["latitude"] = json!(CAPITOL.0 + north * LAT_MILE);
        lead["longitude"] = json!(CAPITOL.1 + east * LON_MILE);
    }
    lead
}

async fn the_list_finds_the_leads_within_miles_of_a_place_nearest_first(app: TestApp) {
    let ann = app.user("ann@example.com").await;
    let crew = team(&app, "Roofing crew", &ann).await;
    let leads = json!([
        lead_at("1 Congress Ave", Some((0.3, 0.0))),
        lead_at("2 Lavaca St", Some((0.0, 0.8))),
        lead_at("3 Riverside Dr", Some((-3.0, 0.0))),
        // In the box around a one-mile circle, but 1.13 miles out: the circle leaves it out.
        lead_at("4 Corner St", Some((0.8, 0.8))),
        lead_at("5 Nowhere Ln", None),
        lead_at("6 Archived Way", Some((0.1, 0.1))),
    ]);
    batch_ok(&app, &ann.key, json!({"team_id": crew, "leads": leads})).await;
    let all = listed(&app, &ann.key, "sort=created_at").await;
    let [north, east, south, corner, nowhere, archived] = all[..] else {
        panic!("{all:?}")
    };
    let root = app.admin("root@example.com").await;
    let (status, body) = app
        .delete(&format!("/api/v1/leads/{archived}"), &root.key)
        .await;
    assert!(status.is_success(), "{body}");
    // Another team's lead next door is not the caller's to see.
    let ben = app.user("ben@example.com").await;
    let theirs = team(&app, "Other crew", &ben).await;
    let next_door = json!([lead_at("7 Next Door", Some((0.05, 0.0)))]);
    batch_ok(
        &app,
        &ben.key,
        json!({"team_id": theirs, "leads": next_door}),
    )
    .await;

    let list = |query: &str| listed(&app, &ann.key, format!("{NEAR_CAPITOL}&{query}"));
    assert_eq!(
        list("sort=created_at").await,
        [north, east],
        "a mile by default"
    );
    assert_eq!(
        list("within_miles=5&sort=distance").await,
        [north, east, corner, south]
    );
    assert_eq!(
        list("within_miles=5&sort=-distance").await,
        [south, corner, east, north]
    );
    assert_eq!(
        list("within_miles=1.2&sort=distance").await,
        [north, east, corner]
    );
    assert_eq!(list("within_miles=0.5").await, [north]);
    // A page further on goes on in the same order (the page's ids are put in order first, then
    // its rows read), and counts the whole circle.
    let (status, page) = app
        .get(
            &format!("/api/v1/leads?{NEAR_CAPITOL}&within_miles=5&sort=distance&limit=2&offset=1"),
            &ann.key,
        )
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(crate::lead_work::ids(&page), [east, corner], "{page}");
    assert_eq!(page["total"], 4, "{page}");
    assert_eq!(list("within_miles=5&archived=true").await, [archived]);
    assert_eq!(list("within_miles=100&team_id=0").await, Vec::<i64>::new());
    assert_eq!(
        list("within_miles=5&q=riverside").await,
        [south],
        "beside the word index's conditions"
    );
    assert!(!list("within_miles=100").await.contains(&nowhere));
    // The API reads `near` in the caller's own writing, spaces and all.
    let spaced = "near=+30.2747+,+-97.7404&sort=distance";
    assert_eq!(listed(&app, &ann.key, spaced).await, [north, east]);

    let (_, csv) = fetch_csv(
        &app,
        &format!("/api/v1/leads/export?{NEAR_CAPITOL}&within_miles=2"),
        &ann.key,
    )
    .await;
    assert_eq!(
        csv.lines().count(),
        1 + 3,
        "a header and three leads: {csv}"
    );
    for street in ["1 Congress Ave", "2 Lavaca St", "4 Corner St"] {
        assert!(csv.contains(street), "{street}: {csv}");
    }

    for refused in [
        "near=30.2747",
        "near=north,west",
        "near=91,0",
        "near=30,-181",
        "within_miles=2",
        "sort=distance",
        "sort=-distance",
    ] {
        list_refuses(&app, &ann.key, refused).await;
    }
    for refused in ["within_miles=0", "within_miles=101", "within_miles=far"] {
        let (status, body) = app
            .get(&format!("/api/v1/leads?{NEAR_CAPITOL}&{refused}"), &ann.key)
            .await;
        assert_eq!(status, 422, "{refused}: {body}");
        assert_eq!(
            body["detail"][0]["loc"],
            json!(["query", "within_miles"]),
            "{body}"
        );
    }
}

async fn a_leads_page_names_the_leads_nearby_and_lists_them_nearest_first(app: TestApp) {
    // The offline ZIP geocoder places a lead sent without coordinates at its ZIP's centre.
    let app = with_geocoders(app, &["zip"]).await;
    let ann = app.user("ann@example.com").await;
    let crew = team(&app, "Roofing crew", &ann).await;
    let mut no_zip = lead_at("8 Unknown Rd", None);
    no_zip.as_object_mut().unwrap().remove("zip_code");
    let leads = json!([
        lead_at("1 Congress Ave", Some((0.3, 0.0))),
        lead_at("2 Lavaca St", Some((0.0, 0.8))),
        lead_at("3 Riverside Dr", Some((-3.0, 0.0))),
        lead_at("9 Centroid St", None),
        no_zip,
    ]);
    batch_ok(&app, &ann.key, json!({"team_id": crew, "leads": leads})).await;
    let all = listed(&app, &ann.key, "sort=created_at").await;
    let [north, east, south, centroid, unplaced] = all[..] else {
        panic!("{all:?}")
    };
    let mut browser = sign_in(&app, "ann@example.com").await;

    // From 0.3 miles north of the Capitol (the page names leads by their standardised address): the ZIP centre (0.6 mi) and the lead east (0.9 mi).
    let page = page_shows(
        &mut browser,
        &format!("/leads/{north}"),
        &["Nearby leads", "All 2 leads within a mile, nearest first"],
    )
    .await;
    let nearby = &page.body[page.body.find(r#"id="nearby""#).unwrap()..];
    let (zip_at, east_at) = (
        nearby.find("9 CENTROID ST").unwrap(),
        nearby.find("2 LAVACA ST").unwrap(),
    );
    assert!(zip_at < east_at, "nearest first: {nearby}");
    assert!(
        nearby.contains("0.6 mi") && nearby.contains("0.9 mi"),
        "{nearby}"
    );
    assert!(nearby[zip_at..east_at].contains("(ZIP centre)"), "{nearby}");
    assert!(!nearby[..nearby.find("</section>").unwrap()].contains("RIVERSIDE"));
    // The lead placed at its ZIP's centre says its distances are rough; one never placed has
    // no such card.
    page_shows(
        &mut browser,
        &format!("/leads/{centroid}"),
        &["Nearby leads", "distances are rough"],
    )
    .await;
    // Three miles out, alone within a mile: the card offers five miles instead.
    let page = page_shows(
        &mut browser,
        &format!("/leads/{south}"),
        &[
            "No other lead you can see is within a mile.",
            "within_miles=5&amp;sort=distance\" id=\"nearby-wider\">Leads within 5 miles",
        ],
    )
    .await;
    assert!(!page.body.contains(r#"id="nearby-list""#), "{}", page.body);
    let page = browser.get(&format!("/leads/{unplaced}")).await;
    assert!(!page.body.contains("Nearby leads"), "{}", page.body);

    // The card's link: the list of them, nearest first, each with its distance.
    let (_, lead) = app.get(&format!("/api/v1/leads/{north}"), &ann.key).await;
    let (lat, lon) = (
        lead["latitude"].as_f64().unwrap(),
        lead["longitude"].as_f64().unwrap(),
    );
    let list = format!("/leads?near={lat},{lon}&within_miles=1&sort=distance");
    let page = page_shows(
        &mut browser,
        &list,
        &[
            r#"id="near-filter""#,
            "Only the leads within 1 mile of 30.27904, -97.74040",
            "3 leads match these filters",
            "under 0.1 mi away",
            "0.6 mi away",
            "0.9 mi away",
            r#"<option value="distance" selected>nearest first</option>"#,
            r#"id="f-within""#,
            r#"id="remove-near-filter" href="/leads""#,
        ],
    )
    .await;
    let at = |id: i64| {
        page.body
            .find(&format!(r#"href="/leads/{id}?"#))
            .unwrap_or_else(|| panic!("{id}: {}", page.body))
    };
    assert!(
        at(north) < at(centroid) && at(centroid) < at(east),
        "nearest first"
    );
    // A list of leads anywhere does not offer an order it would refuse.
    let page = browser.get("/leads").await;
    assert!(
        !page.body.contains(r#"<option value="distance""#),
        "{}",
        page.body
    );
}
