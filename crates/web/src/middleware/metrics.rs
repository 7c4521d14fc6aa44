//! Prometheus text-format metrics: requests and latency per route, database pool usage.
//! A few counters do not justify a metrics crate; the format is simple and stable.
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

/// Latency histogram bounds, in seconds.
const BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    latency: Mutex<BTreeMap<(String, String), Histogram>>,
}

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    pub fn record(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        if let Ok(mut requests) = self.requests.lock() {
            *requests
                .entry((method.to_owned(), route.to_owned(), status))
                .or_default() += 1;
        }
        if let Ok(mut latency) = self.latency.lock() {
            let h = latency
                .entry((method.to_owned(), route.to_owned()))
                .or_default();
            let secs = elapsed.as_secs_f64();
            for (i, bound) in BUCKETS.iter().enumerate() {
                if secs <= *bound {
                    h.counts[i] += 1;
                }
            }
            h.sum += secs;
            h.count += 1;
        }
    }

    /// The exposition text; `pool` is (open, idle, max) connections.
    pub fn render(&self, pool: (u32, u32, u32)) -> String {
        let mut out = String::new();
        out.push_str(
            "# HELP leadhub_http_requests_total HTTP requests by method, route and status.\n",
        );
        out.push_str("# TYPE leadhub_http_requests_total counter\n");
        if let Ok(requests) = self.requests.lock() {
            for ((method, route, status), n) in requests.iter() {
                let _ = writeln!(
                    out,
                    "leadhub_http_requests_total{{method=\"{}\",route=\"{}\",status=\"{status}\"}} {n}",
                    escape(method),
                    escape(route)
                );
            }
        }
        out.push_str("# HELP leadhub_http_request_duration_seconds HTTP request latency by method and route.\n");
        out.push_str("# TYPE leadhub_http_request_duration_seconds histogram\n");
        if let Ok(latency) = self.latency.lock() {
            for ((method, route), h) in latency.iter() {
                let labels = format!("method=\"{}\",route=\"{}\"", escape(method), escape(route));
                for (bound, n) in BUCKETS.iter().zip(h.counts.iter()) {
                    let _ = writeln!(
                        out,
                        "leadhub_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}"
                    );
                }
                let _ = writeln!(
                    out,
                    "leadhub_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(
                    out,
                    "leadhub_http_request_duration_seconds_sum{{{labels}}} {}",
                    h.sum
                );
                let _ = writeln!(
                    out,
                    "leadhub_http_request_duration_seconds_count{{{labels}}} {}",
                    h.count
                );
            }
        }
        let (open, idle, max) = pool;
        out.push_str("# HELP leadhub_db_pool_connections Database pool connections by state.\n");
        out.push_str("# TYPE leadhub_db_pool_connections gauge\n");
        let _ = writeln!(out, "leadhub_db_pool_connections{{state=\"idle\"}} {idle}");
        let _ = writeln!(
            out,
            "leadhub_db_pool_connections{{state=\"in_use\"}} {}",
            open.saturating_sub(idle)
        );
        let _ = writeln!(out, "leadhub_db_pool_connections{{state=\"max\"}} {max}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histograms() {
        let m = Metrics::default();
        m.record("GET", "/api/keys", 200, Duration::from_millis(3));
        m.record("GET", "/api/keys", 200, Duration::from_millis(30));
        let text = m.render((3, 1, 8));
        assert!(text.contains(
            "leadhub_http_requests_total{method=\"GET\",route=\"/api/keys\",status=\"200\"} 2"
        ));
        assert!(text.contains("le=\"0.005\"} 1"));
        assert!(text.contains("le=\"+Inf\"} 2"));
        assert!(text.contains("leadhub_db_pool_connections{state=\"in_use\"} 2"));
    }
}
