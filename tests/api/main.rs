//! End-to-end tests over HTTP. Each case runs once on SQLite and once on PostgreSQL.
#![allow(clippy::unwrap_used)]

mod api_keys;
mod businesses;
mod clock;
mod enrichment;
mod errors;
mod hardening;
mod helpers;
mod identity;
mod isolation;
mod large_batches;
mod leads;
mod openapi;
mod operations;
mod pages;
mod rate_limits;
mod streamed_batches;
mod submissions;
mod teams;
mod write_failures;
