//! Lead pages and export at 100,000 leads on SQLite (issue 17): medians of `/leads` (50 rows)
//! with and without filters, of the dashboard (`/`, over the leads and their 111,000
//! submissions and 44,444 contacts) and of `/businesses` (10,000 businesses, with its statistics), and exports of
//! every lead (the API's CSV, the page's CSV and the page's Excel workbook), each with its time to
//! the first byte and to the last, and the process's RSS before, at its peak during, and after.
//! The server runs in this process, so RSS covers both ends; the client counts the streamed bytes
//! without keeping them. Prints figures; asserts nothing.
//!
//! Run: `cargo bench -p leadhub-tests --bench lead_pages`
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use leadhub_tests::bench::{ago, numbers, time_page, SeedConnection};
use leadhub_tests::{session_cookies, Backend, TestApp, TestDatabase};

const LEADS: i64 = 100_000;
const BUSINESSES: i64 = 10_000;
const SAMPLES: usize = 30;

/// A figure of /proc/self/status in MB: `VmRSS` (resident, SQLite's mapped file pages
/// included) or `RssAnon` (the heap and other anonymous memory only).
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

/// (resident, anonymous) in MB.
fn rss_mb() -> (f64, f64) {
    (status_mb("VmRSS:"), status_mb("RssAnon:"))
}

/// MB held by this process's deleted files in the temporary folder: the Excel export's rows
/// wait there (rust_xlsxwriter's constant-memory mode) until the workbook is zipped.
fn temp_files_mb() -> f64 {
    let temp = std::env::temp_dir();
    let bytes: u64 = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|fd| {
            let fd = fd.ok()?.path();
            let target = std::fs::read_link(&fd).ok()?;
            let deleted = target.to_string_lossy().ends_with(" (deleted)");
            (deleted && target.starts_with(&temp)).then(|| std::fs::metadata(&fd).ok())?
        })
        .map(|meta| meta.len())
        .sum();
    bytes as f64 / 1e6
}

/// 100,000 leads in one statement: half unassigned, half in `team`, a minute apart up to now;
/// a submission that created each, one that merged into every tenth and a failed one for every
/// hundredth; 10,000 businesses.
fn seed(db: &TestDatabase, team: i64, user: i64) {
    let mut conn = SeedConnection::open(db);
    let created = ago(Backend::Sqlite, "i", "minute");
    conn.execute(&format!(
        "INSERT INTO leads (team_id, dedupe_scope, street_key, address_key, address, city, state,
           zip_code, first_name, last_name, primary_phone, permit_status, project_number, source,
           property_type, enrichment_status, submission_count, created_by, created_at, updated_at)
         SELECT CASE i % 2 WHEN 0 THEN {team} END, CASE i % 2 WHEN 0 THEN {team} ELSE 0 END,
           i || ' ELM ST', i || ' ELM ST|78701', i || ' Elm Street', 'Austin', 'TX', '78701',
           'Owner', 'Number' || i, '+1512555' || printf('%04d', i % 10000),
           CASE i % 3 WHEN 0 THEN 'issued' ELSE 'pending' END, 'P-' || i,
           CASE i % 4 WHEN 0 THEN 'referral' ELSE 'permits' END, 'residential', 'skipped', 1,
           {user}, {created}, {created}
         FROM ({numbers}) AS n",
        numbers = numbers(Backend::Sqlite, LEADS)
    ));
    conn.submissions_behind_leads(
        user,
        r#"'{"address": "' || address || '", "city": "Austin", "state": "TX", "zip_code": "78701",
          "last_name": "' || last_name || '"}'"#,
    );
    // Contacts logged on a third of the leads, a second one on every ninth: the exports end
    // with each lead's last contact and count, read a chunk at a time beside the leads.
    for (outcome, every) in [("no_answer", 3), ("reached", 9)] {
        conn.execute(&format!(
            "INSERT INTO lead_activity (lead_id, actor_id, kind, detail, created_at)
             SELECT id, {user}, 'contact_logged', '{{\"outcome\": \"{outcome}\"}}', created_at
             FROM leads WHERE id % {every} = 0"
        ));
    }
    conn.execute(&format!(
        "INSERT INTO businesses (team_id, dedupe_scope, name, name_key, phone, city, state, industry,
           relationship_type, status, created_by, created_at, updated_at)
         SELECT CASE i % 2 WHEN 0 THEN {team} END, CASE i % 2 WHEN 0 THEN {team} ELSE 0 END,
           'Shop ' || i, 'shop ' || i, '+1512556' || printf('%04d', i % 10000), 'Austin',
           CASE i % 3 WHEN 0 THEN 'TX' WHEN 1 THEN 'OK' ELSE 'CA' END,
           CASE i % 4 WHEN 0 THEN 'plumbing' WHEN 1 THEN 'hvac' WHEN 2 THEN 'roofing' END,
           CASE i % 5 WHEN 0 THEN 'lead_buyer' ELSE 'prospect' END, 'prospect', {user},
           {created}, {created}
         FROM ({numbers}) AS n",
        numbers = numbers(Backend::Sqlite, BUSINESSES)
    ));
    conn.execute("ANALYZE");
}

