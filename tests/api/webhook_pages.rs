//! The Webhooks section of the team page: owners add an endpoint (the secret shown once), send a
//! test event and retry a delivery, disable and enable it, give it a new secret (shown once) and
//! delete it; members see no section and are refused the forms; another team's webhook and
//! delivery ids are not found.
use reqwest::StatusCode;
use serde_json::Value;

use leadhub_tests::{backend_tests, TestApp};

use crate::pages::{page_shows, sign_in, Browser};
use crate::teams::{create_team_id, team_of};
use crate::webhooks::send_test;

backend_tests!(
    owners_add_test_and_retry_from_the_team_page,
    owners_disable_enable_rotate_and_delete_from_the_team_page,
    members_get_no_section_and_other_teams_ids_are_not_found,
    an_inactive_teams_section_offers_no_new_or_changed_endpoints,
);

const URL: &str = "https://crm.example.com/hooks/leadhub";

/// The team's endpoints through the API.
async fn endpoints(app: &TestApp, key: &str, team: i64) -> Vec<Value> {
    let (status, list) = app.get(&format!("/api/teams/{team}/webhooks"), key).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list.as_array().unwrap().clone()
}

/// The endpoint's deliveries through the API, newest first.
async fn deliveries(app: &TestApp, key: &str, team: i64, wid: i64) -> Vec<Value> {
    let path = format!("/api/teams/{team}/webhooks/{wid}/deliveries");
    let (status, page) = app.get(&path, key).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"].as_array().unwrap().clone()
}

/// Presses a button of the team page (a form with only its CSRF token): a redirect answers.
/// Every form of a team's webhook section, for one endpoint `wid` and one of its deliveries `did`.
fn form_paths(team: i64, wid: i64, did: i64) -> [String; 7] {
    [
        format!("/teams/{team}/webhooks"),
        format!("/teams/{team}/webhooks/{wid}/test"),
        format!("/teams/{team}/webhooks/{wid}/deliveries/{did}/retry"),
        format!("/teams/{team}/webhooks/{wid}/disable"),
        format!("/teams/{team}/webhooks/{wid}/enable"),
        format!("/teams/{team}/webhooks/{wid}/rotate-secret"),
        format!("/teams/{team}/webhooks/{wid}/delete"),
    ]
}

async fn press(b: &mut Browser, path: &str, csrf: &str) -> crate::pages::Page {
    let answer = b.post(path, &[("csrf", csrf)]).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    answer
}

/// Adds an endpoint through the team page's form; returns the answer's page.
pub(crate) async fn add(b: &mut Browser, team: i64, url: &str) -> crate::pages::Page {
    let csrf = b.get(&format!("/teams/{team}")).await.field("csrf");
    b.post(
        &format!("/teams/{team}/webhooks"),
        &[
            ("csrf", &csrf),
            ("url", url),
            ("description", "CRM"),
            ("lead.created", "on"),
            ("batch.completed", "on"),
        ],
    )
    .await
}

