//! The lead list at a million leads (issue 27, docs/performance.md "Lead search at a million
//! leads"): p50/p95 of `q` (a street word, a phone written as people write it, an e-mail, a
//! `q` matching nothing), of two-filter combinations and of sorts, and the CSV export's rows/s,
//! on SQLite and (with `TEST_DATABASE_URL`) PostgreSQL. The leads are written with plain SQL
//! (indexes dropped during the load and built after, as a restore would); the queries go
//! through the running server over HTTP as a team member. Prints figures; asserts nothing.
//!
//! Run: `cargo bench -p leadhub-tests --bench search` (`SEARCH_BENCH_LEADS=100000` for fewer,
//! `SEARCH_BENCH_BACKEND=sqlite` or `postgres` for one, `SEARCH_BENCH_EXPORT_ONLY=1` for the export
//! alone, `SEARCH_BENCH_KEEP=1` to write the leads, print the database's URL and stop, leaving it for
//! EXPLAIN).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use diesel::connection::SimpleConnection;
use diesel::sql_types::Text;
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection};

use leadhub_tests::{Backend, TestApp, TestDatabase};

const SAMPLES: usize = 60;

#[rustfmt::skip]
const STATES: [&str; 12] = [
    "TX", "OK", "CA", "FL", "GA", "AZ", "CO", "NC", "TN", "LA", "NM", "AR",
];
#[rustfmt::skip]
const CITIES: [&str; 40] = [
    "Austin", "Dallas", "Houston", "San Antonio", "Round Rock", "Pflugerville", "Georgetown",
    "Cedar Park", "Leander", "Kyle", "Buda", "San Marcos", "Waco", "Temple", "Killeen", "Bryan",
    "Tyler", "Plano", "Frisco", "Irving", "Tulsa", "Norman", "Fresno", "Tampa", "Macon", "Mesa",
    "Boulder", "Durham", "Memphis", "Shreveport", "Santa Fe", "Conway", "Denton", "Lubbock",
    "Midland", "Odessa", "Amarillo", "Abilene", "Laredo", "McAllen",
];
#[rustfmt::skip]
const STREETS: [&str; 60] = [
    "Lamar", "Congress", "Burnet", "Guadalupe", "Lavaca", "Oltorf", "Riverside", "Manor",
    "Cameron", "Airport", "Koenig", "Anderson", "Braker", "Parmer", "Slaughter", "William Cannon",
    "Stassney", "Ben White", "Pleasant Valley", "Springdale", "Webberville", "Rosewood", "Chicon",
    "Comal", "Pedernales", "Navasota", "Cesar Chavez", "Holly", "Willow", "Elm", "Oak", "Pecan",
    "Cedar", "Mesquite", "Live Oak", "Post Oak", "Magnolia", "Walnut", "Hickory", "Maple",
    "Barton Springs", "Bee Caves", "Spicewood", "Jollyville", "Duval", "Speedway", "Red River",
    "Trinity", "Sabine", "Brazos", "Colorado", "San Jacinto", "Neches", "Nueces", "Rio Grande",
    "Shoal Creek", "Woodrow", "Burleson", "Ohlen", "Payton Gin",
];
#[rustfmt::skip]
const SUFFIXES: [&str; 7] = ["St", "Ave", "Blvd", "Dr", "Ln", "Rd", "Way"];
#[rustfmt::skip]
const FIRST: [&str; 20] = [
    "Ann", "Bob", "Carla", "Dan", "Elena", "Frank", "Grace", "Hector", "Ivy", "Jamal", "Kim",
    "Luis", "Maria", "Nate", "Olga", "Pedro", "Quinn", "Rosa", "Sam", "Tina",
];
#[rustfmt::skip]
const LAST: [&str; 20] = [
    "Lee", "Garcia", "Smith", "Nguyen", "Patel", "Johnson", "Martinez", "Brown", "Davis", "Lopez",
    "Wilson", "Anderson", "Thomas", "Moore", "Jackson", "White", "Harris", "Clark", "Lewis",
    "Young",
];
#[rustfmt::skip]
const SOURCES: [&str; 6] = [
    "permit_scrape", "door_knock", "referral", "web_form", "mailer", "cold_call",
];
#[rustfmt::skip]
const STATUSES: [&str; 5] = ["Issued", "pending", "Final", "expired", "issued"];
#[rustfmt::skip]
const TYPES: [&str; 4] = ["residential", "residential", "commercial", "vacant_land"];
#[rustfmt::skip]
const WORK: [&str; 8] = [
    "Re-Roof", "New Construction", "Remodel", "HVAC", "Solar", "Pool", "Addition", "Demolition",
];
#[rustfmt::skip]
const AREAS: [&str; 6] = ["512", "737", "214", "469", "918", "405"];

