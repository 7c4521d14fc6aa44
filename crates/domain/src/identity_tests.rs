//! `BuiltinIdentity` with every port mocked: sessions, refresh rotation, reuse detection,
//! sign-in links, logout.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use chrono::Duration;
use mockall::predicate::eq;
use mockall::Sequence;

use crate::auth::AuthError;
use crate::identity::{AccessGrant, BuiltinIdentity, IdentityProvider};
use crate::mail::{MailError, Message, MockMailer};
use crate::secret::hash_secret;
use crate::session::{
    MockSessionRepository, NewToken, RetireOutcome, Session, StoredToken, TokenKind,
};
use crate::test_support::{ada, clock, mails_once, now, numbered_token_generator, user_found};
use crate::user::MockUserRepository;

const PUBLIC_URL: &str = "https://leads.example.com";
const FAMILY: &str = "fam_signed-in-once";
const REFRESH: &str = "lhr_presented-refresh";
const ACCESS: &str = "lha_presented-access";
/// What the numbered token generator issues next.
const NEXT_ACCESS: &str = "lha_secret-1";
const NEXT_REFRESH: &str = "lhr_secret-1";

/// The mocks of every port `BuiltinIdentity` uses. Sessions and the mailer have no defaults: a
/// test that reaches them says how often.
struct Setup {
    users: MockUserRepository,
    sessions: MockSessionRepository,
    mailer: MockMailer,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            users: MockUserRepository::new(),
            sessions: MockSessionRepository::new(),
            mailer: MockMailer::new(),
        }
    }

    /// `find_token` finds `token` for the hash of `presented`.
    fn stored(mut self, presented: &str, token: StoredToken) -> Setup {
        self.sessions
            .expect_find_token()
            .with(eq(hash_secret(presented)))
            .returning(move |_| Ok(Some(token.clone())));
        self
    }

    /// Ada's account is found by her (lower-cased) e-mail address.
    fn ada_by_email(mut self) -> Setup {
        self.users
            .expect_find_by_email()
            .with(eq("ada@example.com".to_owned()))
            .returning(|_| Ok(Some(ada())));
        self
    }

    /// Ada's account is found by her internal id.
    fn ada_exists(mut self) -> Setup {
        user_found(&mut self.users, ada());
        self
    }

    fn build(self) -> BuiltinIdentity {
        BuiltinIdentity {
            users: Arc::new(self.users),
            sessions: Arc::new(self.sessions),
            mailer: Arc::new(self.mailer),
            clock: clock(),
            tokens: numbered_token_generator(),
            public_url: PUBLIC_URL.into(),
            mail_throttle: None,
        }
    }
}

/// Ada's live token of `kind` in `FAMILY`, stored under the hash of `presented`.
fn live(kind: TokenKind, presented: &str) -> StoredToken {
    StoredToken {
        id: 11,
        user_id: ada().id,
        kind,
        token_hash: hash_secret(presented),
        family_id: FAMILY.into(),
        expires_at: now() + Duration::minutes(10),
        retired_at: None,
        revoked_at: None,
    }
}

/// The pair a session issues: an access token for an hour, a refresh token for 30 days.
fn is_new_pair(tokens: &[NewToken], family: &str) -> bool {
    let [access, refresh] = tokens else {
        return false;
    };
    access.kind == TokenKind::Access
        && access.user_id == ada().id
        && access.family_id == family
        && access.token_hash == hash_secret(NEXT_ACCESS)
        && access.created_at == now()
        && access.expires_at == now() + Duration::hours(1)
        && refresh.kind == TokenKind::Refresh
        && refresh.user_id == ada().id
        && refresh.family_id == family
        && refresh.token_hash == hash_secret(NEXT_REFRESH)
        && refresh.expires_at == now() + Duration::days(30)
}

fn next_session() -> Session {
    Session {
        access_token: NEXT_ACCESS.into(),
        refresh_token: NEXT_REFRESH.into(),
        expires_in: 3600,
    }
}

// ---- Refresh rotation ----

