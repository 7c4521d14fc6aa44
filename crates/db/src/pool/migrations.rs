//! The schema's migrations, compiled in, and the one rule about the databases they may meet.
use diesel::backend::Backend;
use diesel::migration::Result;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

/// Each backend's migrations: `Database::migrate` applies them; public so that the migration
/// tests can also revert them one by one.
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
pub const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// The version of the first migration, `2026-12-14-000040_baseline`: it builds at once the schema
/// that the step-by-step migrations before it built. It has the version of the last of them, so
/// a database they brought up to date counts it as applied and migrates on from there.
pub const BASELINE: &str = "20261214000040";

/// Applies the pending migrations; returns how many ran. A database migrated by a leadhub from
/// before the baseline that never reached it is refused, naming what to run first: the baseline
/// would otherwise fail on its first table, which exists (docs/deploy.md, "Upgrades").
pub fn run_pending<DB: Backend>(
    conn: &mut impl MigrationHarness<DB>,
    migrations: EmbeddedMigrations,
) -> Result<usize> {
    let applied = conn.applied_migrations()?;
    if !applied.is_empty() && !applied.iter().any(|v| v.to_string() == BASELINE) {
        let newest = applied
            .iter()
            .map(ToString::to_string)
            .max()
            .unwrap_or_default();
        return Err(format!(
            "this database was last migrated by an older leadhub (its newest migration is \
             {newest}, before the baseline {BASELINE}): run a leadhub built from commit 841c18c, \
             the last with the step-by-step migrations, on it once, then this one (docs/deploy.md, \
             \"Upgrades\")"
        )
        .into());
    }
    Ok(conn.run_pending_migrations(migrations)?.len())
}
