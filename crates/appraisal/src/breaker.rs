//! A circuit breaker per layer, so a county server that is down costs one fast refusal per lead instead of a
//! timeout (times the retries) each.
//!
//! Closed: calls pass; `threshold` consecutive failed lookups open it. Open: calls are refused until `cooldown` has
//! passed. Half-open: one probe passes; its success closes the circuit, its failure opens it for another cool-down.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct Breaker {
    threshold: u32,
    cooldown: Duration,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    consecutive_failures: u32,
    open_since: Option<Instant>,
    /// A half-open probe is in flight; others are refused until it reports.
    probing: bool,
}

/// Leave to make one call; report its outcome with [`Pass::success`] or [`Pass::failure`]. A pass dropped without
/// a report (the caller's future was cancelled) frees the half-open slot so the next call can probe.
#[must_use]
pub(crate) struct Pass<'a> {
    breaker: &'a Breaker,
    probe: bool,
    reported: bool,
}

impl Breaker {
    pub(crate) fn new(threshold: u32, cooldown: Duration) -> Breaker {
        Breaker {
            threshold: threshold.max(1),
            cooldown,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent whatever panicked while holding it: every update is a plain assignment.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `None` while the circuit is open (or half-open with a probe already in flight).
    pub(crate) fn try_pass(&self) -> Option<Pass<'_>> {
        let mut s = self.lock();
        let probe = match s.open_since {
            None => false,
            Some(since) if since.elapsed() < self.cooldown => return None,
            Some(_) if s.probing => return None,
            Some(_) => {
                s.probing = true;
                true
            }
        };
        Some(Pass {
            breaker: self,
            probe,
            reported: false,
        })
    }

    /// Whether calls are being refused right now.
    #[cfg(test)]
    fn is_open(&self) -> bool {
        let s = self.lock();
        matches!(s.open_since, Some(since) if since.elapsed() < self.cooldown || s.probing)
    }
}

impl Pass<'_> {
    pub(crate) fn success(mut self) {
        self.reported = true;
        let mut s = self.breaker.lock();
        if s.open_since.is_some() {
            tracing::info!("appraisal layer answered again; circuit closed");
        }
        *s = State::default();
    }

    pub(crate) fn failure(mut self) {
        self.reported = true;
        let mut s = self.breaker.lock();
        s.consecutive_failures = s.consecutive_failures.saturating_add(1);
        if self.probe {
            s.probing = false;
            s.open_since = Some(Instant::now());
        } else if s.open_since.is_none() && s.consecutive_failures >= self.breaker.threshold {
            s.open_since = Some(Instant::now());
            tracing::warn!(
                failures = s.consecutive_failures,
                cooldown_ms = self.breaker.cooldown.as_millis() as u64,
                "appraisal layer keeps failing; circuit opened"
            );
        }
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if self.probe && !self.reported {
            self.breaker.lock().probing = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(b: &Breaker) {
        b.try_pass().expect("a pass").failure();
    }

    fn succeed(b: &Breaker) {
        b.try_pass().expect("a pass").success();
    }

    #[test]
    fn opens_after_threshold_and_probes_after_cooldown() {
        let b = Breaker::new(3, Duration::from_millis(40));
        for _ in 0..2 {
            fail(&b);
        }
        assert!(!b.is_open());
        fail(&b);
        assert!(b.is_open());
        assert!(b.try_pass().is_none());

        std::thread::sleep(Duration::from_millis(60));
        let probe = b.try_pass();
        assert!(probe.is_some());
        // Only one probe at a time.
        assert!(b.try_pass().is_none());
        probe.expect("probe").failure();
        assert!(b.try_pass().is_none(), "a failed probe reopens the circuit");

        std::thread::sleep(Duration::from_millis(60));
        succeed(&b);
        assert!(!b.is_open());
        assert!(b.try_pass().is_some());
    }

    #[test]
    fn a_success_resets_the_count() {
        let b = Breaker::new(2, Duration::from_secs(60));
        fail(&b);
        succeed(&b);
        fail(&b);
        assert!(!b.is_open());
    }

    #[test]
    fn a_dropped_probe_frees_the_slot() {
        let b = Breaker::new(1, Duration::from_millis(10));
        fail(&b);
        std::thread::sleep(Duration::from_millis(20));
        let probe = b.try_pass();
        assert!(probe.is_some());
        drop(probe);
        assert!(b.try_pass().is_some());
    }
}
