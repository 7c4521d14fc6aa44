//! Tags (docs/working-leads.md "Tags"): added and taken off by whoever may edit a lead, one by one
//! or in bulk, listed with `tag=`, shown and changed on the pages, exported, imported, and kept
//! by the survivor of a merge.
use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{list_refuses, listed, listed_oldest_first};
use crate::lead_pages::{fetch_csv, rows_after_header};
use crate::lead_uploads::finished;
use crate::lead_work::{cast, lead_at, newest_of_kind, patch};
use crate::lead_work_pages::{post_form, refused, work_on};
use crate::messy_imports::{import_file, import_tagged};
use crate::pages::{page_shows, sign_in};

backend_tests!(
    tags_are_set_added_taken_off_and_listed_through_the_api,
    the_pages_show_add_and_take_off_tags,
    an_import_tags_its_leads_and_a_merge_keeps_both_leads_tags,
);

/// The leads `key`'s holder lists with `tag=`, oldest first.
async fn tagged(app: &TestApp, key: &str, tag: &str) -> Vec<i64> {
    listed_oldest_first(app, key, &format!("tag={tag}")).await
}

async fn tags_are_set_added_taken_off_and_listed_through_the_api(app: TestApp) {
    let c = cast(&app).await;
    let mia = &c.mia.key;
    let one = lead_at(&app, mia, 1, Some(c.a)).await;
    let two = lead_at(&app, mia, 2, Some(c.a)).await;
    let (_, lead) = app.get(&format!("/api/v1/leads/{one}"), mia).await;
    assert_eq!(lead["tags"], json!([]), "{lead}");

    // Set: trimmed, lower case, sorted, each once; a change with its timeline entry.
    let body = json!({"tags": [" Storm  2026 ", "HOT", "hot"]});
    let (status, body) = patch(&app, one, mia, body).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["tags"], json!(["hot", "storm 2026"]), "{body}");
    assert_eq!(body["version"], 2, "{body}");
    let entry = newest_of_kind(&app, one, mia, "tags_changed").await;
    assert_eq!(
        entry["detail"],
        json!({"added": ["hot", "storm 2026"], "removed": []}),
        "{entry}"
    );
    // Add and take off beside each other; the same tags again change nothing.
    let body = json!({"add_tags": ["roof"], "remove_tags": ["storm 2026"]});
    let (_, body) = patch(&app, one, mia, body).await;
    assert_eq!(body["tags"], json!(["hot", "roof"]), "{body}");
    let (_, body) = patch(&app, one, mia, json!({"add_tags": ["Hot"]})).await;
    assert_eq!(body["version"], 3, "{body}");

    // The filter, any case; a tag nobody has finds nothing.
    assert_eq!(tagged(&app, mia, "HOT").await, [one]);
    assert_eq!(tagged(&app, mia, "cold").await, Vec::<i64>::new());
    list_refuses(&app, mia, &format!("tag={}", "x".repeat(41))).await;
    // Several, commas (or semicolons) between them: the leads carrying every one of them.
    let (_, body) = patch(&app, two, mia, json!({"add_tags": ["hot"]})).await;
    assert_eq!(body["tags"], json!(["hot"]), "{body}");
    assert_eq!(tagged(&app, mia, "hot").await, [one, two]);
    assert_eq!(tagged(&app, mia, "roof,HOT").await, [one]);
    assert_eq!(tagged(&app, mia, "hot;%20roof,").await, [one]);
    assert_eq!(tagged(&app, mia, "hot,cold").await, Vec::<i64>::new());
    let twenty_one: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    list_refuses(&app, mia, &format!("tag={}", twenty_one.join(","))).await;
    list_refuses(&app, mia, &format!("tag=hot,{}", "x".repeat(41))).await;
    // Any characters: a tag is one token of SQLite's word index, never a phrase of its pieces.
    let odd = json!({"add_tags": ["o'brien-list", "café \"a\""]});
    let (_, body) = patch(&app, one, mia, odd).await;
    assert_eq!(body["tags"].as_array().map(Vec::len), Some(4), "{body}");
    assert_eq!(tagged(&app, mia, "O%27Brien-List").await, [one]);
    assert_eq!(tagged(&app, mia, "o%27brien").await, Vec::<i64>::new());
    assert_eq!(tagged(&app, mia, "CAF%C3%89%20%22a%22").await, [one]);
    let odd = json!({"remove_tags": ["o'brien-list", "café \"a\""]});
    patch(&app, one, mia, odd).await;
    assert_eq!(tagged(&app, mia, "o%27brien-list").await, Vec::<i64>::new());
    // Without: the leads carrying none of the tags named, beside the other filters. Another
    // team's lead carrying one of them is none of Mia's count.
    let theirs = lead_at(&app, &c.otto.key, 3, Some(c.b)).await;
    let (status, body) = patch(&app, theirs, &c.otto.key, json!({"tags": ["roof"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // `listed` checks the total too: counted as the leads less those carrying any of the tags
    // (PostgreSQL).
    let without = |query: &str| listed(&app, mia, format!("{query}&sort=created_at"));
    assert_eq!(without("without_tag=ROOF").await, [two]);
    assert_eq!(without("tag=hot&without_tag=roof,cold").await, [two]);
    assert_eq!(without("without_tag=cold").await, [one, two]);
    assert_eq!(without("without_tag=hot;%20roof").await, Vec::<i64>::new());
    list_refuses(&app, mia, &format!("without_tag={}", "x".repeat(41))).await;
    patch(&app, two, mia, json!({"remove_tags": ["hot"]})).await;

    // Refused: a tag with a separator, one too long, not a list, more than 20.
    for bad in [
        json!({"tags": ["a;b"]}),
        json!({"add_tags": ["y".repeat(41)]}),
        json!({"tags": "hot"}),
        json!({"remove_tags": [""]}),
        json!({"tags": (0..21).map(|n| format!("t{n}")).collect::<Vec<_>>()}),
    ] {
        let (status, body) = patch(&app, two, mia, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    let (_, lead) = app.get(&format!("/api/v1/leads/{two}"), mia).await;
    assert_eq!(lead["tags"], json!([]), "{lead}");

    // Bulk: added to both, then one taken off both.
    let body = json!({"ids": [one, two], "set": {"add_tags": ["mailer 12"]}});
    let (status, body) = app.post("/api/v1/leads/bulk", mia, body).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(tagged(&app, mia, "mailer%2012").await, [one, two]);
    let body = json!({"ids": [one, two], "set": {"remove_tags": ["hot"]}});
    let (status, body) = app.post("/api/v1/leads/bulk", mia, body).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(tagged(&app, mia, "hot").await, Vec::<i64>::new());

    // Another team's member finds none of them by tag.
    assert_eq!(
        tagged(&app, &c.otto.key, "mailer%2012").await,
        Vec::<i64>::new()
    );

    // The export ends with the tags, commas between them.
    let (_, csv) = fetch_csv(&app, "/api/v1/leads/export?tag=roof", mia).await;
    let last = ",do_not_call,tags,wrong_phones,do_not_call_phones";
    let rows: Vec<&str> = rows_after_header(&csv, last).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    assert!(rows[0].ends_with(",false,\"mailer 12, roof\",,"), "{csv}");
}

async fn the_pages_show_add_and_take_off_tags(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let other = lead_at(&app, &c.mia.key, 2, Some(c.a)).await;
    let mut mia = sign_in(&app, "mia@example.com").await;

    let body = work_on(
        &mut mia,
        id,
        "tags",
        &[("tags", "Hot, storm 2026")],
        "tags-added#tags",
    )
    .await;
    assert!(body.contains("Tags added."), "{body}");
    assert!(body.contains("href=\"/leads?tag=storm+2026\""), "{body}");
    assert!(
        body.contains("Tagged hot, storm 2026</"),
        "the timeline: {body}"
    );
    // A tag too long is refused with the reason; nothing changes.
    let long = "z".repeat(41);
    let path = format!("/leads/{id}/tags");
    refused(&mut mia, &path, &[("tags", &long)], "at most 40 characters").await;

    // The list shows the tags and filters by one.
    page_shows(
        &mut mia,
        "/leads?tag=hot",
        &[
            "1 lead matches these filters",
            "<a class=\"tag\" href=\"/leads?tag=hot\">hot</a>",
        ],
    )
    .await;
    // And by several, with or without.
    page_shows(
        &mut mia,
        "/leads?tag=storm+2026,+HOT&without_tag=cold",
        &[
            "1 lead matches these filters",
            "name=\"tag\" value=\"storm 2026, HOT\"",
            "name=\"without_tag\" value=\"cold\"",
        ],
    )
    .await;
    let page = page_shows(&mut mia, "/leads?without_tag=hot", &["1 lead matches"]).await;
    assert!(
        page.body.contains(&format!("/leads/{other}")),
        "{}",
        page.body
    );

    // Taken off from the lead page.
    let body = work_on(
        &mut mia,
        id,
        "tags/remove",
        &[("tag", "hot")],
        "tag-removed#tags",
    )
    .await;
    assert!(!body.contains("href=\"/leads?tag=hot\""), "{body}");
    assert!(
        body.contains("Tag taken off: hot</"),
        "the timeline: {body}"
    );

    // The bulk bar tags the ticked leads.
    let back = "tag=";
    let pick = format!("lead-{other}");
    let pick_too = format!("lead-{id}");
    let form = [
        ("back", back),
        ("action", "add-tag"),
        ("tag", "Spanish"),
        (pick.as_str(), "on"),
        (pick_too.as_str(), "on"),
    ];
    let done = post_form(&mut mia, "/leads/bulk", &form).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let (_, list) = app.get("/api/v1/leads?tag=spanish", &c.mia.key).await;
    assert_eq!(list["total"], 2, "{list}");
    // Without a tag beside the action, nothing is changed.
    let form = [
        ("back", back),
        ("action", "remove-tag"),
        (pick.as_str(), "on"),
    ];
    refused(
        &mut mia,
        "/leads/bulk",
        &form,
        "Give the tag beside the action",
    )
    .await;

    // An upload whose form says "Tag every lead of this file".
    let csrf = mia.get("/leads/import").await.field("csrf");
    let form = Form::new()
        .text("csrf", csrf)
        .text("team_id", c.a.to_string())
        .text("tags", "Vendor Dec")
        .part(
            "file",
            Part::bytes(b"Address,City,State,Zip\n5 Oak St,Austin,TX,78701\n".to_vec())
                .file_name("vendor.csv")
                .mime_str("text/csv")
                .unwrap(),
        );
    let sent = mia.post_multipart("/leads/import", form).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let page = finished(&mut mia, sent.location()).await;
    assert!(
        page.body
            .contains("tagged: <a class=\"tag\" href=\"/leads?tag=vendor+dec\">vendor dec</a>"),
        "{}",
        page.body
    );
    let (_, list) = app.get("/api/v1/leads?tag=vendor%20dec", &c.mia.key).await;
    assert_eq!(list["total"], 1, "{list}");

    // Someone who may only look (a member of another team) gets a 404, as for any change.
    let mut otto = sign_in(&app, "otto@example.com").await;
    let refused = post_form(&mut otto, &format!("/leads/{id}/tags"), &[("tags", "x")]).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
}

async fn an_import_tags_its_leads_and_a_merge_keeps_both_leads_tags(app: TestApp) {
    let c = cast(&app).await;
    let mia = &c.mia.key;
    let existing = lead_at(&app, mia, 1, Some(c.a)).await;
    let (status, body) = patch(&app, existing, mia, json!({"tags": ["old list"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let long = "q".repeat(41);
    let file = format!(
        "Address,City,State,Zip,Tags\n\
         1 Oak St,Austin,TX,78701,Mailer 12\n\
         2 Oak St,Austin,TX,78701,\"mailer 12; Roof\"\n\
         3 Oak St,Austin,TX,78701,{long}\n"
    );
    let (summary, _) = import_file(&app, &c.mia, c.a, file.as_bytes()).await;
    let report = summary.render();
    assert_eq!((summary.created, summary.skipped), (2, 1), "{report}");
    assert!(report.contains("invalid_tag"), "{report}");
    // The lead that existed keeps its tags and takes the file's.
    let (_, lead) = app.get(&format!("/api/v1/leads/{existing}"), mia).await;
    assert_eq!(lead["tags"], json!(["mailer 12", "old list"]), "{lead}");
    let in_mailer = tagged(&app, mia, "mailer%2012").await;
    assert_eq!(in_mailer.len(), 2, "{in_mailer:?}");
    let roof = tagged(&app, mia, "roof").await;
    assert_eq!(roof.len(), 1);

    // A merge: the survivor carries both leads' tags, and the merged lead's mark.
    let merged = roof[0];
    let (status, body) = patch(&app, merged, mia, json!({"do_not_call": true})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let into = json!({"into": existing});
    let (status, survivor) = app
        .post(&format!("/api/v1/leads/{merged}/merge"), &c.adam.key, into)
        .await;
    assert_eq!(status, StatusCode::OK, "{survivor}");
    let (_, survivor) = app.get(&format!("/api/v1/leads/{existing}"), mia).await;
    assert_eq!(
        (&survivor["tags"], &survivor["do_not_call"]),
        (
            &json!(["mailer 12", "old list", "roof"]),
            &Value::Bool(true)
        ),
        "{survivor}"
    );
    assert_eq!(tagged(&app, mia, "roof").await, [existing]);

    // A file-wide tag (`leadhub import leads --tag`): every lead of the file, created or merged
    // into, beside the rows' own.
    let file = "Address,City,State,Zip,Tags\n\
        1 Oak St,Austin,TX,78701,\n\
        9 Oak St,Austin,TX,78701,hot\n";
    let list = vec!["vendor dec".to_owned()];
    let (summary, _) = import_tagged(&app, &c.mia, c.a, file.as_bytes(), list).await;
    assert_eq!(summary.created, 1, "{}", summary.render());
    let vendor = tagged(&app, mia, "vendor%20dec").await;
    assert_eq!(vendor.len(), 2, "{vendor:?}");
    assert!(vendor.contains(&existing), "{vendor:?}");
    assert_eq!(tagged(&app, mia, "hot").await, [vendor[1]]);
}
