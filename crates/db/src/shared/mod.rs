//! State that every process on one database shares: geocode results and rate-limit counters.

pub(crate) mod geocode_cache;
pub(crate) mod rate_limits;
