//! Teams and identity: teams, memberships and invites, users, API keys, sessions and sign-in
//! links.

pub(crate) mod credentials;
pub(crate) mod memberships;
pub(crate) mod operator;
pub(crate) mod sessions;
pub(crate) mod teams;
pub(crate) mod users;