/// Median milliseconds of `path` (a 200 page showing `marker`), over `SAMPLES` requests after a
/// warm-up.
async fn median_ms(app: &TestApp, cookies: &str, path: &str, marker: &str) -> f64 {
    let (times, _) = time_page(app, cookies, path, marker, SAMPLES).await;
    times[times.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let db = TestDatabase::create(Backend::Sqlite).unwrap();
        let app = TestApp::start(db).await;
        let (user, team) = app.bench_team().await;
        let started = Instant::now();
        seed(&app.db, team, user.user.id);
        println!(
            "seeded {LEADS} leads in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let cookies = session_cookies(&app, "bench@example.com").await;
        for (path, marker) in [
            ("/leads", "<table class=\"leads\">"),
            (
                "/leads?q=number9&city=Austin&source=referral",
                "<table class=\"leads\">",
            ),
            ("/leads?state=TX&permit_status=issued", "<table class=\"leads\">"),
            ("/leads?offset=5000", "<table class=\"leads\">"),
            ("/", "id=\"chart-per-day\""),
            ("/businesses", "<table class=\"businesses\">"),
            ("/businesses?state=TX&industry=plumbing", "<table class=\"businesses\">"),
        ] {
            let ms = median_ms(&app, &cookies, path, marker).await;
            println!("GET {path:<48} median {ms:6.1} ms ({SAMPLES} requests)");
        }

        for (path, what) in [
            ("/api/v1/leads/export", "API CSV"),
            ("/leads/export", "page CSV"),
            ("/leads/export.xlsx", "page Excel"),
        ] {
            let before = rss_mb();
            let started = Instant::now();
            let (mut peak, mut first_byte, mut temp) = (before, None, 0.0);
            let on_chunk = || {
                if first_byte.is_none() {
                    // At the first byte the Excel export's rows are all written, not yet zipped.
                    temp = temp_files_mb();
                    first_byte = Some(started.elapsed().as_secs_f64());
                }
                let now = rss_mb();
                peak = (peak.0.max(now.0), peak.1.max(now.1));
            };
            let (bytes, _) = if path.starts_with("/api") {
                app.download(path, &user.key, on_chunk).await
            } else {
                app.download_page(path, &cookies, on_chunk).await
            };
            let seconds = started.elapsed().as_secs_f64();
            let after = rss_mb();
            println!(
                "export ({what}), {LEADS} leads: {:.1} MB, first byte {:.2} s, all in {seconds:.2} s \
                 ({:.0} leads/s); RSS before {:.1} MB, peak {:.1} MB, after {:.1} MB; of it anonymous \
                 (heap) {:.1} / {:.1} / {:.1} MB; temporary files {temp:.1} MB",
                bytes as f64 / 1e6,
                first_byte.unwrap_or(seconds),
                LEADS as f64 / seconds,
                before.0,
                peak.0,
                after.0,
                before.1,
                peak.1,
                after.1
            );
        }
    });
}
