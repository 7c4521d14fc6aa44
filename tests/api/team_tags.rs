//! A team's tags as a whole (docs/working-leads.md "Tags"): counted over the leads one sees,
//! renamed or taken off all of them at once, through the API and the `/tags` page, whose rows
//! the tag fields suggest.
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_work::{cast, lead_at, newest_of_kind, patch};
use crate::lead_work_pages::{post_form, refused};
use crate::pages::{page_shows, sign_in};

backend_tests!(
    tags_are_counted_renamed_and_taken_off_through_the_api,
    the_tags_page_counts_renames_and_takes_off_tags,
);

/// The tags `key`'s holder sees, as `[tag, count]` pairs in the answer's order.
async fn counts(app: &TestApp, key: &str, query: &str) -> Vec<(String, i64)> {
    let (status, body) = app.get(&format!("/api/v1/tags{query}"), key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let tag = t["tag"].as_str().unwrap().to_owned();
            (tag, t["lead_count"].as_i64().unwrap())
        })
        .collect()
}

fn pairs(expected: &[(&str, i64)]) -> Vec<(String, i64)> {
    expected.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

async fn tags_of(app: &TestApp, id: i64, key: &str) -> Value {
    let (status, lead) = app.get(&format!("/api/v1/leads/{id}"), key).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    lead["tags"].clone()
}

async fn tag(app: &TestApp, id: i64, key: &str, tags: &[&str]) {
    let (status, body) = patch(app, id, key, json!({ "tags": tags })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn tags_are_counted_renamed_and_taken_off_through_the_api(app: TestApp) {
    let c = cast(&app).await;
    let (mia, otto) = (&c.mia.key, &c.otto.key);
    let one = lead_at(&app, mia, 1, Some(c.a)).await;
    let two = lead_at(&app, mia, 2, Some(c.a)).await;
    let archived = lead_at(&app, mia, 3, Some(c.a)).await;
    let theirs = lead_at(&app, otto, 4, Some(c.b)).await;
    tag(&app, one, mia, &["hot", "storm2026", "storm 2026"]).await;
    tag(&app, two, mia, &["hot", "storm 2026"]).await;
    tag(&app, archived, mia, &["storm2026"]).await;
    let (status, body) = app
        .delete(&format!("/api/v1/leads/{archived}"), &c.adam.key)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    tag(&app, theirs, otto, &["storm2026"]).await;

    // Counted over the live leads one sees: most used first, then by tag.
    let mine = pairs(&[("hot", 2), ("storm 2026", 2), ("storm2026", 1)]);
    assert_eq!(counts(&app, mia, "").await, mine);
    assert_eq!(counts(&app, mia, &format!("?team_id={}", c.a)).await, mine);
    assert_eq!(counts(&app, otto, "").await, pairs(&[("storm2026", 1)]));
    // Another team's id tells nothing: no tags, as for a team without any.
    let other_team = format!("?team_id={}", c.b);
    assert_eq!(counts(&app, mia, &other_team).await, pairs(&[]));
    assert_eq!(counts(&app, &c.root.key, "").await.len(), 3);

    // A rename: every lead one sees carrying it, the archived one too; a lead carrying both
    // spellings keeps one. Otto's lead, in another team, keeps its tag.
    let rename = json!({"from": "Storm2026", "to": "Storm 2026"});
    let (status, body) = app.post("/api/v1/tags/rename", mia, rename).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"updated": 2}));
    assert_eq!(tags_of(&app, one, mia).await, json!(["hot", "storm 2026"]));
    assert_eq!(tags_of(&app, archived, mia).await, json!(["storm 2026"]));
    assert_eq!(tags_of(&app, theirs, otto).await, json!(["storm2026"]));
    let entry = newest_of_kind(&app, archived, mia, "tags_changed").await;
    assert_eq!(
        entry["detail"],
        json!({"added": ["storm 2026"], "removed": ["storm2026"]}),
        "{entry}"
    );
    assert_eq!(entry["actor"]["email"], "mia@example.com", "{entry}");
    let merged = newest_of_kind(&app, one, mia, "tags_changed").await;
    assert_eq!(
        merged["detail"],
        json!({"added": [], "removed": ["storm2026"]}),
        "{merged}"
    );
    assert_eq!(
        counts(&app, mia, "").await,
        pairs(&[("hot", 2), ("storm 2026", 2)])
    );
    // Again: nothing left to rename.
    let again = json!({"from": "storm2026", "to": "storm 2026"});
    let (_, body) = app.post("/api/v1/tags/rename", mia, again).await;
    assert_eq!(body, json!({"updated": 0}));

    // Someone of another team naming this team changes nothing of it.
    let body = json!({"tag": "hot", "team_id": c.a});
    let (status, body) = app.post("/api/v1/tags/remove", otto, body).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"updated": 0})));
    assert_eq!(tags_of(&app, two, mia).await, json!(["hot", "storm 2026"]));

    // Taken off every lead that carries it.
    let (status, body) = app
        .post("/api/v1/tags/remove", mia, json!({"tag": "HOT"}))
        .await;
    assert_eq!((status, body), (StatusCode::OK, json!({"updated": 2})));
    assert_eq!(tags_of(&app, two, mia).await, json!(["storm 2026"]));
    assert_eq!(counts(&app, mia, "").await, pairs(&[("storm 2026", 2)]));

    // Refused, each with a 422 naming the member: no tag, a bad new name, a missing member,
    // a wrong type.
    for (path, bad, member) in [
        ("rename", json!({"from": " ", "to": "x"}), "from"),
        ("rename", json!({"from": "x", "to": "a;b"}), "to"),
        ("rename", json!({"from": "x", "to": "y".repeat(41)}), "to"),
        ("rename", json!({"from": "x"}), "to"),
        ("remove", json!({"tag": 5}), "tag"),
        ("remove", json!({"tag": "x", "team_id": "a"}), "team_id"),
    ] {
        let (status, body) = app
            .post(&format!("/api/v1/tags/{path}"), mia, bad.clone())
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert_eq!(
            body["detail"][0]["loc"],
            json!(["body", member]),
            "{bad}: {body}"
        );
    }
    let (status, body) = app.get("/api/v1/tags?team_id=x", mia).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}

