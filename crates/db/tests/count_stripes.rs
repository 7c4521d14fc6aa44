//! On PostgreSQL, two writers adding leads of one team on one day do not wait on each other's
//! row of dashboard counts: each connection adds to its own stripe (`lead_daily_counts.stripe`), and the
//! dashboard's reader adds the stripes up. Needs `TEST_DATABASE_URL` (CI sets it).
#![allow(clippy::unwrap_used)]
mod common;
use common::{migrated, OwnSchema};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer};

#[derive(QueryableByName)]
struct Pid {
    #[diesel(sql_type = Integer)]
    pid: i32,
}

#[derive(QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn stripe_of(conn: &mut PgConnection) -> i32 {
    let pid: Pid = diesel::sql_query("SELECT pg_backend_pid() AS pid")
        .get_result(conn)
        .unwrap();
    pid.pid % 64
}

/// A new lead of team scope 0 (unassigned) created today, in an open transaction.
fn add_lead(conn: &mut PgConnection) -> QueryResult<()> {
    conn.batch_execute(
        "INSERT INTO leads (dedupe_scope, enrichment_status, created_by, created_at, updated_at) \
         VALUES (0, 'pending', (SELECT min(id) FROM users), now(), now())",
    )
}

#[tokio::test]
async fn concurrent_writers_of_one_days_leads_do_not_wait_on_each_others_counts() {
    let Some(schema) = OwnSchema::on_test_database("count_stripes", "count stripes on PostgreSQL")
    else {
        return;
    };
    let db = migrated(&schema.url, 1);
    drop(db);
    let mut first = PgConnection::establish(&schema.url).unwrap();
    first
        .batch_execute(
            "INSERT INTO users (user_id, email, created_at, updated_at) \
             VALUES ('u-stripes', 'stripes@example.com', now(), now())",
        )
        .unwrap();
    // A second connection on another stripe (pids are 1 in 64 likely to share one).
    let mut second = loop {
        let mut conn = PgConnection::establish(&schema.url).unwrap();
        if stripe_of(&mut conn) != stripe_of(&mut first) {
            break conn;
        }
    };

    first.batch_execute("BEGIN").unwrap();
    add_lead(&mut first).unwrap();
    // Without stripes the second insert waits for the first to commit: the lock timeout ends it.
    second
        .batch_execute("SET lock_timeout = '3s'; BEGIN")
        .unwrap();
    let waited = add_lead(&mut second);
    second.batch_execute("COMMIT").unwrap();
    first.batch_execute("COMMIT").unwrap();
    assert!(
        waited.is_ok(),
        "the second writer waited on the first's count row: {waited:?}"
    );

    let total: Total = diesel::sql_query(
        "SELECT CAST(SUM(n) AS BIGINT) AS n FROM lead_daily_counts WHERE team_scope = 0",
    )
    .get_result(&mut first)
    .unwrap();
    assert_eq!(total.n, 2, "the stripes add up to the leads written");
    drop((first, second));
    schema.remove();
}
