//! The schema the migrations build, pinned in `snapshots/`: one line an object (SQLite: each
//! table, index, trigger and view with its SQL, comments and layout folded away; PostgreSQL: each
//! column, constraint, index, view, trigger and function from its catalogs). A migration changes
//! its backend's snapshot in the same commit, so the change to the schema shows in review; accept
//! one with `INSTA_UPDATE=always cargo test -p leadhub-db --test schema`. Needs `TEST_DATABASE_URL` for PostgreSQL.
#![allow(clippy::unwrap_used)]
mod common;
use common::schema::{schema, sqlite_line, POSTGRES_SCHEMA, SQLITE_SCHEMA};
use common::{migrated, OwnFile, OwnSchema};

use diesel::connection::SimpleConnection;
use diesel_migrations::MigrationHarness;
use leadhub_db::{DbError, BASELINE, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};

#[test]
fn sqlite_schema_is_pinned() {
    let lines: Vec<String> = OwnFile::with_connection("schema-pin", |conn| {
        conn.run_pending_migrations(SQLITE_MIGRATIONS).unwrap();
        schema(conn, SQLITE_SCHEMA)
            .iter()
            .map(|l| sqlite_line(l))
            .collect()
    });
    insta::assert_snapshot!("sqlite", lines.join("\n"));
}

#[test]
fn postgres_schema_is_pinned() {
    let what = "PostgreSQL schema snapshot";
    let Some(lines) = OwnSchema::with_connection("schema_pin", what, |conn, own| {
        conn.run_pending_migrations(POSTGRES_MIGRATIONS).unwrap();
        // The catalog names the test's own schema in each function it shows.
        schema(conn, POSTGRES_SCHEMA)
            .iter()
            .map(|l| l.replace(&format!("{}.", own.name()), "<schema>."))
            .collect::<Vec<String>>()
    }) else {
        return;
    };
    insta::assert_snapshot!("postgres", lines.join("\n"));
}

/// Marks `versions` applied, as the leadhub that ran those migrations would have.
fn record_applied(file: &OwnFile, versions: &[&str]) {
    let mut conn = file.connect();
    // Reading the applied versions creates diesel's table of them where it is missing.
    conn.applied_migrations().unwrap();
    for version in versions {
        conn.batch_execute(&format!(
            "INSERT INTO __diesel_schema_migrations (version) VALUES ('{version}')"
        ))
        .unwrap();
    }
}

#[test]
fn a_database_migrated_before_the_baseline_is_refused_with_what_to_run() {
    let file = OwnFile::create("schema-old");
    record_applied(&file, &["20261122000001", "20261206000031"]);
    let db = leadhub_db::Database::connect(&file.url(), 1).unwrap();
    let Err(DbError::Migrate(said)) = db.migrate() else {
        panic!("an old database migrated");
    };
    assert!(said.contains("20261206000031"), "{said}");
    assert!(said.contains("841c18c"), "{said}");
    drop(db);
    file.remove();
}

#[test]
fn a_database_at_the_baseline_migrates_on_from_it() {
    let file = OwnFile::create("schema-at-baseline");
    let db = migrated(&file.url(), 1);
    // The step-by-step history of a database brought up to date before the squash.
    record_applied(&file, &["20261122000001", "20261213000039"]);
    assert_eq!(db.migrate().unwrap(), 0);
    let mut conn = file.connect();
    let applied: Vec<String> = conn
        .applied_migrations()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(applied.iter().any(|v| v == BASELINE), "{applied:?}");
    drop((db, conn));
    file.remove();
}
