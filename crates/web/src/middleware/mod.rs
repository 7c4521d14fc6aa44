//! Cross-cutting request handling: request ids, the request span, metrics, rate limits.
mod rate_limit;
mod request_id;

pub use rate_limit::{client_ip, rate_limit};
pub use request_id::{observe, RequestId};
