//! One geocoding web service as the adapters see it: a reqwest client with timeouts, retries with
//! backoff for transient failures, a circuit breaker and, where the service's policy asks, a rate gate.
//!
//! What is retried: timeouts, connection errors and 5xx answers, which may pass. What is not: 4xx
//! answers (our request is wrong or refused; asking again changes nothing) and malformed bodies
//! (the adapters report those as `EnrichError::Failed`). The breaker counts every failed attempt
//! and the time it took, not every failed call, and is asked before each attempt, so retries stop
//! as soon as it opens.
use leadhub_domain::error::with_causes;
use leadhub_domain::telemetry::{CallOutcome, GEOCODER_CALLS};
use std::time::{Duration, Instant};

use backon::{ExponentialBuilder, Retryable};
use leadhub_domain::circuit_breaker::{BreakerPolicy, CircuitBreaker};
use leadhub_domain::enrich::{said, EnrichError};
use reqwest::{Client, RequestBuilder, StatusCode};

use crate::rate_gate::RateGate;

/// How transient failures are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Extra attempts after the first.
    pub retries: u32,
    /// Wait before the first retry; each later wait is four times longer, plus up to as much again
    /// of jitter so many leads failing together do not retry in lock-step.
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

impl RetryPolicy {
    fn backoff(&self) -> ExponentialBuilder {
        ExponentialBuilder::new()
            .with_min_delay(self.first_backoff)
            .with_factor(4.0)
            .without_max_delay()
            .with_max_times(self.retries as usize)
            .with_jitter()
    }
}

#[derive(Debug)]
pub(crate) struct Upstream {
    /// The adapter's name, for messages: `census`, `nominatim`.
    name: &'static str,
    client: Client,
    /// How long one attempt may take, for the warning that says it had no answer.
    timeout: Duration,
    retry: RetryPolicy,
    breaker: CircuitBreaker,
    gate: Option<&'static RateGate>,
}

/// Why an attempt brought no body.
enum Failure {
    /// Worth another attempt (and a breaker failure): timeout, connection error, 5xx.
    Transient(EnrichError),
    /// Final, but the service is down or refusing us (a breaker failure): 429.
    Refused(EnrichError),
    /// Final, and not the service's fault: another 4xx (it answered), a bad request, an open circuit.
    Final(EnrichError),
}

impl Failure {
    fn error(&self) -> &EnrichError {
        match self {
            Failure::Transient(e) | Failure::Refused(e) | Failure::Final(e) => e,
        }
    }

    fn into_error(self) -> EnrichError {
        match self {
            Failure::Transient(e) | Failure::Refused(e) | Failure::Final(e) => e,
        }
    }
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
            timeout,
            retry,
            breaker: CircuitBreaker::new(name, breaker),
            gate,
        })
    }

    /// Sends the request `build` makes (again for each attempt) and returns the body of a 2xx answer.
    pub(crate) async fn fetch(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<String, EnrichError> {
        (|| self.attempt(build(&self.client)))
            .retry(self.retry.backoff())
            // Once the circuit has opened, a retry would only be refused: report the cause.
            .when(|failure| {
                matches!(failure, Failure::Transient(_)) && !self.breaker.is_open(Instant::now())
            })
            .notify(|failure, wait| {
                tracing::debug!(service = self.name, error = %failure.error(), wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX), "retrying");
            })
            .await
            .map_err(Failure::into_error)
    }

    /// One attempt, through the breaker and the gate.
    async fn attempt(&self, request: RequestBuilder) -> Result<String, Failure> {
        let pass = match self.breaker.admit(Instant::now()) {
            Ok(pass) => pass,
            Err(open) => {
                self.count(CallOutcome::CircuitOpen);
                return Err(Failure::Final(EnrichError::paused(self.name, open)));
            }
        };
        if let Some(gate) = self.gate {
            gate.pass().await;
        }
        let started = Instant::now();
        let outcome = self.send(request).await;
        match &outcome {
            Ok(_) | Err(Failure::Final(_)) => pass.success(),
            Err(Failure::Transient(_) | Failure::Refused(_)) => {
                pass.failure(Instant::now(), started.elapsed())
            }
        }
        self.count(match &outcome {
            Ok(_) => CallOutcome::Ok,
            Err(Failure::Transient(EnrichError::Timeout { .. })) => CallOutcome::Timeout,
            Err(Failure::Transient(_)) => CallOutcome::Failed,
            Err(Failure::Refused(_)) => CallOutcome::RateLimited,
            Err(Failure::Final(_)) => CallOutcome::Refused,
        });
        outcome
    }

    fn count(&self, outcome: CallOutcome) {
        metrics::counter!(GEOCODER_CALLS, "provider" => self.name, "outcome" => outcome.as_str())
            .increment(1);
    }

    async fn send(&self, request: RequestBuilder) -> Result<String, Failure> {
        let response = request.send().await.map_err(|e| self.transport_error(e))?;
        let status = response.status();
        let code = status.as_u16();
        if status.is_server_error() {
            return Err(Failure::Transient(self.says(&said::trouble(code))));
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Err(Failure::Refused(self.says(&said::trouble(code))));
        }
        if !status.is_success() {
            return Err(Failure::Final(self.says(&said::refused(code))));
        }
        response.text().await.map_err(|e| self.transport_error(e))
    }

    fn transport_error(&self, e: reqwest::Error) -> Failure {
        // The cause names our request's URL (the lead's address in it) and the library's words:
        // the log has it, the warning says what happened.
        let cause = e.without_url();
        if cause.is_timeout() {
            tracing::warn!(service = self.name, error = %cause, "no answer in time");
            Failure::Transient(EnrichError::Timeout {
                provider: self.name.to_owned(),
                within: self.timeout,
            })
        } else if cause.is_builder() {
            tracing::error!(service = self.name, error = %cause, "request not made");
            Failure::Final(self.says("could not be asked"))
        } else {
            // Connection refused or reset, truncated body: the network or the service, maybe passing.
            tracing::warn!(service = self.name, error = %with_causes(&cause), "request failed");
            Failure::Transient(self.says(said::UNREACHABLE))
        }
    }

    /// What happened, in words, after the service's name.
    fn says(&self, what: &str) -> EnrichError {
        EnrichError::failed(self.name, what)
    }

    /// An answer that could not be read: `problem` goes to the log, the warning says so in words.
    pub(crate) fn failed(&self, problem: String) -> EnrichError {
        tracing::warn!(service = self.name, %problem, "unreadable answer");
        self.says(said::UNREADABLE)
    }
}