async fn owners_add_test_and_retry_from_the_team_page(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Hooked").await;
    let mut b = sign_in(&app, "owner@example.com").await;
    let page = b.get(&format!("/teams/{team}")).await;
    assert!(page.body.contains("id=\"webhooks\""), "{}", page.body);
    assert!(page.body.contains("No webhook endpoints yet."));

    let created = add(&mut b, team, URL).await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    let secret = created.text_after(
        "id=\"webhook-secret\" class=\"mono\" type=\"text\" readonly value=\"",
        '"',
    );
    assert!(secret.starts_with("whsec_"), "{secret}");
    let listed = endpoints(&app, &owner.key, team).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["url"], URL);
    assert_eq!(listed[0]["description"], "CRM");
    assert_eq!(
        listed[0]["events"],
        serde_json::json!(["lead.created", "batch.completed"])
    );
    let wid = listed[0]["id"].as_i64().unwrap();

    // The secret is on the answer to the form only.
    let page = b.get(&format!("/teams/{team}")).await;
    assert!(page.body.contains(URL));
    assert!(!page.body.contains(&secret), "the secret shown again");
    assert!(page.body.contains("No deliveries yet."));

    // A refused URL shows the form again with what was typed.
    let refused = add(&mut b, team, "ftp://crm.example.com/x").await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("value=\"ftp://crm.example.com/x\""));
    assert_eq!(endpoints(&app, &owner.key, team).await.len(), 1);

    let csrf = page.field("csrf");
    let sent = press(&mut b, &format!("/teams/{team}/webhooks/{wid}/test"), &csrf).await;
    let page = b.get(sent.location()).await;
    assert!(
        page.body.contains("A test event was queued"),
        "{}",
        page.body
    );
    assert!(page.body.contains("webhook.test"), "{}", page.body);

    let deliveries = deliveries(&app, &owner.key, team, wid).await;
    let did = deliveries[0]["id"].as_i64().unwrap();
    let retried = press(
        &mut b,
        &format!("/teams/{team}/webhooks/{wid}/deliveries/{did}/retry"),
        &csrf,
    )
    .await;
    assert!(retried.location().contains("done=webhook-retried"));

    // Every form checks its CSRF token.
    for path in form_paths(team, wid, did) {
        let forged = b.post(&path, &[("csrf", "0123abcd"), ("url", URL)]).await;
        assert_eq!(forged.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(endpoints(&app, &owner.key, team).await.len(), 1);
}

/// The secret input's value on a page that shows one.
fn shown_secret(page: &crate::pages::Page) -> String {
    page.text_after(
        "id=\"webhook-secret\" class=\"mono\" type=\"text\" readonly value=\"",
        '"',
    )
}

async fn owners_disable_enable_rotate_and_delete_from_the_team_page(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Hooked").await;
    let mut b = sign_in(&app, "owner@example.com").await;
    let secret = shown_secret(&add(&mut b, team, URL).await);
    let wid = endpoints(&app, &owner.key, team).await[0]["id"]
        .as_i64()
        .unwrap();
    let hook = format!("/teams/{team}/webhooks/{wid}");
    let csrf = b.get(&format!("/teams/{team}")).await.field("csrf");

    let off = press(&mut b, &format!("{hook}/disable"), &csrf).await;
    assert!(off.location().contains("done=webhook-disabled"));
    assert_eq!(
        endpoints(&app, &owner.key, team).await[0]["is_active"],
        false
    );
    let page = b.get(off.location()).await;
    assert!(page.body.contains("Endpoint disabled"), "{}", page.body);
    assert!(page.body.contains(&format!("action=\"{hook}/enable\"")));
    press(&mut b, &format!("{hook}/enable"), &csrf).await;
    assert_eq!(
        endpoints(&app, &owner.key, team).await[0]["is_active"],
        true
    );

    // A new secret: shown on the answer (200, no redirect), then never again.
    let rotated = b
        .post(&format!("{hook}/rotate-secret"), &[("csrf", &csrf)])
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    assert!(rotated.body.contains("New signing secret"));
    let new_secret = shown_secret(&rotated);
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    let page = b.get(&format!("/teams/{team}")).await;
    assert!(!page.body.contains(&new_secret) && !page.body.contains(&secret));

    // Delete: a confirmation page first (a GET changes nothing), then the form.
    let confirm = b.get(&format!("{hook}/delete")).await;
    assert_eq!(confirm.status, StatusCode::OK);
    assert!(confirm.body.contains("Delete this webhook endpoint?"));
    assert_eq!(endpoints(&app, &owner.key, team).await.len(), 1);
    let deleted = press(&mut b, &format!("{hook}/delete"), &csrf).await;
    assert!(deleted.location().contains("done=webhook-deleted"));
    assert!(endpoints(&app, &owner.key, team).await.is_empty());
    assert_eq!(
        b.get(&format!("{hook}/delete")).await.status,
        StatusCode::NOT_FOUND
    );
}

async fn members_get_no_section_and_other_teams_ids_are_not_found(app: TestApp) {
    let [owner, member, rival] = app.users(["owner", "member", "rival"]).await;
    let team = team_of(&app, &owner, "Alpha", &[(&member, "member")]).await;
    let theirs = create_team_id(&app, &rival.key, "Bravo").await;
    let mut o = sign_in(&app, "owner@example.com").await;
    assert_eq!(add(&mut o, team, URL).await.status, StatusCode::OK);
    let wid = endpoints(&app, &owner.key, team).await[0]["id"]
        .as_i64()
        .unwrap();
    let (_, delivery) = send_test(&app, &owner.key, team, wid).await;
    let did = delivery["id"].as_i64().unwrap();

    let mut m = sign_in(&app, "member@example.com").await;
    let page = m.get(&format!("/teams/{team}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        !page.body.contains("id=\"webhooks\""),
        "a member sees webhooks"
    );
    assert!(!page.body.contains(URL));
    let csrf = page.field("csrf");
    let paths = form_paths(team, wid, did);
    refused(&mut m, &csrf, &paths, StatusCode::FORBIDDEN).await;
    assert_eq!(
        m.get(&format!("/teams/{team}/webhooks/{wid}/delete"))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        endpoints(&app, &owner.key, team).await[0]["is_active"],
        true
    );
    assert_eq!(endpoints(&app, &owner.key, team).await.len(), 1);

    // The rival owns a team of their own: Alpha's ids are not found through it, nor directly.
    let mut r = sign_in(&app, "rival@example.com").await;
    let csrf = r.get(&format!("/teams/{theirs}")).await.field("csrf");
    let paths = [
        format!("/teams/{theirs}/webhooks/{wid}/test"),
        format!("/teams/{theirs}/webhooks/{wid}/deliveries/{did}/retry"),
        format!("/teams/{theirs}/webhooks/{wid}/disable"),
        format!("/teams/{theirs}/webhooks/{wid}/rotate-secret"),
        format!("/teams/{theirs}/webhooks/{wid}/delete"),
        format!("/teams/{team}/webhooks"),
        format!("/teams/{team}/webhooks/{wid}/test"),
        format!("/teams/{team}/webhooks/{wid}/deliveries/{did}/retry"),
        format!("/teams/{team}/webhooks/{wid}/disable"),
        format!("/teams/{team}/webhooks/{wid}/rotate-secret"),
        format!("/teams/{team}/webhooks/{wid}/delete"),
    ];
    refused(&mut r, &csrf, &paths, StatusCode::NOT_FOUND).await;
    assert_eq!(deliveries(&app, &owner.key, team, wid).await.len(), 1);
}

/// A deactivated team's section says it takes no new or changed endpoints and offers none of
/// what the API refuses it (403 Team is inactive): no form to add one, no Enable, no New secret;
/// turning an active endpoint off, a test event and deleting stay, and turning off works.
async fn an_inactive_teams_section_offers_no_new_or_changed_endpoints(app: TestApp) {
    const OFF: &str = "https://crm.example.com/hooks/off";
    let owner = app.user("owner@example.com").await;
    let team = create_team_id(&app, &owner.key, "Closing").await;
    let mut b = sign_in(&app, "owner@example.com").await;
    for url in [URL, OFF] {
        assert_eq!(add(&mut b, team, url).await.status, StatusCode::OK);
    }
    let id_of = |list: &[Value], url: &str| {
        list.iter().find(|e| e["url"] == url).unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let list = endpoints(&app, &owner.key, team).await;
    let (on, off) = (id_of(&list, URL), id_of(&list, OFF));
    let (on, off) = (
        format!("/teams/{team}/webhooks/{on}"),
        format!("/teams/{team}/webhooks/{off}"),
    );
    let csrf = b.get(&format!("/teams/{team}")).await.field("csrf");
    press(&mut b, &format!("{off}/disable"), &csrf).await;
    let page = b.get(&format!("/teams/{team}")).await;
    assert!(
        !page.body.contains("id=\"webhooks-inactive\""),
        "{}",
        page.body
    );
    let (status, body) = app.delete(&format!("/api/teams/{team}"), &owner.key).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let inactive = "This team is inactive, so it takes no new or changed webhook endpoints";
    let page = page_shows(&mut b, &format!("/teams/{team}"), &[inactive, URL, OFF]).await;
    let action = |path: String| format!("action=\"{path}\"");
    for shown in [
        action(format!("{on}/disable")),
        action(format!("{on}/test")),
        action(format!("{off}/test")),
        format!("href=\"{on}/delete\""),
        format!("href=\"{off}/delete\""),
    ] {
        assert!(page.body.contains(&shown), "{shown} missing: {}", page.body);
    }
    for hidden in [
        action(format!("/teams/{team}/webhooks")),
        action(format!("{off}/enable")),
        action(format!("{on}/rotate-secret")),
        action(format!("{off}/rotate-secret")),
        "Add an endpoint".to_owned(),
        "New secret".to_owned(),
        ">Enable<".to_owned(),
    ] {
        assert!(
            !page.body.contains(&hidden),
            "{hidden} shown: {}",
            page.body
        );
    }

    // What it still offers works: the active endpoint turns off, and then offers nothing to
    // turn back on.
    let csrf = page.field("csrf");
    let done = press(&mut b, &format!("{on}/disable"), &csrf).await;
    let page = b.get(done.location()).await;
    assert!(page.body.contains("Endpoint disabled"), "{}", page.body);
    assert!(!page.body.contains(&action(format!("{on}/enable"))));
    let list = endpoints(&app, &owner.key, team).await;
    assert!(list.iter().all(|e| e["is_active"] == false), "{list:?}");
}

/// Posts the webhook forms at `paths` as `browser` and expects `status` from each.
async fn refused(browser: &mut Browser, csrf: &str, paths: &[String], status: StatusCode) {
    for path in paths {
        let answer = browser
            .post(path, &[("csrf", csrf), ("url", URL), ("all", "on")])
            .await;
        assert_eq!(answer.status, status, "{path}");
    }
}
