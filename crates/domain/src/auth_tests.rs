//! `AuthService` with every port mocked: API keys (creation, expiry, revocation, the
//! constant-time check, `last_used_at`), access tokens, logout.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use chrono::Duration;
use mockall::predicate::eq;

use crate::api_key::{ApiKey, MockCredentialRepository, StoredApiKey};
use crate::auth::{AuthError, AuthService, Caller, Credential, NewUserRequest};
use crate::identity::{AccessGrant, MockIdentityProvider};
use crate::secret::hash_secret;
use crate::store::StoreError;
use crate::test_support::{ada, clock, now, numbered_token_generator, user_found};
use crate::user::MockUserRepository;

const KEY: &str = "lhk_presented-api-key";
const KEY_ID: i64 = 3;

/// Ada's live key, last used 10 seconds ago, stored under the hash of `KEY`.
fn stored_key() -> StoredApiKey {
    StoredApiKey {
        key: ApiKey {
            id: KEY_ID,
            user_id: ada().id,
            name: "ci".into(),
            prefix: KEY.chars().take(12).collect(),
            created_at: now() - Duration::days(10),
            last_used_at: Some(now() - Duration::seconds(10)),
            expires_at: None,
            revoked_at: None,
        },
        key_hash: hash_secret(KEY),
    }
}

/// The mocks of every port `AuthService` uses; none has defaults but the clock and tokens.
struct Setup {
    identity: MockIdentityProvider,
    users: MockUserRepository,
    credentials: MockCredentialRepository,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            identity: MockIdentityProvider::new(),
            users: MockUserRepository::new(),
            credentials: MockCredentialRepository::new(),
        }
    }

    /// No credential is looked up, of either kind.
    fn looking_nothing_up(mut self) -> Setup {
        self.credentials.expect_find_api_key_by_hash().never();
        self.identity.expect_resolve_access_token().never();
        self
    }

    /// The credential store finds `key` for the hash of `KEY`, and Ada's account exists.
    fn key_found(mut self, key: StoredApiKey) -> Setup {
        self.credentials
            .expect_find_api_key_by_hash()
            .with(eq(hash_secret(KEY)))
            .returning(move |_| Ok(Some(key.clone())));
        user_found(&mut self.users, ada());
        self
    }

    fn build(self) -> AuthService {
        AuthService {
            identity: Arc::new(self.identity),
            users: Arc::new(self.users),
            credentials: Arc::new(self.credentials),
            clock: clock(),
            tokens: numbered_token_generator(),
        }
    }
}

// ---- Authenticating ----

#[tokio::test]
async fn a_live_api_key_authenticates_as_its_user() {
    let mut s = Setup::new().key_found(stored_key());
    s.credentials.expect_touch_api_key().never();
    s.identity.expect_resolve_access_token().never();
    let caller = s.build().authenticate(&format!(" {KEY} ")).await.unwrap();
    assert_eq!(
        caller,
        Caller {
            user: ada(),
            credential: Credential::ApiKey { id: KEY_ID },
        }
    );
}

#[tokio::test]
async fn last_used_at_is_written_at_most_once_a_minute() {
    for (last_used, writes) in [
        (None, 1),
        (Some(now() - Duration::seconds(59)), 0),
        (Some(now() - Duration::seconds(60)), 1),
    ] {
        let mut key = stored_key();
        key.key.last_used_at = last_used;
        let mut s = Setup::new().key_found(key);
        s.credentials
            .expect_touch_api_key()
            .with(eq(KEY_ID), eq(now()))
            .times(writes)
            .returning(|_, _| Ok(()));
        s.build().authenticate(KEY).await.unwrap();
    }
}

#[tokio::test]
async fn an_expired_revoked_or_mismatching_key_is_unauthorized() {
    let mut expired = stored_key();
    expired.key.expires_at = Some(now());
    let mut revoked = stored_key();
    revoked.key.revoked_at = Some(now() - Duration::days(1));
    // The store found a row, yet its hash is not the presented key's: the constant-time
    // comparison is the last word.
    let mut mismatching = stored_key();
    mismatching.key_hash = hash_secret("lhk_another-key");
    for (what, key) in [
        ("expired", expired),
        ("revoked", revoked),
        ("mismatching", mismatching),
    ] {
        let mut s = Setup::new();
        s.credentials
            .expect_find_api_key_by_hash()
            .returning(move |_| Ok(Some(key.clone())));
        s.credentials.expect_touch_api_key().never();
        s.users.expect_find_by_internal_id().never();
        assert!(
            matches!(
                s.build().authenticate(KEY).await,
                Err(AuthError::Unauthorized)
            ),
            "{what}"
        );
    }
}

#[tokio::test]
async fn an_unknown_key_or_a_vanished_user_is_unauthorized() {
    let mut s = Setup::new();
    s.credentials
        .expect_find_api_key_by_hash()
        .returning(|_| Ok(None));
    assert!(matches!(
        s.build().authenticate(KEY).await,
        Err(AuthError::Unauthorized)
    ));

    let mut s = Setup::new();
    let key = stored_key();
    s.credentials
        .expect_find_api_key_by_hash()
        .returning(move |_| Ok(Some(key.clone())));
    s.users.expect_find_by_internal_id().returning(|_| Ok(None));
    s.credentials.expect_touch_api_key().never();
    assert!(matches!(
        s.build().authenticate(KEY).await,
        Err(AuthError::Unauthorized)
    ));
}