async fn the_tags_page_counts_renames_and_takes_off_tags(app: TestApp) {
    let c = cast(&app).await;
    let mia_key = &c.mia.key;
    let one = lead_at(&app, mia_key, 1, Some(c.a)).await;
    let two = lead_at(&app, mia_key, 2, Some(c.a)).await;
    tag(&app, one, mia_key, &["storm2026", "hot"]).await;
    tag(&app, two, mia_key, &["storm 2026", "hot"]).await;
    let mut mia = sign_in(&app, "mia@example.com").await;

    // Each tag with its count, both linking to its leads; the tag fields suggest the tags.
    page_shows(
        &mut mia,
        "/tags",
        &[
            "<a class=\"tag\" href=\"/leads?tag=storm+2026\" title=\"Every lead tagged storm 2026\">storm 2026</a>",
            "<a href=\"/leads?tag=hot\">2</a>",
            "Take storm2026 off every lead",
        ],
    )
    .await;
    // The tag fields' suggestions are the page's rows, read by pages.js.
    let fields = [
        "<datalist id=\"known-tags\"></datalist>",
        "list=\"known-tags\"",
    ];
    page_shows(&mut mia, "/leads", &fields).await;
    page_shows(&mut mia, "/leads", &["href=\"/tags\""]).await;
    page_shows(&mut mia, &format!("/leads/{one}"), &fields).await;
    page_shows(&mut mia, "/tags", &["<tr data-tag=\"storm 2026\">"]).await;

    // Renamed onto the other spelling: one tag, on both leads.
    let form = [("from", "storm2026"), ("to", "storm 2026")];
    let done = post_form(&mut mia, "/tags/rename", &form).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    assert_eq!(done.location(), "/tags?done=tag-renamed");
    page_shows(
        &mut mia,
        "/tags?done=tag-renamed",
        &[
            "Tag renamed on every lead that carried it.",
            "<a href=\"/leads?tag=storm+2026\">2</a>",
        ],
    )
    .await;
    assert_eq!(
        tags_of(&app, one, mia_key).await,
        json!(["hot", "storm 2026"])
    );

    // A new name that is no tag: the reason, and nothing changed.
    let form = [("from", "hot"), ("to", "hot; cold")];
    refused(&mut mia, "/tags/rename", &form, "no comma or semicolon").await;
    assert_eq!(
        tags_of(&app, two, mia_key).await,
        json!(["hot", "storm 2026"])
    );

    // Taken off every lead.
    let done = post_form(&mut mia, "/tags/remove", &[("tag", "hot")]).await;
    assert_eq!(done.location(), "/tags?done=tag-removed-everywhere");
    assert_eq!(tags_of(&app, two, mia_key).await, json!(["storm 2026"]));
    let page = mia.get("/tags").await;
    assert!(!page.body.contains("data-tag=\"hot\""), "{}", page.body);

    // Someone of another team sees none of them, and changes none.
    let mut otto = sign_in(&app, "otto@example.com").await;
    page_shows(&mut otto, "/tags", &["No lead you see carries a tag yet."]).await;
    let form = [("from", "storm 2026"), ("to", "mine")];
    let done = post_form(&mut otto, "/tags/rename", &form).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    assert_eq!(tags_of(&app, one, mia_key).await, json!(["storm 2026"]));
}
