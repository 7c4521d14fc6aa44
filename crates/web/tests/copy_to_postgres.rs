//! `leadhub copy-to`: a SQLite deployment moves to PostgreSQL and serves the same leads, teams,
//! keys, timelines and uploads there; a database holding data is never written into.
#![allow(clippy::unwrap_used)]

mod binary;
#[path = "../../../tests/support/python.rs"]
mod python;

use diesel::{Connection, RunQueryDsl};
use leadhub_domain::upload::{NewUpload, UploadKind, UploadStore};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

use binary::{json_of, wait_up, Env};
use python::Receiver;

/// Leads of the deployment: more than the copy's statements carry (500).
const LEADS: usize = 520;

/// A file as a Windows spreadsheet writes it: bytes that are not UTF-8 must arrive unchanged.
const UPLOAD: &[u8] = b"Address,City,State\r\n12 Caf\xe9 Ln,Austin,TX\r\n\x00\xff";

async fn post(client: &Client, base: &str, key: &str, path: &str, body: Value) -> Value {
    let answer = client
        .post(format!("{base}{path}"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let body: Value = answer.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{path}: {status} {body}");
    body
}

/// What people see of the deployment, read through the API.
async fn seen(client: &Client, base: &str, key: &str, lead: i64, team: i64) -> Vec<Value> {
    let mut seen = Vec::new();
    for path in [
        "/api/v1/leads?sort=created_at&limit=100".to_owned(),
        "/api/v1/leads?archived=true".to_owned(),
        "/api/v1/leads?q=Magnolia".to_owned(),
        "/api/v1/leads?contacted=true&tag=storm".to_owned(),
        "/api/v1/tags".to_owned(),
        "/api/teams".to_owned(),
        format!("/api/teams/{team}/members"),
        format!("/api/v1/leads/{lead}/notes"),
        format!("/api/v1/leads/{lead}/activity"),
    ] {
        let answer = client
            .get(format!("{base}{path}"))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
        seen.push(json!({ "path": path, "body": answer.json::<Value>().await.unwrap() }));
    }
    seen
}

fn first_user_id(database_url: &str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Id {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        id: i64,
    }
    let path = database_url.strip_prefix("sqlite://").unwrap();
    let mut conn = diesel::SqliteConnection::establish(path).unwrap();
    diesel::sql_query("SELECT id FROM users ORDER BY id LIMIT 1")
        .get_result::<Id>(&mut conn)
        .unwrap()
        .id
}

#[tokio::test]
async fn a_sqlite_deployment_moves_to_postgresql_and_serves_the_same() {
    let Some(target) = Env::new("copy_target", true) else {
        return;
    };
    let source = Env::new("copy_source", false).unwrap();
    let key = source.key();
    let client = Client::new();
    let (server, base) = source.serve();
    wait_up(&client, &base).await;

    let team = post(&client, &base, &key, "/api/teams", json!({"name": "North"})).await["id"]
        .as_i64()
        .unwrap();
    // More leads than one statement of the copy carries, so the merge below links two of them.
    let leads: Vec<Value> = (1..=LEADS)
        .map(|n| {
            json!({"address": format!("{n}0 Magnolia Ave"), "city": "Austin", "state": "TX",
                   "zip_code": "78701", "first_name": "Rosa", "last_name": format!("Owner{n}"),
                   "primary_phone": format!("512555{n:04}"), "phone_2": "5125559999"})
        })
        .collect();
    let batch = json!({"team_id": team, "leads": leads});
    let answer = post(&client, &base, &key, "/api/v1/submissions/batch", batch).await;
    let ids: Vec<i64> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["lead_id"].as_i64().unwrap())
        .collect();
    let (first, worked, archived, survivor) = (ids[0], ids[1], ids[2], ids[LEADS - 1]);
    let path = |id: i64, what: &str| format!("/api/v1/leads/{id}{what}");
    let notes = json!({"body": "Roof from 1998; call after 5"});
    post(&client, &base, &key, &path(worked, "/notes"), notes).await;
    let contact = json!({"outcome": "wrong_number", "phone": "+15125559999"});
    post(&client, &base, &key, &path(worked, "/contacts"), contact).await;
    let tags = json!({"ids": [worked, survivor], "set": {"add_tags": ["storm"]}});
    post(&client, &base, &key, "/api/v1/leads/bulk", tags).await;
    client
        .delete(format!("{base}{}", path(archived, "")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap();
    // The lead merged away names a lead written after it, by another statement of the copy:
    // linked in a second pass.
    let into = json!({"into": survivor});
    post(&client, &base, &key, &path(first, "/merge"), into).await;
    let before = seen(&client, &base, &key, worked, team).await;
    server.kill();

    let upload = source
        .db()
        .create_upload(
            NewUpload {
                kind: UploadKind::Leads,
                team_id: team,
                user_id: first_user_id(&source.database_url),
                file_name: "list.csv".into(),
                options: json!({}),
                content: UPLOAD.to_vec(),
                awaiting_columns: true,
            },
            chrono::Utc::now(),
        )
        .await
        .unwrap();

    let copied = source
        .command()
        .args(["copy-to", &target.database_url])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&copied.stdout),
        String::from_utf8_lossy(&copied.stderr),
    );
    assert!(copied.status.success(), "{err}");
    assert!(out.lines().any(|l| l == format!("leads\t{LEADS}")), "{out}");
    assert!(out.lines().any(|l| l == "uploads\t1"), "{out}");
    assert!(!out.contains("lead_daily_counts"), "{out}");

    // The target serves with the source's key, and nothing of its own runs meanwhile.
    let mut command = target.command();
    command.env("LEADHUB_WORKERS", "0");
    let (server, base) = binary::serve(command);
    wait_up(&client, &base).await;
    assert_eq!(seen(&client, &base, &key, worked, team).await, before);
    let content = target.db().upload_content(upload).await.unwrap();
    assert_eq!(content.as_deref(), Some(UPLOAD));

    // New rows are numbered after the copied ones.
    let single = json!({"address": "5 Pecan St", "city": "Austin", "state": "TX", "team_id": team});
    let written = post(&client, &base, &key, "/api/v1/submissions/single", single).await;
    assert!(
        written["result_lead_id"].as_i64().unwrap() > survivor,
        "{written}"
    );
    let list = json_of(
        client
            .get(format!("{base}/api/v1/leads?limit=1"))
            .bearer_auth(&key),
    )
    .await;
    // One lead archived and one merged away; one new.
    assert_eq!(list["total"], LEADS - 1, "{list}");
    server.kill();

    // A database holding data is refused, and keeps what it holds.
    let again = source
        .command()
        .args(["copy-to", &target.database_url])
        .output()
        .unwrap();
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("holds data already"), "{err}");
    let not_postgres = source
        .command()
        .args(["copy-to", "sqlite:///tmp/elsewhere.db"])
        .output()
        .unwrap();
    assert!(!not_postgres.status.success());
    let err = String::from_utf8_lossy(&not_postgres.stderr);
    assert!(err.contains("copies into PostgreSQL"), "{err}");
    // A server that does not answer is said once, on one line.
    let port = binary::free_port();
    let unreachable = source
        .command()
        .args([
            "copy-to",
            &format!("postgres://postgres@127.0.0.1:{port}/x"),
        ])
        .output()
        .unwrap();
    assert!(!unreachable.status.success());
    let err = String::from_utf8_lossy(&unreachable.stderr);
    assert_eq!(err.matches("cannot open the database").count(), 1, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let mut misnamed = source.command();
    misnamed.env("DATABASE_URL", "sqlite:///nowhere/leadhub.db");
    let misnamed = misnamed
        .args(["copy-to", &target.database_url])
        .output()
        .unwrap();
    assert!(!misnamed.status.success());
    let err = String::from_utf8_lossy(&misnamed.stderr);
    assert!(
        err.contains("no SQLite database at /nowhere/leadhub.db"),
        "{err}"
    );

    // The progress a person waiting sees: each table's rows, a statement (500 rows) at a time.
    let other = Env::new("copy_progress", true).unwrap();
    let mut heard: Vec<(String, i64)> = Vec::new();
    let mut progress = |table: &str, rows: i64| heard.push((table.to_owned(), rows));
    let (from, to) = (&source.database_url, &other.database_url);
    let copied = leadhub_db::copy_sqlite_to_postgres(from, to, &mut progress).unwrap();
    let of_leads: Vec<i64> = heard
        .iter()
        .filter(|(t, _)| t == "leads")
        .map(|(_, n)| *n)
        .collect();
    assert_eq!(of_leads, [500, LEADS as i64]);
    let place = |name: &str| copied.iter().position(|t| t.name == name).unwrap();
    assert!(place("teams") < place("leads"), "parents first: {copied:?}");
}

/// What the receiver verified with the endpoint's secret: `(webhook-id, lead id)`, in order.
fn verified(log: &[Value]) -> Vec<(String, i64)> {
    log.iter()
        .filter(|d| d["verified"] == true)
        .map(|d| {
            let id = d["id"].as_str().unwrap().to_owned();
            (id, d["body"]["data"]["id"].as_i64().unwrap())
        })
        .collect()
}

/// The webhook events a SQLite deployment had not delivered reach their receiver from
/// PostgreSQL, signed with the endpoint's copied secret: a delivery that had failed once (it
/// keeps its event's `webhook-id`) and an event not yet fanned out to its endpoints.
#[tokio::test]
async fn undelivered_webhook_events_go_out_from_postgresql() {
    let Some(target) = Env::new("copy_hooks_target", true) else {
        return;
    };
    let Some(rx) = Receiver::start() else {
        return;
    };
    let source = Env::new("copy_hooks", false).unwrap();
    let (source, target) = (
        source.vars(&python::LOCAL_WEBHOOKS),
        target.vars(&python::LOCAL_WEBHOOKS),
    );
    let key = source.key();
    let client = Client::new();
    let (server, base) = source.serve();
    wait_up(&client, &base).await;
    let team = post(&client, &base, &key, "/api/teams", json!({"name": "Hooks"})).await["id"]
        .as_i64()
        .unwrap();
    let endpoint = json!({"url": rx.url("hook"), "events": ["lead.created"]});
    let path = format!("/api/teams/{team}/webhooks");
    let hook = post(&client, &base, &key, &path, endpoint).await;
    rx.trust("hook", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    let lead = |n: i64| json!({"address": format!("{n} Pecan St"), "city": "Austin", "state": "TX", "team_id": team});
    let single = "/api/v1/submissions/single";
    let failed_once = post(&client, &base, &key, single, lead(1)).await["result_lead_id"]
        .as_i64()
        .unwrap();
    // The receiver knows another secret: it refuses the first attempt, and the next is 5 s away.
    let log = rx
        .wait_for(Duration::from_secs(30), |log| !log.is_empty())
        .await;
    assert_eq!(log[0]["verified"], false, "{log:?}");
    let refused_event = log[0]["id"].as_str().unwrap().to_owned();
    server.kill();
    // Without workers the next event stays as it was written, not fanned out to the endpoint.
    let mut no_workers = source.command();
    no_workers.env("LEADHUB_WORKERS", "0");
    let (server, base) = binary::serve(no_workers);
    wait_up(&client, &base).await;
    let not_fanned = post(&client, &base, &key, single, lead(2)).await["result_lead_id"]
        .as_i64()
        .unwrap();
    server.kill();

    let copied = source
        .command()
        .args(["copy-to", &target.database_url])
        .output()
        .unwrap();
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    let out = String::from_utf8_lossy(&copied.stdout);
    assert!(out.lines().any(|l| l == "webhook_deliveries\t1"), "{out}");
    assert!(out.lines().any(|l| l == "webhook_events\t1"), "{out}");

    rx.trust("hook", hook["secret"].as_str().unwrap());
    let (_server, base) = target.serve();
    wait_up(&client, &base).await;
    let log = rx
        .wait_for(Duration::from_secs(60), |log| verified(log).len() >= 2)
        .await;
    let mut sent = verified(&log);
    sent.sort_by_key(|(_, lead)| *lead);
    assert_eq!(sent.len(), 2, "{log:?}");
    assert_eq!(sent[0], (refused_event, failed_once), "{log:?}");
    assert_eq!(sent[1].1, not_fanned, "{log:?}");
}
