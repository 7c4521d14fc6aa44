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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::sqlite::SqliteConnection;
use diesel::Connection;

/// Pages after which a commit checkpoints by itself (SQLite's default is 1000; a page is 4 KiB).
pub(crate) const AUTOCHECKPOINT_PAGES: u32 = 4000;

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
            if let Err(e) = conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
                tracing::warn!(error = %e, "background checkpoint failed");
            }
        }
    }
}