#[tokio::test]
async fn a_refresh_retires_the_token_then_issues_a_pair_in_the_same_family() {
    let mut s = Setup::new().stored(REFRESH, live(TokenKind::Refresh, REFRESH));
    let mut order = Sequence::new();
    s.sessions
        .expect_retire_refresh()
        .with(eq(hash_secret(REFRESH)), eq(now()))
        .times(1)
        .in_sequence(&mut order)
        .returning(|_, _| Ok(RetireOutcome::Retired));
    s.sessions
        .expect_insert_tokens()
        .withf(|tokens| is_new_pair(tokens, FAMILY))
        .times(1)
        .in_sequence(&mut order)
        .returning(|_| Ok(()));
    s.sessions.expect_revoke_family().never();
    let identity = s.build();

    assert_eq!(identity.refresh(REFRESH).await.unwrap(), next_session());
}

/// Checks that `token` is refused as a refresh token and that no tokens are issued for it.
async fn assert_refresh_refused(mut s: Setup, token: &str, what: &str) {
    s.sessions.expect_insert_tokens().never();
    assert!(
        matches!(s.build().refresh(token).await, Err(AuthError::Unauthorized)),
        "{what}"
    );
}

/// Reusing a retired refresh token revokes its whole family; one the store finds unusable
/// revokes nothing. Both are refused.
#[tokio::test]
async fn a_retired_or_unusable_refresh_token_is_refused() {
    for (outcome, family_revocations) in [
        (RetireOutcome::AlreadyRetired, 1),
        (RetireOutcome::Unusable, 0),
    ] {
        let mut s = Setup::new().stored(REFRESH, live(TokenKind::Refresh, REFRESH));
        s.sessions
            .expect_retire_refresh()
            .times(1)
            .returning(move |_, _| Ok(outcome));
        s.sessions
            .expect_revoke_family()
            .with(eq(FAMILY), eq(now()))
            .times(family_revocations)
            .returning(|_, _| Ok(()));
        assert_refresh_refused(s, REFRESH, &format!("{outcome:?}")).await;
    }
}

#[tokio::test]
async fn what_is_no_live_refresh_token_is_refused_before_anything_is_retired() {
    let expired = StoredToken {
        expires_at: now(),
        ..live(TokenKind::Refresh, REFRESH)
    };
    let access_under_a_refresh_prefix = live(TokenKind::Access, REFRESH);
    for (what, stored) in [
        ("unknown", None),
        ("expired", Some(expired)),
        ("an access token", Some(access_under_a_refresh_prefix)),
    ] {
        let mut s = Setup::new();
        s.sessions
            .expect_find_token()
            .returning(move |_| Ok(stored.clone()));
        s.sessions.expect_retire_refresh().never();
        s.sessions.expect_revoke_family().never();
        assert_refresh_refused(s, REFRESH, what).await;
    }
    // Not even shaped like a refresh token: not looked up.
    let mut s = Setup::new();
    s.sessions.expect_find_token().never();
    assert_refresh_refused(s, ACCESS, "an access token").await;
}

// ---- Access tokens ----

#[tokio::test]
async fn a_live_access_token_resolves_to_its_user_and_family() {
    let identity = Setup::new()
        .stored(ACCESS, live(TokenKind::Access, ACCESS))
        .ada_exists()
        .build();
    assert_eq!(
        identity.resolve_access_token(ACCESS).await.unwrap(),
        Some(AccessGrant {
            user: ada(),
            token_id: 11,
            family_id: FAMILY.into(),
        })
    );
}

#[tokio::test]
async fn an_access_token_of_the_wrong_kind_expired_or_revoked_is_refused() {
    let refused: [(&str, StoredToken); 4] = [
        ("a refresh token", live(TokenKind::Refresh, ACCESS)),
        (
            "expired",
            StoredToken {
                expires_at: now(),
                ..live(TokenKind::Access, ACCESS)
            },
        ),
        (
            "revoked",
            StoredToken {
                revoked_at: Some(now() - Duration::minutes(1)),
                ..live(TokenKind::Access, ACCESS)
            },
        ),
        (
            "stored under another hash",
            live(TokenKind::Access, "lha_another"),
        ),
    ];
    for (what, stored) in refused {
        let mut s = Setup::new().stored(ACCESS, stored);
        s.users.expect_find_by_internal_id().never();
        let identity = s.build();
        assert_eq!(
            identity.resolve_access_token(ACCESS).await.unwrap(),
            None,
            "{what}"
        );
    }
}

// ---- Sessions ----

#[tokio::test]
async fn a_new_session_is_a_new_family() {
    let mut s = Setup::new();
    s.sessions
        .expect_insert_tokens()
        .withf(|tokens| is_new_pair(tokens, "fam_id-1"))
        .times(1)
        .returning(|_| Ok(()));
    let identity = s.build();
    assert_eq!(
        identity.start_session(&ada()).await.unwrap(),
        next_session()
    );
}

