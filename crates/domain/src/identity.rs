//! The `IdentityProvider` port and its built-in adapter: magic-link sign-in and sessions of
//! access and refresh tokens. A hosted identity provider can replace the built-in one.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::Duration;

use crate::auth_error::AuthError;
use crate::clock::Clock;
use crate::mail::{Mailer, Message};
use crate::mail_throttle::{MailAdmission, MailThrottle};
use crate::parse::normalize_email;
use crate::return_path::safe_return_path;
use crate::secret::{
    hash_secret, hashes_match, TokenGenerator, ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX,
    SIGN_IN_TOKEN_PREFIX,
};
use crate::session::{
    NewToken, RetireOutcome, Session, SessionRepository, TokenKind, ACCESS_TOKEN_SECONDS,
    REFRESH_TOKEN_DAYS, SIGN_IN_LINK_MINUTES,
};
use crate::user::{User, UserRepository};

/// Who a live access token belongs to, and the session (family) it is part of.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessGrant {
    pub user: User,
    pub token_id: i64,
    pub family_id: String,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdentityProvider: Send + Sync {
    /// The grant behind a live access token; None for unknown, expired or revoked ones.
    async fn resolve_access_token(&self, token: &str) -> Result<Option<AccessGrant>, AuthError>;
    /// Starts a session (a new token family) for a user already identified.
    async fn start_session(&self, user: &User) -> Result<Session, AuthError>;
    /// Rotates a refresh token; a retired one revokes its whole family and is `Unauthorized`.
    async fn refresh(&self, refresh_token: &str) -> Result<Session, AuthError>;
    async fn end_session(&self, family_id: &str) -> Result<(), AuthError>;
    /// E-mails a sign-in link when the address belongs to a user; silent otherwise. The link
    /// carries `return_to` as `next` when it is a safe same-origin path.
    async fn send_sign_in_link(
        &self,
        email: &str,
        return_to: Option<String>,
    ) -> Result<(), AuthError>;
    /// Spends a sign-in link: `Gone` when it is unknown, spent or expired.
    async fn verify_sign_in_link(&self, token: &str) -> Result<(User, Session), AuthError>;
}

/// Built with a struct literal from its ports: it holds them and nothing else.
pub struct BuiltinIdentity {
    pub users: Arc<dyn UserRepository>,
    pub sessions: Arc<dyn SessionRepository>,
    pub mailer: Arc<dyn Mailer>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
    pub public_url: String,
    /// Bounds the sign-in e-mails one address receives; beyond it, requests are dropped
    /// silently (the response never differs, so addresses cannot be probed).
    pub mail_throttle: Option<Arc<MailThrottle>>,
}

impl BuiltinIdentity {
    async fn issue(&self, user_id: i64, family_id: String) -> Result<Session, AuthError> {
        let now = self.clock.now();
        let access = self.tokens.secret(ACCESS_TOKEN_PREFIX);
        let refresh = self.tokens.secret(REFRESH_TOKEN_PREFIX);
        self.sessions
            .insert_tokens(vec![
                NewToken {
                    user_id,
                    kind: TokenKind::Access,
                    token_hash: hash_secret(&access),
                    family_id: family_id.clone(),
                    created_at: now,
                    expires_at: now + Duration::seconds(ACCESS_TOKEN_SECONDS),
                },
                NewToken {
                    user_id,
                    kind: TokenKind::Refresh,
                    token_hash: hash_secret(&refresh),
                    family_id,
                    created_at: now,
                    expires_at: now + Duration::days(REFRESH_TOKEN_DAYS),
                },
            ])
            .await?;
        Ok(Session {
            access_token: access,
            refresh_token: refresh,
            expires_in: ACCESS_TOKEN_SECONDS,
        })
    }
}

#[async_trait]
impl IdentityProvider for BuiltinIdentity {
    async fn resolve_access_token(&self, token: &str) -> Result<Option<AccessGrant>, AuthError> {
        let hash = hash_secret(token);
        let Some(stored) = self.sessions.find_token(&hash).await? else {
            return Ok(None);
        };
        let live = stored.kind == TokenKind::Access
            && hashes_match(&hash, &stored.token_hash)
            && stored.revoked_at.is_none()
            && stored.expires_at > self.clock.now();
        if !live {
            return Ok(None);
        }
        let Some(user) = self.users.find_by_internal_id(stored.user_id).await? else {
            return Ok(None);
        };
        Ok(Some(AccessGrant {
            user,
            token_id: stored.id,
            family_id: stored.family_id,
        }))
    }

