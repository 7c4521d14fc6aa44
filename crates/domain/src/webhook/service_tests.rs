//! `WebhookService` with its ports mocked: who may manage a team's webhooks, ids of other teams,
//! refused input, rotation.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use mockall::predicate::eq;

use crate::error::ServiceError;
use crate::secret::MockTokenGenerator;
use crate::team::service_tests::{member, outsider, owner, site_admin, team_admin};
use crate::team::Role;
use crate::team_access::{Membership, MockMembershipRepository};
use crate::test_support::Answer::{self, Done as Y, Forbidden as F, NotFound as N};
use crate::test_support::{clock, now, numbered_tokens};
use crate::user::User;
use crate::webhook::model::{
    rotation_overlap, Creator, Delivery, DeliveryStatus, EndpointChanges, WebhookEndpoint,
    ENDPOINTS_PER_TEAM,
};
use crate::webhook::repository::MockWebhookRepository;
use crate::webhook::service::WebhookService;

const TEAM: i64 = 1;
const OTHER_TEAM: i64 = 2;
/// Team 1's endpoint; 20 is team 2's.
const ENDPOINT: i64 = 10;
const OTHER_ENDPOINT: i64 = 20;
const URL: &str = "https://crm.example.com/hooks";

fn endpoint(id: i64, team_id: i64) -> WebhookEndpoint {
    WebhookEndpoint {
        id,
        team_id,
        url: URL.into(),
        events: vec!["*".into()],
        description: None,
        is_active: true,
        created_at: now(),
        created_by: None,
    }
}

fn delivery(id: i64) -> Delivery {
    Delivery {
        id,
        endpoint_id: ENDPOINT,
        event_id: "msg_1".into(),
        event_type: "lead.created".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        last_status: None,
        last_error: None,
        next_attempt_at: Some(now()),
        delivered_at: None,
        created_at: now(),
    }
}

/// Team 1 (owner, admin, member) and team 2 (the outsider's), each with one endpoint.
fn memberships() -> MockMembershipRepository {
    let mut m = MockMembershipRepository::new();
    m.expect_membership().returning(|team, user| {
        let role = match (team, user) {
            (TEAM, 1) => Some(Role::Owner),
            (TEAM, 2) => Some(Role::Admin),
            (TEAM, 3) => Some(Role::Member),
            (OTHER_TEAM, 5) => Some(Role::Owner),
            _ => None,
        };
        Ok(role.map(|role| Membership {
            role,
            team_is_active: true,
        }))
    });
    m.expect_team_is_active()
        .returning(|team| Ok([TEAM, OTHER_TEAM].contains(&team).then_some(true)));
    m
}

fn service(webhooks: MockWebhookRepository, allow_http: bool) -> WebhookService {
    let mut tokens = MockTokenGenerator::new();
    numbered_tokens(&mut tokens);
    WebhookService {
        webhooks: Arc::new(webhooks),
        memberships: Arc::new(memberships()),
        clock: clock(),
        tokens: Arc::new(tokens),
        allow_http,
        endpoints_per_team: ENDPOINTS_PER_TEAM,
    }
}

/// The reads every operation on an endpoint makes: endpoints found in their own team only.
fn with_lookups(mut webhooks: MockWebhookRepository) -> MockWebhookRepository {
    webhooks.expect_find_endpoint().returning(|team, id| {
        Ok(match (team, id) {
            (TEAM, ENDPOINT) => Some(endpoint(ENDPOINT, TEAM)),
            (OTHER_TEAM, OTHER_ENDPOINT) => Some(endpoint(OTHER_ENDPOINT, OTHER_TEAM)),
            _ => None,
        })
    });
    webhooks
}

const OPERATIONS: [&str; 8] = [
    "create",
    "list",
    "update",
    "delete",
    "rotate",
    "deliveries",
    "retry",
    "test",
];

