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
//! by the rollup) and `/leads?assignee=none` (counted by reading the member's leads). Prints
//! figures; asserts only that the pages answer.
//!
//! Run: `cargo bench -p leadhub-tests --bench dashboard` (`DASHBOARD_BENCH_LEADS=100000` for a
//! smaller set).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};
use serde_json::json;

use leadhub_tests::{session_cookies, Backend, TestApp, TestDatabase};

const SAMPLES: usize = 60;
const TEAMS: i64 = 10;

fn leads() -> i64 {
    std::env::var("DASHBOARD_BENCH_LEADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// The SQL of one backend for what differs: the row numbers, a time `i * 63` seconds ago (two
/// years for a million) and the statements that finish a seed.
struct Dialect {
    numbers: String,
    ago: &'static str,
    /// A logged contact's time: `id % 86400` minutes ago (60 days, about 1,700 a day).
    contact_ago: &'static str,
    finish: &'static [&'static str],
}

fn dialect(backend: Backend, n: i64) -> Dialect {
    match backend {
        Backend::Sqlite => Dialect {
            numbers: format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) \
                 SELECT i FROM n"
            ),
            ago: "datetime('now', '-' || (i * 63) || ' seconds')",
            contact_ago: "datetime('now', '-' || (id % 86400) || ' minutes')",
            finish: &["ANALYZE"],
        },
        Backend::Postgres => Dialect {
            numbers: format!("SELECT i FROM generate_series(1, {n}) AS i"),
            ago: "timezone('utc', now()) - (i * 63) * interval '1 second'",
            contact_ago: "timezone('utc', now()) - (id % 86400) * interval '1 minute'",
            // Index-only scans need the visibility map a VACUUM writes.
            finish: &["VACUUM ANALYZE"],
        },
    }
}

/// A direct connection to the bench's database, for the seed.
enum Direct {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl Direct {
    fn open(db: &TestDatabase) -> Direct {
        match db.backend {
            Backend::Sqlite => {
                let mut conn =
                    SqliteConnection::establish(db.url.strip_prefix("sqlite://").unwrap()).unwrap();
                // The app's workers write too (enrichment retries of the seeded leads): wait
                // for their transactions rather than fail a seed statement on a busy database.
                diesel::sql_query("PRAGMA busy_timeout = 60000")
                    .execute(&mut conn)
                    .unwrap();
                Direct::Sqlite(conn)
            }
            Backend::Postgres => Direct::Postgres(PgConnection::establish(&db.url).unwrap()),
        }
    }

