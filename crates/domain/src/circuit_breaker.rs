//! The circuit breaker of the enrichment adapters (each geocoding service, each appraisal layer), so
//! an outage costs a few failures rather than one per lead.
//!
//! Closed: calls pass; consecutive failures and the time they cost are counted, and reaching either
//! threshold opens the circuit (a hanging service costs a whole timeout per call, so counting calls
//! alone would let it cost minutes). Open: calls are refused until the cool-down has passed. Then
//! one call passes as a probe (half-open) and the others are still refused; the probe's success
//! closes the circuit, its failure opens it for another cool-down, and a probe dropped without a
//! report (its caller was cancelled) lets the next call probe.
//!
//! Pure state: the caller says what time it is (`Instant`, monotonic and finer than the `Clock`
//! port's whole seconds, which cool-downs of a fraction of a second need).
use crate::telemetry::CIRCUIT_OPEN;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// When a circuit opens and how long it stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerPolicy {
    /// Consecutive failures that open the circuit (at least 1).
    pub failures_to_open: u32,
    /// Time spent on consecutive failures that opens the circuit (`Duration::MAX`: no such limit).
    pub time_lost_to_open: Duration,
    /// How long an open circuit refuses calls before it lets a probe through.
    pub cool_down: Duration,
}

impl Default for BreakerPolicy {
    /// Five consecutive failures or 10 s lost to them open it; a probe after 30 s.
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
    /// A probe is in flight; every other call is refused until it reports or is dropped.
    Probing,
}

const CLOSED: State = State::Closed {
    consecutive_failures: 0,
    time_lost: Duration::ZERO,
};

#[derive(Debug)]
pub struct CircuitBreaker {
    /// What the circuit guards (`census`, a county layer), for the log.
    name: String,
    policy: BreakerPolicy,
    state: Mutex<State>,
}

/// Returned while the circuit is open: the call must not be made. `probe_in` says when the next
/// call may pass as a probe, so work that needs the service can wait that long instead of failing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("circuit open")]
pub struct CircuitOpen {
    pub probe_in: Duration,
}

/// Leave to make one call; report how it went with [`Pass::success`] or [`Pass::failure`].
#[must_use = "report the call's outcome"]
#[derive(Debug)]
pub struct Pass<'a> {
    breaker: &'a CircuitBreaker,
    /// Admitted as the half-open probe, at this time.
    probe_since: Option<Instant>,
    reported: bool,
}

impl CircuitBreaker {
    pub fn new(name: impl Into<String>, policy: BreakerPolicy) -> Self {
        let breaker = CircuitBreaker {
            name: name.into(),
            policy,
            state: Mutex::new(CLOSED),
        };
        breaker.report(false);
        breaker
    }

    /// Leave to make a call now, or `CircuitOpen`.
    pub fn admit(&self, now: Instant) -> Result<Pass<'_>, CircuitOpen> {
        let mut state = self.lock();
        let probe_since = match *state {
            State::Closed { .. } => None,
            State::Open { probe_at } if now >= probe_at => {
                *state = State::Probing;
                Some(now)
            }
            State::Open { probe_at } => {
                return Err(CircuitOpen {
                    probe_in: probe_at.saturating_duration_since(now),
                })
            }
            // The probe's answer closes or reopens the circuit; a full cool-down covers both.
            State::Probing => {
                return Err(CircuitOpen {
                    probe_in: self.policy.cool_down,
                })
            }
        };
        Ok(Pass {
            breaker: self,
            probe_since,
            reported: false,
        })
    }

    /// Whether a call would be refused now (no side effect, unlike `admit`).
    pub fn is_open(&self, now: Instant) -> bool {
        match *self.lock() {
            State::Closed { .. } => false,
            State::Open { probe_at } => now < probe_at,
            State::Probing => true,
        }
    }

    /// The breaker's state as the `leadhub_circuit_open` gauge (a probe counts as open).
    fn report(&self, open: bool) {
        metrics::gauge!(CIRCUIT_OPEN, "circuit" => self.name.clone()).set(if open {
            1.0
        } else {
            0.0
        });
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is a plain value, always whole: a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn succeeded(&self) {
        let mut state = self.lock();
        if !matches!(*state, State::Closed { .. }) {
            tracing::info!(circuit = %self.name, "answering again; circuit closed");
            self.report(false);
        }
        *state = CLOSED;
    }

    fn failed(&self, now: Instant, took: Duration) {
        let mut state = self.lock();
        let open = State::Open {
            probe_at: now + self.policy.cool_down,
        };
        *state = match *state {
            State::Closed {
                consecutive_failures,
                time_lost,
            } => {
                let failures = consecutive_failures.saturating_add(1);
                let time_lost = time_lost.saturating_add(took);
                if failures >= self.policy.failures_to_open.max(1)
                    || time_lost >= self.policy.time_lost_to_open
                {
                    tracing::warn!(circuit = %self.name, failures, ?time_lost, "keeps failing; circuit opened");
                    self.report(true);
                    open
                } else {
                    State::Closed {
                        consecutive_failures: failures,
                        time_lost,
                    }
                }
            }
            // A failed probe, or a late failure of a call made before the circuit opened.
            State::Open { .. } | State::Probing => open,
        };
    }
}