/// A spread of `i` over 0..n that is not just `i % n` (so columns are not aligned).
fn pick(i: u64, salt: u64, n: usize) -> usize {
    let x = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(salt.wrapping_mul(0xBF58_476D_1CE4_E5B9));
    ((x ^ (x >> 29)) % n as u64) as usize
}

fn phone(i: u64) -> String {
    format!(
        "+1{}{:07}",
        AREAS[pick(i, 9, AREAS.len())],
        (i * 7_919) % 10_000_000
    )
}

fn email(i: u64) -> Option<String> {
    (pick(i, 10, 10) < 6).then(|| {
        format!(
            "{}.{}{i}@example.com",
            FIRST[pick(i, 4, 20)].to_lowercase(),
            LAST[pick(i, 5, 20)].to_lowercase()
        )
    })
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// One lead row's SQL values: 30% in Texas, half in the team, a lead every 30 s up to now.
fn row(i: u64, team: i64, user: i64, now: chrono::NaiveDateTime) -> String {
    let state = if pick(i, 1, 10) < 3 {
        "TX"
    } else {
        STATES[pick(i, 2, STATES.len())]
    };
    let city = CITIES[pick(i, 3, CITIES.len())];
    // One in ten cities written in lower case, as spreadsheets do.
    let city = if pick(i, 11, 10) == 0 {
        city.to_lowercase()
    } else {
        city.to_owned()
    };
    let zip = format!("{:05}", 70_000 + pick(i, 6, 3_000));
    let address = format!(
        "{} {} {}",
        1 + pick(i, 7, 9_000),
        STREETS[pick(i, 8, STREETS.len())],
        SUFFIXES[pick(i, 12, SUFFIXES.len())]
    );
    let created = now - chrono::Duration::seconds(30 * i as i64);
    let permit = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap()
        + chrono::Duration::days(pick(i, 13, 700) as i64);
    let team_id = if i.is_multiple_of(2) {
        team.to_string()
    } else {
        "NULL".into()
    };
    let scope = if i.is_multiple_of(2) { team } else { 0 };
    // Three leads in ten called, within three days of arriving.
    let last_contact = (pick(i, 18, 10) < 3)
        .then(|| (created + chrono::Duration::minutes(pick(i, 19, 3 * 24 * 60) as i64)).min(now));
    format!(
        "({team_id}, {scope}, 'S{i}', 'K{i}', {}, {}, '{state}', '{zip}', {}, {}, {}, '{}', {}, \
         {}, '{}', {}, '{}', '{}', '{}', {}, 'skipped', 1, {user}, '{}', '{}', {})",
        quoted(&address),
        quoted(&city),
        quoted(&format!("{city} County")),
        quoted(FIRST[pick(i, 4, 20)]),
        quoted(LAST[pick(i, 5, 20)]),
        phone(i),
        email(i).map_or("NULL".into(), |e| quoted(&e)),
        quoted(&format!("BP-{}-{i:07}", 2024 + i % 2)),
        STATUSES[pick(i, 14, STATUSES.len())],
        quoted(WORK[pick(i, 15, WORK.len())]),
        SOURCES[pick(i, 16, 10).min(5)],
        TYPES[pick(i, 17, TYPES.len())],
        permit.format("%Y-%m-%d"),
        quoted(&address),
        created.format("%Y-%m-%d %H:%M:%S"),
        created.format("%Y-%m-%d %H:%M:%S"),
        last_contact.map_or("NULL".into(), |t| quoted(
            &t.format("%Y-%m-%d %H:%M:%S").to_string()
        )),
    )
}

const COLUMNS: &str = "team_id, dedupe_scope, street_key, address_key, address, city, state, zip_code, \
    county, first_name, last_name, primary_phone, email_1, project_number, permit_status, work_type, \
    source, property_type, permit_date, mail_address, enrichment_status, submission_count, created_by, \
    created_at, updated_at, last_contact_at";

#[derive(QueryableByName)]
struct IndexSql {
    #[diesel(sql_type = Text)]
    sql: String,
}

/// Writes `n` leads in transactions of 1000-row INSERTs, the leads' secondary indexes dropped
/// during the load and built again after it (SQLite's FTS triggers stay and fill the search).
fn seed_rows<C: Connection<Backend = B> + SimpleConnection, B>(
    conn: &mut C,
    n: u64,
    team: i64,
    user: i64,
    index_sql: &str,
) where
    B: diesel::backend::Backend,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, IndexSql>,
{
    let indexes: Vec<IndexSql> = diesel::sql_query(index_sql).load(conn).unwrap();
    for index in &indexes {
        let name = index
            .sql
            .split_whitespace()
            .nth(if index.sql.contains("UNIQUE") { 3 } else { 2 })
            .unwrap();
        conn.batch_execute(&format!("DROP INDEX {name}")).unwrap();
    }
    let now = chrono::Utc::now().naive_utc();
    let mut i = 0;
    while i < n {
        let mut sql = String::with_capacity(64 * 1024 * 1024);
        sql.push_str("BEGIN;");
        for _ in 0..100 {
            if i >= n {
                break;
            }
            let end = (i + 1000).min(n);
            sql.push_str(&format!("INSERT INTO leads ({COLUMNS}) VALUES "));
            let rows: Vec<String> = (i..end).map(|k| row(k, team, user, now)).collect();
            sql.push_str(&rows.join(","));
            sql.push(';');
            i = end;
        }
        sql.push_str("COMMIT;");
        conn.batch_execute(&sql).unwrap();
    }
    for index in &indexes {
        conn.batch_execute(&index.sql).unwrap();
    }
}

fn seed(db: &TestDatabase, n: u64, team: i64, user: i64) {
    match db.backend {
        Backend::Sqlite => {
            let mut conn =
                SqliteConnection::establish(db.url.strip_prefix("sqlite://").unwrap()).unwrap();
            conn.batch_execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")
                .unwrap();
            seed_rows(
                &mut conn,
                n,
                team,
                user,
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'leads' AND sql IS NOT NULL",
            );
            conn.batch_execute("ANALYZE; PRAGMA wal_checkpoint(TRUNCATE);")
                .unwrap();
        }
        Backend::Postgres => {
            let mut conn = PgConnection::establish(&db.url).unwrap();
            conn.batch_execute("SET maintenance_work_mem = '512MB'")
                .unwrap();
            seed_rows(
                &mut conn,
                n,
                team,
                user,
                "SELECT indexdef AS sql FROM pg_indexes WHERE tablename = 'leads' \
                 AND indexname NOT IN (SELECT conname FROM pg_constraint)",
            );
            conn.batch_execute("VACUUM ANALYZE leads").unwrap();
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

/// p50 and p95 milliseconds of `GET /api/v1/leads?{query}` over the queries given in turn,
/// after one warm-up round; and the matches of the first.
async fn time_list(app: &TestApp, key: &str, queries: &[String]) -> (f64, f64, i64) {
    let get = |q: &str| {
        app.client
            .get(app.url(&format!("/api/v1/leads?{q}")))
            .bearer_auth(key)
            .send()
    };
    for q in queries {
        let r = get(q).await.unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::OK, "{q}");
        r.bytes().await.unwrap();
    }
    let mut times = Vec::with_capacity(SAMPLES);
    let mut total = 0;
    for s in 0..SAMPLES {
        let q = &queries[s % queries.len()];
        let started = Instant::now();
        let r = get(q).await.unwrap();
        let body: serde_json::Value = r.json().await.unwrap();
        times.push(started.elapsed().as_secs_f64() * 1e3);
        if s == 0 {
            total = body["total"].as_i64().unwrap();
        }
    }
    times.sort_by(f64::total_cmp);
    (percentile(&times, 0.5), percentile(&times, 0.95), total)
}

async fn run(backend: Backend, n: u64) {
    let Some(db) = TestDatabase::create(backend) else {
        println!("{backend:?}: skipped (TEST_DATABASE_URL not set)");
        return;
    };
    let app = TestApp::start(db).await;
    let (member, team) = app.bench_team().await;
    let started = Instant::now();
    seed(&app.db, n, team, member.user.id);
    println!(
        "{backend:?}: {n} leads written and indexed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if std::env::var_os("SEARCH_BENCH_KEEP").is_some() {
        // Exiting skips the database's drop, which would remove it.
        println!("kept, queries not run: {}", app.db.url);
        std::process::exit(0);
    }

    let some = |salt: u64| (0..20u64).map(move |k| (k * 49_999 + salt * 7) % n);
    let encode = |s: &str| {
        s.replace(' ', "%20")
            .replace('+', "%2B")
            .replace('@', "%40")
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "q: a street word",
            [
                "Lamar",
                "congress",
                "Barton Springs",
                "Oltorf",
                "Payton Gin",
            ]
            .iter()
            .map(|w| format!("q={}", encode(w)))
            .collect(),
        ),
        (
            "q: a phone as written",
            some(1)
                .map(|i| {
                    let p = phone(i);
                    format!(
                        "q={}",
                        encode(&format!("({}) {}-{}", &p[2..5], &p[5..8], &p[8..]))
                    )
                })
                .collect(),
        ),
        (
            "q: an e-mail",
            some(2)
                .filter_map(email)
                .map(|e| format!("q={}", encode(&e)))
                .collect(),
        ),
        (
            "q: matching nothing",
            (0..20).map(|k| format!("q=zqxv{k}")).collect(),
        ),
        (
            "state + source",
            STATES
                .iter()
                .zip(SOURCES.iter().cycle())
                .map(|(s, o)| format!("state={s}&source={o}"))
                .collect(),
        ),
        (
            "zip_code + permit_status",
            (0..20)
                .map(|k| format!("zip_code={:05}&permit_status=issued", 70_000 + k * 137))
                .collect(),
        ),
        (
            "city + permit_status",
            CITIES
                .iter()
                .take(20)
                .map(|c| format!("city={}&permit_status=FINAL", encode(&c.to_lowercase())))
                .collect(),
        ),
        (
            "city + source",
            CITIES
                .iter()
                .take(20)
                .map(|c| format!("city={}&source=referral", encode(c)))
                .collect(),
        ),
        (
            "state + permit_status",
            STATES
                .iter()
                .map(|s| format!("state={s}&permit_status=pending"))
                .collect(),
        ),
        (
            "source + property_type",
            SOURCES
                .iter()
                .map(|s| format!("source={s}&property_type=commercial"))
                .collect(),
        ),
        (
            "q word + state",
            ["Lamar", "Congress", "Oltorf"]
                .iter()
                .map(|w| format!("q={w}&state=TX"))
                .collect(),
        ),
        ("no filter (newest first)", vec!["limit=50".to_owned()]),
        (
            "sort=city",
            vec!["sort=city".to_owned(), "sort=-city".to_owned()],
        ),
        ("sort=-permit_date", vec!["sort=-permit_date".to_owned()]),
        ("sort=-updated_at", vec!["sort=-updated_at".to_owned()]),
        (
            "sort=last_contact_at",
            vec![
                "sort=last_contact_at".to_owned(),
                "sort=-last_contact_at".to_owned(),
            ],
        ),
        (
            "state + sort=last_contact_at",
            STATES
                .iter()
                .map(|s| format!("state={s}&sort=last_contact_at"))
                .collect(),
        ),
    ];
    // `SEARCH_BENCH_EXPORT_ONLY=1`: the export alone, for profiling it.
    let export_only = std::env::var_os("SEARCH_BENCH_EXPORT_ONLY").is_some();
    println!("| {backend:?}, {n} leads | p50 ms | p95 ms | matches (first query) |");
    if !export_only {
        for (name, queries) in &cases {
            let (p50, p95, total) = time_list(&app, &member.key, queries).await;
            println!("| {name} | {p50:.1} | {p95:.1} | {total} |");
        }
    }

    let started = Instant::now();
    let (bytes, rows) = app
        .download("/api/v1/leads/export", &member.key, || {})
        .await;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "| export, every lead | {:.0} rows/s | {} rows, {:.0} MB in {seconds:.1} s |",
        (rows - 1) as f64 / seconds,
        rows - 1,
        bytes as f64 / 1e6
    );
}

fn main() {
    let n: u64 = std::env::var("SEARCH_BENCH_LEADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let only = std::env::var("SEARCH_BENCH_BACKEND").unwrap_or_default();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for (name, backend) in [("sqlite", Backend::Sqlite), ("postgres", Backend::Postgres)] {
        if only.is_empty() || only == name {
            runtime.block_on(run(backend, n));
        }
    }
}
