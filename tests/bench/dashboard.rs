//! The dashboard (`/`) at 1,000,000 leads (issue 29): p50 and p95 of the page for a team member
//! (one team of ten and the unassigned leads) and for a platform admin (everything), on SQLite
//! and, when TEST_DATABASE_URL is set, PostgreSQL. The leads are spread over two years, ten
//! teams, eight sources and every enrichment status and status; 2% are archived and 1% merged
//! away (both through UPDATEs, so the rollup's triggers see them); 1,110,000 submissions (one
//! that created each lead, one merge for every tenth, a failure for every hundredth), and a
//! contact logged on every tenth lead over 60 days (about 1,700 of them today). Seeded by
//! SQL in a few big statements, through the triggers that keep the rollup. Then the member's
//! list views by contacts (`/leads?contacted=false`, `contacted=true`,
//! `last_contact_before=<a week ago>`) beside `/leads` itself, `/leads?status=new` (both counted
//! by the rollup), `/leads?assignee=none`, and three filters counted from the leads they match:
//! `assignee=me` (every 97th lead is the member's), `follow_up_by=<in a week>` (every seventh lead
//! has a follow-up day, a month either side of today) and `status=new&created_after=<91 days
//! ago>`; and a salesperson's lists: "My call list"
//! (`status=open&assignee=me&has_phone=true&do_not_call=false`, in call order), `status=open`, the leads without a phone (a phone on every third lead) and
//! those with one, the leads without an e-mail (an address on every fourth lead) and those with
//! one, and the member's contacts of the last week; and the leads of one tag (`tag=storm 2026`, on every
//! 20th lead), the leads without it, that tag without another (`without_tag=mailer 12`, on no
//! lead), and the tags page that counts them (`/tags`); the leads within a mile and five miles of
//! a place, nearest first, and a lead's page with its "Nearby leads" card (every lead but every
//! 11th has coordinates, spread over a metro area). Every 53rd lead is marked do not
//! call (the phones, marks and tags set as the leads are written, so no UPDATE leaves dead rows
//! behind). Prints figures; asserts only that the pages answer.
//!
//! Run: `cargo bench -p leadhub-tests --bench dashboard` (`DASHBOARD_BENCH_LEADS=100000` for a
//! smaller set).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use diesel::RunQueryDsl;
use serde_json::json;

use leadhub_tests::bench::{ago, days_from_today, numbers, percentile, time_page, SeedConnection};
use leadhub_tests::{session_cookies, Backend, TestApp, TestDatabase};

const SAMPLES: usize = 60;
/// The place the lists of leads nearby measure from, inside the seeded area.
const NEAR: &str = "30.25,-97.75";
const TEAMS: i64 = 10;

