//! Failed deliveries in the log, by endpoint: an endpoint's first failure is one line with its
//! reason, then at most one summary line a minute while it keeps failing. One line per attempt
//! drowned everything else (2,281 lines for one endpoint that did not answer).
use std::collections::HashMap;

use chrono::{DateTime, Utc};

use leadhub_domain::webhook::SendFailure;

/// How often a failing endpoint's failures are summed up in the log.
pub(crate) const SUMMARY_EVERY: chrono::Duration = chrono::Duration::seconds(60);
/// An endpoint quiet this long is forgotten (the map stays small); its next failure, hours
/// later by the retry schedule, is a first line again.
const FORGOTTEN_AFTER: chrono::Duration = chrono::Duration::hours(1);

/// A line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FailureLine {
    /// The endpoint failed after delivering (or for the first time since this process started).
    First { endpoint_id: i64, reason: String },
    /// The failures since the endpoint's last line.
    Summary {
        endpoint_id: i64,
        failed: u64,
        seconds: i64,
        last: String,
    },
}

impl FailureLine {
    /// Writes the line at WARN.
    pub(crate) fn log(&self) {
        match self {
            FailureLine::First {
                endpoint_id,
                reason,
            } => tracing::warn!(
                endpoint_id,
                "webhook endpoint {endpoint_id}: a delivery failed: {reason} (further failures are summed up once a minute)"
            ),
            FailureLine::Summary {
                endpoint_id,
                failed,
                seconds,
                last,
            } => tracing::warn!(
                endpoint_id,
                failed,
                "webhook endpoint {endpoint_id}: {failed} deliveries failed in the last {seconds} s, last: {last}"
            ),
        }
    }
}

/// An endpoint that failed since it last delivered.
#[derive(Debug)]
struct Failing {
    /// When its last line was written.
    since: DateTime<Utc>,
    /// Failures since that line.
    failed: u64,
    last: String,
}

/// The failing endpoints of this process and what the log was told of them.
#[derive(Debug, Default)]
pub(crate) struct FailureLog {
    failing: HashMap<i64, Failing>,
}

impl FailureLog {
    /// A failed attempt of `endpoint_id` at `now`: the line to write, if any.
    pub(crate) fn failed(
        &mut self,
        endpoint_id: i64,
        failure: &SendFailure,
        now: DateTime<Utc>,
    ) -> Option<FailureLine> {
        let reason = in_words(failure);
        let Some(failing) = self.failing.get_mut(&endpoint_id) else {
            self.failing.insert(
                endpoint_id,
                Failing {
                    since: now,
                    failed: 0,
                    last: reason.clone(),
                },
            );
            return Some(FailureLine::First {
                endpoint_id,
                reason,
            });
        };
        failing.failed += 1;
        failing.last = reason;
        summary_due(endpoint_id, failing, now)
    }

    /// A delivery of `endpoint_id` went through: what failed since its last line is summed up,
    /// and its next failure is a first one again.
    pub(crate) fn delivered(
        &mut self,
        endpoint_id: i64,
        now: DateTime<Utc>,
    ) -> Option<FailureLine> {
        let failing = self.failing.remove(&endpoint_id)?;
        (failing.failed > 0).then(|| summary(endpoint_id, &failing, now))
    }

    /// The summaries due at `now`, for endpoints whose failures stopped coming (a burst over,
    /// the retries not due yet); endpoints with nothing new stay quiet.
    pub(crate) fn due(&mut self, now: DateTime<Utc>) -> Vec<FailureLine> {
        self.failing
            .retain(|_, f| f.failed > 0 || now - f.since < FORGOTTEN_AFTER);
        let mut lines: Vec<FailureLine> = self
            .failing
            .iter_mut()
            .filter_map(|(id, failing)| summary_due(*id, failing, now))
            .collect();
        lines.sort_by_key(|line| match line {
            FailureLine::First { endpoint_id, .. } | FailureLine::Summary { endpoint_id, .. } => {
                *endpoint_id
            }
        });
        lines
    }
}

/// The summary of `failing` when a minute passed since its last line and something failed since.
fn summary_due(endpoint_id: i64, failing: &mut Failing, now: DateTime<Utc>) -> Option<FailureLine> {
    if failing.failed == 0 || now - failing.since < SUMMARY_EVERY {
        return None;
    }
    let line = summary(endpoint_id, failing, now);
    failing.since = now;
    failing.failed = 0;
    Some(line)
}

