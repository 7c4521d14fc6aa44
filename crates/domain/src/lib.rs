//! The leadhub domain: entities, value objects, rules and the ports adapters implement.
//! No I/O lives here: HTTP, SQL, SMTP and JSON-over-the-wire belong to the adapter crates.
#![forbid(unsafe_code)]

pub mod address;
pub mod api_key;
pub mod auth;
pub mod business;
pub mod clock;
pub mod enrich;
pub mod error;
pub mod identity;
pub mod jobs;
pub mod lead;
pub mod mail;
pub mod parse;
pub mod rate_limit;
pub mod secret;
pub mod session;
pub mod store;
pub mod submission;
pub mod team;
pub mod team_access;
pub mod two_threads;
pub mod user;

pub use clock::{Clock, SystemClock};
pub use error::FieldError;
