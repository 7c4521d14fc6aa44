//! Invites accepted at the same moment: two invites of one new address, from
//! two teams, accepted at once both succeed, as one account in both teams.
use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::teams::{create_team_id, invite, token_of};

async fn two_invites_of_one_new_address_accepted_at_once(app: TestApp) {
    let [ada, bob] = app.users(["ada", "bob"]).await;
    let a = create_team_id(&app, &ada.key, "A").await;
    let b = create_team_id(&app, &bob.key, "B").await;
    // Several rounds: the race is between the two transactions' reads and inserts.
    for round in 0..8 {
        let email = format!("new{round}@example.com");
        let tokens = [
            token_of(
                invite(&app, &ada.key, a, &email, None).await["mailed_url"]
                    .as_str()
                    .unwrap(),
            ),
            token_of(
                invite(&app, &bob.key, b, &email, None).await["mailed_url"]
                    .as_str()
                    .unwrap(),
            ),
        ];
        let body = json!({"first_name": "New", "last_name": "Person"});
        let paths: Vec<String> = tokens
            .iter()
            .map(|t| format!("/api/invites/{t}/accept"))
            .collect();
        let answers = join_all(paths.iter().map(|path| app.post_public(path, body.clone()))).await;
        for (status, answer) in &answers {
            assert_eq!(*status, StatusCode::OK, "round {round}: {answer}");
        }
        let (_, me) = app
            .get(
                "/api/teams/me/memberships",
                answers[0].1["access_token"].as_str().unwrap(),
            )
            .await;
        assert_eq!(
            me.as_array().unwrap().len(),
            2,
            "one account in both teams: {me}"
        );
    }
}

backend_tests!(two_invites_of_one_new_address_accepted_at_once);
