//! The dashboard (`/`) over HTTP: its figures for a known set of leads and submissions (a merge,
//! an identical resubmission, a failed one, another person's unassigned lead), each chart's
//! numbers, the empty state and the navigation.
use std::collections::BTreeMap;

use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{batch_ok, lead_total, submit};
use crate::pages::{first_look, sign_in};
use crate::write_failures::{refuse_leads_named, REFUSED};

backend_tests!(
    the_dashboard_counts_what_each_person_may_see,
    a_new_user_is_told_what_to_do_first,
    the_rollup_equals_a_recount_after_every_kind_of_write,
);

/// The numbers of chart `id`'s table, by label (the total row left out).
pub(crate) fn chart_numbers(body: &str, id: &str) -> BTreeMap<String, i64> {
    let start = body
        .find(&format!("id=\"chart-{id}\""))
        .unwrap_or_else(|| panic!("no chart {id} in:\n{body}"));
    let figure = &body[start..start + body[start..].find("</figure>").unwrap()];
    let tbody = &figure[figure.find("<tbody>").unwrap()..figure.find("</tbody>").unwrap()];
    let cells: Vec<&str> = tbody
        .split("<td data-label=\"")
        .skip(1)
        .map(|cell| {
            let text = &cell[cell.find('>').unwrap() + 1..];
            &text[..text.find("</td>").unwrap()]
        })
        .collect();
    cells
        .chunks(2)
        .map(|pair| (pair[0].to_owned(), pair[1].parse().unwrap()))
        .collect()
}

/// The text of the element with this id (up to its closing tag).
pub(crate) fn text_of<'a>(body: &'a str, id: &str) -> &'a str {
    let start = body
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in:\n{body}"));
    let text = &body[start + body[start..].find('>').unwrap() + 1..];
    &text[..text.find('<').unwrap()]
}

