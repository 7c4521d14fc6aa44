//! Page URLs are typed, pasted and edited by people: every page a signed-in person can GET answers
//! whatever its query and path carry (numbers past i64, negative offsets, FTS5 and LIKE syntax,
//! control characters) with a page, never a 5xx. Schemathesis covers the API this way; the pages
//! are not in `/openapi.json`, so this walks them.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_uploads::{finished, upload_named};
use crate::pages::sign_in;
use crate::teams::create_team_id;

backend_tests!(every_page_answers_any_query);

/// Query strings sent to every page, each on its own.
const QUERIES: &[&str] = &[
    "offset=9223372036854775807",
    "offset=9223372036854775808",
    "offset=-9223372036854775808",
    "offset=1e3",
    "timeline=9223372036854775807",
    "timeline=-1",
    "team_id=-9223372036854775808",
    "team_id=99999999999999999999",
    "q=%22*%5E-NEAR(a%3Ab)%20AND%20NOT",
    "q=%25_%5C",
    "q=%E2%80%8B",
    "city=%00",
    "state=t%22x",
    "zip_code=*",
    "created_after=99999-01-01&created_before=-1",
    "sort=--created_at",
    "status=%F0%9F%98%80",
    "assignee=-1",
    "upload=-9223372036854775808",
    "done=%3Cscript%3E",
    "next=%2F%2Fevil.example",
    "a=1&a=2&offset=&offset=50",
];

async fn every_page_answers_any_query(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team = create_team_id(&app, &alice.key, "Roofers").await;
    let (status, lead) = app
        .post(
            "/api/v1/submissions/single",
            &alice.key,
            json!({"address": "1 Main St", "city": "Austin", "state": "TX", "zip_code": "78701",
                   "team_id": team}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    let id = lead["result_lead_id"].as_i64().unwrap();
    let mut b = sign_in(&app, "alice@example.com").await;

    let paths = [
        "/".to_owned(),
        "/leads".to_owned(),
        "/leads/export".to_owned(),
        "/leads/export.xlsx".to_owned(),
        format!("/leads/{id}"),
        format!("/leads/{id}/edit"),
        "/leads/import".to_owned(),
        "/businesses".to_owned(),
        "/businesses/import".to_owned(),
        "/uploads".to_owned(),
        "/api-keys".to_owned(),
        "/teams".to_owned(),
        format!("/teams/{team}"),
        format!("/teams/{team}/webhooks/99999999999999999999/delete"),
        format!("/teams/{team}/members/-1/remove"),
        "/leads/99999999999999999999".to_owned(),
        "/leads/-1".to_owned(),
        "/teams/0".to_owned(),
        "/uploads/-9223372036854775808".to_owned(),
        "/uploads/1/report".to_owned(),
        "/uploads/1/report.xlsx".to_owned(),
        "/api-keys/99999999999999999999/revoke".to_owned(),
    ];
    for path in &paths {
        for query in QUERIES {
            let url = format!("{path}?{query}");
            let page = b.get(&url).await;
            assert!(
                !page.status.is_server_error(),
                "{url}: {}\n{}",
                page.status,
                page.body
            );
        }
    }

    // The lead page's forms and the team, invite, webhook, role and API key forms, every field given
    // the same odd value: refused or done, never a 5xx.
    let csrf = b.get(&format!("/leads/{id}")).await.field("csrf");
    let actions = [
        "work",
        "notes",
        "notes/1/delete",
        "claim",
        "move",
        "merge",
        "edit",
    ];
    let fields = [
        "version", "status", "assignee", "team_id", "into", "body", "address", "action",
    ];
    for value in [
        "-9223372036854775808",
        "99999999999999999999",
        "#0",
        "\u{0}",
        "%",
        "",
    ] {
        let mut form: Vec<(&str, &str)> = fields.iter().map(|f| (*f, value)).collect();
        form.extend([("name", value), ("description", value), ("url", value)]);
        form.extend([("email", value), ("role", value), ("csrf", &csrf)]);
        let lead_forms = actions.iter().map(|a| format!("/leads/{id}/{a}"));
        let other_forms = [
            "/teams".to_owned(),
            "/api-keys".to_owned(),
            format!("/teams/{team}/invites"),
            format!("/teams/{team}/webhooks"),
            format!("/teams/{team}/members/1/role"),
        ];
        for path in lead_forms.chain(other_forms) {
            let page = b.post(&path, &form).await;
            assert!(
                !page.status.is_server_error(),
                "{path} {value:?}: {}",
                page.status
            );
            // NUL refuses the form, as it refuses an API body (PostgreSQL cannot store it).
            if value.contains('\0') {
                assert_eq!(page.status, StatusCode::BAD_REQUEST, "{path}");
            }
        }
        let chosen = format!("lead-{value}");
        let bulk = [
            ("csrf", csrf.as_str()),
            ("action", value),
            (chosen.as_str(), "on"),
        ];
        let page = b.post("/leads/bulk", &bulk).await;
        assert!(
            !page.status.is_server_error(),
            "bulk {value:?}: {}",
            page.status
        );
    }
    // An upload's file name is text like any other: control characters (NUL, escape) are dropped.
    let file = b"address,city,state\n2 Elm St,Austin,TX\n";
    let odd_name = "odd\u{0}\u{1b}name.csv";
    let sent = upload_named(&mut b, "/leads/import", team, None, file, odd_name).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let done = finished(&mut b, sent.location()).await;
    assert!(done.body.contains("oddname.csv"), "{}", done.body);

    // The person is still signed in: nothing above ended the session.
    assert_eq!(b.get("/leads").await.status, StatusCode::OK);
}