    async fn start_session(&self, user: &User) -> Result<Session, AuthError> {
        self.issue(user.id, self.tokens.public_id("fam_")).await
    }

    async fn refresh(&self, refresh_token: &str) -> Result<Session, AuthError> {
        if !refresh_token.starts_with(REFRESH_TOKEN_PREFIX) {
            return Err(AuthError::Unauthorized);
        }
        let hash = hash_secret(refresh_token);
        let Some(stored) = self.sessions.find_token(&hash).await? else {
            return Err(AuthError::Unauthorized);
        };
        if stored.kind != TokenKind::Refresh {
            return Err(AuthError::Unauthorized);
        }
        let now = self.clock.now();
        if stored.expires_at <= now {
            return Err(AuthError::Unauthorized);
        }
        match self.sessions.retire_refresh(&hash, now).await? {
            RetireOutcome::Retired => self.issue(stored.user_id, stored.family_id).await,
            RetireOutcome::AlreadyRetired => {
                // Reuse: whoever holds the family's tokens now is not to be trusted.
                self.sessions.revoke_family(&stored.family_id, now).await?;
                Err(AuthError::Unauthorized)
            }
            RetireOutcome::Unusable => Err(AuthError::Unauthorized),
        }
    }

    async fn end_session(&self, family_id: &str) -> Result<(), AuthError> {
        Ok(self
            .sessions
            .revoke_family(family_id, self.clock.now())
            .await?)
    }

    async fn send_sign_in_link(
        &self,
        email: &str,
        return_to: Option<String>,
    ) -> Result<(), AuthError> {
        let Some(email) = normalize_email(email) else {
            return Ok(());
        };
        let Some(user) = self.users.find_by_email(&email).await? else {
            return Ok(());
        };
        if let Some(throttle) = &self.mail_throttle {
            if let MailAdmission::Wait(_) = throttle.admit(&user.email).await? {
                tracing::info!(user_id = %user.user_id, "sign-in e-mail throttled");
                return Ok(());
            }
        }
        let token = self.tokens.secret(SIGN_IN_TOKEN_PREFIX);
        let now = self.clock.now();
        let expires_at = now + Duration::minutes(SIGN_IN_LINK_MINUTES);
        self.sessions
            .insert_sign_in_link(user.id, &hash_secret(&token), now, expires_at)
            .await?;
        let message = Message::SignIn {
            to: user.email.clone(),
            sign_in_url: sign_in_url(&self.public_url, &token, return_to.as_deref()),
            expires_at,
        };
        // The answer is the same whether or not mail went out (no account enumeration); a
        // failure is the operator's to see in the logs.
        if let Err(e) = self.mailer.send(&message).await {
            tracing::error!(error = %e, "sign-in e-mail not sent");
        }
        Ok(())
    }

    async fn verify_sign_in_link(&self, token: &str) -> Result<(User, Session), AuthError> {
        let gone = || AuthError::Gone("This sign-in link was already used or has expired".into());
        let user_id = self
            .sessions
            .spend_sign_in_link(&hash_secret(token.trim()), self.clock.now())
            .await?
            .ok_or_else(gone)?;
        let user = self
            .users
            .find_by_internal_id(user_id)
            .await?
            .ok_or_else(gone)?;
        let session = self.start_session(&user).await?;
        Ok((user, session))
    }
}

/// `{public_url}/sign-in?token=...`, with `&next=...` (form-encoded) for a safe return path.
fn sign_in_url(public_url: &str, token: &str, return_to: Option<&str>) -> String {
    let mut url = format!("{public_url}/sign-in?token={token}");
    if let Some(path) = return_to.and_then(safe_return_path) {
        url.push_str("&next=");
        url.extend(url::form_urlencoded::byte_serialize(path.as_bytes()));
    }
    url
}
