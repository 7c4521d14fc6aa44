//! Every migration's `down.sql` undoes its `up.sql` exactly, on both backends: the migrations are
//! applied one at a time and the schema after each is recorded; then they are reverted one at a
//! time, and after each revert the schema must be the one recorded before that migration ran.
//! Then they all apply again. A developer's `diesel migration redo` relies on it; the service
//! itself only migrates forward (docs/deploy.md). Needs `TEST_DATABASE_URL` for PostgreSQL.
#![allow(clippy::unwrap_used)]
mod common;
use common::{OwnFile, OwnSchema};

use std::collections::BTreeSet;

use diesel::backend::Backend;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_migrations::MigrationHarness;
use leadhub_db::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

/// Everything a migration may create, one line each, in order: tables with their SQL (columns,
/// constraints), indexes, triggers, views (FTS5's shadow tables included). A table rebuilt and
/// renamed (`ALTER TABLE ... RENAME TO`) has its name quoted in its SQL: that is not a difference.
const SQLITE_SCHEMA: &str = "SELECT type || ' ' || name || ' ' || \
    replace(coalesce(sql, ''), 'CREATE TABLE \"' || name || '\"', 'CREATE TABLE ' || name) AS line \
    FROM sqlite_master WHERE tbl_name != '__diesel_schema_migrations' ORDER BY type, name";

/// The same for PostgreSQL, in its catalogs: columns with type, nullability and default;
/// constraints; indexes; views; triggers; functions.
const POSTGRES_SCHEMA: &str = "\
    SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable \
        || ' ' || coalesce(column_default, '') || ' ' || coalesce(generation_expression, '') AS line \
        FROM information_schema.columns WHERE table_schema = current_schema() \
        AND table_name != '__diesel_schema_migrations' \
    UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) \
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace \
        AND conrelid::regclass::text != '__diesel_schema_migrations' \
    UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() \
        AND tablename != '__diesel_schema_migrations' \
    UNION ALL SELECT 'view ' || viewname || ' ' || definition FROM pg_views \
        WHERE schemaname = current_schema() \
    UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t \
        JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace \
        AND NOT t.tgisinternal \
    UNION ALL SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p \
        WHERE p.pronamespace = current_schema()::regnamespace \
    ORDER BY 1";

fn schema<C: Connection>(conn: &mut C, query: &str) -> Vec<String>
where
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Line>,
{
    let lines: Vec<Line> = diesel::sql_query(query).load(conn).unwrap();
    lines.into_iter().map(|l| l.line).collect()
}

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
    let file = OwnFile::create("reverts");
    let mut conn = SqliteConnection::establish(&file.path.display().to_string()).unwrap();
    let count = walk(&mut conn, || SQLITE_MIGRATIONS, SQLITE_SCHEMA);
    assert!(count > 10, "{count} migrations");
    drop(conn);
    file.remove();
}

#[test]
fn postgres_migrations_revert_exactly() {
    let Some(own) = OwnSchema::on_test_database("reverts", "PostgreSQL migration reverts") else {
        return;
    };
    let mut conn = PgConnection::establish(&own.url).unwrap();
    let count = walk(&mut conn, || POSTGRES_MIGRATIONS, POSTGRES_SCHEMA);
    assert!(count > 10, "{count} migrations");
    drop(conn);
    own.remove();
}
