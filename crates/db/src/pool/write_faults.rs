//! What the database refused lately for what it is, not for a statement's fault: its storage
//! full, or the database read-only. Each is counted for `/metrics` and remembered for `/readyz`
//! here, in one place, so the two never disagree.
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use leadhub_domain::store::{is_database_read_only, is_storage_full, StoreError};
use leadhub_domain::telemetry::{DATABASE_READ_ONLY, STORAGE_FULL};

/// When each fault was last met (unix seconds, 0: never).
#[derive(Debug, Default)]
pub(crate) struct WriteFaults {
    storage_full_at: AtomicI64,
    read_only_at: AtomicI64,
}

impl WriteFaults {
    /// Counts and remembers `error` when it is one of the faults; anything else passes unseen.
    pub(crate) fn note(&self, error: &StoreError) {
        let StoreError::Unexpected(cause) = error else {
            return;
        };
        let now = chrono::Utc::now().timestamp();
        if is_storage_full(cause) {
            metrics::counter!(STORAGE_FULL).increment(1);
            self.storage_full_at.store(now, Ordering::Relaxed);
        } else if is_database_read_only(cause) {
            metrics::counter!(DATABASE_READ_ONLY).increment(1);
            self.read_only_at.store(now, Ordering::Relaxed);
        }
    }

    /// Seconds since a statement last found the storage full, if within `window`.
    pub(crate) fn storage_full_within(&self, window: Duration) -> Option<u64> {
        within(&self.storage_full_at, window)
    }

    /// Seconds since a statement last found the database read-only, if within `window`.
    pub(crate) fn read_only_within(&self, window: Duration) -> Option<u64> {
        within(&self.read_only_at, window)
    }
}

fn within(at: &AtomicI64, window: Duration) -> Option<u64> {
    let at = at.load(Ordering::Relaxed);
    let ago = u64::try_from(chrono::Utc::now().timestamp() - at).ok()?;
    (at > 0 && ago <= window.as_secs()).then_some(ago)
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::store::{DatabaseReadOnly, StorageFull};

    #[test]
    fn each_fault_is_remembered_apart() {
        let faults = WriteFaults::default();
        let window = Duration::from_secs(60);
        faults.note(&StoreError::Conflict("taken".into()));
        assert_eq!(faults.storage_full_within(window), None);
        assert_eq!(faults.read_only_within(window), None);
        faults.note(&StoreError::Unexpected(anyhow::Error::new(
            DatabaseReadOnly("attempt to write a readonly database".into()),
        )));
        assert_eq!(faults.read_only_within(window), Some(0));
        assert_eq!(faults.storage_full_within(window), None);
        faults.note(&StoreError::Unexpected(anyhow::Error::new(StorageFull(
            "database or disk is full".into(),
        ))));
        assert_eq!(faults.storage_full_within(window), Some(0));
    }
}