    fn run(&mut self, statement: &str) {
        let started = Instant::now();
        let rows = match self {
            Direct::Sqlite(c) => diesel::sql_query(statement).execute(c),
            Direct::Postgres(c) => diesel::sql_query(statement).execute(c),
        }
        .unwrap_or_else(|e| panic!("{e}: {statement}"));
        let head: String = statement
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "  {head}: {rows} rows in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}

/// The leads and their submissions; `first_team` is the first of `TEAMS` consecutive team ids,
/// `user` the bench's member, who is given every 97th lead.
fn seed(db: &TestDatabase, first_team: i64, user: i64) {
    let n = leads();
    let sql = dialect(db.backend, n);
    let mut conn = Direct::open(db);
    let ago = sql.ago;
    let team = format!("CASE WHEN i % 6 = 0 THEN NULL ELSE {first_team} + i % {TEAMS} END");
    let scope = format!("CASE WHEN i % 6 = 0 THEN 0 ELSE {first_team} + i % {TEAMS} END");
    conn.run(&format!(
        "INSERT INTO leads (team_id, dedupe_scope, street_key, address_key, address, city, state,
           zip_code, last_name, source, enrichment_status, status, assignee_id, submission_count,
           created_by, created_at, updated_at)
         SELECT {team}, {scope}, i || ' ELM ST', i || ' ELM ST|78701', i || ' Elm Street',
           'Austin', 'TX', '78701', 'Number' || i,
           CASE i % 8 WHEN 0 THEN 'permits' WHEN 1 THEN 'referral' WHEN 2 THEN 'web'
             WHEN 3 THEN 'mailer' WHEN 4 THEN 'zillow' WHEN 5 THEN 'facebook'
             WHEN 6 THEN 'import' END,
           CASE i % 20 WHEN 0 THEN 'gave_up' WHEN 1 THEN 'partial' WHEN 2 THEN 'skipped'
             WHEN 3 THEN 'pending_retry' ELSE 'complete' END,
           CASE i % 10 WHEN 0 THEN 'contacted' WHEN 1 THEN 'qualified' WHEN 2 THEN 'won'
             WHEN 3 THEN 'lost' ELSE 'new' END,
           CASE WHEN i % 97 = 0 THEN {user} END, 1, {user}, {ago}, {ago}
         FROM ({numbers}) AS n",
        numbers = sql.numbers
    ));
    conn.run("UPDATE leads SET archived_at = created_at WHERE id % 50 = 7");
    conn.run("UPDATE leads SET merged_into_id = id - 1, address_key = NULL WHERE id % 100 = 13");
    for (status, action, every) in [
        ("'completed'", "'created'", 1),
        ("'completed'", "'updated'", 10),
        ("'failed'", "NULL", 100),
    ] {
        conn.run(&format!(
            "INSERT INTO submissions (user_id, team_id, raw_json, status, result_lead_id,
               result_action, validation_warnings, error, created_at, processed_at)
             SELECT {user}, team_id, '{{\"address\": \"' || address || '\"}}',
               {status}, CASE WHEN {status} = 'failed' THEN NULL ELSE id END, {action}, '[]',
               CASE WHEN {status} = 'failed' THEN 'refused' END, created_at, created_at
             FROM leads WHERE id % {every} = 0"
        ));
    }
    // A contact logged on every tenth lead, by the member, over the last 60 days: the
    // dashboard counts the viewer's of today.
    conn.run(&format!(
        "INSERT INTO lead_activity (lead_id, actor_id, kind, detail, created_at)
         SELECT id, {user}, 'contact_logged', '{{\"outcome\": \"no_answer\"}}', {contact_ago}
         FROM leads WHERE id % 10 = 0",
        contact_ago = sql.contact_ago
    ));
    for statement in sql.finish {
        conn.run(statement);
    }
}

/// (p50, p95) milliseconds of page `path` over `SAMPLES` requests after a warm-up, and the text
/// that follows `marker` on the page (its lead count).
async fn time_page(app: &TestApp, cookies: &str, path: &str, marker: &str) -> (f64, f64, String) {
    let mut times = Vec::new();
    let mut total = String::new();
    for i in 0..SAMPLES + 3 {
        let started = Instant::now();
        let body = app.page_with_cookies(path, cookies).await;
        if i >= 3 {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
        let start = body.find(marker).unwrap() + marker.len();
        total = body[start..start + body[start..].find('<').unwrap()].to_owned();
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), total)
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
        let (p50, p95, total) = time_page(&app, &cookies, "/", "id=\"lead-total\">").await;
        println!(
            "{backend:?} GET / as {who:<20} p50 {p50:6.1} ms, p95 {p95:6.1} ms \
             ({SAMPLES} requests; {total} live leads shown)"
        );
    }
    // The list views of a salesperson's contacts (docs/working-leads.md "Contacts"), beside the
    // list unfiltered: a page of 50 and its count, as the member.
    let cookies = session_cookies(&app, "member@example.com").await;
    let week_ago = (chrono::Utc::now() - chrono::Days::new(7)).date_naive();
    for path in [
        "/leads".to_owned(),
        "/leads?status=new".to_owned(),
        // A filter the rollup does not count: what reading the member's leads costs.
        "/leads?assignee=none".to_owned(),
        "/leads?contacted=false".to_owned(),
        "/leads?contacted=true".to_owned(),
        format!("/leads?last_contact_before={week_ago}"),
    ] {
        let count = "id=\"lead-count\" role=\"status\">";
        let (p50, p95, total) = time_page(&app, &cookies, &path, count).await;
        println!(
            "{backend:?} GET {path:<38} p50 {p50:6.1} ms, p95 {p95:6.1} ms ({SAMPLES} requests; {total})"
        );
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        for backend in [Backend::Sqlite, Backend::Postgres] {
            bench(backend).await;
        }
    });
}
