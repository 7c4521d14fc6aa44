//! A circuit breaker per geocoding service, so an outage costs a few timeouts rather than one per lead.
//!
//! Closed: requests go through; consecutive failures and the time they cost are counted. Reaching
//! either threshold opens it: five quick 5xx answers, or two 5 s timeouts (a hanging service costs
//! a timeout per attempt, so counting attempts alone would let it cost half a minute).
//! Open: requests fail fast until the cool-down ends; then one request is let through as a probe
//! (half-open). The probe's success closes the breaker, its failure opens it for another cool-down.
//! Admitting the probe pushes the next probe time forward by a cool-down, so a probe whose future is
//! dropped half-way never wedges the breaker.
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// When a breaker opens and how long it stays open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakerPolicy {
    /// Consecutive failed requests (timeouts, connection errors, 5xx, 429) that open the circuit.
    pub failures_to_open: u32,
    /// Time spent on consecutive failed requests that opens the circuit.
    pub time_lost_to_open: Duration,
    /// How long an open circuit fails fast before it lets a probe through.
    pub cool_down: Duration,
}

impl Default for BreakerPolicy {
    fn default() -> Self {
        BreakerPolicy {
            failures_to_open: 5,
            time_lost_to_open: Duration::from_secs(10),
            cool_down: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Closed {
        consecutive_failures: u32,
        time_lost: Duration,
    },
    Open {
        probe_at: Instant,
    },
}

const CLOSED: State = State::Closed {
    consecutive_failures: 0,
    time_lost: Duration::ZERO,
};

#[derive(Debug)]
pub(crate) struct CircuitBreaker {
    policy: BreakerPolicy,
    state: Mutex<State>,
}

/// Returned while the circuit is open: the request was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CircuitOpen;

impl CircuitBreaker {
    pub(crate) fn new(policy: BreakerPolicy) -> Self {
        CircuitBreaker {
            policy,
            state: Mutex::new(CLOSED),
        }
    }

    /// Asks whether a request may be sent now.
    pub(crate) fn admit(&self) -> Result<(), CircuitOpen> {
        self.admit_at(Instant::now())
    }

    /// Whether requests are being refused right now (no side effect, unlike `admit`).
    pub(crate) fn is_open(&self) -> bool {
        matches!(*self.lock(), State::Open { probe_at } if Instant::now() < probe_at)
    }

    pub(crate) fn record_success(&self) {
        *self.lock() = CLOSED;
    }

    /// A failed request that took `took` (a timeout costs the whole timeout).
    pub(crate) fn record_failure(&self, took: Duration) {
        self.record_failure_at(Instant::now(), took);
    }

    fn admit_at(&self, now: Instant) -> Result<(), CircuitOpen> {
        let mut state = self.lock();
        match *state {
            State::Closed { .. } => Ok(()),
            State::Open { probe_at } if now >= probe_at => {
                *state = State::Open {
                    probe_at: now + self.policy.cool_down,
                };
                Ok(())
            }
            State::Open { .. } => Err(CircuitOpen),
        }
    }

    fn record_failure_at(&self, now: Instant, took: Duration) {
        let mut state = self.lock();
        let open = State::Open {
            probe_at: now + self.policy.cool_down,
        };
        *state = match *state {
            State::Closed {
                consecutive_failures,
                time_lost,
            } => {
                let failures = consecutive_failures + 1;
                let time_lost = time_lost + took;
                if failures >= self.policy.failures_to_open.max(1)
                    || time_lost >= self.policy.time_lost_to_open
                {
                    tracing::warn!(failures, ?time_lost, "geocoding circuit opened");
                    open
                } else {
                    State::Closed {
                        consecutive_failures: failures,
                        time_lost,
                    }
                }
            }
            // A failed probe (or a late failure of a request sent before opening): stay open.
            State::Open { .. } => open,
        };
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is a plain value that is always whole, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Duration = Duration::from_millis(5);

    fn breaker() -> CircuitBreaker {
        CircuitBreaker::new(BreakerPolicy {
            failures_to_open: 3,
            time_lost_to_open: Duration::from_secs(10),
            cool_down: Duration::from_secs(10),
        })
    }

    #[test]
    fn opens_after_consecutive_failures_only() {
        let b = breaker();
        let t = Instant::now();
        b.record_failure_at(t, QUICK);
        b.record_failure_at(t, QUICK);
        b.record_success();
        b.record_failure_at(t, QUICK);
        b.record_failure_at(t, QUICK);
        assert_eq!(b.admit_at(t), Ok(()));
        b.record_failure_at(t, QUICK);
        assert_eq!(b.admit_at(t), Err(CircuitOpen));
    }

    #[test]
    fn lets_one_probe_through_after_the_cool_down() {
        let b = breaker();
        let t = Instant::now();
        for _ in 0..3 {
            b.record_failure_at(t, QUICK);
        }
        let later = t + Duration::from_secs(11);
        assert_eq!(b.admit_at(later), Ok(()));
        assert_eq!(b.admit_at(later), Err(CircuitOpen), "one probe at a time");
        b.record_success();
        assert_eq!(b.admit_at(later), Ok(()));
    }

    #[test]
    fn a_failed_probe_reopens_for_another_cool_down() {
        let b = breaker();
        let t = Instant::now();
        for _ in 0..3 {
            b.record_failure_at(t, QUICK);
        }
        let probe = t + Duration::from_secs(11);
        assert_eq!(b.admit_at(probe), Ok(()));
        b.record_failure_at(probe, QUICK);
        assert_eq!(b.admit_at(probe + Duration::from_secs(5)), Err(CircuitOpen));
        assert_eq!(b.admit_at(probe + Duration::from_secs(11)), Ok(()));
    }

    #[test]
    fn opens_when_failures_cost_too_much_time() {
        let b = breaker();
        let t = Instant::now();
        b.record_failure_at(t, Duration::from_secs(5));
        assert_eq!(b.admit_at(t), Ok(()));
        b.record_failure_at(t, Duration::from_secs(5));
        assert_eq!(b.admit_at(t), Err(CircuitOpen), "two 5 s timeouts");
    }
}