fn counts(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

async fn the_dashboard_counts_what_each_person_may_see(app: TestApp) {
    refuse_leads_named(&app).await;
    let [alice, bob] = app.users(["alice", "bob"]).await;
    let first = json!({"address": "1 North Main Street", "city": "Austin", "state": "TX",
                       "zip_code": "78701", "source": "permits"});
    let created = submit(&app, &alice.key, first.clone()).await;
    let mut merged = first.clone();
    merged["primary_phone"] = json!("512 555 0100");
    assert_eq!(
        submit(&app, &alice.key, merged.clone()).await["result_action"],
        "updated"
    );
    assert_eq!(
        submit(&app, &alice.key, merged).await["result_action"],
        "skipped"
    );
    submit(
        &app,
        &alice.key,
        json!({"address": "2 Oak Street", "city": "Austin", "state": "TX", "source": "referral"}),
    )
    .await;
    let (status, refused) = app
        .post(
            "/api/v1/submissions/single",
            &alice.key,
            json!({"address": "3 Elm Street", "city": "Austin", "state": "TX",
                   "first_name": REFUSED}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refused}");
    assert_eq!(refused["status"], "failed", "{refused}");
    // Bob's unassigned lead is everyone's; his submission is his own.
    submit(
        &app,
        &bob.key,
        json!({"address": "4 Pine Street", "city": "Dallas", "state": "TX"}),
    )
    .await;
    assert!(created["result_lead_id"].is_i64());
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();

    let mut a = sign_in(&app, "alice@example.com").await;
    let page = a.get("/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let body = &page.body;
    assert_eq!(text_of(body, "lead-total"), "3");
    assert_eq!(lead_total(&app, &alice.key, "").await, 3);
    assert_eq!(text_of(body, "recent-leads"), "3");
    let per_day = chart_numbers(body, "per-day");
    assert_eq!(per_day.len(), 30);
    assert_eq!(per_day[&today], 3);
    assert_eq!(per_day.values().sum::<i64>(), 3);
    assert_eq!(
        chart_numbers(body, "by-source"),
        counts(&[("permits", 1), ("referral", 1), ("unknown", 1)])
    );
    assert_eq!(
        chart_numbers(body, "by-enrichment"),
        counts(&[("skipped", 3)])
    );
    // Alice's five submissions: two new leads, a merge, an identical one, a failure.
    assert_eq!(
        chart_numbers(body, "outcomes"),
        counts(&[
            ("new lead", 2),
            ("merged", 1),
            ("identical", 1),
            ("failed", 1),
            ("waiting", 0),
        ])
    );
    assert_eq!(text_of(body, "duplicate-share"), "40.0%");
    assert!(body.contains("of 5 submissions in the last 30 days were duplicates (2 matched"));
    assert_eq!(text_of(body, "failed-total"), "1");
    assert!(body.contains(&format!("Submission {}", refused["id"])));
    assert!(
        body.contains("&quot;first_name&quot;:&quot;Refused&quot;"),
        "{body}"
    );
    assert!(!body.contains("No leads yet"));
    for link in [
        "href=\"/\" aria-current=\"page\"",
        "href=\"/leads\"",
        "href=\"/businesses\"",
        "href=\"/teams\"",
        "href=\"/api-keys\"",
        "href=\"/docs\"",
    ] {
        assert!(body.contains(link), "{link}");
    }

    let mut b = sign_in(&app, "bob@example.com").await;
    let page = b.get("/").await;
    let body = &page.body;
    assert_eq!(text_of(body, "lead-total"), "3");
    assert_eq!(
        chart_numbers(body, "outcomes"),
        counts(&[
            ("new lead", 1),
            ("merged", 0),
            ("identical", 0),
            ("failed", 0),
            ("waiting", 0),
        ])
    );
    assert_eq!(text_of(body, "duplicate-share"), "0.0%");
    assert_eq!(text_of(body, "failed-total"), "0");
    assert!(!body.contains("Refused"));
}

async fn a_new_user_is_told_what_to_do_first(app: TestApp) {
    let page = first_look(&app, "/", "No leads yet").await;
    for link in [
        "href=\"/docs\"",
        "href=\"/leads/import\"",
        "href=\"/api-keys\"",
    ] {
        assert!(page.body.contains(link), "{link}");
    }
    assert_eq!(text_of(&page.body, "lead-total"), "0");
    assert!(page
        .body
        .contains("duplicates: no submissions in the last 30 days"));
    // Signed out, the dashboard is the sign-in page.
    let signed_out = crate::pages::Browser::new(&app).get("/").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
    assert_eq!(signed_out.location(), "/sign-in");
}

/// One row of the rollup's key: team scope, UTC day, source ('' for none), enrichment status,
/// status.
type CountKey = (i64, String, String, String, String);

/// A lead as the recount reads it: team, creation time, source, enrichment status, status.
type LeadCountRow = (
    Option<i64>,
    chrono::NaiveDateTime,
    Option<String>,
    String,
    String,
);

/// The live leads counted one by one from the leads themselves.
async fn recount(app: &TestApp) -> BTreeMap<CountKey, i64> {
    use leadhub_db::schema::leads;
    let rows: Vec<LeadCountRow> = app
        .read_db(|conn| {
            conn.load(
                leads::table
                    .filter(leads::archived_at.is_null())
                    .filter(leads::merged_into_id.is_null())
                    .select((
                        leads::team_id,
                        leads::created_at,
                        leads::source,
                        leads::enrichment_status,
                        leads::status,
                    )),
            )
        })
        .await;
    let mut counts = BTreeMap::new();
    for (team, created, source, enrichment, status) in rows {
        let key = (
            team.unwrap_or(0),
            created.format("%Y-%m-%d").to_string(),
            source.unwrap_or_default(),
            enrichment,
            status,
        );
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// The rollup the triggers keep, its counts of 0 left out.
async fn rollup(app: &TestApp) -> BTreeMap<CountKey, i64> {
    use leadhub_db::schema::lead_daily_counts as c;
    let rows: Vec<(i64, String, String, String, String, i64)> = app
        .read_db(|conn| {
            conn.load(c::table.select((
                c::team_scope,
                c::day,
                c::source,
                c::enrichment_status,
                c::status,
                c::n,
            )))
        })
        .await;
    // PostgreSQL keeps a row per key and writing connection (a stripe): the key's count is
    // their sum.
    let mut counts = BTreeMap::new();
    for (t, d, s, e, st, n) in rows {
        *counts.entry((t, d, s, e, st)).or_insert(0) += n;
    }
    counts.retain(|_, n| *n != 0);
    counts
}

/// Waits until no enrichment job is queued or running: enrichment writes to leads in the background, and
/// a count compared while it runs would compare two moments.
async fn jobs_settled(app: &TestApp) {
    use leadhub_db::schema::jobs;
    for _ in 0..200 {
        let busy: i64 = app
            .read_db(|conn| {
                conn.get_result(
                    jobs::table
                        .filter(jobs::kind.eq("enrich_lead"))
                        .filter(jobs::status.eq_any(["queued", "running"]))
                        // A retry waits its turn (minutes): not due, not running now.
                        .filter(jobs::run_at.le(chrono::Utc::now().naive_utc()))
                        .count(),
                )
            })
            .await;
        if busy == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let jobs: Vec<(String, String, chrono::NaiveDateTime, String)> = app
        .read_db(|conn| {
            conn.load(jobs::table.select((jobs::kind, jobs::status, jobs::run_at, jobs::payload)))
        })
        .await;
    panic!("enrichment still queued or running after 10 s: {jobs:?}");
}

/// The rollup equals the recount, and so do the page's figures for `who` (seeing `scopes`,
/// None: every scope).
async fn assert_counts_agree(app: &TestApp, who: &str, scopes: Option<&[i64]>, step: &str) {
    jobs_settled(app).await;
    let recounted = recount(app).await;
    assert_eq!(rollup(app).await, recounted, "after {step}");
    let visible: Vec<(&CountKey, &i64)> = recounted
        .iter()
        .filter(|((t, ..), _)| scopes.is_none_or(|s| *t == 0 || s.contains(t)))
        .collect();
    let mut by_source = BTreeMap::new();
    let mut by_enrichment = BTreeMap::new();
    let mut by_status: BTreeMap<String, i64> = ["new", "contacted", "qualified", "won", "lost"]
        .iter()
        .map(|s| ((*s).to_owned(), 0))
        .collect();
    let mut by_day = BTreeMap::new();
    for ((_, day, source, enrichment, status), n) in &visible {
        let source = if source.is_empty() { "unknown" } else { source };
        *by_source.entry(source.to_owned()).or_insert(0) += **n;
        *by_enrichment
            .entry(enrichment.replace('_', " "))
            .or_insert(0) += **n;
        *by_status.entry(status.clone()).or_insert(0) += **n;
        *by_day.entry(day.clone()).or_insert(0) += **n;
    }
    let total: i64 = visible.iter().map(|(_, n)| **n).sum();
    let mut browser = sign_in(app, who).await;
    let page = browser.get("/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let body = &page.body;
    assert_eq!(
        text_of(body, "lead-total"),
        total.to_string(),
        "after {step}"
    );
    if total > 0 {
        assert_eq!(chart_numbers(body, "by-source"), by_source, "after {step}");
        assert_eq!(
            chart_numbers(body, "by-enrichment"),
            by_enrichment,
            "after {step}"
        );
        assert_eq!(chart_numbers(body, "funnel"), by_status, "after {step}");
        let per_day: BTreeMap<String, i64> = chart_numbers(body, "per-day")
            .into_iter()
            .filter(|(_, n)| *n != 0)
            .collect();
        let recent: BTreeMap<String, i64> = by_day
            .into_iter()
            .filter(|(d, _)| d >= &thirty_days_ago())
            .collect();
        assert_eq!(per_day, recent, "after {step}");
    }
}

fn thirty_days_ago() -> String {
    (chrono::Utc::now() - chrono::Days::new(29))
        .format("%Y-%m-%d")
        .to_string()
}

/// Writes leads through intake (single and batch, a merging resubmission) and enrichment, and
/// makes every other kind of change to a lead row in SQL, as the lead operations' statements
/// would (status, owner, team move, archive and restore, merge, a new creation day, delete; the
/// triggers see rows, not callers); after each it compares the rollup the triggers keep with a
/// recount of the leads, and the dashboard's figures with both.
async fn the_rollup_equals_a_recount_after_every_kind_of_write(app: TestApp) {
    let app = crate::enrichment::with_geocoders(app, &["zip"]).await;
    let alice = app.user("alice@example.com").await;
    app.admin("admin@example.com").await;
    let bob = app.user("bob@example.com").await;
    let alpha = crate::helpers::team(&app, "Alpha", &alice).await;
    let bravo = crate::helpers::team(&app, "Bravo", &bob).await;
    let alice_sees = [alpha];
    let check = |step: &'static str| {
        let app = &app;
        async move {
            assert_counts_agree(app, "admin@example.com", None, step).await;
            assert_counts_agree(app, "alice@example.com", Some(&alice_sees), step).await;
        }
    };
    check("nothing").await;

    let lead_of = |r: Value| r["result_lead_id"].as_i64().unwrap();
    let mut ids = Vec::new();
    for (i, (source, team)) in [
        (Some("permits"), None),
        (Some("referral"), Some(alpha)),
        (None, Some(alpha)),
        (Some("permits"), Some(bravo)),
    ]
    .into_iter()
    .enumerate()
    {
        let mut lead = json!({"address": format!("{} Main Street", i + 1), "city": "Austin",
                              "state": "TX", "zip_code": "78701"});
        if let Some(s) = source {
            lead["source"] = json!(s);
        }
        if let Some(t) = team {
            lead["team_id"] = json!(t);
        }
        let key = if team == Some(bravo) {
            &bob.key
        } else {
            &alice.key
        };
        ids.push(lead_of(submit(&app, key, lead).await));
    }
    check("single intake").await;

    // A resubmission merging into the first lead, with a new source.
    let again = json!({"address": "1 Main Street", "city": "Austin", "state": "TX",
                       "zip_code": "78701", "source": "web", "primary_phone": "512 555 0100"});
    assert_eq!(
        submit(&app, &alice.key, again).await["result_action"],
        "updated"
    );
    check("a merging resubmission").await;

    let batch: Vec<Value> = (0..6)
        .map(|i| {
            json!({"address": format!("{i} Batch Road"), "city": "Austin", "state": "TX",
                        "source": if i % 2 == 0 { "mailer" } else { "permits" }})
        })
        .collect();
    batch_ok(&app, &alice.key, json!({"team_id": alpha, "leads": batch})).await;
    check("batch intake").await;

    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{}/enrich", ids[1]),
            &alice.key,
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    check("enrichment").await;

    let sql = |statement: String| {
        let app = &app;
        async move {
            app.write_db(move |conn| diesel::sql_query(statement).execute(conn))
                .await
        }
    };
    let sqlite = app.state.db.backend() == leadhub_db::Backend::Sqlite;
    let (now, three_days_earlier) = if sqlite {
        ("datetime('now')", "datetime(created_at, '-3 days')")
    } else {
        ("now()", "created_at - interval '3 days'")
    };
    let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
    let alice_id = alice.user.id;
    for (step, statement) in [
        ("status changes", format!("UPDATE leads SET status = 'contacted', version = version + 1 WHERE id IN ({a}, {b})")),
        ("a status change of many", "UPDATE leads SET status = 'qualified' WHERE source = 'mailer'".to_owned()),
        ("an owner", format!("UPDATE leads SET assignee_id = {alice_id}, status = 'won' WHERE id = {b}")),
        ("a claim", format!("UPDATE leads SET team_id = {alpha}, dedupe_scope = {alpha} WHERE id = {a}")),
        ("a team move", format!("UPDATE leads SET team_id = {bravo}, dedupe_scope = {bravo} WHERE id = {c}")),
        ("an archive", format!("UPDATE leads SET archived_at = {now} WHERE id = {b}")),
        ("an edit of an archived lead", format!("UPDATE leads SET status = 'lost' WHERE id = {b}")),
        ("a restore", format!("UPDATE leads SET archived_at = NULL WHERE id = {b}")),
        ("a merge", format!("UPDATE leads SET merged_into_id = {a}, address_key = NULL WHERE id = {d}")),
        ("an older creation day", format!("UPDATE leads SET created_at = {three_days_earlier} WHERE id = {c}")),
        ("an edit that moves no count", format!("UPDATE leads SET first_name = 'Ann' WHERE id = {a}")),
    ] {
        sql(statement).await;
        check(step).await;
    }
    sql(format!(
        "UPDATE submissions SET result_lead_id = NULL WHERE result_lead_id = {d}"
    ))
    .await;
    sql(format!("DELETE FROM lead_activity WHERE lead_id = {d}")).await;
    sql(format!("DELETE FROM leads WHERE id = {d}")).await;
    check("a delete of a merged lead").await;
    let e = lead_of(
        submit(
            &app,
            &alice.key,
            json!({"address": "9 Gone Street", "city": "Austin", "state": "TX"}),
        )
        .await,
    );
    sql(format!(
        "UPDATE submissions SET result_lead_id = NULL WHERE result_lead_id = {e}"
    ))
    .await;
    sql(format!("DELETE FROM lead_activity WHERE lead_id = {e}")).await;
    sql(format!("DELETE FROM leads WHERE id = {e}")).await;
    check("a delete of a live lead").await;

    // My open leads: assigned to the viewer with an open status, live.
    sql(format!(
        "UPDATE leads SET assignee_id = {alice_id}, status = 'new' WHERE id IN ({a}, {c})"
    ))
    .await;
    let mut browser = sign_in(&app, "alice@example.com").await;
    let page = browser.get("/").await;
    // c went to Bravo, which Alice cannot see; b (hers too) is lost.
    assert_eq!(text_of(&page.body, "my-open"), "1", "{}", page.body);
    sql(format!(
        "UPDATE leads SET archived_at = {now} WHERE id = {a}"
    ))
    .await;
    let page = browser.get("/").await;
    assert_eq!(text_of(&page.body, "my-open"), "0");
}
