//! The ports the delivery worker sends through, and how an attempt's end is recorded.
//!
//! The worker itself (claiming, concurrency, batching the records) is the `leadhub-webhooks`
//! adapter; what a delivery's body says and how an attempt counts are decided here.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::webhook::model::{next_attempt, stored_excerpt, DeliveryStatus};
use crate::webhook::repository::{AttemptRecord, DueDelivery};

/// Why an attempt failed: the answer's status when there was one, and what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct SendFailure {
    pub status: Option<i32>,
    pub error: String,
}

impl SendFailure {
    /// A failure before any answer (refused address, no connection, no body to send).
    pub fn before_answer(error: impl Into<String>) -> SendFailure {
        SendFailure {
            status: None,
            error: error.into(),
        }
    }
}

/// Sends one signed delivery to its endpoint (the Standard Webhooks headers, the egress guard).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// One POST of `body`; the status of a 2xx answer, else why it failed.
    async fn send(&self, delivery: &DueDelivery, body: &str) -> Result<i32, SendFailure>;
}

/// Makes a delivery's body at its first attempt: `{"type", "timestamp", "data"}`, `data` as the
/// API shows the lead, submission or batch then.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait EventPayloads: Send + Sync {
    async fn payload(&self, delivery: &DueDelivery) -> Result<String, String>;
}

/// How attempt number `attempts` of a delivery ended, as it is recorded: delivered, due again
/// on the retry schedule, or failed for good. `made` is the body this attempt made (none when
/// the delivery already carried one); it is kept for a retry, which must send the same body.
pub fn attempt_record(
    attempts: i32,
    result: Result<i32, SendFailure>,
    made: Option<String>,
    now: DateTime<Utc>,
    retry_scale: f64,
) -> AttemptRecord {
    match result {
        Ok(status) => AttemptRecord {
            status: DeliveryStatus::Delivered,
            attempts,
            last_status: Some(status),
            last_error: None,
            next_attempt_at: None,
            delivered_at: Some(now),
            payload: None,
        },
        Err(failure) => {
            let next = next_attempt(attempts, now, retry_scale);
            AttemptRecord {
                status: if next.is_some() {
                    DeliveryStatus::Pending
                } else {
                    DeliveryStatus::Failed
                },
                attempts,
                last_status: failure.status,
                last_error: Some(stored_excerpt(&failure.error)),
                next_attempt_at: next,
                delivered_at: None,
                payload: made,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivered_attempt_keeps_no_body_and_a_failed_one_keeps_what_it_made() {
        let now = Utc::now();
        let ok = attempt_record(1, Ok(204), Some("{}".into()), now, 1.0);
        assert_eq!(ok.status, DeliveryStatus::Delivered);
        assert_eq!((ok.delivered_at, ok.payload), (Some(now), None));
        let failed = attempt_record(
            1,
            Err(SendFailure {
                status: Some(500),
                error: "HTTP 500: no".into(),
            }),
            Some("{}".into()),
            now,
            1.0,
        );
        assert_eq!(failed.status, DeliveryStatus::Pending);
        assert_eq!(failed.last_status, Some(500));
        assert_eq!(failed.payload.as_deref(), Some("{}"));
        assert!(failed.next_attempt_at.is_some_and(|t| t > now));
        let last = attempt_record(99, Err(SendFailure::before_answer("x")), None, now, 1.0);
        assert_eq!(
            (last.status, last.next_attempt_at),
            (DeliveryStatus::Failed, None)
        );
    }
}
