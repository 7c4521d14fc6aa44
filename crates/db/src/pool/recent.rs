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
    rows: Mutex<Rows<K, V>>,
}

struct Rows<K, V> {
    kept: HashMap<K, (Instant, V)>,
    /// Counts `update`s and `forget`s, so that a read overtaken by one is not kept.
    changes: u64,
}

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Recent {
            rows: Mutex::new(Rows {
                kept: HashMap::new(),
                changes: 0,
            }),
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
        let (read_at, row) = rows.kept.get(key)?;
        (read_at.elapsed() < RECENT_FOR).then(|| row.clone())
    }

    /// The kept row of `key`, else what `read` finds, kept for the next time (a row that does not
    /// exist is never kept: one made a moment later is found at once).
    pub(crate) async fn or_read<Q, F, Fut>(&self, key: &Q, read: F) -> StoreResult<Option<V>>
    where
        Q: Eq + Hash + ToOwned<Owned = K> + ?Sized,
        K: Borrow<Q>,
        F: FnOnce() -> Fut,
        Fut: Future<Output = StoreResult<Option<V>>>,
    {
        if let Some(row) = self.get(key) {
            return Ok(Some(row));
        }
        // Taken before the read, so a kept row is never taken for younger than it is.
        let read_at = Instant::now();
        let changes = self.rows().changes;
        let found = read().await?;
        if let Some(row) = &found {
            self.put(key.to_owned(), row.clone(), read_at, changes);
        }
        Ok(found)
    }

    /// Keeps `row`, read at `read_at`, unless a change came after `changes` was seen: the read
    /// may be older than that change (a key revoked while it was being read).
    fn put(&self, key: K, row: V, read_at: Instant, changes: u64) {
        let mut rows = self.rows();
        if rows.changes != changes {
            return;
        }
        if rows.kept.len() >= CAPACITY {
            rows.kept.retain(|_, (at, _)| at.elapsed() < RECENT_FOR);
            if rows.kept.len() >= CAPACITY {
                rows.kept.clear();
            }
        }
        rows.kept.insert(key, (read_at, row));
    }

    /// Applies `change` to every kept row (it leaves those it is not about alone).
    pub(crate) fn update(&self, mut change: impl FnMut(&mut V)) {
        let mut rows = self.rows();
        rows.changes += 1;
        for (_, row) in rows.kept.values_mut() {
            change(row);
        }
    }

    /// Forgets the rows `gone` picks.
    pub(crate) fn forget(&self, gone: impl Fn(&V) -> bool) {
        let mut rows = self.rows();
        rows.changes += 1;
        rows.kept.retain(|_, (_, row)| !gone(row));
    }

    /// Forgets every row.
    pub(crate) fn clear(&self) {
        let mut rows = self.rows();
        rows.changes += 1;
        rows.kept.clear();
    }

    /// A lock holder panicking leaves only whole rows behind.
    fn rows(&self) -> MutexGuard<'_, Rows<K, V>> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_kept_for_a_moment_and_changed_or_forgotten_on_request() {
        let recent: Recent<&str, i32> = Recent::default();
        recent.put("a", 1, Instant::now(), 0);
        recent.put("b", 2, Instant::now(), 0);
        assert_eq!(recent.get(&"a"), Some(1));
        recent.update(|v| *v *= 10);
        assert_eq!(recent.get(&"b"), Some(20));
        recent.forget(|v| *v == 10);
        assert_eq!(recent.get(&"a"), None);
        let changes = recent.rows().changes;
        recent.put("c", 3, Instant::now() - RECENT_FOR, changes);
        assert_eq!(recent.get(&"c"), None);
    }

    #[test]
    fn a_full_cache_drops_stale_rows_first() {
        let recent: Recent<usize, usize> = Recent::default();
        let old = Instant::now() - RECENT_FOR;
        for i in 0..CAPACITY {
            recent.put(i, i, if i == 0 { Instant::now() } else { old }, 0);
        }
        recent.put(CAPACITY, CAPACITY, Instant::now(), 0);
        assert_eq!(recent.get(&0), Some(0));
        assert_eq!(recent.get(&CAPACITY), Some(CAPACITY));
        assert_eq!(recent.rows().kept.len(), 2);
    }

    #[tokio::test]
    async fn a_read_overtaken_by_a_forget_is_not_kept() {
        let recent: Recent<String, i32> = Recent::default();
        // The row is forgotten (a key revoked) while it is being read: the read answers, but
        // the next look reads again rather than finding what the revocation should have removed.
        let found = recent
            .or_read("k", || async {
                recent.forget(|_| true);
                Ok(Some(1))
            })
            .await;
        assert_eq!(found.ok().flatten(), Some(1));
        assert_eq!(recent.get("k"), None);
        let found = recent.or_read("k", || async { Ok(Some(2)) }).await;
        assert_eq!(found.ok().flatten(), Some(2));
        assert_eq!(recent.get("k"), Some(2));
    }
}
