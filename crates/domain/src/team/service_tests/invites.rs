//! Inviting: who gets the link, what the repository stores, when an invite is refused.
use super::*;
use crate::test_support::mails_once;

#[tokio::test]
async fn an_invite_mails_its_link_to_the_invitee_only_and_stores_only_the_hash() {
    let mut s = Setup::new().invite_token();
    s.teams
        .expect_create_invite()
        .withf(|new| {
            new.team_id == TEAM
                && new.email == "sam@example.com"
                && new.role == Role::Admin
                && new.token_hash == hash_secret(INVITE_TOKEN)
                && new.invited_by == owner().id
                && new.created_at == now()
                && new.expires_at == now() + Duration::days(INVITE_TTL_DAYS)
        })
        .times(1)
        .returning(|new| Ok(stored(&new)));
    mails_once(&mut s.mailer, |message| {
        *message
            == Message::Invite {
                to: "sam@example.com".into(),
                team_name: "Roofers".into(),
                inviter_name: owner().display_name(),
                role: "admin".into(),
                invite_url: format!("{PUBLIC_URL}/invite/{INVITE_TOKEN}"),
                expires_at: now() + Duration::days(INVITE_TTL_DAYS),
            }
    });
    let service = s.build();

    let created = service
        .invite(&owner(), TEAM, "  Sam@Example.COM ", Role::Admin)
        .await
        .unwrap();

    assert!(created.email_sent);
    assert_eq!(created.invite.email, "sam@example.com");
    // Whoever holds the token may accept as the invitee: the inviter never sees it.
    assert!(!format!("{created:?}").contains(INVITE_TOKEN));
}

#[tokio::test]
async fn re_inviting_asks_the_repository_for_a_new_invite_with_a_new_link() {
    // The repository revokes the pending invite it replaces (its contract); the service only
    // has to ask again, with a new token, and mail the new link.
    let mut s = Setup::new();
    for n in [1, 2] {
        let token = format!("{INVITE_TOKEN_PREFIX}secret-{n}");
        let hash = hash_secret(&token);
        s.teams
            .expect_create_invite()
            .withf(move |new| new.email == "sam@example.com" && new.token_hash == hash)
            .times(1)
            .returning(|new| Ok(stored(&new)));
        let url = format!("{PUBLIC_URL}/invite/{token}");
        mails_once(
            &mut s.mailer,
            move |m| matches!(m, Message::Invite { invite_url, .. } if *invite_url == url),
        );
    }
    let service = s.build();
    for _ in 0..2 {
        let created = service
            .invite(&team_admin(), TEAM, "sam@example.com", Role::Member)
            .await
            .unwrap();
        assert!(created.email_sent);
    }
}

#[tokio::test]
async fn inviting_a_current_member_is_a_conflict() {
    let service = Setup::new().inviting_nothing().build();
    match service
        .invite(&owner(), TEAM, " Member@Example.com", Role::Admin)
        .await
    {
        Err(TeamError::Conflict(m)) => {
            assert_eq!(m, "member@example.com is already a member of this team")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_inactive_team_refuses_invites() {
    let service = Setup::new().team_inactive().inviting_nothing().build();
    match service
        .invite(&owner(), TEAM, "sam@example.com", Role::Member)
        .await
    {
        Err(TeamError::Forbidden(reason)) => assert_eq!(reason, "Team is inactive"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_failed_email_keeps_the_invite_and_says_so() {
    let mut s = Setup::new();
    s.teams
        .expect_create_invite()
        .times(1)
        .returning(|new| Ok(stored(&new)));
    s.mailer
        .expect_send()
        .times(1)
        .returning(|_| Err(MailError("connection refused".into())));
    let service = s.build();
    let created = service
        .invite(&owner(), TEAM, "sam@example.com", Role::Member)
        .await
        .unwrap();
    assert!(!created.email_sent);
    assert_eq!(created.invite.email, "sam@example.com");
}

#[tokio::test]
async fn ownership_is_not_invited_and_the_address_must_be_one() {
    let service = Setup::new().inviting_nothing().build();
    for (email, role, field) in [
        ("sam@example.com", Role::Owner, "role"),
        ("not an address", Role::Member, "email"),
    ] {
        match service.invite(&owner(), TEAM, email, role).await {
            Err(TeamError::Invalid(problems)) => {
                assert_eq!(problems.len(), 1);
                assert_eq!(problems[0].loc, vec![LocPart::from("body"), field.into()]);
            }
            other => panic!("{other:?}"),
        }
    }
}
