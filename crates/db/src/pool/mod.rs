//! Connecting to the database and keeping it healthy: the pools and their threads, WAL
//! checkpoints, SQLite backups, the copy of a SQLite database into PostgreSQL, the rows kept for
//! a moment after a read, and the group-commit queue whose runners write what callers queued
//! together.

pub(crate) mod backup;
pub(crate) mod checkpoint;
pub(crate) mod connection;
pub(crate) mod copy_to_postgres;
pub(crate) mod group_commit;
pub(crate) mod manager;
pub(crate) mod migrations;
pub(crate) mod pool_threads;
pub(crate) mod recent;
pub(crate) mod writable;
pub(crate) mod write_faults;
