//! One geocoding web service as the adapters see it: a reqwest client with timeouts, retries with
//! backoff for transient failures, a circuit breaker and, where the service's policy asks, a rate gate.
//!
//! What is retried: timeouts, connection errors and 5xx answers, which may pass. What is not: 4xx
//! answers (our request is wrong or refused; asking again changes nothing) and malformed bodies
//! (the adapters report those as `EnrichError::Failed`). The breaker counts every failed attempt
//! and the time it took, not every failed call, and is asked before each attempt, so retries stop
//! as soon as it opens.
use std::time::{Duration, Instant};

use leadhub_domain::enrich::EnrichError;
use reqwest::{Client, RequestBuilder, StatusCode};

use crate::breaker::{BreakerPolicy, CircuitBreaker};
use crate::rate_gate::RateGate;

/// How transient failures are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Extra attempts after the first.
    pub retries: u32,
    /// Wait before the first retry; each later wait is four times longer, plus up to 50% jitter so
    /// many leads failing together do not retry in lock-step.
    pub first_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 2,
            first_backoff: Duration::from_millis(100),
        }
    }
}

/// The message of a call refused by an open circuit.
pub const CIRCUIT_OPEN: &str = "circuit open";

#[derive(Debug)]
pub(crate) struct Upstream {
    /// The adapter's name, for messages: `census`, `nominatim`.
    name: &'static str,
    client: Client,
    retry: RetryPolicy,
    breaker: CircuitBreaker,
    gate: Option<&'static RateGate>,
}

/// What one attempt came to.
enum Attempt {
    Body(String),
    /// Worth another attempt (and a breaker failure).
    Transient(EnrichError),
    /// Final, but the service is down or refusing us (a breaker failure): 429.
    Refused(EnrichError),
    /// Final, and the service answered (not a breaker failure): other 4xx.
    Rejected(EnrichError),
}

impl Upstream {
    pub(crate) fn new(
        name: &'static str,
        user_agent: &str,
        timeout: Duration,
        retry: RetryPolicy,
        breaker: BreakerPolicy,
        gate: Option<&'static RateGate>,
    ) -> anyhow::Result<Self> {
        let client = Client::builder()
            .user_agent(user_agent)
            .connect_timeout(timeout)
            .timeout(timeout)
            .build()?;
        Ok(Upstream {
            name,
            client,
            retry,
            breaker: CircuitBreaker::new(breaker),
            gate,
        })
    }

    /// Sends the request `build` makes (again for each attempt) and returns the body of a 2xx answer.
    pub(crate) async fn fetch(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<String, EnrichError> {
        let mut attempt = 0;
        loop {
            if self.breaker.admit().is_err() {
                return Err(EnrichError::Failed(CIRCUIT_OPEN.into()));
            }
            if let Some(gate) = self.gate {
                gate.pass().await;
            }
            let started = Instant::now();
            let outcome = self.attempt(build(&self.client)).await;
            let took = started.elapsed();
            match outcome {
                Attempt::Body(body) => {
                    self.breaker.record_success();
                    return Ok(body);
                }
                Attempt::Rejected(error) => {
                    self.breaker.record_success();
                    return Err(error);
                }
                Attempt::Refused(error) => {
                    self.breaker.record_failure(took);
                    return Err(error);
                }
                Attempt::Transient(error) => {
                    self.breaker.record_failure(took);
                    // Once the circuit has opened, a retry would only be refused: report the cause.
                    if attempt >= self.retry.retries || self.breaker.is_open() {
                        return Err(error);
                    }
                    tracing::debug!(service = self.name, attempt, %error, "retrying");
                    tokio::time::sleep(self.backoff(attempt)).await;
                    attempt += 1;
                }
            }
        }
    }

    async fn attempt(&self, request: RequestBuilder) -> Attempt {
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => return self.transport_error(e),
        };
        let status = response.status();
        if status.is_server_error() {
            return Attempt::Transient(self.failed(format!("HTTP {}", status.as_u16())));
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Attempt::Refused(self.failed("HTTP 429 (rate limited)".into()));
        }
        if !status.is_success() {
            return Attempt::Rejected(self.failed(format!("HTTP {}", status.as_u16())));
        }
        match response.text().await {
            Ok(body) => Attempt::Body(body),
            Err(e) => self.transport_error(e),
        }
    }

    fn transport_error(&self, e: reqwest::Error) -> Attempt {
        if e.is_timeout() {
            Attempt::Transient(EnrichError::Timeout)
        } else if e.is_builder() {
            Attempt::Rejected(self.failed(format!("bad request: {e}")))
        } else {
            // Connection refused or reset, truncated body: the network or the service, maybe passing.
            Attempt::Transient(self.failed(format!("request failed: {e}")))
        }
    }

    pub(crate) fn failed(&self, problem: String) -> EnrichError {
        EnrichError::Failed(format!("{}: {problem}", self.name))
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .retry
            .first_backoff
            .saturating_mul(4u32.saturating_pow(attempt));
        let jitter_ms = (base.as_millis() as u64) / 2;
        let jitter = if jitter_ms == 0 {
            0
        } else {
            rand::random_range(0..=jitter_ms)
        };
        base + Duration::from_millis(jitter)
    }
}
