//! Outgoing webhooks per the Standard Webhooks specification: endpoints a team registers, the
//! events they subscribe to, the signature every delivery carries, and the outbox of deliveries.
pub mod delivery;
pub mod model;
#[cfg(test)]
mod receiver_example;
pub mod repository;
mod service;
#[cfg(test)]
mod service_tests;
pub mod signature;
mod subject;

pub use delivery::{attempt_record, EventPayloads, SendFailure, WebhookSender};
pub use model::*;
pub use repository::{
    AttemptRecord, Deactivated, DueDelivery, DueEndpoint, WebhookOutbox, WebhookRepository,
};
pub use service::{WebhookService, WithSecret};
pub use subject::{event_subject, split_subject, BodyMembers};
