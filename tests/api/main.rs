//! End-to-end tests over HTTP. Each case runs once on SQLite and once on PostgreSQL.
#![allow(clippy::unwrap_used)]

mod api_keys;
mod enrichment;
mod errors;
mod helpers;
mod identity;
mod leads;
mod openapi;
mod operations;
mod submissions;
mod teams;
