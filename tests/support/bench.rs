//! What the benches share: seeding a database by SQL in a few big statements, beside the app's
//! own pool, with the few expressions whose SQL differs between the backends; and timing pages.
use std::time::Instant;

use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};

use crate::{Backend, TestApp, TestDatabase};

/// A direct connection to a bench's database, for its seed.
pub enum SeedConnection {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl SeedConnection {
    pub fn open(db: &TestDatabase) -> SeedConnection {
        match db.backend {
            Backend::Sqlite => {
                let mut conn =
                    SqliteConnection::establish(db.url.strip_prefix("sqlite://").unwrap()).unwrap();
                // The app's workers write too (enrichment retries of the seeded leads): wait
                // for their transactions rather than fail a seed statement on a busy database.
                diesel::sql_query("PRAGMA busy_timeout = 60000")
                    .execute(&mut conn)
                    .unwrap();
                SeedConnection::Sqlite(conn)
            }
            Backend::Postgres => {
                SeedConnection::Postgres(PgConnection::establish(&db.url).unwrap())
            }
        }
    }

    /// Runs one statement; the rows it changed.
    pub fn execute(&mut self, statement: &str) -> usize {
        match self {
            SeedConnection::Sqlite(c) => diesel::sql_query(statement).execute(c),
            SeedConnection::Postgres(c) => diesel::sql_query(statement).execute(c),
        }
        .unwrap_or_else(|e| panic!("{e}: {statement}"))
    }

    /// Runs one statement and prints its first words, its rows and its seconds.
    pub fn run(&mut self, statement: &str) {
        let started = Instant::now();
        let rows = self.execute(statement);
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

    /// The submissions of `user` behind the seeded leads: one that created each lead, one that
    /// merged into every tenth and a failed one for every hundredth; `raw_json` is the body each
    /// sent, an SQL expression over its lead's columns.
    pub fn submissions_behind_leads(&mut self, user: i64, raw_json: &str) {
        for (status, action, every) in [
            ("'completed'", "'created'", 1),
            ("'completed'", "'updated'", 10),
            ("'failed'", "NULL", 100),
        ] {
            self.run(&format!(
                "INSERT INTO submissions (user_id, team_id, raw_json, status, result_lead_id,
                   result_action, validation_warnings, error, created_at, processed_at)
                 SELECT {user}, team_id, {raw_json},
                   {status}, CASE WHEN {status} = 'failed' THEN NULL ELSE id END, {action}, '[]',
                   CASE WHEN {status} = 'failed' THEN 'refused' END, created_at, created_at
                 FROM leads WHERE id % {every} = 0"
            ));
        }
    }

    /// Ends a seed: fresh planner statistics, and on PostgreSQL the visibility map that
    /// index-only scans need (a VACUUM writes it).
    pub fn finish(&mut self) {
        match self {
            SeedConnection::Sqlite(_) => self.run("ANALYZE"),
            SeedConnection::Postgres(_) => self.run("VACUUM ANALYZE"),
        }
    }
}

/// The numbers 1 to `n` as rows of one column `i`, for `FROM (...) AS n`.
pub fn numbers(backend: Backend, n: i64) -> String {
    match backend {
        Backend::Sqlite => format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) \
             SELECT i FROM n"
        ),
        Backend::Postgres => format!("SELECT i FROM generate_series(1, {n}) AS i"),
    }
}

/// The time `amount` (an SQL expression) `unit`s (`second`, `minute`, `day`) ago, in UTC, as the
/// service stores it.
pub fn ago(backend: Backend, amount: &str, unit: &str) -> String {
    match backend {
        Backend::Sqlite => format!("datetime('now', '-' || ({amount}) || ' {unit}s')"),
        Backend::Postgres => {
            format!("timezone('utc', now()) - ({amount}) * interval '1 {unit}'")
        }
    }
}

/// The day `days` (an SQL expression, negative for the past) from today (UTC).
pub fn days_from_today(backend: Backend, days: &str) -> String {
    match backend {
        Backend::Sqlite => format!("date('now', ({days}) || ' days')"),
        Backend::Postgres => {
            format!("(timezone('utc', now()) + ({days}) * interval '1 day')::date")
        }
    }
}

/// Requests page `path` `samples` times after three for a warm-up, each a page showing
/// `marker`: the milliseconds of each, in order from the fastest, and the last page.
pub async fn time_page(
    app: &TestApp,
    cookies: &str,
    path: &str,
    marker: &str,
    samples: usize,
) -> (Vec<f64>, String) {
    let mut times = Vec::with_capacity(samples);
    let mut body = String::new();
    for i in 0..samples + 3 {
        let started = Instant::now();
        body = app.page_with_cookies(path, cookies).await;
        if i >= 3 {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
        assert!(body.contains(marker), "{path}");
    }
    times.sort_by(f64::total_cmp);
    (times, body)
}

/// The nearest-rank percentile `p` (0 to 100) of `sorted` (in order from the smallest).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
