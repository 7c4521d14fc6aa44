//! SQLite WAL checkpoints off the request path.
//!
//! In WAL mode every commit appends pages to the `-wal` file, and by default the commit that
//! takes the log past 1000 pages copies the whole log back into the database file (and syncs
//! it) before it returns: a request that happens to cross the line waits 8-15 ms more for
//! work that is not its own. Here a background thread checkpoints the log shortly after
//! writes, in PASSIVE mode (it never blocks a reader or a writer, and takes no turn in the
//! writers' queue), while each connection's own automatic checkpoint stays on at a larger
//! threshold as a safety net: should this thread fall behind or stop, commits checkpoint
//! as before, and the log stays bounded.
//!
//! Under steady writes this thread copies the pages but cannot rewind the log: a commit always
//! lands while it works, so the log only starts over from the top after a commit's own
//! checkpoint. That one copies little (this thread has copied the rest) but syncs the log and
//! the database file, 10-25 ms on a virtual disk that every queued request waits for. The
//! threshold is therefore large: a lead change writes 8-60 KB of log (the row, its timeline
//! row, and every index whose columns its UPDATE sets), so at 4,000 pages 3,000 changes a
//! second met such a stall five to ten times a second (PATCH p99 23 ms); at 32,768 pages, by
//! the same rate, about once in two seconds (p99 under 20 ms, docs/performance.md).
//! `journal_size_limit` gives the space back once the log starts over.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::sqlite::SqliteConnection;
use diesel::Connection;

use crate::sql::error::is_busy;

/// Pages after which a commit checkpoints by itself (SQLite's default is 1000; a page is 4 KiB,
/// so 128 MiB of log).
pub(crate) const AUTOCHECKPOINT_PAGES: u32 = 32_768;

/// The size the log file is cut back to when it starts over (bytes).
pub(crate) const LOG_SIZE_LIMIT: u64 = 64 * 1024 * 1024;

/// How long written pages may wait in the log before the background checkpoint.
const INTERVAL: Duration = Duration::from_millis(100);

/// This process's SQLite writers: their queue (see `Database::write`) and whether any wrote
/// since the last background checkpoint.
#[derive(Default)]
pub(crate) struct Writers {
    pub(crate) turn: Mutex<()>,
    wrote: AtomicBool,
}

impl Writers {
    pub(crate) fn note_write(&self) {
        self.wrote.store(true, Ordering::Release);
    }
}

/// Starts the checkpointing thread for the database at `path`; it ends once `writers` (held by
/// every clone of the `Database`) is dropped.
pub(crate) fn start(path: String, writers: &Arc<Writers>) {
    let writers = Arc::downgrade(writers);
    let spawned = std::thread::Builder::new()
        .name("sqlite-checkpoint".into())
        .spawn(move || run(&path, &writers));
    if let Err(e) = spawned {
        // Commits still checkpoint by themselves at AUTOCHECKPOINT_PAGES.
        tracing::warn!(error = %e, "no background checkpoint thread");
    }
}

fn run(path: &str, writers: &Weak<Writers>) {
    let mut conn = match SqliteConnection::establish(path) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "background checkpoint cannot open the database");
            return;
        }
    };
    loop {
        std::thread::sleep(INTERVAL);
        let Some(writers) = writers.upgrade() else {
            return;
        };
        if writers.wrote.swap(false, Ordering::AcqRel) {
            match conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
                Ok(()) => {}
                // Another connection holds a lock this one does not wait for (a checkpoint of
                // its own, the last connection closing and folding the log back): nothing is
                // wrong, the next round tries again.
                Err(e) if is_busy(&e) => {
                    writers.note_write();
                    tracing::debug!(error = %e, "background checkpoint skipped: database busy");
                }
                Err(e) => tracing::warn!(error = %e, "background checkpoint failed"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_held_elsewhere_is_busy_and_other_faults_are_not() {
        let path = std::env::temp_dir().join(format!("checkpoint-busy-{}.db", std::process::id()));
        let path = path.to_str().unwrap().to_owned();
        let mut holder = SqliteConnection::establish(&path).unwrap();
        holder
            .batch_execute("CREATE TABLE t (x INTEGER); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);")
            .unwrap();
        // A second connection that does not wait, as the checkpoint thread's.
        let mut other = SqliteConnection::establish(&path).unwrap();
        let locked = other.batch_execute("SELECT * FROM t;").unwrap_err();
        assert!(is_busy(&locked), "{locked}");
        let wrong = other.batch_execute("SELEC 1;").unwrap_err();
        assert!(!is_busy(&wrong), "{wrong}");
        holder.batch_execute("ROLLBACK;").unwrap();
        drop((holder, other));
        let _ = std::fs::remove_file(&path);
    }
}
