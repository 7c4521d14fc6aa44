//! A SQLite database this process cannot write is found at the start, in one try, and named with
//! what is wrong: SQLite opens an unwritable file read-only without a word, and the pool then
//! retried its connection settings for 10 s ("attempt to write a readonly database", no path).
use std::path::{Path, PathBuf};

use diesel::connection::SimpleConnection;
use diesel::sqlite::SqliteConnection;
use diesel::Connection;

use crate::pool::connection::{one_line, DbError};
use crate::sql::error::is_read_only;

/// Writes nothing that stays: WAL on (as every pooled connection asks, which creates the -wal and
/// -shm files), then a table created and rolled back, which needs the write lock and every file.
/// Waits for another process's writer as pooled connections do, up to a few seconds.
const PROBE: &str = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; \
    BEGIN IMMEDIATE; CREATE TABLE leadhub_write_check (x INTEGER); ROLLBACK;";

/// Ok when this process can write the SQLite database at `path`; else `DbError::ReadOnly`
/// naming the file (or folder) and the problem. Another error (not a database, say) is left to
/// the connection that follows, which reports it.
pub(crate) fn check_sqlite_writable(path: &str) -> Result<(), DbError> {
    if path == ":memory:" || path.starts_with("file:") {
        return Ok(());
    }
    let Ok(mut conn) = SqliteConnection::establish(path) else {
        return Ok(());
    };
    let said = match conn.batch_execute(PROBE) {
        Ok(()) => return Ok(()),
        Err(e) => e.to_string(),
    };
    if !is_read_only(&said) && !said.contains("unable to open database file") {
        return Ok(());
    }
    Err(DbError::ReadOnly {
        path: path.to_owned(),
        problem: why_unwritable(Path::new(path), &said),
    })
}

/// What keeps `db` from being written, in words, naming the file or folder at fault: the file,
/// its -wal or -shm file, or its folder (where SQLite creates those). `said` is SQLite's word.
fn why_unwritable(db: &Path, said: &str) -> String {
    if let Err(e) = open_for_writing(db) {
        return format!("the file {}", io_problem(&e));
    }
    for suffix in ["-wal", "-shm"] {
        let mut beside = db.as_os_str().to_owned();
        beside.push(suffix);
        let beside = PathBuf::from(beside);
        if beside.exists() {
            if let Err(e) = open_for_writing(&beside) {
                return format!("its {suffix} file {} {}", beside.display(), io_problem(&e));
            }
        }
    }
    let folder = db
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Err(e) = try_create_in(folder) {
        return format!(
            "its folder {} {}; SQLite creates the -wal and -shm files there",
            folder.display(),
            io_problem(&e)
        );
    }
    format!("SQLite cannot write it ({})", one_line(said))
}

fn open_for_writing(path: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map(drop)
}

/// Creates and removes an empty file in `folder`: the one sure test of writing there.
fn try_create_in(folder: &Path) -> std::io::Result<()> {
    let probe = folder.join(format!(".leadhub-write-check-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The problem in words, the system's word after it: `is read-only (permission denied)`.
fn io_problem(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(13) => "is read-only for this user (permission denied)".to_owned(),
        Some(1) => "cannot be changed (operation not permitted: immutable?)".to_owned(),
        Some(30) => "is on a read-only file system".to_owned(),
        _ => format!("cannot be written ({e})"),
    }
}

/// `why_unwritable` for a file that could not be created at all.
pub(crate) fn cannot_create(db: &Path, e: &std::io::Error) -> DbError {
    let folder = db
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    DbError::ReadOnly {
        path: db.display().to_string(),
        problem: format!(
            "it cannot be created: its folder {} {}",
            folder.display(),
            io_problem(e)
        ),
    }
}