/// `actor` attempts `operation` on team 1's endpoint; the write is expected once when allowed.
async fn attempt(actor: &User, operation: &str, allowed: bool) -> Answer {
    let writes = usize::from(allowed);
    let mut w = MockWebhookRepository::new();
    match operation {
        "create" => {
            w.expect_create_endpoint()
                .times(writes)
                .returning(|new, _, _| Ok(Some(endpoint(ENDPOINT, new.team_id))));
        }
        "list" => {
            w.expect_endpoints()
                .with(eq(TEAM))
                .times(writes)
                .returning(|_| Ok(vec![endpoint(ENDPOINT, TEAM)]));
        }
        "update" => {
            w.expect_update_endpoint()
                .times(writes)
                .returning(|_, _, _| Ok(()));
        }
        "delete" => {
            w.expect_delete_endpoint()
                .with(eq(ENDPOINT))
                .times(writes)
                .returning(|_| Ok(()));
        }
        "rotate" => {
            w.expect_rotate_secret()
                .times(writes)
                .returning(|_, _, _, _| Ok(()));
        }
        "deliveries" => {
            w.expect_deliveries()
                .times(writes)
                .returning(|_, _, _| Ok((vec![delivery(1)], 1)));
        }
        "retry" => {
            w.expect_retry_delivery()
                .times(writes)
                .returning(|_, id, _| Ok(Some(delivery(id))));
        }
        "test" => {
            w.expect_enqueue()
                .times(writes)
                .returning(|_, _, _, _, _| Ok(delivery(2)));
        }
        other => panic!("unknown operation {other}"),
    }
    let s = service(with_lookups(w), false);
    let result = match operation {
        "create" => s
            .create(actor, TEAM, URL.into(), vec!["*".into()], None)
            .await
            .map(drop),
        "list" => s.list(actor, TEAM).await.map(drop),
        "update" => {
            let changes = EndpointChanges {
                description: Some(Some("CRM".into())),
                ..EndpointChanges::default()
            };
            s.update(actor, TEAM, ENDPOINT, changes).await.map(drop)
        }
        "delete" => s.delete(actor, TEAM, ENDPOINT).await,
        "rotate" => s.rotate_secret(actor, TEAM, ENDPOINT).await.map(drop),
        "deliveries" => s.deliveries(actor, TEAM, ENDPOINT, 50, 0).await.map(drop),
        "retry" => s.retry(actor, TEAM, ENDPOINT, 1).await.map(drop),
        _ => s.send_test(actor, TEAM, ENDPOINT).await.map(drop),
    };
    Answer::of(result, format_args!("{operation} by {}", actor.email))
}

#[tokio::test]
async fn owners_admins_and_platform_admins_manage_members_are_refused_outsiders_see_nothing() {
    let table = [
        ("owner", owner(), Y),
        ("team admin", team_admin(), Y),
        ("platform admin", site_admin(), Y),
        ("member", member(), F),
        ("outsider", outsider(), N),
    ];
    for (who, actor, expected) in table {
        for operation in OPERATIONS {
            let answer = attempt(&actor, operation, expected == Y).await;
            assert_eq!(answer, expected, "{who} attempts {operation}");
        }
    }
}

#[tokio::test]
async fn another_teams_endpoint_is_not_found_through_this_team() {
    // The outsider owns team 2's endpoint 20, yet through team 1 neither they nor team 1's
    // owner reach it; and team 1's owner cannot reach it through team 2.
    let s = service(with_lookups(MockWebhookRepository::new()), false);
    for (actor, team) in [(owner(), TEAM), (outsider(), TEAM)] {
        let r = s.delete(&actor, team, OTHER_ENDPOINT).await;
        assert!(
            matches!(r, Err(ServiceError::NotFound(_))),
            "{}: {r:?}",
            actor.email
        );
    }
    let r = s.rotate_secret(&owner(), OTHER_TEAM, OTHER_ENDPOINT).await;
    assert!(matches!(r, Err(ServiceError::NotFound("Team"))), "{r:?}");
    let r = s.retry(&owner(), TEAM, OTHER_ENDPOINT, 1).await;
    assert!(matches!(r, Err(ServiceError::NotFound("Webhook"))), "{r:?}");
}

