//! Reading and accepting an invite.
use super::*;

#[tokio::test]
async fn expired_used_and_revoked_invites_are_gone() {
    let pending = pending_invite("sam@example.com").invite;
    let spent = [
        (
            "expired",
            Invite {
                expires_at: now() - Duration::seconds(1),
                ..pending.clone()
            },
        ),
        (
            "expiring this very second",
            Invite {
                expires_at: now(),
                ..pending.clone()
            },
        ),
        (
            "used",
            Invite {
                used_at: Some(now() - Duration::hours(1)),
                ..pending.clone()
            },
        ),
        (
            "revoked",
            Invite {
                revoked_at: Some(now() - Duration::hours(1)),
                ..pending
            },
        ),
    ];
    for (what, invite) in spent {
        let details = InviteDetails {
            invite,
            ..pending_invite("sam@example.com")
        };
        let mut s = Setup::new();
        s.teams
            .expect_find_invite()
            .with(eq(hash_secret(INVITE_TOKEN)))
            .returning(move |_| Ok(Some(details.clone())));
        s.teams.expect_accept_invite().never();
        let service = s.build();
        assert!(
            matches!(
                service.invite_info(INVITE_TOKEN).await,
                Err(TeamError::Gone(_))
            ),
            "{what}"
        );
        assert!(
            matches!(
                service.accept(INVITE_TOKEN, Some("Sam"), Some("Lee")).await,
                Err(TeamError::Gone(_))
            ),
            "{what}"
        );
    }
}

#[tokio::test]
async fn an_unknown_invite_is_not_found() {
    let mut s = Setup::new();
    s.teams.expect_find_invite().returning(|_| Ok(None));
    let service = s.build();
    assert!(matches!(
        service.invite_info("lhi_nobody-has-this").await,
        Err(TeamError::NotFound("Invite"))
    ));
}

/// A setup whose invite for `email` is pending and whose user lookup finds `account`.
fn accepting(email: &str, account: Option<User>) -> Setup {
    let details = pending_invite(email);
    let mut s = Setup::new();
    s.teams
        .expect_find_invite()
        .with(eq(hash_secret(INVITE_TOKEN)))
        .returning(move |_| Ok(Some(details.clone())));
    s.users
        .expect_find_by_email()
        .with(eq(email.to_owned()))
        .returning(move |_| Ok(account.clone()));
    s
}

#[tokio::test]
async fn accepting_for_a_new_account_requires_both_names() {
    let mut s = accepting("sam@example.com", None);
    s.teams.expect_accept_invite().never();
    s.identity.expect_start_session().never();
    let service = s.build();
    let missing = |field: &str| {
        FieldError::body(
            &[LocPart::from(field)],
            "missing",
            "Field required for a new account",
        )
    };
    for (first, last, expected) in [
        (
            None,
            None,
            vec![missing("first_name"), missing("last_name")],
        ),
        (Some("Sam"), Some("   "), vec![missing("last_name")]),
        (None, Some("Lee"), vec![missing("first_name")]),
    ] {
        match service.accept(INVITE_TOKEN, first, last).await {
            Err(TeamError::Invalid(problems)) => assert_eq!(problems, expected),
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn accepting_for_a_new_account_creates_it_for_the_invited_address_and_signs_it_in() {
    let mut s = accepting("sam@example.com", None);
    s.teams
        .expect_accept_invite()
        .withf(|hash, new_user, at| {
            let Some(u) = new_user else { return false };
            hash == hash_secret(INVITE_TOKEN)
                && u.email == "sam@example.com"
                && u.first_name.as_deref() == Some("Sam")
                && u.last_name.as_deref() == Some("Lee")
                && !u.is_admin
                && *at == now()
        })
        .times(1)
        .returning(|_, new_user, _| {
            let new_user = new_user.unwrap();
            Ok(AcceptOutcome::Accepted {
                user: User {
                    id: 42,
                    user_id: new_user.user_id,
                    email: new_user.email,
                    first_name: new_user.first_name,
                    last_name: new_user.last_name,
                    is_admin: false,
                    created_at: now(),
                    follow_up_digest: true,
                    utc_offset: None,
                },
                team_id: TEAM,
                team_name: "Roofers".into(),
            })
        });
    s.identity
        .expect_start_session()
        .withf(|user| user.id == 42)
        .times(1)
        .returning(|_| Ok(session()));
    let service = s.build();
    let accepted = service
        .accept(&format!(" {INVITE_TOKEN} "), Some(" Sam "), Some("Lee"))
        .await
        .unwrap();
    assert_eq!(accepted.team_id, TEAM);
    assert_eq!(accepted.user.email, "sam@example.com");
    assert_eq!(accepted.session, session());
}

#[tokio::test]
async fn accepting_for_an_existing_account_creates_none() {
    let mut s = accepting(&colleague().email, Some(colleague()));
    s.teams
        .expect_accept_invite()
        .withf(|_, new_user, _| new_user.is_none())
        .times(1)
        .returning(|_, _, _| {
            Ok(AcceptOutcome::Accepted {
                user: colleague(),
                team_id: TEAM,
                team_name: "Roofers".into(),
            })
        });
    s.identity
        .expect_start_session()
        .times(1)
        .returning(|_| Ok(session()));
    let service = s.build();
    let accepted = service.accept(INVITE_TOKEN, None, None).await.unwrap();
    assert_eq!(accepted.user, colleague());
}

#[tokio::test]
async fn an_inactive_team_refuses_acceptance() {
    let mut details = pending_invite("sam@example.com");
    details.team_is_active = false;
    let mut s = Setup::new();
    s.teams
        .expect_find_invite()
        .returning(move |_| Ok(Some(details.clone())));
    s.teams.expect_accept_invite().never();
    let service = s.build();
    match service.accept(INVITE_TOKEN, Some("Sam"), Some("Lee")).await {
        Err(TeamError::Forbidden(reason)) => assert_eq!(reason, "Team is inactive"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_invite_spent_meanwhile_is_gone_and_signs_nobody_in() {
    let mut s = accepting(&colleague().email, Some(colleague()));
    s.teams
        .expect_accept_invite()
        .times(1)
        .returning(|_, _, _| Ok(AcceptOutcome::Gone));
    s.identity.expect_start_session().never();
    let service = s.build();
    assert!(matches!(
        service.accept(INVITE_TOKEN, None, None).await,
        Err(TeamError::Gone(_))
    ));
}
