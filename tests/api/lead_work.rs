//! Working leads end to end (issue 29, docs/working-leads.md): the lead's working fields and
//! ETag, list filters, PATCH, notes, the timeline, archive/restore, moves, claims, bulk changes
//! and the permission matrix.
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::{leads, team_members, users};
use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::helpers::{join, listed, locs, problem_type, submit, team};
use crate::lead_pages::fetch_csv;
use crate::webhooks::{first_payload, hooked_team};

/// The people of these tests: Olive owns team A, Adam is its admin, Mia a member; Otto is a
/// member of team B only; Root is a platform admin; Nobody belongs to no team.
pub(crate) struct Cast {
    pub(crate) olive: TestUser,
    pub(crate) adam: TestUser,
    pub(crate) mia: TestUser,
    pub(crate) otto: TestUser,
    pub(crate) root: TestUser,
    pub(crate) nobody: TestUser,
    pub(crate) a: i64,
    pub(crate) b: i64,
}

pub(crate) async fn set_role(app: &TestApp, team_id: i64, user: &TestUser, role: &'static str) {
    let user_id = user.user.id;
    app.write_db(move |conn| {
        diesel::update(
            team_members::table
                .filter(team_members::team_id.eq(team_id))
                .filter(team_members::user_id.eq(user_id)),
        )
        .set(team_members::role.eq(role))
        .execute(conn)
    })
    .await;
}

pub(crate) async fn cast(app: &TestApp) -> Cast {
    let [olive, adam, mia, otto] = app.users(["olive", "adam", "mia", "otto"]).await;
    let root = app.admin("root@example.com").await;
    let nobody = app.user("nobody@example.com").await;
    let a = team(app, "A", &olive).await;
    set_role(app, a, &olive, "owner").await;
    join(app, a, &adam).await;
    set_role(app, a, &adam, "admin").await;
    join(app, a, &mia).await;
    let b = team(app, "B", &otto).await;
    Cast {
        olive,
        adam,
        mia,
        otto,
        root,
        nobody,
        a,
        b,
    }
}

/// A lead of `team_id` (or of no team) at `n Oak St`, Austin; its id.
pub(crate) async fn lead_at(app: &TestApp, key: &str, n: u32, team_id: Option<i64>) -> i64 {
    let mut lead = json!({"address": format!("{n} Oak St"), "city": "Austin", "state": "TX",
        "zip_code": "78701", "first_name": "Lee"});
    if let Some(t) = team_id {
        lead["team_id"] = json!(t);
    }
    submit(app, key, lead).await["result_lead_id"]
        .as_i64()
        .unwrap()
}

/// GETs lead `id` without following a redirect: its status, headers and body.
async fn fetch(
    app: &TestApp,
    id: i64,
    key: &str,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let path = format!("/api/v1/leads/{id}");
    send(app, Method::GET, &path, key, &[], None).await
}

/// A PATCH of `path` that applies only while the lead's ETag is `etag`.
async fn patch_if_match(
    app: &TestApp,
    path: &str,
    key: &str,
    etag: &str,
    body: Value,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let headers = [("If-Match", etag)];
    send(app, Method::PATCH, path, key, &headers, Some(body)).await
}

/// A request with extra headers; the status, the headers and the JSON body.
pub(crate) async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    key: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = client.request(method, app.url(path)).bearer_auth(key);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, headers, json)
}

pub(crate) async fn patch(app: &TestApp, id: i64, key: &str, body: Value) -> (StatusCode, Value) {
    app.patch(&format!("/api/v1/leads/{id}"), key, body).await
}

/// `key`'s holder assigns lead `id` to `assignee`.
async fn assign(app: &TestApp, id: i64, key: &str, assignee: &TestUser) -> (StatusCode, Value) {
    patch(app, id, key, json!({"assignee_id": assignee.user.user_id})).await
}

pub(crate) fn ids(page: &Value) -> Vec<i64> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect()
}