impl Pass<'_> {
    /// The call went through: the circuit closes (or stays closed).
    pub fn success(mut self) {
        self.reported = true;
        self.breaker.succeeded();
    }

    /// The call failed at `now` after `took` (a timeout costs the whole timeout).
    pub fn failure(mut self, now: Instant, took: Duration) {
        self.reported = true;
        self.breaker.failed(now, took);
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if let (Some(since), false) = (self.probe_since, self.reported) {
            let mut state = self.breaker.lock();
            if *state == State::Probing {
                *state = State::Open { probe_at: since };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Duration = Duration::from_millis(5);
    const COOL_DOWN: Duration = Duration::from_secs(10);

    fn breaker(failures_to_open: u32) -> CircuitBreaker {
        CircuitBreaker::new(
            "test",
            BreakerPolicy {
                failures_to_open,
                time_lost_to_open: Duration::from_secs(10),
                cool_down: COOL_DOWN,
            },
        )
    }

    fn fail(b: &CircuitBreaker, at: Instant, took: Duration) {
        b.admit(at).expect("admitted").failure(at, took);
    }

    /// A breaker that three quick failures just opened, and when they happened.
    fn opened_by_three_failures() -> (CircuitBreaker, Instant) {
        let b = breaker(3);
        let t = Instant::now();
        for _ in 0..3 {
            fail(&b, t, QUICK);
        }
        (b, t)
    }

    fn succeed(b: &CircuitBreaker, at: Instant) {
        b.admit(at).expect("admitted").success();
    }

    #[test]
    fn opens_after_consecutive_failures_only() {
        let b = breaker(3);
        let t = Instant::now();
        fail(&b, t, QUICK);
        fail(&b, t, QUICK);
        succeed(&b, t);
        fail(&b, t, QUICK);
        fail(&b, t, QUICK);
        assert!(!b.is_open(t));
        fail(&b, t, QUICK);
        assert!(b.is_open(t));
        assert_eq!(
            b.admit(t).err(),
            Some(CircuitOpen {
                probe_in: COOL_DOWN
            })
        );
    }

    #[test]
    fn opens_when_failures_cost_too_much_time() {
        let b = breaker(5);
        let t = Instant::now();
        fail(&b, t, Duration::from_secs(5));
        assert!(!b.is_open(t));
        fail(&b, t, Duration::from_secs(5));
        assert!(b.is_open(t), "two 5 s timeouts");
    }

    #[test]
    fn lets_one_probe_through_after_the_cool_down() {
        let (b, t) = opened_by_three_failures();
        assert!(b.admit(t + COOL_DOWN / 2).is_err());
        let later = t + COOL_DOWN + QUICK;
        let probe = b.admit(later).expect("a probe");
        assert!(b.admit(later).is_err(), "one probe at a time");
        assert!(b.is_open(later));
        probe.success();
        assert!(!b.is_open(later));
        assert!(b.admit(later).is_ok());
    }

    #[test]
    fn a_refusal_says_when_the_probe_may_pass() {
        let (b, t) = opened_by_three_failures();
        let refused = b.admit(t + Duration::from_secs(4)).err();
        assert_eq!(
            refused.map(|o| o.probe_in),
            Some(COOL_DOWN - Duration::from_secs(4))
        );
    }

    #[test]
    fn a_failed_probe_reopens_for_another_cool_down() {
        let (b, t) = opened_by_three_failures();
        let probe = t + COOL_DOWN + QUICK;
        fail(&b, probe, QUICK);
        assert!(b.admit(probe + COOL_DOWN / 2).is_err());
        assert!(b.admit(probe + COOL_DOWN + QUICK).is_ok());
    }

    #[test]
    fn a_dropped_probe_lets_the_next_call_probe() {
        let b = breaker(1);
        let t = Instant::now();
        fail(&b, t, QUICK);
        let later = t + COOL_DOWN + QUICK;
        drop(b.admit(later).expect("a probe"));
        assert!(b.admit(later).is_ok());
    }

    #[test]
    fn a_success_while_open_closes_it() {
        let b = breaker(1);
        let t = Instant::now();
        let early = b.admit(t).expect("closed");
        fail(&b, t, QUICK);
        assert!(b.is_open(t));
        early.success();
        assert!(!b.is_open(t), "the service answered");
    }
}