#[tokio::test]
async fn a_delivery_of_another_endpoint_is_not_found() {
    let mut w = MockWebhookRepository::new();
    w.expect_retry_delivery()
        .with(eq(ENDPOINT), eq(99), eq(now()))
        .returning(|_, _, _| Ok(None));
    let s = service(with_lookups(w), false);
    let r = s.retry(&owner(), TEAM, ENDPOINT, 99).await;
    assert!(
        matches!(r, Err(ServiceError::NotFound("Delivery"))),
        "{r:?}"
    );
}

#[tokio::test]
async fn bad_urls_and_events_are_refused_before_anything_is_stored() {
    let s = service(MockWebhookRepository::new(), false);
    let cases: [(&str, Vec<String>, &[&str]); 4] = [
        ("http://crm.example.com/", vec!["*".into()], &["url"]),
        ("https://crm.example.com/", vec![], &["events"]),
        ("ftp://x", vec!["lead.deleted".into()], &["url", "events"]),
        (URL, vec!["*".into(), "lead.created".into()], &["events"]),
    ];
    for (url, events, fields) in cases {
        match s.create(&owner(), TEAM, url.into(), events, None).await {
            Err(ServiceError::Invalid(problems)) => {
                let named: Vec<String> = problems
                    .iter()
                    .map(|p| serde_json::to_value(&p.loc[1]).unwrap().to_string())
                    .collect();
                let expected: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
                assert_eq!(named, expected, "{url}");
            }
            other => panic!("{url}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn plain_http_only_when_allowed() {
    let mut w = MockWebhookRepository::new();
    w.expect_create_endpoint().times(1).returning(|new, _, _| {
        Ok(Some(WebhookEndpoint {
            url: new.url,
            ..endpoint(ENDPOINT, TEAM)
        }))
    });
    let s = service(w, true);
    let made = s
        .create(
            &owner(),
            TEAM,
            "http://127.0.0.1:9000/h".into(),
            vec!["*".into()],
            None,
        )
        .await
        .unwrap();
    assert_eq!(made.endpoint.url, "http://127.0.0.1:9000/h");
    assert!(made.secret.starts_with("whsec_"));
}

#[tokio::test]
async fn rotation_keeps_the_old_secret_signing_for_a_day() {
    let mut w = MockWebhookRepository::new();
    w.expect_rotate_secret()
        .withf(|id, secret, until, at| {
            *id == ENDPOINT
                && secret.starts_with("whsec_")
                && *until == now() + rotation_overlap()
                && *at == now()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let s = service(with_lookups(w), false);
    let first = s.rotate_secret(&owner(), TEAM, ENDPOINT).await.unwrap();
    assert_eq!(rotation_overlap(), chrono::Duration::hours(24));
    assert!(first.secret.starts_with("whsec_"));
}

#[tokio::test]
async fn a_new_endpoint_records_its_creator_and_stops_at_the_teams_limit() {
    let mut w = MockWebhookRepository::new();
    // The store refuses (None) once the team has `at_most` endpoints; this one is full.
    w.expect_create_endpoint()
        .withf(|new, _, at_most| {
            *at_most == 3
                && new.created_by
                    == Some(Creator {
                        id: owner().id,
                        user_id: owner().user_id,
                        email: owner().email,
                    })
        })
        .times(1)
        .returning(|_, _, _| Ok(None));
    let s = WebhookService {
        endpoints_per_team: 3,
        ..service(w, false)
    };
    match s
        .create(&owner(), TEAM, URL.into(), vec!["*".into()], None)
        .await
    {
        Err(ServiceError::Invalid(problems)) => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].kind, "too_many_endpoints");
            assert!(
                problems[0].msg.contains("at most 3 webhook endpoints"),
                "{problems:?}"
            );
            assert_eq!(
                serde_json::to_value(&problems[0].loc).unwrap(),
                serde_json::json!(["body"])
            );
        }
        other => panic!("{other:?}"),
    }
}
