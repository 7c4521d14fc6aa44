//! The diesel adapter: one schema and one set of queries over SQLite and PostgreSQL.
//!
//! Diesel is synchronous, so every query runs on tokio's blocking pool, through one of two doors:
//! `Database::read` (a connection that runs SELECTs only) or `Database::write` (the only way to
//! a connection that writes; on SQLite it takes this process's writer turn). An actix worker
//! thread is never blocked on the database.
#![forbid(unsafe_code)]

mod backup;
mod businesses;
mod checkpoint;
mod connection;
mod credentials;
mod dashboard;
mod error;
mod fixed_chunks;
mod fresh_submissions;
mod geocode_cache;
mod job_wakeups;
mod jobs;
mod lead_row;
mod lead_search;
mod lead_writes;
mod leads;
mod memberships;
mod outcomes;
mod plan_store;
mod pool_threads;
mod rate_limits;
mod recent;
pub mod schema;
mod sessions;
mod simple;
mod submissions;
mod teams;
mod time;
mod unnest;
mod uploads;
mod users;
mod webhook_events;
mod webhook_outbox;
mod webhooks;

pub use backup::{backup_sqlite, BackupError};
pub use connection::{
    blocking_here, Backend, Database, DbConnection, DbError, ReadConnection, SQLITE_BUSY_TIMEOUT,
};
pub use pool_threads::{settle, StillOpen};

/// Bind-parameter lists (`IN (...)` of ids, keys, names) are read in chunks of this many, below
/// every backend's limit.
pub(crate) const IN_LIST_CHUNK: usize = 500;

/// The `dedupe_scope` column of leads and businesses: the team, or 0 for no team (NULL would
/// not take part in the unique indexes that keep one row per property or business).
pub(crate) fn scope_of(team_id: Option<i64>) -> i64 {
    team_id.unwrap_or(0)
}
pub use rate_limits::DatabaseRateLimitStore;
