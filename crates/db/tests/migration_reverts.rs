//! Every migration's `down.sql` undoes its `up.sql` exactly, on both backends: the migrations are
//! applied one at a time and the schema after each is recorded; then they are reverted one at a
//! time, and after each revert the schema must be the one recorded before that migration ran.
//! Then they all apply again. A developer's `diesel migration redo` relies on it; the service
//! itself only migrates forward (docs/deploy.md). Needs `TEST_DATABASE_URL` for PostgreSQL.
#![allow(clippy::unwrap_used)]
mod common;
use common::schema::{schema, Line, POSTGRES_SCHEMA, SQLITE_SCHEMA};
use common::{OwnFile, OwnSchema};

use std::collections::BTreeSet;

use diesel::backend::Backend;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel_migrations::MigrationHarness;
use leadhub_db::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};

/// Applies every migration one by one, reverts them one by one checking each step, applies them
/// all again; returns how many there are.
fn walk<DB, C, S>(conn: &mut C, migrations: impl Fn() -> S, query: &str) -> usize
where
    DB: Backend,
    C: Connection<Backend = DB> + MigrationHarness<DB>,
    S: MigrationSource<DB>,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Line>,
{
    // Each migration applied, with the schema before it.
    let mut applied: Vec<(String, Vec<String>)> = Vec::new();
    while !conn.pending_migrations(migrations()).unwrap().is_empty() {
        let before = schema(conn, query);
        let name = conn.run_next_migration(migrations()).unwrap().to_string();
        applied.push((name, before));
    }
    let full = schema(conn, query);
    while let Some((name, expected)) = applied.pop() {
        let reverted = conn.revert_last_migration(migrations());
        assert!(reverted.is_ok(), "{name}: down.sql failed: {reverted:?}");
        let (expected, after): (BTreeSet<String>, BTreeSet<String>) = (
            expected.into_iter().collect(),
            schema(conn, query).into_iter().collect(),
        );
        let missing: Vec<_> = expected.difference(&after).collect();
        let extra: Vec<_> = after.difference(&expected).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{name}: down.sql does not restore the schema before it\n\
             missing: {missing:#?}\nleft over: {extra:#?}"
        );
    }
    assert!(conn.applied_migrations().unwrap().is_empty());
    let count = conn.run_pending_migrations(migrations()).unwrap().len();
    assert_eq!(
        schema(conn, query),
        full,
        "the migrations build another schema the second time"
    );
    count
}

#[test]
fn sqlite_migrations_revert_exactly() {
    let count = OwnFile::with_connection("reverts", |conn| {
        walk(conn, || SQLITE_MIGRATIONS, SQLITE_SCHEMA)
    });
    assert!(count >= 1, "{count} migrations");
}

#[test]
fn postgres_migrations_revert_exactly() {
    let what = "PostgreSQL migration reverts";
    let Some(count) = OwnSchema::with_connection("reverts", what, |conn, _| {
        walk(conn, || POSTGRES_MIGRATIONS, POSTGRES_SCHEMA)
    }) else {
        return;
    };
    assert!(count >= 1, "{count} migrations");
}

#[derive(diesel::QueryableByName)]
struct Found {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    rowid: i64,
}

/// The leads the word index finds for `digits` as the start of a token of `words` (what `q` asks).
fn found_by(conn: &mut diesel::SqliteConnection, digits: &str) -> Vec<i64> {
    diesel::sql_query(format!(
        "SELECT rowid FROM lead_search WHERE lead_search MATCH 'words : \"{digits}\" *' ORDER BY rowid"
    ))
    .load::<Found>(conn)
    .unwrap()
    .into_iter()
    .map(|f| f.rowid)
    .collect()
}

/// Migration 000055 writes again the word-index entries of the leads stored before it whose
/// phones carry an extension (their number's last 10 and last 7 digits), and its `down.sql`
/// writes them back as 000049's view did (docs/search.md, `q`).
#[test]
fn sqlite_phone_extension_entries_are_written_again() {
    const EXTENSION_MIGRATION: &str = "20261229000055";
    OwnFile::with_connection("extension-entries", |conn| {
        use diesel::connection::SimpleConnection;
        while conn
            .pending_migrations(SQLITE_MIGRATIONS)
            .unwrap()
            .first()
            .is_some_and(|m| m.name().version().to_string() != EXTENSION_MIGRATION)
        {
            conn.run_next_migration(SQLITE_MIGRATIONS).unwrap();
        }
        conn.batch_execute(
            "INSERT INTO users (id, user_id, email, is_admin, created_at, updated_at) VALUES \
               (1, 'u1', 'a@example.com', false, '2026-11-01 10:00:00', '2026-11-01 10:00:00');
             INSERT INTO leads (id, dedupe_scope, enrichment_status, created_by, created_at, updated_at, primary_phone, phone_3) VALUES \
               (1, 0, 'partial', 1, '2026-11-01 10:00:00', '2026-11-01 10:00:00', '+15125550100;ext=98', NULL), \
               (2, 0, 'partial', 1, '2026-11-01 10:00:00', '2026-11-01 10:00:00', '+12145550188', '+17375550123;ext=4567');",
        )
        .unwrap();
        let before = (found_by(conn, "5125550100"), found_by(conn, "5550123"));
        assert_eq!(
            before,
            (vec![], vec![]),
            "000049's view: the extension in the digits"
        );
        conn.run_next_migration(SQLITE_MIGRATIONS).unwrap();
        for (digits, leads) in [
            ("15125550100", vec![1]),
            ("5125550100", vec![1]),
            ("5550100", vec![1]),
            ("98", vec![1]),
            ("7375550123", vec![2]),
            ("5550123", vec![2]),
            ("4567", vec![2]),
            ("5550188", vec![2]),
        ] {
            assert_eq!(found_by(conn, digits), leads, "{digits}");
        }
        conn.revert_last_migration(SQLITE_MIGRATIONS).unwrap();
        assert_eq!(
            (found_by(conn, "5125550100"), found_by(conn, "5550123")),
            before,
            "down.sql writes the entries as 000049's view did"
        );
    });
}
