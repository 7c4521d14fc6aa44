//! End-to-end tests over HTTP. Each case runs once on SQLite and once on PostgreSQL.
#![allow(clippy::unwrap_used)]

mod api_keys;
mod business_pages;
mod businesses;
mod clock;
mod dashboard_page;
mod deferred_authority;
mod enrichment;
mod errors;
mod hardening;
mod helpers;
mod idempotency_crashes;
mod identity;
mod input_refusals;
mod invite_races;
mod isolation;
mod large_batches;
mod lead_map;
mod lead_pages;
mod lead_uploads;
mod leads;
mod mail_quota;
mod openapi;
mod operations;
mod pages;
mod rate_limits;
mod streamed_batches;
mod submissions;
mod takeover;
mod teams;
mod webhook_deliveries;
mod webhook_failing;
mod webhook_pages;
mod webhooks;
mod write_failures;
mod writer_queue;
