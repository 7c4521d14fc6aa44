//! What the domain's unit tests share: a fixed time, people, and the clock and token mocks.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, TimeZone, Utc};

use crate::clock::MockClock;
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::record::{EnrichmentStatus, Lead};
use crate::mail::{Message, MockMailer};
use crate::secret::MockTokenGenerator;
use crate::team::Role;
use crate::team_access::{Membership, MockMembershipRepository};
use crate::user::{MockUserRepository, User};

/// The moment every test runs at.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 2, 9, 0, 0)
        .single()
        .unwrap_or_default()
}

/// A clock standing at `now()`.
pub fn clock() -> Arc<MockClock> {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    Arc::new(clock)
}

/// Adds the default results of a token generator, counted per prefix: `{prefix}secret-1`,
/// `{prefix}secret-2`, ... and `{prefix}id-1`, ... A test that needs another token sets its own
/// expectation first (mockall uses the first expectation that matches).
pub fn numbered_tokens(tokens: &mut MockTokenGenerator) {
    let secrets = Counters::default();
    tokens
        .expect_secret()
        .returning(move |prefix| format!("{prefix}secret-{}", secrets.next(prefix)));
    let ids = Counters::default();
    tokens
        .expect_public_id()
        .returning(move |prefix| format!("{prefix}id-{}", ids.next(prefix)));
}

/// A token generator with only the numbered defaults.
pub fn numbered_token_generator() -> Arc<MockTokenGenerator> {
    let mut tokens = MockTokenGenerator::new();
    numbered_tokens(&mut tokens);
    Arc::new(tokens)
}

#[derive(Default)]
struct Counters(Mutex<HashMap<String, usize>>);

impl Counters {
    fn next(&self, prefix: &str) -> usize {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts.entry(prefix.to_owned()).or_default();
        *n += 1;
        *n
    }
}

/// A person with an account, no platform rights.
pub fn person(id: i64, email: &str) -> User {
    User {
        id,
        user_id: format!("usr_{id}"),
        email: email.to_owned(),
        first_name: Some("Pat".into()),
        last_name: Some(format!("Person{id}")),
        is_admin: false,
        created_at: now(),
        follow_up_digest: true,
        utc_offset: None,
    }
}

/// The person the service tests act as.
pub fn ada() -> User {
    person(7, "ada@example.com")
}

/// The user repository finds `user` by internal id.
pub fn user_found(users: &mut MockUserRepository, user: User) {
    users
        .expect_find_by_internal_id()
        .with(mockall::predicate::eq(user.id))
        .returning(move |_| Ok(Some(user.clone())));
}

/// A membership repository that answers from a roster of (team id, user id, role, whether the
/// team is active): each membership, the teams of a user, and whether a team is active.
pub fn roster_memberships(roster: Vec<(i64, i64, Role, bool)>) -> MockMembershipRepository {
    let mut memberships = MockMembershipRepository::new();
    let entries = roster.clone();
    memberships
        .expect_membership()
        .returning(move |team, user| {
            Ok(entries
                .iter()
                .find(|(t, u, _, _)| *t == team && *u == user)
                .map(|(_, _, role, active)| Membership {
                    role: *role,
                    team_is_active: *active,
                }))
        });
    let entries = roster.clone();
    memberships.expect_team_ids_of().returning(move |user| {
        Ok(entries
            .iter()
            .filter(|(_, u, _, _)| *u == user)
            .map(|(t, _, _, _)| *t)
            .collect())
    });
    memberships
        .expect_team_is_active()
        .returning(move |team| Ok(roster.iter().find(|(t, ..)| *t == team).map(|e| e.3)));
    memberships
}

/// A platform administrator.
pub fn platform_admin(id: i64, email: &str) -> User {
    User {
        is_admin: true,
        ..person(id, email)
    }
}

/// Each warning as (field, code).
pub fn field_codes(warnings: &[Warning]) -> Vec<(&str, &str)> {
    warnings
        .iter()
        .map(|w| (w.field.as_str(), w.code.as_str()))
        .collect()
}

/// The five phone slots of a lead, in order.
pub fn phones(f: &LeadFields) -> [Option<&str>; 5] {
    [
        f.primary_phone.as_deref(),
        f.phone_2.as_deref(),
        f.phone_3.as_deref(),
        f.phone_4.as_deref(),
        f.phone_5.as_deref(),
    ]
}

/// An optional string field's value.
pub fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

/// `base` with these string fields set, by name.
pub fn with_strings(base: LeadFields, fields: &[(&str, &str)]) -> LeadFields {
    let mut lead = base;
    for (name, value) in fields {
        *lead.string_field_mut(name).expect("a string field") = Some((*value).to_owned());
    }
    lead
}

/// A lead as first stored: waiting for enrichment, submitted once.
pub fn fresh_lead(id: i64, team_id: Option<i64>, fields: LeadFields, acres: Option<f64>) -> Lead {
    Lead {
        id,
        team_id,
        fields,
        address_standardized: None,
        lot_size_acres: acres,
        geocode: None,
        county_fips: None,
        appraisal: None,
        enrichment_status: EnrichmentStatus::PendingRetry,
        submission_count: 1,
        created_at: now(),
        updated_at: now(),
        work: crate::lead::work::LeadWork::default(),
    }
}

/// How an attempt on a team's things ended, as the permission tables write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Done,
    Forbidden,
    NotFound,
}

impl Answer {
    /// How `result` ended: done, refused, or the team "not found". Any other error fails the
    /// test, naming the `attempt`.
    pub fn of<E: Refusal>(result: Result<(), E>, attempt: std::fmt::Arguments<'_>) -> Answer {
        match result {
            Ok(()) => Answer::Done,
            Err(e) => e.answer().unwrap_or_else(|| panic!("{attempt}: {e:?}")),
        }
    }
}

/// A service error as the permission tables read it: a refusal, or something else.
pub trait Refusal: std::fmt::Debug {
    fn answer(&self) -> Option<Answer>;
}

/// The services whose tables read `Forbidden` as refused and a team "not found" as hidden.
macro_rules! team_refusals {
    ($($error:ty),+) => {$(
        impl Refusal for $error {
            fn answer(&self) -> Option<Answer> {
                match self {
                    Self::Forbidden(_) => Some(Answer::Forbidden),
                    Self::NotFound("Team") => Some(Answer::NotFound),
                    _ => None,
                }
            }
        }
    )+};
}
team_refusals!(crate::team::TeamError, crate::error::ServiceError);

/// The mailer takes exactly one message, one that `expected` accepts.
pub fn mails_once(mailer: &mut MockMailer, expected: impl Fn(&Message) -> bool + Send + 'static) {
    mailer
        .expect_send()
        .withf(expected)
        .times(1)
        .returning(|_| Ok(()));
}