fn summary(endpoint_id: i64, failing: &Failing, now: DateTime<Utc>) -> FailureLine {
    FailureLine::Summary {
        endpoint_id,
        failed: failing.failed,
        seconds: (now - failing.since).num_seconds(),
        last: failing.last.clone(),
    }
}

/// Why an attempt failed, in a few words: the answer's status, or what the connection did.
/// The client library's chain of errors (with the endpoint's URL) stays in `last_error`.
fn in_words(failure: &SendFailure) -> String {
    if let Some(status) = failure.status {
        return format!("answered HTTP {status}");
    }
    let error = failure.error.to_ascii_lowercase();
    let known = [
        ("connection refused", "connection refused"),
        ("no answer within", "no answer in time"),
        ("timed out", "no answer in time"),
        ("dns error", "the host name does not resolve"),
        ("failed to lookup address", "the host name does not resolve"),
        ("certificate", "TLS certificate refused"),
        ("connection reset", "connection reset"),
        (
            "is not a public address",
            "its address is not public (egress guard)",
        ),
        (
            "resolves to no public address",
            "its address is not public (egress guard)",
        ),
    ];
    known
        .iter()
        .find(|(said, _)| error.contains(said))
        .map(|(_, words)| (*words).to_owned())
        .unwrap_or_else(|| failure.error.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> SendFailure {
        SendFailure::before_answer(
            "error sending request for url (http://127.0.0.1:9/x): client error (Connect): tcp connect error: Connection refused (os error 111)",
        )
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::seconds(seconds)
    }

    #[test]
    fn a_burst_gives_a_first_line_then_one_summary_a_minute() {
        let mut log = FailureLog::default();
        let mut lines = Vec::new();
        // 340 failures of endpoint 12 over two and a half minutes, one every 0.45 s or so.
        for n in 0..340 {
            let now = at(1000) + chrono::Duration::milliseconds(n * 450);
            lines.extend(log.failed(12, &refused(), now));
            lines.extend(log.due(now));
        }
        assert_eq!(
            lines[0],
            FailureLine::First {
                endpoint_id: 12,
                reason: "connection refused".into()
            }
        );
        let summaries: Vec<_> = lines[1..]
            .iter()
            .map(|l| match l {
                FailureLine::Summary {
                    endpoint_id: 12,
                    failed,
                    seconds: 60,
                    last,
                } if last == "connection refused" => *failed,
                other => panic!("{other:?}"),
            })
            .collect();
        // Two full minutes in 153 s; the rest waits for the third.
        assert_eq!(summaries.len(), 2, "{lines:?}");
        let rest = log.due(at(1000 + 200));
        assert_eq!(rest.len(), 1, "{rest:?}");
        let FailureLine::Summary { failed, .. } = &rest[0] else {
            panic!("{rest:?}");
        };
        assert_eq!(summaries.iter().sum::<u64>() + failed, 339);
        // Nothing new: quiet, and after an hour forgotten: the next failure is a first again.
        assert!(log.due(at(1000 + 300)).is_empty());
        assert!(log.due(at(1000 + 200 + 3600)).is_empty());
        assert!(matches!(
            log.failed(12, &refused(), at(1000 + 200 + 3601)),
            Some(FailureLine::First { .. })
        ));
    }

    #[test]
    fn endpoints_are_summed_up_apart_and_a_delivery_starts_over() {
        let mut log = FailureLog::default();
        let status = SendFailure {
            status: Some(503),
            error: "HTTP 503: busy".into(),
        };
        assert!(matches!(
            log.failed(1, &refused(), at(0)),
            Some(FailureLine::First { .. })
        ));
        assert!(
            matches!(log.failed(2, &status, at(1)), Some(FailureLine::First { reason, .. }) if reason == "answered HTTP 503")
        );
        assert_eq!(log.failed(1, &refused(), at(2)), None);
        assert_eq!(
            log.delivered(1, at(30)),
            Some(FailureLine::Summary {
                endpoint_id: 1,
                failed: 1,
                seconds: 30,
                last: "connection refused".into()
            })
        );
        // Delivered again with nothing failed since: no line; the next failure is a first.
        assert!(matches!(
            log.failed(1, &refused(), at(31)),
            Some(FailureLine::First { .. })
        ));
        assert_eq!(log.delivered(1, at(32)), None);
        assert!(
            log.due(at(600)).is_empty(),
            "endpoint 2 failed once: its first line told it"
        );
    }
}
