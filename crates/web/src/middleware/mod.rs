//! Cross-cutting request handling: request ids, the request span, metrics.
mod metrics;
mod request_id;

pub use metrics::Metrics;
pub use request_id::{observe, RequestId};
