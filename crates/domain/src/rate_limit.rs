//! Request rate limits (contract section 8): fixed windows aligned to the clock, counted in a
//! `RateLimitStore` (the database when several processes must share counts, memory otherwise).
//!
//! A window of `length` seconds starts at a multiple of `length` since the epoch, so every
//! process agrees on it without coordination. The price of fixed windows: a client can send up to
//! twice the quota across a window boundary; for abuse resistance that is good enough.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::clock::Clock;
use crate::store::{StoreError, StoreResult};

/// The longest window any limit uses: counters older than this are dead everywhere.
pub const LONGEST_WINDOW_SECS: i64 = 3600;

/// One counting window: `[start, start + length)` in epoch seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub length: i64,
}

impl Window {
    /// The window of `length` seconds containing `now`.
    pub fn containing(now: i64, length: i64) -> Window {
        let length = length.max(1);
        Window {
            start: now.div_euclid(length) * length,
            length,
        }
    }

    pub fn end(&self) -> i64 {
        self.start + self.length
    }
}

/// Where hits are counted.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RateLimitStore: Send + Sync {
    /// Counts one hit for `bucket` in `window` and returns the hits so far, this one included.
    /// `now` (epoch seconds) lets the store forget windows that have ended.
    async fn hit(&self, bucket: &str, window: Window, now: i64) -> StoreResult<u64>;
}

/// Counters in this process's memory: for SQLite, which one process serves. Ended windows are
/// dropped every `PRUNE_EVERY` hits, so the map holds about one entry per active client.
#[derive(Default)]
pub struct MemoryRateLimitStore {
    counters: Mutex<HashMap<(String, i64), (u64, i64)>>,
    hits: AtomicU64,
}

const PRUNE_EVERY: u64 = 1024;

impl MemoryRateLimitStore {
    pub fn new() -> MemoryRateLimitStore {
        MemoryRateLimitStore::default()
    }

    /// How many (bucket, window) counters are held (for tests and metrics).
    pub fn len(&self) -> usize {
        self.counters.lock().map_or(0, |c| c.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[async_trait]
impl RateLimitStore for MemoryRateLimitStore {
    async fn hit(&self, bucket: &str, window: Window, now: i64) -> StoreResult<u64> {
        let mut counters = self
            .counters
            .lock()
            .map_err(|_| StoreError::Unexpected(anyhow::anyhow!("rate-limit counters poisoned")))?;
        if self.hits.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            counters.retain(|_, (_, end)| *end > now);
        }
        let entry = counters
            .entry((bucket.to_owned(), window.start))
            .or_insert((0, window.end()));
        entry.0 += 1;
        Ok(entry.0)
    }
}

/// Which limit: the per-credential hourly one or the per-client-IP minute one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    CredentialHour,
    IpMinute,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub kind: LimitKind,
    pub quota: u64,
}

impl Limit {
    /// The policy name used in the `RateLimit` headers.
    pub fn name(&self) -> &'static str {
        match self.kind {
            LimitKind::CredentialHour => "hour",
            LimitKind::IpMinute => "minute",
        }
    }

    pub fn window_secs(&self) -> i64 {
        match self.kind {
            LimitKind::CredentialHour => LONGEST_WINDOW_SECS,
            LimitKind::IpMinute => 60,
        }
    }

    /// For the 429 body: "Rate limit exceeded: <this>".
    pub fn describe(&self) -> String {
        match self.kind {
            LimitKind::CredentialHour => {
                format!("{} requests per hour per credential", self.quota)
            }
            LimitKind::IpMinute => format!("{} requests per minute per client IP", self.quota),
        }
    }
}

/// Where one limit stands after counting this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub limit: Limit,
    pub hits: u64,
    /// Epoch seconds at which the window ends and the count starts over.
    pub reset_at: i64,
    pub now: i64,
}

impl Usage {
    pub fn remaining(&self) -> u64 {
        self.limit.quota.saturating_sub(self.hits)
    }

    pub fn exceeded(&self) -> bool {
        self.hits > self.limit.quota
    }

    /// Whole seconds until the window resets (at least 1).
    pub fn reset_in(&self) -> u64 {
        u64::try_from(self.reset_at - self.now).unwrap_or(0).max(1)
    }
}

/// The usage a client should watch: fewest remaining, and of those the longest wait.
pub fn tightest(usages: &[Usage]) -> Option<&Usage> {
    usages
        .iter()
        .min_by_key(|u| (u.remaining(), std::cmp::Reverse(u.reset_in())))
}

/// Applies the configured limits; a quota of 0 turns that limit off.
pub struct RateLimiter {
    pub store: Arc<dyn RateLimitStore>,
    pub clock: Arc<dyn Clock>,
    pub per_credential_hour: u64,
    pub per_ip_minute: u64,
}

impl RateLimiter {
    pub fn credential_limit(&self) -> Option<Limit> {
        (self.per_credential_hour > 0).then_some(Limit {
            kind: LimitKind::CredentialHour,
            quota: self.per_credential_hour,
        })
    }