fn leads() -> i64 {
    std::env::var("DASHBOARD_BENCH_LEADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// The leads and their submissions; `first_team` is the first of `TEAMS` consecutive team ids,
/// `user` the bench's member, who is given every 97th lead.
fn seed(db: &TestDatabase, first_team: i64, user: i64) {
    let backend = db.backend;
    let mut conn = SeedConnection::open(db);
    let created = ago(backend, "i * 63", "second");
    let team = format!("CASE WHEN i % 6 = 0 THEN NULL ELSE {first_team} + i % {TEAMS} END");
    let scope = format!("CASE WHEN i % 6 = 0 THEN 0 ELSE {first_team} + i % {TEAMS} END");
    conn.run(&format!(
        "INSERT INTO leads (team_id, dedupe_scope, street_key, address_key, address, city, state,
           zip_code, last_name, primary_phone, email_1, do_not_call, tags, source, enrichment_status,
           status, assignee_id, submission_count, created_by, created_at, updated_at,
           latitude, longitude)
         SELECT {team}, {scope}, i || ' ELM ST', i || ' ELM ST|78701', i || ' Elm Street',
           'Austin', 'TX', '78701', 'Number' || i,
           CASE WHEN i % 3 = 0 THEN '+1512555' || (1000 + i % 9000) END,
           CASE WHEN i % 4 = 0 THEN 'owner' || i || '@example.com' END, i % 53 = 0,
           CASE WHEN i % 20 = 0 THEN '[\"storm 2026\"]' ELSE '[]' END,
           CASE i % 8 WHEN 0 THEN 'permits' WHEN 1 THEN 'referral' WHEN 2 THEN 'web'
             WHEN 3 THEN 'mailer' WHEN 4 THEN 'zillow' WHEN 5 THEN 'facebook'
             WHEN 6 THEN 'import' END,
           CASE i % 20 WHEN 0 THEN 'gave_up' WHEN 1 THEN 'partial' WHEN 2 THEN 'skipped'
             WHEN 3 THEN 'pending_retry' ELSE 'complete' END,
           CASE i % 10 WHEN 0 THEN 'contacted' WHEN 1 THEN 'qualified' WHEN 2 THEN 'won'
             WHEN 3 THEN 'lost' ELSE 'new' END,
           CASE WHEN i % 97 = 0 THEN {user} END, 1, {user}, {created}, {created},
           {latitude}, {longitude}
         FROM ({numbers}) AS n",
        // Half a degree each way from (30, -98): a metro area of about 1,000 square miles,
        // spread by two primes' residues; every 11th lead not geocoded.
        latitude = "CASE WHEN i % 11 <> 0 THEN 30.0 + (CAST(i AS BIGINT) * 7919 % 99991) / 199982.0 END",
        longitude =
            "CASE WHEN i % 11 <> 0 THEN -98.0 + (CAST(i AS BIGINT) * 104729 % 100003) / 200006.0 END",
        numbers = numbers(backend, leads())
    ));
    conn.run("INSERT INTO lead_tags (tag, lead_id) SELECT 'storm 2026', id FROM leads WHERE tags <> '[]'");
    conn.run("UPDATE leads SET archived_at = created_at WHERE id % 50 = 7");
    conn.run("UPDATE leads SET merged_into_id = id - 1, address_key = NULL WHERE id % 100 = 13");
    conn.submissions_behind_leads(user, r#"'{"address": "' || address || '"}'"#);
    // A contact logged on every tenth lead, by the member, over the last 60 days: the
    // dashboard counts the viewer's of today.
    conn.run(&format!(
        "INSERT INTO lead_activity (lead_id, actor_id, kind, detail, created_at)
         SELECT id, {user}, 'contact_logged', '{{\"outcome\": \"no_answer\"}}', {contact_ago}
         FROM leads WHERE id % 10 = 0",
        contact_ago = ago(backend, "id % 86400", "minute")
    ));
    // A follow-up day on every seventh lead, a month either side of today.
    conn.run(&format!(
        "UPDATE leads SET follow_up_on = {day} WHERE id % 7 = 0",
        day = days_from_today(backend, "id % 61 - 30")
    ));
    conn.finish();
}

/// (p50, p95) milliseconds of page `path` over `SAMPLES` requests after a warm-up, and the text
/// that follows `marker` on the page (its lead count).
async fn page_figures(
    app: &TestApp,
    cookies: &str,
    path: &str,
    marker: &str,
) -> (f64, f64, String) {
    let (times, body) = time_page(app, cookies, path, marker, SAMPLES).await;
    let start = body.find(marker).unwrap() + marker.len();
    let total = body[start..start + body[start..].find('<').unwrap()].to_owned();
    (percentile(&times, 50.0), percentile(&times, 95.0), total)
}

async fn bench(backend: Backend) {
    let Some(db) = TestDatabase::create(backend) else {
        println!("{backend:?}: skipped (TEST_DATABASE_URL not set)");
        return;
    };
    let app = TestApp::start(db).await;
    let member = app.user("member@example.com").await;
    app.admin("admin@example.com").await;
    let mut teams = Vec::new();
    for t in 0..TEAMS {
        let (_, team) = app
            .post(
                "/api/teams",
                &member.key,
                json!({"name": format!("Team {t}")}),
            )
            .await;
        teams.push(team["id"].as_i64().unwrap());
    }
    assert!(teams.windows(2).all(|w| w[1] == w[0] + 1), "{teams:?}");
    // The member keeps one team of ten: leave the others' membership to the admin's view.
    for team in &teams[1..] {
        app.write_db({
            let (team, user) = (*team, member.user.id);
            move |conn| {
                diesel::sql_query(format!(
                    "DELETE FROM team_members WHERE team_id = {team} AND user_id = {user}"
                ))
                .execute(conn)
            }
        })
        .await;
    }
    println!("{backend:?}: seeding {} leads", leads());
    let started = Instant::now();
    seed(&app.db, teams[0], member.user.id);
    println!(
        "{backend:?}: seeded in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    for who in ["member@example.com", "admin@example.com"] {
        let cookies = session_cookies(&app, who).await;
        let (p50, p95, total) = page_figures(&app, &cookies, "/", "id=\"lead-total\">").await;
        println!(
            "{backend:?} GET / as {who:<20} p50 {p50:6.1} ms, p95 {p95:6.1} ms \
             ({SAMPLES} requests; {total} live leads shown)"
        );
    }
    // The list views of a salesperson's contacts (docs/working-leads.md "Contacts"), beside the
    // list unfiltered: a page of 50 and its count, as the member.
    let cookies = session_cookies(&app, "member@example.com").await;
    let today = chrono::Utc::now().date_naive();
    let week_ago = today - chrono::Days::new(7);
    let next_week = today + chrono::Days::new(7);
    let quarter_ago = today - chrono::Days::new(91);
    for path in [
        "/leads".to_owned(),
        "/leads?status=new".to_owned(),
        // The rollup less the assigned leads (`leads_assignee_status`).
        "/leads?assignee=none".to_owned(),
        "/leads?contacted=false".to_owned(),
        "/leads?contacted=true".to_owned(),
        format!("/leads?last_contact_before={week_ago}"),
        // Filters counted from the leads they match, none of them by the rollup.
        "/leads?assignee=me".to_owned(),
        format!("/leads?follow_up_by={next_week}"),
        format!("/leads?status=new&created_after={quarter_ago}"),
        // A salesperson's lists: the call list in call order, the open leads, the leads to
        // find a number and an e-mail for, the week's contacts (docs/working-leads.md).
        "/leads?status=open&assignee=me&has_phone=true&do_not_call=false&sort=last_contact_at"
            .to_owned(),
        "/leads?status=open".to_owned(),
        "/leads?has_phone=false".to_owned(),
        "/leads?has_email=false".to_owned(),
        // The leads one can call or write to (PostgreSQL: the rollup less the leads without).
        "/leads?has_phone=true".to_owned(),
        "/leads?has_email=true".to_owned(),
        format!("/leads?contacted_by=me&contacted_since={week_ago}&sort=-last_contact_at"),
        // The leads of one tag; the leads without it; a tag without another (none of the
        // leads carries the second).
        "/leads?tag=storm+2026".to_owned(),
        "/leads?without_tag=storm+2026".to_owned(),
        "/leads?tag=storm+2026&without_tag=mailer+12".to_owned(),
        // The leads near a place, nearest first: a mile (a canvasser's street), five miles.
        format!("/leads?near={NEAR}&sort=distance"),
        format!("/leads?near={NEAR}&within_miles=5&sort=distance"),
    ] {
        let count = "id=\"lead-count\" role=\"status\">";
        let (p50, p95, total) = page_figures(&app, &cookies, &path, count).await;
        println!(
            "{backend:?} GET {path:<38} p50 {p50:6.1} ms, p95 {p95:6.1} ms ({SAMPLES} requests; {total})"
        );
    }
    // A lead's page, whose "Nearby leads" card lists the five nearest and counts those within
    // a mile.
    let (_, near) = app
        .get(
            &format!("/api/v1/leads?near={NEAR}&team_id={}&limit=1", teams[0]),
            &member.key,
        )
        .await;
    let lead = near["items"][0]["id"].as_i64().unwrap();
    let marker = "id=\"nearby-list\">All ";
    let (p50, p95, total) = page_figures(&app, &cookies, &format!("/leads/{lead}"), marker).await;
    println!(
        "{backend:?} GET /leads/{{id}} (nearby card)              p50 {p50:6.1} ms, p95 {p95:6.1} ms ({SAMPLES} requests; {total})"
    );
    // The team's tags (`/tags`, which the tag fields' suggestions read too): every tagged lead
    // the member sees, counted by its tag.
    let count = "<a href=\"/leads?tag=storm+2026\">";
    let (p50, p95, total) = page_figures(&app, &cookies, "/tags", count).await;
    println!(
        "{backend:?} GET /tags                                  p50 {p50:6.1} ms, p95 {p95:6.1} ms ({SAMPLES} requests; {total} leads tagged)"
    );
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        for backend in [Backend::Sqlite, Backend::Postgres] {
            bench(backend).await;
        }
    });
}