#[tokio::test]
async fn a_bearer_that_is_no_credential_is_unauthorized_without_a_lookup() {
    let auth = Setup::new().looking_nothing_up().build();
    let too_long = format!("lhk_{}", "x".repeat(200));
    for bearer in ["", "Bearer lhk_x", "sk_live_123", too_long.as_str()] {
        assert!(
            matches!(
                auth.authenticate(bearer).await,
                Err(AuthError::Unauthorized)
            ),
            "{bearer:?}"
        );
    }
}

#[tokio::test]
async fn an_access_token_is_resolved_by_the_identity_provider() {
    let mut s = Setup::new();
    s.identity
        .expect_resolve_access_token()
        .with(eq("lha_live"))
        .times(1)
        .returning(|_| {
            Ok(Some(AccessGrant {
                user: ada(),
                token_id: 12,
                family_id: "fam_1".into(),
            }))
        });
    s.identity
        .expect_resolve_access_token()
        .with(eq("lha_dead"))
        .times(1)
        .returning(|_| Ok(None));
    s.credentials.expect_find_api_key_by_hash().never();
    let auth = s.build();
    assert_eq!(
        auth.authenticate("lha_live").await.unwrap().credential,
        Credential::AccessToken {
            id: 12,
            family_id: "fam_1".into(),
        }
    );
    assert!(matches!(
        auth.authenticate("lha_dead").await,
        Err(AuthError::Unauthorized)
    ));
}

// ---- Keys ----

#[tokio::test]
async fn a_new_key_is_stored_as_its_hash_and_shown_once() {
    let secret = "lhk_secret-1";
    let mut s = Setup::new();
    s.credentials
        .expect_insert_api_key()
        .withf(move |new| {
            new.user_id == ada().id
                && new.name == "nightly import"
                && new.prefix == secret[..12]
                && new.key_hash == hash_secret(secret)
                && new.created_at == now()
                && new.expires_at == Some(now() + Duration::days(30))
        })
        .times(1)
        .returning(|new| {
            Ok(ApiKey {
                id: KEY_ID,
                user_id: new.user_id,
                name: new.name,
                prefix: new.prefix,
                created_at: new.created_at,
                last_used_at: None,
                expires_at: new.expires_at,
                revoked_at: None,
            })
        });
    let created = s
        .build()
        .create_api_key(&ada(), "  nightly   import ", Some(30))
        .await
        .unwrap();
    assert_eq!(created.secret, secret);
    assert_eq!(created.key.id, KEY_ID);
}

#[tokio::test]
async fn a_key_needs_a_name_and_a_lifetime_of_one_day_to_ten_years() {
    let mut s = Setup::new();
    s.credentials.expect_insert_api_key().never();
    let auth = s.build();
    let long_name = "n".repeat(101);
    for (name, days, kind) in [
        ("  ", None, "too_short"),
        (long_name.as_str(), None, "too_long"),
        ("ci", Some(0), "greater_than_equal"),
        ("ci", Some(3651), "less_than_equal"),
    ] {
        match auth.create_api_key(&ada(), name, days).await {
            Err(AuthError::Invalid(problems)) => {
                assert_eq!(problems.len(), 1);
                assert_eq!(problems[0].kind, kind);
            }
            other => panic!("{name:?} {days:?}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn revoking_a_key_that_is_not_the_caller_s_is_not_found() {
    let mut s = Setup::new();
    s.credentials
        .expect_revoke_api_key()
        .with(eq(ada().id), eq(KEY_ID), eq(now()))
        .times(1)
        .returning(|_, _, _| Ok(false));
    assert!(matches!(
        s.build().revoke_api_key(&ada(), KEY_ID).await,
        Err(AuthError::NotFound("API key"))
    ));
}

// ---- Users and sessions ----

#[tokio::test]
async fn a_taken_address_is_a_conflict() {
    let mut s = Setup::new();
    s.users
        .expect_insert()
        .withf(|new| new.email == "ada@example.com" && new.user_id == "usr_id-1")
        .times(1)
        .returning(|_| Err(StoreError::Conflict("users.email".into())));
    let result = s
        .build()
        .add_user(NewUserRequest {
            email: "Ada@Example.com".into(),
            first_name: None,
            last_name: None,
            is_admin: false,
        })
        .await;
    match result {
        Err(AuthError::Conflict(m)) => {
            assert_eq!(m, "A user with this e-mail address already exists")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn logout_ends_the_session_of_an_access_token_and_nothing_for_a_key() {
    let mut s = Setup::new();
    s.identity
        .expect_end_session()
        .with(eq("fam_1"))
        .times(1)
        .returning(|_| Ok(()));
    let auth = s.build();
    let by_token = Caller {
        user: ada(),
        credential: Credential::AccessToken {
            id: 12,
            family_id: "fam_1".into(),
        },
    };
    auth.logout(&by_token).await.unwrap();
    let by_key = Caller {
        user: ada(),
        credential: Credential::ApiKey { id: KEY_ID },
    };
    auth.logout(&by_key).await.unwrap();
}