    pub fn ip_limit(&self) -> Option<Limit> {
        (self.per_ip_minute > 0).then_some(Limit {
            kind: LimitKind::IpMinute,
            quota: self.per_ip_minute,
        })
    }

    /// Counts a request from `client` (an address or address block); None when the IP limit is off.
    pub async fn hit_ip(&self, client: &str) -> StoreResult<Option<Usage>> {
        match self.ip_limit() {
            Some(limit) => self.hit(limit, &format!("ip:{client}")).await.map(Some),
            None => Ok(None),
        }
    }

    /// Counts a request made with the credential labelled `label` (never the secret itself).
    pub async fn hit_credential(&self, label: &str) -> StoreResult<Option<Usage>> {
        match self.credential_limit() {
            Some(limit) => self.hit(limit, &format!("cred:{label}")).await.map(Some),
            None => Ok(None),
        }
    }

    async fn hit(&self, limit: Limit, bucket: &str) -> StoreResult<Usage> {
        let now = self.clock.now().timestamp();
        let window = Window::containing(now, limit.window_secs());
        // The window's name is part of the bucket: an hour and a minute window can share a start.
        let bucket = format!("{}:{bucket}", limit.name());
        let hits = self.store.hit(&bucket, window, now).await?;
        Ok(Usage {
            limit,
            hits,
            reset_at: window.end(),
            now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use std::sync::atomic::AtomicI64;

    struct FixedClock(AtomicI64);
    impl Clock for FixedClock {
        fn now(&self) -> DateTime<Utc> {
            DateTime::from_timestamp(self.0.load(Ordering::SeqCst), 0).unwrap_or_default()
        }
    }

    fn limiter(key: u32, ip: u32) -> (RateLimiter, Arc<FixedClock>) {
        let clock = Arc::new(FixedClock(AtomicI64::new(1_800_000_030)));
        (
            RateLimiter {
                store: Arc::new(MemoryRateLimitStore::new()),
                clock: clock.clone(),
                per_credential_hour: key.into(),
                per_ip_minute: ip.into(),
            },
            clock,
        )
    }

    #[test]
    fn windows_align_to_the_clock() {
        let w = Window::containing(125, 60);
        assert_eq!((w.start, w.end()), (120, 180));
        assert_eq!(Window::containing(-1, 60).start, -60);
        assert_eq!(Window::containing(3600, 3600).start, 3600);
    }

    #[tokio::test]
    async fn counts_up_to_the_quota_then_exceeds() {
        let (limiter, _) = limiter(0, 3);
        for expected in [2, 1, 0] {
            let u = limiter.hit_ip("10.0.0.1").await.unwrap().unwrap();
            assert_eq!(u.remaining(), expected);
            assert!(!u.exceeded());
            assert_eq!(u.reset_in(), 30);
        }
        let u = limiter.hit_ip("10.0.0.1").await.unwrap().unwrap();
        assert!(u.exceeded());
        // Another client has its own count.
        let other = limiter.hit_ip("10.0.0.2").await.unwrap().unwrap();
        assert_eq!(other.remaining(), 2);
    }

    #[tokio::test]
    async fn a_new_window_starts_over() {
        let (limiter, clock) = limiter(0, 1);
        limiter.hit_ip("a").await.unwrap();
        assert!(limiter.hit_ip("a").await.unwrap().unwrap().exceeded());
        clock.0.fetch_add(30, Ordering::SeqCst);
        assert!(!limiter.hit_ip("a").await.unwrap().unwrap().exceeded());
    }

    #[tokio::test]
    async fn zero_turns_a_limit_off() {
        let (limiter, _) = limiter(0, 0);
        assert!(limiter.hit_ip("a").await.unwrap().is_none());
        assert!(limiter.hit_credential("key:1").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn tightest_is_the_fewest_remaining() {
        let (first, _) = limiter(5, 3);
        let hour = first.hit_credential("key:1").await.unwrap().unwrap();
        let minute = first.hit_ip("a").await.unwrap().unwrap();
        assert_eq!(tightest(&[hour, minute]).unwrap().limit.name(), "minute");
        let (second, _) = limiter(2, 2);
        let hour = second.hit_credential("key:1").await.unwrap().unwrap();
        let minute = second.hit_ip("a").await.unwrap().unwrap();
        // A tie goes to the longer wait.
        assert_eq!(tightest(&[minute, hour]).unwrap().limit.name(), "hour");
    }

    #[tokio::test]
    async fn memory_store_forgets_ended_windows() {
        let store = MemoryRateLimitStore::new();
        for i in 0..PRUNE_EVERY {
            let w = Window::containing(i as i64 * 60, 60);
            store.hit(&format!("b{i}"), w, i as i64 * 60).await.unwrap();
        }
        // The last hit pruned every window that had ended by then.
        assert!(store.len() <= 2, "{}", store.len());
    }
}
