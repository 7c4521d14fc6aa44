//! The diesel adapter: one schema and one set of queries over SQLite and PostgreSQL.
//!
//! Diesel is synchronous, so every query runs on tokio's blocking pool, through one of two doors:
//! `Database::read` (a connection that runs SELECTs only) or `Database::write` (the only way to
//! a connection that writes; on SQLite it takes this process's writer turn). An actix worker
//! thread is never blocked on the database.
#![forbid(unsafe_code)]

mod business;
mod job;
mod lead;
mod pool;
pub mod schema;
mod shared;
mod sql;
mod team;
mod webhook;

pub use job::gauges::{QueueGauges, JOB_STATES};
pub use lead::single_intake::SingleIntake;
pub use pool::backup::{backup_sqlite, BackupError};
pub use pool::connection::{
    blocking_here, Backend, Database, DbConnection, DbError, ReadConnection, SQLITE_BUSY_TIMEOUT,
};
pub use pool::copy_to_postgres::{copy_sqlite_to_postgres, CopiedTable, CopyError};
pub use pool::migrations::{BASELINE, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
pub use pool::pool_threads::{settle, StillOpen};

/// The MATCH expression SQLite's word index answers a lead filter with, or None when the list
/// reads its B-tree indexes instead: public so the query-plan tests check the plans of what the
/// list really sends.
pub fn sqlite_word_match(filter: &leadhub_domain::lead::record::LeadFilter) -> Option<String> {
    lead::word_search::word_match(filter).map(|w| w.expr)
}

/// Bind-parameter lists (`IN (...)` of ids, keys, names) are read in chunks of this many, below
/// every backend's limit.
pub(crate) const IN_LIST_CHUNK: usize = 500;

/// The `dedupe_scope` column of leads and businesses: the team, or 0 for no team (NULL would
/// not take part in the unique indexes that keep one row per property or business).
pub(crate) fn scope_of(team_id: Option<i64>) -> i64 {
    team_id.unwrap_or(0)
}
pub use shared::rate_limits::DatabaseRateLimitStore;