/// Lead `id`'s timeline as `key`'s holder reads it: its first page, newest first.
pub(crate) async fn timeline(app: &TestApp, id: i64, key: &str) -> Vec<Value> {
    let (status, mut page) = app.get(&format!("/api/v1/leads/{id}/activity"), key).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    match page["items"].take() {
        Value::Array(items) => items,
        other => panic!("no items: {other}"),
    }
}

/// The newest entry of `kind` in lead `id`'s timeline (the test fails without one).
pub(crate) async fn newest_of_kind(app: &TestApp, id: i64, key: &str, kind: &str) -> Value {
    let entries = timeline(app, id, key).await;
    let found = entries.iter().find(|e| e["kind"] == kind).cloned();
    found.unwrap_or_else(|| panic!("no {kind} entry: {entries:?}"))
}

async fn kinds(app: &TestApp, id: i64, key: &str) -> Vec<String> {
    let entries = timeline(app, id, key).await;
    entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

async fn working_fields_etag_and_list_filters(app: TestApp) {
    let c = cast(&app).await;
    let first = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let second = lead_at(&app, &c.mia.key, 2, Some(c.a)).await;
    let (status, headers, lead) = fetch(&app, first, &c.mia.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lead["status"], "new");
    assert_eq!(lead["assignee_id"], Value::Null);
    assert_eq!(lead["version"], 1);
    assert_eq!(lead["archived_at"], Value::Null);
    assert_eq!(lead["merged_into_id"], Value::Null);
    assert_eq!(headers["etag"], "\"1\"");

    let mia_id = c.mia.user.user_id.clone();
    let (status, body) = patch(
        &app,
        first,
        &c.olive.key,
        json!({"status": "won", "assignee_id": mia_id}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["assignee_id"], json!(mia_id));
    assert_eq!(body["version"], 2);
    assert_eq!(listed(&app, &c.mia.key, "?status=won").await, [first]);
    assert_eq!(listed(&app, &c.mia.key, "?status=NEW").await, [second]);
    assert_eq!(listed(&app, &c.mia.key, "?assignee=me").await, [first]);
    assert_eq!(
        listed(&app, &c.olive.key, "?assignee=me").await,
        Vec::<i64>::new()
    );
    assert_eq!(listed(&app, &c.olive.key, "?assignee=none").await, [second]);
    assert_eq!(
        listed(&app, &c.olive.key, "?assignee=none&status=won").await,
        Vec::<i64>::new()
    );
    assert_eq!(
        listed(&app, &c.olive.key, &format!("?assignee={mia_id}")).await,
        [first]
    );
    // `open`: new, contacted or qualified, counted by the rollup like one status.
    assert_eq!(listed(&app, &c.mia.key, "?status=open").await, [second]);
    assert_eq!(
        listed(&app, &c.mia.key, "?status=%20Open&assignee=me").await,
        Vec::<i64>::new()
    );
    let (status, body) = app.get("/api/v1/leads?status=done", &c.mia.key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.to_string().contains("'open'"), "{body}");
    // A lead's status is one of the five: `open` is a filter's word only.
    let (status, body) = patch(&app, second, &c.mia.key, json!({"status": "open"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    // Archived leads leave the list and the export unless asked for; merged leads always.
    let (status, _) = app
        .delete(&format!("/api/v1/leads/{second}"), &c.adam.key)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed(&app, &c.mia.key, "").await, [first]);
    assert_eq!(listed(&app, &c.mia.key, "?archived=true").await, [second]);
    let export = fetch_csv(&app, "/api/v1/leads/export", &c.mia.key).await.1;
    assert_eq!(export.lines().count(), 2, "{export}");
    // The working state is in the export too, last, named as in the lead's JSON.
    let mut rows = csv::Reader::from_reader(export.as_bytes());
    let header = rows.headers().unwrap().clone();
    let work: Vec<&str> = header.iter().rev().take(12).collect();
    let last = [
        "do_not_call_phones",
        "wrong_phones",
        "tags",
        "do_not_call",
        "contact_count",
        "last_contact_outcome",
        "last_contact_at",
        "follow_up_on",
        "archived_at",
        "assignee_email",
        "assignee_id",
        "status",
    ];
    assert_eq!(work, last);
    let record = rows.records().next().unwrap().unwrap();
    let tail: Vec<&str> = record.iter().rev().take(12).collect();
    let work = ["", "", "mia@example.com", mia_id.as_str(), "won"];
    assert_eq!(
        tail,
        [&["", "", "", "false", "0", "", ""][..], &work].concat()
    );
    let archived = fetch_csv(&app, "/api/v1/leads/export?archived=true", &c.mia.key)
        .await
        .1;
    let archived_at = archived.lines().nth(1).unwrap().rsplit(',').nth(8).unwrap();
    assert!(
        archived_at.starts_with("20") && archived_at.ends_with('Z'),
        "{archived}"
    );
    app.write_db(move |conn| {
        diesel::update(leads::table.find(first))
            .set((
                leads::merged_into_id.eq(Some(second)),
                leads::address_key.eq(None::<String>),
            ))
            .execute(conn)
    })
    .await;
    assert_eq!(listed(&app, &c.mia.key, "").await, Vec::<i64>::new());
    let (status, headers, body) = fetch(&app, first, &c.mia.key).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY, "{body}");
    assert_eq!(
        headers["location"],
        format!("/api/v1/leads/{second}").as_str()
    );
    assert_eq!(body["merged_into"], second);
    // Outsiders still learn nothing.
    let (status, _) = app
        .get(&format!("/api/v1/leads/{first}"), &c.otto.key)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn patch_validates_normalises_and_guards_versions(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let other = lead_at(&app, &c.mia.key, 5, Some(c.a)).await;
    let path = format!("/api/v1/leads/{id}");

    let (status, headers, body) = patch_if_match(
        &app,
        &path,
        &c.mia.key,
        "\"1\"",
        json!({"email_1": " LEE@Example.COM ", "state": "tx", "lot_size": "big",
            "last_name": "Park", "first_name": null}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(headers["etag"], "\"2\"");
    assert_eq!(body["email_1"], "lee@example.com");
    assert_eq!(body["state"], "TX");
    assert_eq!(body["lot_size"], "big", "kept, with a warning");
    assert_eq!(body["first_name"], Value::Null, "null clears a field");
    assert_eq!(body["last_name"], "Park");
    assert_eq!(body["validation_warnings"][0]["code"], "unparsed_lot_size");

    // A stale If-Match: 412 and nothing changes.
    let (status, _, body) =
        patch_if_match(&app, &path, &c.mia.key, "\"1\"", json!({"status": "lost"})).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{body}");
    // If-Match compares strongly: the current version as a weak tag does not match.
    let (status, _, body) = patch_if_match(
        &app,
        &path,
        &c.mia.key,
        "W/\"2\"",
        json!({"status": "lost"}),
    )
    .await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{body}");
    let (_, lead) = app.get(&path, &c.mia.key).await;
    assert_eq!(lead["status"], "new");
    // The first edit changed no indexed column (state stayed TX), so its row was written
    // without them (db `lead::unindexed`): read back, it holds every change.
    assert_eq!(lead["email_1"], "lee@example.com");
    assert_eq!(lead["last_name"], "Park");
    assert_eq!(lead["first_name"], Value::Null);
    assert_eq!(lead["lot_size"], "big");
    assert_eq!(lead["state"], "TX");
    // Without If-Match the change applies to the lead as it is.
    let (status, body) = patch(&app, id, &c.mia.key, json!({"status": "contacted"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["version"], 3);

    // Intake's request rules, every problem named; unknown members refused.
    let (status, body) = patch(
        &app,
        id,
        &c.mia.key,
        json!({"state": "XX", "bedrooms": 101, "status": "done", "colour": "red", "team_id": 3}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let locs: Vec<String> = body["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["loc"][1].as_str().unwrap().to_owned())
        .collect();
    for field in ["state", "bedrooms", "status", "colour", "team_id"] {
        assert!(locs.contains(&field.to_owned()), "{field}: {body}");
    }
    let (status, _) = patch(&app, id, &c.mia.key, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    // An address another lead of the team already is: 409 naming it; the lead keeps its own.
    let (status, body) = patch(&app, id, &c.mia.key, json!({"address": "5 Oak Street"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["lead_id"], other);
    let (status, body) = patch(&app, id, &c.mia.key, json!({"address": "7 Oak Street"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["address_standardized"], "7 OAK ST");
    // A new submission for the new address merges into the edited lead.
    let again = lead_at(&app, &c.mia.key, 7, Some(c.a)).await;
    assert_eq!(again, id);

    // The assignee: an active member of the lead's team.
    let (status, body) = assign(&app, id, &c.mia.key, &c.otto).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "assignee_id"]));
    let unassigned = lead_at(&app, &c.mia.key, 9, None).await;
    let (status, body) = assign(&app, unassigned, &c.mia.key, &c.mia).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    // Newest first; times are whole seconds, and within one second the service's own rows
    // come before submissions, so only the order of each source is fixed here.
    let (_, all) = app
        .get(&format!("/api/v1/leads/{id}/activity"), &c.mia.key)
        .await;
    let items = all["items"].as_array().unwrap();
    assert_eq!(all["total"], 5);
    let of = |submissions: bool| -> Vec<&Value> {
        items
            .iter()
            .filter(|e| (e["kind"] == "submission") == submissions)
            .collect()
    };
    let changes: Vec<&str> = of(false)
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["edited", "status_changed", "edited"]);
    let actions: Vec<&str> = of(true)
        .iter()
        .map(|e| e["detail"]["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["updated", "created"]);
    let times: Vec<&str> = items.iter().map(|e| e["at"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let address = of(false)[0];
    assert_eq!(
        address["detail"]["changes"]["address"],
        json!({"old": "1 Oak St", "new": "7 Oak Street"})
    );
    assert_eq!(address["actor"]["email"], "mia@example.com");
    let (_, page) = app
        .get(
            &format!("/api/v1/leads/{id}/activity?limit=2&offset=1"),
            &c.mia.key,
        )
        .await;
    assert_eq!(page["total"], 5);
    assert_eq!(page["items"].as_array().unwrap()[..], items[1..3]);
    // A member whose account was deactivated is no longer one who may work the lead.
    let dora = app.user("dora@example.com").await;
    join(&app, c.a, &dora).await;
    let to_dora = json!({"assignee_id": dora.user.user_id});
    let (status, body) = patch(&app, id, &c.mia.key, to_dora.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    patch(&app, id, &c.mia.key, json!({"assignee_id": null})).await;
    let dora_id = dora.user.id;
    app.write_db(move |conn| {
        diesel::update(users::table.find(dora_id))
            .set(users::deactivated_at.eq(Some(chrono::Utc::now().naive_utc())))
            .execute(conn)
    })
    .await;
    let (status, body) = patch(&app, id, &c.mia.key, to_dora).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "assignee_id"]));
}

async fn notes_and_their_deletion(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let notes = format!("/api/v1/leads/{id}/notes");
    let (status, mine) = app
        .post(
            &notes,
            &c.mia.key,
            json!({"body": "Owner says call back Monday"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{mine}");
    assert_eq!(mine["author"]["email"], "mia@example.com");
    // Pasted with Windows line ends and a terminal's colour codes: the lines stay, the controls go.
    let pasted = json!({"body": "  Sent the quote\r\n\u{1b}[1mby mail\u{7}  \r\n"});
    let (status, olives) = app.post(&notes, &c.olive.key, pasted).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(olives["body"], "Sent the quote\n[1mby mail");
    for bad in [
        json!({"body": ""}),
        json!({"body": " \r\n\u{1b}\t"}),
        json!({"body": "x".repeat(10_001)}),
        json!({}),
    ] {
        let (status, body) = app.post(&notes, &c.mia.key, bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let (status, _) = app.post(&notes, &c.otto.key, json!({"body": "hi"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "outsiders see no lead");
    let (_, page) = app.get(&notes, &c.adam.key).await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["items"][0]["body"], olives["body"], "newest first");

    let delete = |note: &Value| format!("{notes}/{}", note["id"]);
    let (status, _) = app.delete(&delete(&olives), &c.mia.key).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a member deletes only their own notes"
    );
    let (status, _) = app.delete(&delete(&mine), &c.mia.key).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.delete(&delete(&mine), &c.mia.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.delete(&delete(&olives), &c.adam.key).await;
    assert_eq!(status, StatusCode::OK, "an admin deletes others' notes");
    let (_, page) = app.get(&notes, &c.mia.key).await;
    assert_eq!(page["total"], 0);
    assert_eq!(
        kinds(&app, id, &c.mia.key).await,
        [
            "note_deleted",
            "note_deleted",
            "note_added",
            "note_added",
            "submission"
        ]
    );
}

async fn archive_restore_and_the_permission_matrix(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let unassigned = lead_at(&app, &c.nobody.key, 2, None).await;
    let archive = |id: i64| format!("/api/v1/leads/{id}");
    let restore = |id: i64| format!("/api/v1/leads/{id}/restore");

    let (status, _) = app.delete(&archive(id), &c.mia.key).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a member");
    let (status, _) = app.delete(&archive(id), &c.otto.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a member of another team");
    let (status, _) = app.delete(&archive(id), &c.nobody.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a user of no team");
    for who in [&c.adam, &c.olive, &c.root] {
        let (status, body) = app.delete(&archive(id), &who.key).await;
        assert_eq!(status, StatusCode::OK, "{}: {body}", who.user.email);
        assert!(body["archived_at"].is_string());
        let (status, body) = app.post(&restore(id), &who.key, json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["archived_at"], Value::Null);
    }
    let (status, _) = app.post(&restore(id), &c.mia.key, json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // An unassigned lead: seen and worked by everyone, archived by platform admins only.
    for who in [&c.nobody, &c.olive] {
        let (status, _) = app.delete(&archive(unassigned), &who.key).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{}", who.user.email);
        let (status, body) =
            patch(&app, unassigned, &who.key, json!({"status": "contacted"})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, _) = app.delete(&archive(unassigned), &c.root.key).await;
    assert_eq!(status, StatusCode::OK);

    // A new submission for an archived lead's property merges and restores the lead.
    let (status, _) = app.delete(&archive(id), &c.adam.key).await;
    assert_eq!(status, StatusCode::OK);
    let result = submit(
        &app,
        &c.mia.key,
        json!({"address": "1 Oak St", "city": "Austin",
        "state": "TX", "zip_code": "78701", "last_name": "Nguyen", "team_id": c.a}),
    )
    .await;
    assert_eq!(result["result_lead_id"], id);
    assert_eq!(result["result_action"], "updated");
    let (_, lead) = app.get(&archive(id), &c.mia.key).await;
    assert_eq!(lead["archived_at"], Value::Null);
    assert_eq!(lead["last_name"], "Nguyen");
    let restored = newest_of_kind(&app, id, &c.mia.key, "resubmitted_restored").await;
    assert_eq!(restored["detail"]["submission_id"], result["id"]);
}

async fn moves_claims_and_leaving_members(app: TestApp) {
    let c = cast(&app).await;
    join(&app, c.b, &c.adam).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let mia_id = c.mia.user.user_id.clone();
    let (status, _) = patch(&app, id, &c.mia.key, json!({"assignee_id": mia_id})).await;
    assert_eq!(status, StatusCode::OK);
    let move_to = format!("/api/v1/leads/{id}/move");
    let (status, _) = app
        .post(&move_to, &c.mia.key, json!({"team_id": c.b}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a member moves nothing out");
    let (status, _) = app
        .post(&move_to, &c.olive.key, json!({"team_id": c.b}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the owner is no member of B");
    let (status, body) = app
        .post(&move_to, &c.adam.key, json!({"team_id": c.b}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["team_id"], c.b);
    assert_eq!(body["assignee_id"], Value::Null, "the assignee is cleared");
    let (status, _) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "team A sees it no more");
    let (status, _) = app.get(&format!("/api/v1/leads/{id}"), &c.otto.key).await;
    assert_eq!(status, StatusCode::OK);

    // A collision in the target scope names the lead there.
    let in_a = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{in_a}/move"),
            &c.adam.key,
            json!({"team_id": c.b}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["lead_id"], id);

    // Claims: any user, an unassigned lead, into one of their teams.
    let free = lead_at(&app, &c.nobody.key, 3, None).await;
    let claim = format!("/api/v1/leads/{free}/claim");
    let (status, _) = app.post(&claim, &c.otto.key, json!({"team_id": c.a})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = app.post(&claim, &c.otto.key, json!({"team_id": c.b})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["team_id"], c.b);
    let (status, _) = app.post(&claim, &c.otto.key, json!({"team_id": c.b})).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a lead of a team is not claimed"
    );
    let (status, _) = app.post(&claim, &c.mia.key, json!({"team_id": c.a})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nor seen outside its team");
    assert_eq!(
        kinds(&app, free, &c.otto.key).await,
        ["team_moved", "submission"]
    );

    // A member leaving a team stops working its leads.
    let assigned = lead_at(&app, &c.mia.key, 4, Some(c.a)).await;
    let (status, _) = assign(&app, assigned, &c.adam.key, &c.mia).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = app
        .delete(
            &format!("/api/teams/{}/members/{}", c.a, c.mia.user.user_id),
            &c.olive.key,
        )
        .await;
    assert!(status.is_success(), "{body}");
    let (_, lead) = app
        .get(&format!("/api/v1/leads/{assigned}"), &c.olive.key)
        .await;
    assert_eq!(lead["assignee_id"], Value::Null);
}

const BULK: &str = "/api/v1/leads/bulk";

/// A bulk change's request body.
fn bulk_body(ids: Vec<i64>, set: Value) -> Value {
    json!({"ids": ids, "set": set})
}

/// A bulk change: `set` on every lead of `ids`, by `key`'s holder.
async fn bulk(app: &TestApp, key: &str, ids: Vec<i64>, set: Value) -> (StatusCode, Value) {
    app.post(BULK, key, bulk_body(ids, set)).await
}

async fn bulk_changes_are_all_or_nothing(app: TestApp) {
    let c = cast(&app).await;
    let ours: Vec<i64> =
        futures_util::future::join_all((1..=3).map(|n| lead_at(&app, &c.mia.key, n, Some(c.a))))
            .await;
    let theirs = lead_at(&app, &c.otto.key, 9, Some(c.b)).await;
    let mut mixed = ours.clone();
    mixed.push(theirs);
    mixed.push(999_999);
    let (status, body) = bulk(&app, &c.adam.key, mixed, json!({"status": "qualified"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        locs(&body),
        [json!(["body", "ids", 3]), json!(["body", "ids", 4])]
    );
    assert_eq!(
        listed(&app, &c.mia.key, "?status=qualified").await,
        Vec::<i64>::new(),
        "nothing changed"
    );

    let (status, body) = bulk(
        &app,
        &c.mia.key,
        ours.clone(),
        json!({"status": "qualified", "assignee_id": c.mia.user.user_id}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["updated"], 3);
    assert_eq!(
        listed(&app, &c.mia.key, "?status=qualified&assignee=me")
            .await
            .len(),
        3
    );
    let (status, _) = bulk(&app, &c.mia.key, ours.clone(), json!({"archived": true})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "members do not archive"
    );
    let (status, _) = bulk(&app, &c.olive.key, ours.clone(), json!({"archived": true})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed(&app, &c.mia.key, "").await, Vec::<i64>::new());
    for bad in [
        bulk_body(vec![], json!({"status": "won"})),
        bulk_body(ours.clone(), json!({})),
        bulk_body((1..=1001).collect(), json!({"status": "won"})),
        bulk_body(vec![ours[0], ours[0]], json!({"status": "won"})),
    ] {
        let (status, body) = app.post(BULK, &c.olive.key, bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
}

/// A member a bulk change does not know, in `set` or beside it, is a 422 naming it (a typo
/// would otherwise leave every lead as it is, answered 200); nothing changes.
async fn a_bulk_change_names_members_it_does_not_know(app: TestApp) {
    let c = cast(&app).await;
    let id = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let (status, body) = app
        .post(
            BULK,
            &c.olive.key,
            json!({"ids": [id], "set": {"status": "won", "colour": "red"}, "extra": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let found = locs(&body);
    assert_eq!(found.len(), 2, "{body}");
    for at in [json!(["body", "set", "colour"]), json!(["body", "extra"])] {
        assert!(found.contains(&at), "{at}: {body}");
        assert_eq!(problem_type(&body, &at).as_deref(), Some("extra_forbidden"));
    }
    let (status, body) = bulk(&app, &c.olive.key, vec![id], json!({"satus": "won"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "set", "satus"])]);
    let (_, lead) = app.get(&format!("/api/v1/leads/{id}"), &c.mia.key).await;
    assert_eq!(lead["status"], "new", "nothing changed");
    let (status, body) = bulk(&app, &c.olive.key, vec![id], json!({"status": "won"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// A PATCH sends `lead.updated` whose body carries what it changed in `changes` beside `data`
/// (docs/webhooks.md).
async fn patch_sends_lead_updated_with_its_changes(app: TestApp) {
    let (app, owner, team) = hooked_team(app, json!(["lead.updated"])).await;
    let lead = lead_at(&app, &owner.key, 9, Some(team)).await;
    let (status, body) = patch(
        &app,
        lead,
        &owner.key,
        json!({"status": "contacted", "email_1": "lee@example.com", "follow_up_on": "2026-12-24"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let payload = first_payload(&app, "lead.updated").await;
    assert_eq!(payload["data"]["id"], json!(lead), "{payload}");
    assert_eq!(payload["data"]["status"], json!("contacted"), "{payload}");
    assert_eq!(payload["data"]["follow_up_on"], "2026-12-24", "{payload}");
    assert_eq!(
        payload["changes"],
        json!({"status": {"old": "new", "new": "contacted"},
               "email_1": {"old": null, "new": "lee@example.com"},
               "follow_up_on": {"old": null, "new": "2026-12-24"}}),
        "{payload}"
    );
    assert!(payload.get("merged_id").is_none(), "{payload}");
}

/// A PATCH has no verbatim copy of what it sends (a submission has): a value normalising would
/// drop is a 422 naming it, and nothing changes; `null` or a blank string still clears.
async fn a_patch_refuses_a_value_it_would_drop(app: TestApp) {
    let c = cast(&app).await;
    let lead = json!({"address": "4 Elm St", "city": "Austin", "state": "TX", "zip_code": "78701",
        "team_id": c.a, "primary_phone": "(512) 555-0100", "email_1": "lee@example.com",
        "permit_date": "2025-01-05", "related_url": "https://permits.example/4", "source": "web"});
    let id = submit(&app, &c.mia.key, lead).await["result_lead_id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/leads/{id}");
    let (_, stored) = app.get(&path, &c.mia.key).await;
    assert_eq!(stored["primary_phone"], "+15125550100", "{stored}");

    for (field, typed) in [
        ("primary_phone", "555-1234"),
        ("phone_2", "call me"),
        ("email_1", "dup@example"),
        ("permit_date", "next tuesday"),
        ("related_url", "not a url"),
        ("source", "---"),
    ] {
        let (status, body) = patch(
            &app,
            id,
            &c.mia.key,
            json!({field: typed, "last_name": "Park"}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{field}: {body}");
        let at = json!(["body", field]);
        assert_eq!(locs(&body), std::slice::from_ref(&at), "{field}: {body}");
        assert_eq!(
            problem_type(&body, &at).as_deref(),
            Some("value_error"),
            "{body}"
        );
        assert!(
            body["detail"][0]["msg"]
                .as_str()
                .is_some_and(|m| m.contains(typed)),
            "the value is named: {body}"
        );
        let (_, now) = app.get(&path, &c.mia.key).await;
        assert_eq!(now, stored, "{field}: nothing changes");
    }
    // Every such value is named at once.
    let (status, body) = patch(
        &app,
        id,
        &c.mia.key,
        json!({"primary_phone": "555-1234", "email_1": "dup@example"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        locs(&body),
        [json!(["body", "email_1"]), json!(["body", "primary_phone"])]
    );

    // Values normalising reads still change, and null or blank clears.
    let (status, body) = patch(
        &app,
        id,
        &c.mia.key,
        json!({"primary_phone": "512.555.0199", "permit_date": "Jan 6, 2025", "email_1": null,
            "related_url": "  "}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["primary_phone"], "+15125550199");
    assert_eq!(body["permit_date"], "2025-01-06");
    assert_eq!(body["email_1"], Value::Null);
    assert_eq!(body["related_url"], Value::Null);
    assert_eq!(body["validation_warnings"], json!([]), "{body}");
}

backend_tests!(
    a_patch_refuses_a_value_it_would_drop,
    a_bulk_change_names_members_it_does_not_know,
    patch_sends_lead_updated_with_its_changes,
    working_fields_etag_and_list_filters,
    patch_validates_normalises_and_guards_versions,
    notes_and_their_deletion,
    archive_restore_and_the_permission_matrix,
    moves_claims_and_leaving_members,
    bulk_changes_are_all_or_nothing,
    an_address_edit_and_a_submission_of_it_at_once_leave_one_lead,
);

/// A PATCH that gives a lead a new address and a submission of that address, at the same time,
/// many times: each round leaves one lead of the property (the submission merged into the edited
/// lead, or the PATCH refused with 409 naming the submission's lead). The PATCH keeps the lead's
/// ZIP and the submission has none, so their address keys differ and only the same-property
/// rule, not the unique index, tells them apart: the change must check it again under intake's
/// locks, where no submission can slip in after the service's own check.
async fn an_address_edit_and_a_submission_of_it_at_once_leave_one_lead(app: TestApp) {
    let olive = app.user("olive@example.com").await;
    let team_id = team(&app, "A", &olive).await;
    let id = lead_at(&app, &olive.key, 1, Some(team_id)).await;
    for round in 10..70 {
        let street = format!("{round} Elm St");
        let submission = json!({"address": street, "city": "Austin", "state": "TX",
                                "team_id": team_id});
        let ((edited, body), (submitted, result)) = tokio::join!(
            patch(&app, id, &olive.key, json!({ "address": street })),
            app.post("/api/v1/submissions/single", &olive.key, submission),
        );
        assert!(
            [StatusCode::OK, StatusCode::CONFLICT].contains(&edited),
            "{edited}: {body}"
        );
        assert_eq!(submitted, StatusCode::OK, "{result}");
        let key = format!("{round} ELM ST");
        let on_street: Vec<i64> = app
            .read_db(move |conn| {
                conn.load(
                    leads::table
                        .filter(leads::team_id.eq(team_id))
                        .filter(leads::street_key.eq(key))
                        .select(leads::id),
                )
            })
            .await;
        assert_eq!(on_street.len(), 1, "round {round}: {body} {result}");
    }
}
