//! Spaces requests to a service at least `interval` apart, across every task that shares the gate.
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

#[derive(Debug)]
pub(crate) struct RateGate {
    interval: Duration,
    last_pass: Mutex<Option<Instant>>,
}

impl RateGate {
    pub(crate) const fn new(interval: Duration) -> Self {
        RateGate {
            interval,
            last_pass: Mutex::const_new(None),
        }
    }

    /// Waits for this caller's turn. Holding the lock while sleeping queues callers fairly
    /// (tokio's mutex is FIFO), so the spacing holds however many tasks wait.
    pub(crate) async fn pass(&self) {
        let mut last_pass = self.last_pass.lock().await;
        if let Some(last) = *last_pass {
            tokio::time::sleep_until(last + self.interval).await;
        }
        *last_pass = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn spaces_passes_by_the_interval() {
        let gate = RateGate::new(Duration::from_millis(50));
        let start = Instant::now();
        for _ in 0..3 {
            gate.pass().await;
        }
        assert!(start.elapsed() >= Duration::from_millis(100));
    }
}