#[tokio::test]
async fn logging_out_revokes_the_family() {
    let mut s = Setup::new();
    s.sessions
        .expect_revoke_family()
        .with(eq(FAMILY), eq(now()))
        .times(1)
        .returning(|_, _| Ok(()));
    s.build().end_session(FAMILY).await.unwrap();
}

// ---- Sign-in links ----

#[tokio::test]
async fn a_sign_in_link_goes_to_the_account_s_address_and_only_its_hash_is_stored() {
    let token = "lhs_secret-1";
    let mut s = Setup::new().ada_by_email();
    s.sessions
        .expect_insert_sign_in_link()
        .with(
            eq(ada().id),
            eq(hash_secret(token)),
            eq(now()),
            eq(now() + Duration::minutes(15)),
        )
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let expected = Message::SignIn {
        to: "ada@example.com".into(),
        sign_in_url: format!("{PUBLIC_URL}/sign-in?token={token}"),
        expires_at: now() + Duration::minutes(15),
    };
    mails_once(&mut s.mailer, move |m| *m == expected);
    s.build()
        .send_sign_in_link(" ADA@example.com ", None)
        .await
        .unwrap();
}

/// The page asked for before sign-in rides in the link as `next`, form-encoded; an unsafe one is
/// left out (the link then lands on the dashboard).
#[tokio::test]
async fn a_sign_in_link_carries_a_safe_return_path_only() {
    for (return_to, suffix) in [
        (
            "/leads?q=lamar&city=Austin",
            "&next=%2Fleads%3Fq%3Dlamar%26city%3DAustin",
        ),
        ("//evil.example/x", ""),
        ("/\\evil.example", ""),
        ("https://evil.example/", ""),
    ] {
        let mut s = Setup::new().ada_by_email();
        s.sessions
            .expect_insert_sign_in_link()
            .returning(|_, _, _, _| Ok(()));
        let expected = format!("{PUBLIC_URL}/sign-in?token=lhs_secret-1{suffix}");
        mails_once(
            &mut s.mailer,
            move |m| matches!(m, Message::SignIn { sign_in_url, .. } if *sign_in_url == expected),
        );
        s.build()
            .send_sign_in_link("ada@example.com", Some(return_to.into()))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn an_address_without_an_account_gets_the_same_answer_and_no_mail() {
    let mut s = Setup::new();
    s.users.expect_find_by_email().returning(|_| Ok(None));
    s.sessions.expect_insert_sign_in_link().never();
    s.mailer.expect_send().never();
    let identity = s.build();
    identity
        .send_sign_in_link("nobody@example.com", Some("/leads/1".into()))
        .await
        .unwrap();
    identity
        .send_sign_in_link("not an address", None)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_failed_sign_in_mail_gives_the_same_answer() {
    let mut s = Setup::new().ada_by_email();
    s.sessions
        .expect_insert_sign_in_link()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    s.mailer
        .expect_send()
        .times(1)
        .returning(|_| Err(MailError("connection refused".into())));
    s.build()
        .send_sign_in_link("ada@example.com", None)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_spent_or_expired_sign_in_link_is_gone() {
    let mut s = Setup::new();
    s.sessions
        .expect_spend_sign_in_link()
        .with(eq(hash_secret("lhs_link")), eq(now()))
        .times(1)
        .returning(|_, _| Ok(None));
    s.sessions.expect_insert_tokens().never();
    assert!(matches!(
        s.build().verify_sign_in_link("lhs_link").await,
        Err(AuthError::Gone(_))
    ));
}

#[tokio::test]
async fn a_live_sign_in_link_is_spent_and_starts_a_session() {
    let mut s = Setup::new().ada_exists();
    s.sessions
        .expect_spend_sign_in_link()
        .with(eq(hash_secret("lhs_link")), eq(now()))
        .times(1)
        .returning(|_, _| Ok(Some(ada().id)));
    s.sessions
        .expect_insert_tokens()
        .withf(|tokens| is_new_pair(tokens, "fam_id-1"))
        .times(1)
        .returning(|_| Ok(()));
    let (user, session) = s.build().verify_sign_in_link(" lhs_link ").await.unwrap();
    assert_eq!(user, ada());
    assert_eq!(session, next_session());
}
