//! Users: people (and the programs acting for them through API keys).
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::clock::UtcOffset;
use crate::store::StoreResult;

/// A user: `Id` is the internal row id (never shown to clients) once stored; a `NewUser`, not
/// stored yet, has none.
#[derive(Debug, Clone, PartialEq)]
pub struct User<Id = i64> {
    pub id: Id,
    /// The stable public identifier, `usr_` + 26 base32 characters.
    pub user_id: String,
    /// Lower-cased, so uniqueness is case-insensitive.
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// A platform administrator: sees every team.
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
    /// Wants the morning e-mail of their follow-ups due (`lead::work::digest`): on for everyone
    /// until they turn it off on the dashboard.
    pub follow_up_digest: bool,
    /// Where their day begins, as their browser last told the pages; None: UTC's day. Their
    /// e-mail of follow-ups due goes at the digest hour of their day.
    pub utc_offset: Option<UtcOffset>,
}

/// A user about to be inserted: every field but the row id.
pub type NewUser = User<()>;

impl<Id> User<Id> {
    /// "First Last", or the e-mail address when no name is known.
    pub fn display_name(&self) -> String {
        let name = [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if name.is_empty() {
            self.email.clone()
        } else {
            name
        }
    }
}

impl NewUser {
    /// The user as stored under row id `id`.
    pub fn stored(self, id: i64) -> User {
        User {
            id,
            user_id: self.user_id,
            email: self.email,
            first_name: self.first_name,
            last_name: self.last_name,
            is_admin: self.is_admin,
            created_at: self.created_at,
            follow_up_digest: self.follow_up_digest,
            utc_offset: self.utc_offset,
        }
    }
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Fails with `Conflict` when the e-mail address is taken.
    async fn insert(&self, user: NewUser) -> StoreResult<User>;
    async fn find_by_email(&self, email: &str) -> StoreResult<Option<User>>;
    async fn find_by_user_id(&self, user_id: &str) -> StoreResult<Option<User>>;
    async fn find_by_internal_id(&self, id: i64) -> StoreResult<Option<User>>;
    /// The users of `ids` (row ids) in one go, in no particular order; an unknown or
    /// deactivated id is left out.
    async fn find_by_internal_ids(&self, ids: &[i64]) -> StoreResult<Vec<User>>;
    /// The earliest platform administrator, if any (the CLI acts as them unless told otherwise).
    async fn first_admin(&self) -> StoreResult<Option<User>>;
}
