//! The webhook adapter: signed deliveries to the endpoints teams register, sent by a worker
//! inside `leadhub serve` that drains the outbox (`WebhookOutbox`), behind the egress guard.
//!
//! The domain decides what a delivery's body says (`EventPayloads`), how an attempt counts and
//! when an endpoint has failed too long; this crate sends, retries on time and records.
#![forbid(unsafe_code)]

pub mod egress;
mod failure_log;
mod fair_share;
mod sender;
pub mod special_addresses;
pub mod target;
mod worker;

pub use fair_share::{team_share, PER_ENDPOINT};
pub use sender::{HttpSender, MAX_RESPONSE_BYTES, SEND_TIMEOUT};
pub use worker::{start, DeliverySettings};
