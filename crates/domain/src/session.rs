//! Sessions of people: access tokens (1 hour) and refresh tokens, grouped in families.
//! A family is one sign-in; each refresh retires the refresh token it used and issues a new pair
//! in the same family. Presenting a retired refresh token again means it was stolen or replayed:
//! the whole family is revoked.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::store::StoreResult;

pub const ACCESS_TOKEN_SECONDS: i64 = 3600;
pub const REFRESH_TOKEN_DAYS: i64 = 30;
pub const SIGN_IN_LINK_MINUTES: i64 = 15;

/// Stored as `access` or `refresh`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum TokenKind {
    Access,
    Refresh,
}

impl TokenKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewToken {
    pub user_id: i64,
    pub kind: TokenKind,
    pub token_hash: String,
    pub family_id: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredToken {
    pub id: i64,
    pub user_id: i64,
    pub kind: TokenKind,
    pub token_hash: String,
    pub family_id: String,
    pub expires_at: DateTime<Utc>,
    pub retired_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A signed-in session as handed to a client.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}

/// What spending a refresh token did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetireOutcome {
    /// It was live and is now retired: issue the next pair.
    Retired,
    /// It had been retired before: a replay.
    AlreadyRetired,
    /// Revoked, expired or unknown.
    Unusable,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SessionRepository: Send + Sync {
    async fn insert_tokens(&self, tokens: Vec<NewToken>) -> StoreResult<()>;
    async fn find_token(&self, token_hash: &str) -> StoreResult<Option<StoredToken>>;
    /// Retires a live refresh token atomically, so two concurrent refreshes cannot both succeed.
    async fn retire_refresh(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> StoreResult<RetireOutcome>;
    async fn revoke_family(&self, family_id: &str, at: DateTime<Utc>) -> StoreResult<()>;
    /// Stores a sign-in link's hash.
    async fn insert_sign_in_link(
        &self,
        user_id: i64,
        token_hash: &str,
        created_at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// Spends a live sign-in link atomically; the user it belongs to, or None when it is
    /// unknown, spent or expired.
    async fn spend_sign_in_link(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<i64>>;
}
