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
