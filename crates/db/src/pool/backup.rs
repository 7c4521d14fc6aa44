//! `leadhub backup`: a consistent copy of a SQLite database that a server may be writing.
use std::path::Path;

use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};

use crate::pool::connection::{create_private_file, open_sqlite_file};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("leadhub backup copies SQLite databases; for PostgreSQL use pg_dump (docs/deploy.md)")]
    NotSqlite,
    #[error("{0} exists already; name a new file")]
    TargetExists(String),
    #[error("cannot create {0}: {1}")]
    Create(String, std::io::Error),
    #[error("the copy failed: {0}")]
    Copy(String),
    #[error("the copy failed its integrity check: {0}")]
    Damaged(String),
}

#[derive(QueryableByName)]
struct CheckRow {
    #[diesel(sql_type = Text)]
    integrity_check: String,
}

/// Copies the database of `database_url` (`sqlite://PATH`) into `target`, a new file readable by
/// this user only, checks the copy and returns its size in bytes. `VACUUM INTO` reads one snapshot
/// in a read transaction: the copy is consistent while a server writes, and no writer waits for it.
pub fn backup_sqlite(database_url: &str, target: &Path) -> Result<u64, BackupError> {
    let source = database_url
        .strip_prefix("sqlite://")
        .ok_or(BackupError::NotSqlite)?;
    let shown = target.display().to_string();
    // VACUUM INTO fills an empty file that exists and keeps its mode: the copy holds every lead
    // and credential, so it is private before a byte lands in it.
    create_private_file(target).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => BackupError::TargetExists(shown.clone()),
        _ => BackupError::Create(shown.clone(), e),
    })?;
    let copied = copy(source, &shown);
    if copied.is_err() {
        let _ = std::fs::remove_file(target);
    }
    copied?;
    std::fs::metadata(target)
        .map(|m| m.len())
        .map_err(|e| BackupError::Create(shown, e))
}

fn copy(source: &str, target: &str) -> Result<(), BackupError> {
    let failed = |e: diesel::result::Error| BackupError::Copy(e.to_string());
    let mut conn = open_sqlite_file(source).map_err(BackupError::Copy)?;
    diesel::sql_query("VACUUM INTO ?")
        .bind::<Text, _>(target)
        .execute(&mut conn)
        .map_err(failed)?;
    let mut copy =
        SqliteConnection::establish(target).map_err(|e| BackupError::Copy(e.to_string()))?;
    let rows: Vec<CheckRow> = diesel::sql_query("PRAGMA integrity_check")
        .load(&mut copy)
        .map_err(failed)?;
    match rows.first() {
        Some(row) if row.integrity_check == "ok" => Ok(()),
        Some(row) => Err(BackupError::Damaged(row.integrity_check.clone())),
        None => Err(BackupError::Damaged("no answer".into())),
    }
}
