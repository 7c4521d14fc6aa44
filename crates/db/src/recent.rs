//! Rows read in the last moment, kept for every request that needs them again soon: a busy API
//! client sends its key with each request, and reading the key and its user costs two trips to
//! the blocking pool and two queries per request. Kept `RECENT_FOR` at most, so a change made by
//! another process (a key revoked through another server on one PostgreSQL database) counts here
//! that much later at most; this process's own changes update the copy.
use std::borrow::Borrow;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use leadhub_domain::store::StoreResult;

/// How long a row read is taken as current.
pub const RECENT_FOR: Duration = Duration::from_secs(2);
/// Rows kept at most; past it, the stale ones go, or all of them.
const CAPACITY: usize = 4096;

pub(crate) struct Recent<K, V> {
    rows: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Recent {
            rows: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Recent<K, V> {
    /// A copy of the row when it was read less than `RECENT_FOR` ago.
    pub(crate) fn get<Q: Eq + Hash + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let rows = self.rows();
        let (read_at, row) = rows.get(key)?;
        (read_at.elapsed() < RECENT_FOR).then(|| row.clone())
    }

    /// The kept row of `key`, else what `read` finds, kept for the next time (a row that does not
    /// exist is never kept: one made a moment later is found at once).
    pub(crate) async fn or_read<F, Fut>(&self, key: K, read: F) -> StoreResult<Option<V>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = StoreResult<Option<V>>>,
    {
        if let Some(row) = self.get(&key) {
            return Ok(Some(row));
        }
        // Taken before the read, so a kept row is never taken for younger than it is.
        let read_at = Instant::now();
        let found = read().await?;
        if let Some(row) = &found {
            self.put(key, row.clone(), read_at);
        }
        Ok(found)
    }

    /// Keeps `row`, read at `read_at`.
    pub(crate) fn put(&self, key: K, row: V, read_at: Instant) {
        let mut rows = self.rows();
        if rows.len() >= CAPACITY {
            rows.retain(|_, (at, _)| at.elapsed() < RECENT_FOR);
            if rows.len() >= CAPACITY {
                rows.clear();
            }
        }
        rows.insert(key, (read_at, row));
    }

    /// Applies `change` to every kept row (it leaves those it is not about alone).
    pub(crate) fn update(&self, mut change: impl FnMut(&mut V)) {
        for (_, row) in self.rows().values_mut() {
            change(row);
        }
    }

    /// Forgets the rows `gone` picks.
    pub(crate) fn forget(&self, gone: impl Fn(&V) -> bool) {
        self.rows().retain(|_, (_, row)| !gone(row));
    }

    /// A lock holder panicking leaves only whole rows behind.
    fn rows(&self) -> MutexGuard<'_, HashMap<K, (Instant, V)>> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_kept_for_a_moment_and_changed_or_forgotten_on_request() {
        let recent: Recent<&str, i32> = Recent::default();
        recent.put("a", 1, Instant::now());
        recent.put("b", 2, Instant::now());
        assert_eq!(recent.get(&"a"), Some(1));
        recent.update(|v| *v *= 10);
        assert_eq!(recent.get(&"b"), Some(20));
        recent.forget(|v| *v == 10);
        assert_eq!(recent.get(&"a"), None);
        recent.put("c", 3, Instant::now() - RECENT_FOR);
        assert_eq!(recent.get(&"c"), None);
    }

    #[test]
    fn a_full_cache_drops_stale_rows_first() {
        let recent: Recent<usize, usize> = Recent::default();
        let old = Instant::now() - RECENT_FOR;
        for i in 0..CAPACITY {
            recent.put(i, i, if i == 0 { Instant::now() } else { old });
        }
        recent.put(CAPACITY, CAPACITY, Instant::now());
        assert_eq!(recent.get(&0), Some(0));
        assert_eq!(recent.get(&CAPACITY), Some(CAPACITY));
        assert_eq!(recent.rows().len(), 2);
    }
}
