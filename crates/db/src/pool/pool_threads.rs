//! The threads on which r2d2 opens and closes connections, shared by every pool of the process,
//! and `settle`, which the binary calls before `main` returns.
//!
//! r2d2 opens connections on its worker threads (after a checkout it opens another to keep
//! `min_idle` ready) and closes reaped ones there. When `main` returns while one of them is inside
//! libpq, the exit handlers free OpenSSL's global state (`OPENSSL_cleanup`) under it, and the
//! process dies of SIGSEGV after its work is done. scheduled-thread-pool cannot join its threads,
//! so these live as long as the process: an idle one is parked and touches nothing, while one
//! exiting would run OpenSSL's thread-exit handler, racing the exit handlers the same way.
//! (A dropped pool's reaping job stays scheduled, as r2d2 keeps no handle to cancel it: every
//! 30 s it finds its pool gone. The binary opens one pool; test processes open a few hundred.)
use std::sync::{Arc, Barrier, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use scheduled_thread_pool::ScheduledThreadPool;

/// Enough for every pool of a process (r2d2 gives each pool three of its own).
const WORKERS: usize = 4;

static THREADS: OnceLock<Arc<ScheduledThreadPool>> = OnceLock::new();

/// How many `Database`s (counting clones as one) are open, and a signal when one closes.
static OPEN_POOLS: Mutex<usize> = Mutex::new(0);
static POOL_CLOSED: Condvar = Condvar::new();

/// The worker threads every r2d2 pool of this process is given.
pub(crate) fn workers() -> Arc<ScheduledThreadPool> {
    THREADS
        .get_or_init(|| {
            Arc::new(
                ScheduledThreadPool::builder()
                    .num_threads(WORKERS)
                    .thread_name_pattern("db-pool-{}")
                    .build(),
            )
        })
        .clone()
}

/// Held by every clone of one `Database`, after its pool: once the last clone is dropped, the
/// pool's idle connections are closed and the pool counts as closed.
pub(crate) struct OpenPool(());

impl OpenPool {
    pub(crate) fn new() -> OpenPool {
        *open_pools() += 1;
        OpenPool(())
    }
}

impl Drop for OpenPool {
    fn drop(&mut self) {
        *open_pools() -= 1;
        POOL_CLOSED.notify_all();
    }
}

/// A counter stays right even if a thread panicked while holding it.
fn open_pools() -> MutexGuard<'static, usize> {
    OPEN_POOLS.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Debug, thiserror::Error)]
#[error("{0} database pool(s) still open at exit")]
pub struct StillOpen(usize);

/// Waits until every `Database` of the process is dropped (at most `patience`), then until no
/// pool worker is running a job. From then on no thread of this crate opens or closes a
/// connection: a job that runs later finds its pool gone and does nothing.
pub fn settle(patience: Duration) -> Result<(), StillOpen> {
    let deadline = Instant::now() + patience;
    let mut open = open_pools();
    while *open > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(StillOpen(*open));
        }
        open = POOL_CLOSED
            .wait_timeout(open, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    drop(open);
    if let Some(threads) = THREADS.get() {
        // Each worker takes one of these jobs and holds it until every worker has one, so none
        // is still inside an earlier job (opening a connection, say) when this returns.
        let everyone = Arc::new(Barrier::new(WORKERS + 1));
        for _ in 0..WORKERS {
            let everyone = everyone.clone();
            threads.execute(move || {
                everyone.wait();
            });
        }
        everyone.wait();
    }
    Ok(())
}
