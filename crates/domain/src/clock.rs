//! Time as a port, so expiry rules can be tested without sleeping.
use chrono::{DateTime, Utc};

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        // Whole seconds: stored timestamps and the ISO 8601 answers carry no fractions.
        let now = Utc::now();
        DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now)
    }
}
