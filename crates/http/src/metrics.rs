//! Prometheus metrics through the `metrics` facade and `metrics-exporter-prometheus`.
//!
//! Three recorders make up one scrape:
//! - this app's recorder: requests and latency per route (recorded by `observe`), pool usage;
//! - a recorder of the scrape: the job queue and the webhook outbox as the database says now
//!   (`Database::queue_gauges`), so several processes all report the same truth;
//! - the process's recorder, installed once: what the adapters and the domain count wherever they
//!   run (geocoder and appraisal calls, circuit states, e-mails, leads ingested).
//!
//! The app keeps a recorder of its own, not the global one, so that two apps in one process (the
//! tests start many) count their requests apart.
use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

use leadhub_db::QueueGauges;

/// Latency histogram bounds, in seconds.
const BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

const REQUESTS: &str = "leadhub_http_requests_total";
const LATENCY: &str = "leadhub_http_request_duration_seconds";

pub struct Metrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &BUCKETS)
            // The buckets are constant and non-empty, so this cannot fail; without them the
            // latency would be a summary, which still renders.
            .unwrap_or_else(|_| PrometheusBuilder::new())
            .build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, describe_app_series);
        Metrics { recorder, handle }
    }

    pub fn record(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        metrics::with_local_recorder(&self.recorder, || {
            let (method, route) = (method.to_owned(), route.to_owned());
            counter!(REQUESTS, "method" => method.clone(), "route" => route.clone(), "status" => status.to_string())
                .increment(1);
            histogram!(LATENCY, "method" => method, "route" => route).record(elapsed.as_secs_f64());
        });
    }

    /// The exposition text. `pool` is (open, idle, max) connections; `queues` what the database
    /// says now (None when it did not answer: those gauges are left out rather than made up).
    pub fn render(
        &self,
        pool: (u32, u32, u32),
        queues: Option<&QueueGauges>,
        now: DateTime<Utc>,
    ) -> String {
        metrics::with_local_recorder(&self.recorder, || {
            let (open, idle, max) = pool;
            let connections = |state: &'static str, n: u32| {
                gauge!("leadhub_db_pool_connections", "state" => state).set(f64::from(n));
            };
            connections("idle", idle);
            connections("in_use", open.saturating_sub(idle));
            connections("max", max);
        });
        self.handle.run_upkeep();
        let mut text = self.handle.render();
        if let Some(q) = queues {
            // A recorder of this scrape alone: a kind of job that drained is left out instead of
            // keeping its last count.
            let scrape = PrometheusBuilder::new().build_recorder();
            metrics::with_local_recorder(&scrape, || {
                describe_queue_series();
                set_queue_gauges(q, now);
            });
            text.push_str(&scrape.handle().render());
        }
        if let Some(process) = process_handle() {
            process.run_upkeep();
            text.push_str(&process.render());
        }
        text
    }
}

fn set_queue_gauges(q: &QueueGauges, now: DateTime<Utc>) {
    for (kind, state, n) in &q.jobs {
        gauge!("leadhub_jobs", "kind" => kind.clone(), "state" => state.clone()).set(*n as f64);
    }
    for state in leadhub_db::JOB_STATES {
        gauge!("leadhub_jobs_total_by_state", "state" => state.as_str()).set(
            q.jobs
                .iter()
                .filter(|(_, s, _)| s == state.as_str())
                .map(|(_, _, n)| *n)
                .sum::<i64>() as f64,
        );
    }
    let oldest = q
        .oldest_due
        .iter()
        .map(|(_, at)| (now - *at).num_seconds().max(0))
        .max()
        .unwrap_or(0);
    gauge!("leadhub_jobs_oldest_due_age_seconds").set(oldest as f64);
    gauge!("leadhub_webhook_deliveries_pending").set(q.deliveries_pending as f64);
    gauge!("leadhub_webhook_endpoints_failing").set(q.endpoints_failing as f64);
    gauge!("leadhub_leads_enrichment_gave_up").set(q.leads_gave_up as f64);
}

fn describe_app_series() {
    describe_counter!(REQUESTS, "HTTP requests by method, route and status.");
    describe_histogram!(
        LATENCY,
        metrics::Unit::Seconds,
        "HTTP request latency by method and route."
    );
    describe_gauge!(
        "leadhub_db_pool_connections",
        "Database pool connections by state."
    );
}

fn describe_queue_series() {
    describe_gauge!(
        "leadhub_jobs",
        "Jobs in the database queue by kind and state (queued, running, dead)."
    );
    describe_gauge!(
        "leadhub_jobs_total_by_state",
        "Jobs in the database queue by state, all kinds."
    );
    describe_gauge!(
        "leadhub_jobs_oldest_due_age_seconds",
        "How long the oldest due, queued job has waited past its time (0: none waits)."
    );
    describe_gauge!(
        "leadhub_webhook_deliveries_pending",
        "Webhook deliveries still to be made."
    );
    describe_gauge!(
        "leadhub_webhook_endpoints_failing",
        "Webhook endpoints with a failed delivery waiting for its retry."
    );
    describe_gauge!(
        "leadhub_leads_enrichment_gave_up",
        "Leads whose enrichment retries gave up (only Enrich again tries them)."
    );
}

/// The process-wide recorder, installed on first use; None if another recorder was installed
/// before (then those series go there).
pub fn process_handle() -> Option<&'static PrometheusHandle> {
    static PROCESS: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    PROCESS
        .get_or_init(|| {
            let handle = PrometheusBuilder::new().install_recorder().ok();
            if handle.is_some() {
                leadhub_domain::telemetry::describe();
            }
            handle
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_histograms_and_gauges() {
        let m = Metrics::new();
        m.record("GET", "/api/keys", 200, Duration::from_millis(3));
        m.record("GET", "/api/keys", 200, Duration::from_millis(30));
        let now = Utc::now();
        let queues = QueueGauges {
            jobs: vec![("enrich_lead".into(), "dead".into(), 2)],
            oldest_due: vec![("enrich_lead".into(), now - chrono::Duration::seconds(90))],
            deliveries_pending: 7,
            endpoints_failing: 1,
            leads_gave_up: 4,
        };
        let text = m.render((3, 1, 8), Some(&queues), now);
        assert!(
            text.contains(
                "leadhub_http_requests_total{method=\"GET\",route=\"/api/keys\",status=\"200\"} 2"
            ),
            "{text}"
        );
        assert!(text.contains("le=\"0.005\"} 1"), "{text}");
        assert!(text.contains("le=\"+Inf\"} 2"), "{text}");
        assert!(
            text.contains("leadhub_db_pool_connections{state=\"in_use\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_jobs{kind=\"enrich_lead\",state=\"dead\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_jobs_total_by_state{state=\"queued\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_jobs_oldest_due_age_seconds 90"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_leads_enrichment_gave_up 4"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_webhook_deliveries_pending 7"),
            "{text}"
        );
        assert!(
            text.contains("leadhub_webhook_endpoints_failing 1"),
            "{text}"
        );
    }
}
