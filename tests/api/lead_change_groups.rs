//! Lead changes sent at once (on SQLite committed together, `lead/change_groups.rs`): each is
//! answered for itself. A stale or colliding change in the same moment undoes only itself, and
//! the others are kept.
use futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::team;
use crate::lead_work::{lead_at, send};

backend_tests!(changes_at_once_are_answered_each_for_itself);

async fn changes_at_once_are_answered_each_for_itself(app: TestApp) {
    let olive = app.user("olive@example.com").await;
    let team_id = team(&app, "A", &olive).await;
    let mut plain = Vec::new();
    for n in 1..=8 {
        plain.push(lead_at(&app, &olive.key, n, Some(team_id)).await);
    }
    let contested = lead_at(&app, &olive.key, 20, Some(team_id)).await;
    // Pairs of leads that each take the same new address at once: both pass the service's own
    // check while neither has it, and the second is refused under the locks, in its group.
    let mut movers = Vec::new();
    for n in 0..10 {
        let first = lead_at(&app, &olive.key, 100 + n, Some(team_id)).await;
        let second = lead_at(&app, &olive.key, 200 + n, Some(team_id)).await;
        movers.push((first, second, format!("{} Pine St", 300 + n)));
    }
    let key = olive.key.as_str();
    let patch = |id: i64, if_match: Option<&'static str>, body: Value| {
        let headers: Vec<(&str, &str)> = if_match.map(|v| ("If-Match", v)).into_iter().collect();
        let app = &app;
        async move {
            let path = format!("/api/v1/leads/{id}");
            let (status, headers, body) =
                send(app, Method::PATCH, &path, key, &headers, Some(body)).await;
            (status, headers.get("etag").cloned(), body)
        }
    };
    let mut burst = Vec::new();
    for id in &plain {
        burst.push(patch(*id, None, json!({"status": "contacted"})));
    }
    for i in 0..4 {
        burst.push(patch(
            contested,
            Some("\"1\""),
            json!({"first_name": format!("Try{i}")}),
        ));
    }
    for (first, second, address) in &movers {
        burst.push(patch(*first, None, json!({ "address": address })));
        burst.push(patch(*second, None, json!({ "address": address })));
    }
    let answers = join_all(burst).await;

    for (status, etag, body) in &answers[..8] {
        assert_eq!(*status, StatusCode::OK, "{body}");
        assert_eq!(body["status"], "contacted");
        assert_eq!(etag.as_ref().unwrap().to_str().unwrap(), "\"2\"", "{body}");
    }
    let contested_answers: Vec<StatusCode> = answers[8..12].iter().map(|(s, _, _)| *s).collect();
    assert_eq!(
        contested_answers
            .iter()
            .filter(|s| **s == StatusCode::OK)
            .count(),
        1,
        "{contested_answers:?}"
    );
    assert!(contested_answers
        .iter()
        .all(|s| [StatusCode::OK, StatusCode::PRECONDITION_FAILED].contains(s)));
    let mut losers = Vec::new();
    for (pair, (first, second, _)) in answers[12..].chunks(2).zip(&movers) {
        let won: Vec<bool> = pair.iter().map(|(s, _, _)| *s == StatusCode::OK).collect();
        assert_eq!(won.iter().filter(|w| **w).count(), 1, "{pair:?}");
        let (loser, winner) = if won[0] {
            (*second, *first)
        } else {
            (*first, *second)
        };
        let (status, _, body) = &pair[usize::from(won[0])];
        assert_eq!(*status, StatusCode::CONFLICT, "{body}");
        assert!(body.to_string().contains(&winner.to_string()), "{body}");
        losers.push(loser);
    }
    // What was stored: each kept change once, the refused ones not at all.
    let stored = |id: i64| {
        let app = &app;
        async move {
            let path = format!("/api/v1/leads/{id}");
            let (status, headers, lead) = send(app, Method::GET, &path, key, &[], None).await;
            assert_eq!(status, StatusCode::OK, "{lead}");
            (headers["etag"].to_str().unwrap().to_owned(), lead)
        }
    };
    for id in &plain {
        let (etag, lead) = stored(*id).await;
        assert_eq!(
            (etag.as_str(), &lead["status"]),
            ("\"2\"", &json!("contacted"))
        );
    }
    let (etag, lead) = stored(contested).await;
    assert_eq!(etag, "\"2\"", "{lead}");
    assert!(
        lead["first_name"].as_str().unwrap().starts_with("Try"),
        "{lead}"
    );
    for loser in losers {
        let (etag, lead) = stored(loser).await;
        assert_eq!(etag, "\"1\"", "{lead}");
        assert!(
            lead["address"].as_str().unwrap().ends_with("Oak St"),
            "{lead}"
        );
        let (_, timeline) = app
            .get(&format!("/api/v1/leads/{loser}/activity"), key)
            .await;
        assert!(
            !timeline.to_string().contains("edited"),
            "a refused change left a timeline row: {timeline}"
        );
    }
}
