//! The invite account takeover: an inviter must never hold the invitee's
//! token. Each scenario plays the attacker with everything the service hands them, tries every
//! invite token it finds, and ends by checking that the victim has no session.
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::auth_tokens;
use leadhub_tests::{backend_tests, TestApp};

use crate::teams::{create_team_id, mailed_invite_url, post_invite, team_of};

/// Every invite token (`lhi_...`) in a text.
fn invite_tokens_in(text: &str) -> Vec<String> {
    text.match_indices("lhi_")
        .map(|(at, _)| {
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect()
        })
        .collect()
}

/// Tries to accept every token found in `seen`; returns how many were accepted.
pub async fn accept_every_token(app: &TestApp, seen: &[String]) -> usize {
    let mut accepted = 0;
    for token in seen.iter().flat_map(|t| invite_tokens_in(t)) {
        let (status, _) = app
            .post_public(
                &format!("/api/invites/{token}/accept"),
                json!({"first_name": "Mallory", "last_name": "M"}),
            )
            .await;
        if status == StatusCode::OK {
            accepted += 1;
        }
    }
    accepted
}

/// How many access or refresh tokens exist for a user.
pub async fn sessions_of(app: &TestApp, user_id: i64) -> i64 {
    app.read_db(move |conn| {
        conn.get_result::<_, i64>(
            auth_tokens::table
                .filter(auth_tokens::user_id.eq(user_id))
                .count(),
        )
    })
    .await
}

/// Everything the attacker can read about their own team's invites over the API.
async fn attacker_view(app: &TestApp, key: &str, team: i64, answer: &Value) -> Vec<String> {
    let mut seen = vec![answer.to_string()];
    for path in [
        format!("/api/teams/{team}/invites"),
        format!("/api/teams/{team}/members"),
        format!("/api/teams/{team}"),
        "/metrics".to_owned(),
    ] {
        let (_, body) = app.get(&path, key).await;
        seen.push(body.to_string());
    }
    seen
}

async fn an_inviter_never_gets_the_invitees_session(app: TestApp) {
    let root = app.admin("root@example.com").await;
    let mallory = app.user("mallory@example.com").await;
    let team = create_team_id(&app, &mallory.key, "Bait").await;

    // An existing platform admin, and an address that has no account yet.
    for victim in ["root@example.com", "newcomer@example.com"] {
        let (status, answer) = post_invite(
            &app,
            &mallory.key,
            team,
            json!({"email": victim, "role": "admin"}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        let seen = attacker_view(&app, &mallory.key, team, &answer).await;
        assert_eq!(
            accept_every_token(&app, &seen).await,
            0,
            "the inviter accepted {victim}'s invite"
        );
        assert_eq!(answer["email_sent"], true, "{answer}");
    }
    assert_eq!(sessions_of(&app, root.user.id).await, 0);

    // The link reached the victim's mailbox, and only the mailbox holder can use it.
    let link = mailed_invite_url(&app.mail.last_to("root@example.com").unwrap().message);
    let token = link.rsplit('/').next().unwrap();
    let (status, accepted) = app
        .post_public(&format!("/api/invites/{token}/accept"), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!(sessions_of(&app, root.user.id).await, 2, "one session");
}

async fn a_team_admin_cannot_take_the_owner_over(app: TestApp) {
    let [owner, eve] = app.users(["owner", "eve"]).await;
    team_of(&app, &owner, "Crew", &[(&eve, "admin")]).await;
    let before = sessions_of(&app, owner.user.id).await;
    // Eve makes a second team and invites its owner there, then re-invites (a new link).
    let other = create_team_id(&app, &eve.key, "Side").await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let (status, answer) =
            post_invite(&app, &eve.key, other, json!({"email": "owner@example.com"})).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        seen.extend(attacker_view(&app, &eve.key, other, &answer).await);
    }
    assert_eq!(accept_every_token(&app, &seen).await, 0);
    assert_eq!(sessions_of(&app, owner.user.id).await, before);
}

backend_tests!(
    an_inviter_never_gets_the_invitees_session,
    a_team_admin_cannot_take_the_owner_over,
);
