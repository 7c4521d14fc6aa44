//! What the operator's command line sees and does (`leadhub user list`, `user deactivate`,
//! `key list`, `key revoke`, `team list`): every account and team at once, with no caller to
//! check, since whoever runs the binary against the database already holds it all.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::api_key::{ApiKey, CredentialRepository};
use crate::store::{StoreError, StoreResult};
use crate::user::User;

/// One account in `user list`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserListing {
    pub user: User,
    pub deactivated_at: Option<DateTime<Utc>>,
    /// Teams the person is an active member of.
    pub teams: i64,
    /// Keys neither revoked nor expired.
    pub live_keys: i64,
}

/// One team in `team list`.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamListing {
    pub id: i64,
    pub name: String,
    pub is_active: bool,
    pub members: i64,
    /// The creator's e-mail address.
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A key named on the command line: its id, or the start of the key as `key list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRef {
    Id(i64),
    Prefix(String),
}

impl KeyRef {
    /// All digits: an id; anything else: a prefix (keys start `lhk_`).
    pub fn parse(given: &str) -> KeyRef {
        let given = given.trim();
        match given.parse::<i64>() {
            Ok(id) => KeyRef::Id(id),
            Err(_) => KeyRef::Prefix(given.to_owned()),
        }
    }
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OperatorDirectory: Send + Sync {
    /// Every account, deactivated ones included, oldest first.
    async fn list_users(&self) -> StoreResult<Vec<UserListing>>;
    /// The account with this (lower-cased) address, deactivated or not.
    async fn find_account(&self, email: &str) -> StoreResult<Option<UserListing>>;
    /// Deactivates the account and revokes its keys at `at`; answers how many keys it revoked,
    /// or None when no active account has this address.
    async fn deactivate_user(&self, email: &str, at: DateTime<Utc>) -> StoreResult<Option<usize>>;
    /// Every team, oldest first.
    async fn list_teams(&self) -> StoreResult<Vec<TeamListing>>;
    /// The unrevoked keys `key` names: the one with that id, or those whose prefix starts so.
    async fn live_keys_named(&self, key: KeyRef) -> StoreResult<Vec<ApiKey>>;
}

/// Why an operator's command did nothing, in a sentence for the terminal.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The operator's commands over accounts, keys and teams.
pub struct Operator {
    pub directory: Arc<dyn OperatorDirectory>,
    pub credentials: Arc<dyn CredentialRepository>,
}

impl Operator {
    /// The account's keys, newest first, revoked ones included.
    pub async fn keys_of(&self, email: &str) -> Result<(UserListing, Vec<ApiKey>), OperatorError> {
        let account = self.account(email).await?;
        let keys = self.credentials.list_api_keys(account.user.id).await?;
        Ok((account, keys))
    }

    pub async fn deactivate(&self, email: &str, at: DateTime<Utc>) -> Result<usize, OperatorError> {
        let email = email.trim().to_lowercase();
        match self.directory.deactivate_user(&email, at).await? {
            Some(revoked) => Ok(revoked),
            None => match self.directory.find_account(&email).await? {
                Some(_) => Err(OperatorError::Refused(format!(
                    "{email} is deactivated already"
                ))),
                None => Err(OperatorError::Refused(format!("no account has {email}"))),
            },
        }
    }

    /// Revokes the one live key `key` names; refuses a prefix that names several.
    pub async fn revoke(&self, key: KeyRef, at: DateTime<Utc>) -> Result<ApiKey, OperatorError> {
        let mut named = self.directory.live_keys_named(key.clone()).await?;
        let shown = match &key {
            KeyRef::Id(id) => format!("id {id}"),
            KeyRef::Prefix(p) => format!("prefix {p:?}"),
        };
        let found = match named.len() {
            0 => return Err(OperatorError::Refused(format!("no live key has {shown}"))),
            1 => named.remove(0),
            n => {
                return Err(OperatorError::Refused(format!(
                    "{n} live keys have {shown}; give more of the key or its id (leadhub key list)"
                )))
            }
        };
        if self
            .credentials
            .revoke_api_key(found.user_id, found.id, at)
            .await?
        {
            Ok(found)
        } else {
            Err(OperatorError::Refused(format!(
                "the key with {shown} was revoked meanwhile"
            )))
        }
    }

    async fn account(&self, email: &str) -> Result<UserListing, OperatorError> {
        let email = email.trim().to_lowercase();
        self.directory
            .find_account(&email)
            .await?
            .ok_or_else(|| OperatorError::Refused(format!("no account has {email}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_key::MockCredentialRepository;

    fn key(id: i64) -> ApiKey {
        ApiKey {
            id,
            user_id: 4,
            name: "deploy".into(),
            prefix: "lhk_abcdefgh".into(),
            created_at: Utc::now(),
            last_used_at: None,
            expires_at: None,
            revoked_at: None,
        }
    }

    fn operator(found: Vec<ApiKey>, revoked: bool) -> Operator {
        let mut directory = MockOperatorDirectory::new();
        directory
            .expect_live_keys_named()
            .returning(move |_| Ok(found.clone()));
        let mut credentials = MockCredentialRepository::new();
        credentials
            .expect_revoke_api_key()
            .returning(move |_, _, _| Ok(revoked));
        Operator {
            directory: Arc::new(directory),
            credentials: Arc::new(credentials),
        }
    }

    #[test]
    fn digits_name_an_id_and_anything_else_a_prefix() {
        assert_eq!(KeyRef::parse(" 12 "), KeyRef::Id(12));
        assert_eq!(KeyRef::parse("lhk_ab"), KeyRef::Prefix("lhk_ab".to_owned()));
    }

    #[tokio::test]
    async fn revokes_the_one_key_named() {
        let revoked = operator(vec![key(3)], true)
            .revoke(KeyRef::Id(3), Utc::now())
            .await
            .unwrap();
        assert_eq!(revoked.id, 3);
    }

    #[tokio::test]
    async fn refuses_a_prefix_of_several_keys_and_an_unknown_one() {
        let several = operator(vec![key(3), key(5)], true)
            .revoke(KeyRef::Prefix("lhk_".into()), Utc::now())
            .await;
        assert_eq!(
            several.unwrap_err().to_string(),
            "2 live keys have prefix \"lhk_\"; give more of the key or its id (leadhub key list)"
        );
        let none = operator(vec![], true)
            .revoke(KeyRef::Id(9), Utc::now())
            .await;
        assert_eq!(none.unwrap_err().to_string(), "no live key has id 9");
    }
}
