//! Who is calling: turns a Bearer credential into a user, and manages users and API keys.
use std::sync::Arc;

use chrono::Duration;

use crate::api_key::{ApiKey, CredentialRepository, NewApiKey};
pub use crate::auth_error::AuthError;
use crate::clock::Clock;
use crate::error::{FieldError, LocPart};
use crate::identity::IdentityProvider;
use crate::parse::{clean_text, normalize_email};
use crate::secret::{
    hash_secret, hashes_match, TokenGenerator, ACCESS_TOKEN_PREFIX, API_KEY_PREFIX,
};
use crate::session::Session;
use crate::store::StoreError;
use crate::user::{NewUser, User, UserRepository};

/// How much of a key is kept in clear to recognise it in a list.
pub const KEY_PREFIX_LEN: usize = 12;
/// `last_used_at` is refreshed at most this often, so authenticating is not a write per request.
const LAST_USED_GRANULARITY_SECS: i64 = 60;
pub const MAX_KEY_LIFETIME_DAYS: i64 = 3650;

/// The credential a request was made with.
#[derive(Debug, Clone, PartialEq)]
pub enum Credential {
    ApiKey { id: i64 },
    AccessToken { id: i64, family_id: String },
}

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub user: User,
    pub credential: Credential,
}

impl Caller {
    /// A stable name for per-credential accounting (rate limits, logs) that reveals nothing secret.
    pub fn credential_label(&self) -> String {
        match &self.credential {
            Credential::ApiKey { id } => format!("key:{id}"),
            Credential::AccessToken { family_id, .. } => format!("session:{family_id}"),
        }
    }
}

/// A freshly made key: the only moment the full key exists outside the caller's hands.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedApiKey {
    pub key: ApiKey,
    pub secret: String,
}

pub struct NewUserRequest {
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub is_admin: bool,
}

/// Built with a struct literal from its ports: it holds them and nothing else.
pub struct AuthService {
    pub identity: Arc<dyn IdentityProvider>,
    pub users: Arc<dyn UserRepository>,
    pub credentials: Arc<dyn CredentialRepository>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
}

impl AuthService {
    /// Resolves a Bearer credential. Every failure is the same `Unauthorized`, so a caller
    /// learns nothing about which keys exist.
    pub async fn authenticate(&self, bearer: &str) -> Result<Caller, AuthError> {
        let bearer = bearer.trim();
        if bearer.len() > 200 {
            return Err(AuthError::Unauthorized);
        }
        if bearer.starts_with(ACCESS_TOKEN_PREFIX) {
            let grant = self
                .identity
                .resolve_access_token(bearer)
                .await?
                .ok_or(AuthError::Unauthorized)?;
            return Ok(Caller {
                user: grant.user,
                credential: Credential::AccessToken {
                    id: grant.token_id,
                    family_id: grant.family_id,
                },
            });
        }
        if !bearer.starts_with(API_KEY_PREFIX) {
            return Err(AuthError::Unauthorized);
        }
        let hash = hash_secret(bearer);
        let Some(stored) = self.credentials.find_api_key_by_hash(&hash).await? else {
            return Err(AuthError::Unauthorized);
        };
        let now = self.clock.now();
        if !hashes_match(&hash, &stored.key_hash) || !stored.key.is_usable_at(now) {
            return Err(AuthError::Unauthorized);
        }
        let user = self
            .users
            .find_by_internal_id(stored.key.user_id)
            .await?
            .ok_or(AuthError::Unauthorized)?;
        let stale = stored
            .key
            .last_used_at
            .is_none_or(|at| (now - at).num_seconds() >= LAST_USED_GRANULARITY_SECS);
        if stale {
            self.credentials.touch_api_key(stored.key.id, now).await?;
        }
        Ok(Caller {
            user,
            credential: Credential::ApiKey { id: stored.key.id },
        })
    }

