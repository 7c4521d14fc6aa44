//! API keys: long-lived credentials for programs, acting as the user who created them.
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::store::StoreResult;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiKey {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    /// The first 12 characters of the key, enough to recognise it in a list.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl ApiKey {
    pub fn is_usable_at(&self, now: DateTime<Utc>) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| at > now)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewApiKey {
    pub user_id: i64,
    pub name: String,
    pub prefix: String,
    pub key_hash: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A key found by its hash, with the hash as stored for the constant-time check.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredApiKey {
    pub key: ApiKey,
    pub key_hash: String,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CredentialRepository: Send + Sync {
    async fn insert_api_key(&self, key: NewApiKey) -> StoreResult<ApiKey>;
    /// The user's keys, newest first, revoked ones included (the page shows them as revoked).
    async fn list_api_keys(&self, user_id: i64) -> StoreResult<Vec<ApiKey>>;
    async fn find_api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<StoredApiKey>>;
    async fn touch_api_key(&self, id: i64, at: DateTime<Utc>) -> StoreResult<()>;
    /// Revokes the user's key; false when the user has no such key (or it was revoked already).
    async fn revoke_api_key(&self, user_id: i64, id: i64, at: DateTime<Utc>) -> StoreResult<bool>;
}
