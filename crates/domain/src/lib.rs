//! The leadhub domain: entities, value objects, rules and the ports adapters implement.
//! No I/O lives here: HTTP, SQL, SMTP and JSON-over-the-wire belong to the adapter crates.
#![forbid(unsafe_code)]

pub mod address;
pub mod api_key;
pub mod auth;
pub mod auth_error;
#[cfg(test)]
mod auth_tests;
pub mod business;
pub mod circuit_breaker;
pub mod clock;
pub mod dashboard;
pub mod enrich;
#[cfg(test)]
#[path = "submission/enrichment_tests.rs"]
mod enrichment_tests;
pub mod error;
#[cfg(any(test, feature = "mock"))]
pub mod fixtures;
pub mod identity;
#[cfg(test)]
mod identity_tests;
pub mod import;
pub mod jobs;
pub mod lead;
pub mod mail;
pub mod mail_throttle;
pub mod operator;
pub mod parse;
pub mod rate_limit;
pub mod return_path;
pub mod secret;
pub mod session;
pub mod store;
pub mod submission;
pub mod team;
pub mod team_access;
pub mod telemetry;
#[cfg(test)]
mod test_support;
pub mod upload;
pub mod user;
pub mod webhook;
mod word_enum;

pub use clock::{Clock, SystemClock};
pub use error::FieldError;
