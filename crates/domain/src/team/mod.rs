//! Teams: members see their teams' leads; owners and admins manage members and invites.
pub mod model;
pub mod repository;
mod service;
#[cfg(test)]
pub(crate) mod service_tests;
pub mod turns;

pub use model::*;
pub use repository::{AcceptOutcome, NewInvite, TeamRepository};
pub use service::{AcceptedInvite, CreatedInvite, TeamError, TeamService};
