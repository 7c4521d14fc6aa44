//! Webhooks: endpoints, the events written with what they tell of, and the delivery outbox.

pub(crate) mod webhook_events;
pub(crate) mod webhook_outbox;
pub(crate) mod webhooks;