    pub async fn add_user(&self, request: NewUserRequest) -> Result<User, AuthError> {
        let email = normalize_email(&request.email).ok_or_else(|| {
            AuthError::Invalid(vec![FieldError::body(
                &[LocPart::from("email")],
                "value_error",
                "value is not a valid email address",
            )])
        })?;
        let user = NewUser {
            id: (),
            user_id: self.tokens.public_id("usr_"),
            email,
            first_name: request.first_name.as_deref().and_then(clean_text),
            last_name: request.last_name.as_deref().and_then(clean_text),
            is_admin: request.is_admin,
            created_at: self.clock.now(),
            follow_up_digest: true,
            utc_offset: None,
        };
        match self.users.insert(user).await {
            Err(StoreError::Conflict(_)) => Err(AuthError::Conflict(
                "A user with this e-mail address already exists".into(),
            )),
            other => Ok(other?),
        }
    }

    pub async fn find_user_by_email(&self, email: &str) -> Result<User, AuthError> {
        let email = normalize_email(email).ok_or(AuthError::NotFound("User"))?;
        self.users
            .find_by_email(&email)
            .await?
            .ok_or(AuthError::NotFound("User"))
    }

    pub async fn create_api_key(
        &self,
        user: &User,
        name: &str,
        expires_in_days: Option<i64>,
    ) -> Result<CreatedApiKey, AuthError> {
        let mut problems = Vec::new();
        let name = clean_text(name).unwrap_or_default();
        if name.is_empty() {
            problems.push(FieldError::body(
                &[LocPart::from("name")],
                "too_short",
                "String should have at least 1 character",
            ));
        } else if name.chars().count() > 100 {
            problems.push(FieldError::body(
                &[LocPart::from("name")],
                "too_long",
                "String should have at most 100 characters",
            ));
        }
        if let Some(days) = expires_in_days {
            if !(1..=MAX_KEY_LIFETIME_DAYS).contains(&days) {
                problems.push(FieldError::body(
                    &[LocPart::from("expires_in_days")],
                    if days < 1 {
                        "greater_than_equal"
                    } else {
                        "less_than_equal"
                    },
                    format!("Input should be between 1 and {MAX_KEY_LIFETIME_DAYS}"),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(AuthError::Invalid(problems));
        }
        let secret = self.tokens.secret(API_KEY_PREFIX);
        let now = self.clock.now();
        let key = self
            .credentials
            .insert_api_key(NewApiKey {
                user_id: user.id,
                name,
                prefix: secret.chars().take(KEY_PREFIX_LEN).collect(),
                key_hash: hash_secret(&secret),
                created_at: now,
                expires_at: expires_in_days.map(|d| now + Duration::days(d)),
            })
            .await?;
        Ok(CreatedApiKey { key, secret })
    }

    pub async fn list_api_keys(&self, user: &User) -> Result<Vec<ApiKey>, AuthError> {
        Ok(self.credentials.list_api_keys(user.id).await?)
    }

    /// Revokes one of the caller's own keys; someone else's key is "not found".
    pub async fn revoke_api_key(&self, user: &User, key_id: i64) -> Result<(), AuthError> {
        let now = self.clock.now();
        if self
            .credentials
            .revoke_api_key(user.id, key_id, now)
            .await?
        {
            Ok(())
        } else {
            Err(AuthError::NotFound("API key"))
        }
    }

    /// The identity provider, for sign-in, refresh and sign-out.
    pub fn identity(&self) -> &Arc<dyn IdentityProvider> {
        &self.identity
    }

    pub async fn refresh(&self, refresh_token: &str) -> Result<Session, AuthError> {
        self.identity.refresh(refresh_token.trim()).await
    }

    /// Ends the session an access token belongs to; an API key has no session to end.
    pub async fn logout(&self, caller: &Caller) -> Result<(), AuthError> {
        match &caller.credential {
            Credential::AccessToken { family_id, .. } => self.identity.end_session(family_id).await,
            Credential::ApiKey { .. } => Ok(()),
        }
    }
}
