//! `BusinessService` with every port mocked: what an import hands the repository (the keys the
//! duplicate rule compares, `skip_duplicates`, categories), how its answer is reported, and who
//! sees which businesses.
//!
//! The repository applies the duplicate rule (`DuplicateKeys::same_business`) inside its import
//! transaction, against stored businesses and earlier elements of the same import; these tests
//! check that what the service hands it makes the rule find the same business, and how the
//! service reports the repository's answer.
#![allow(clippy::unwrap_used)]
use std::sync::{Arc, Mutex};

use crate::business::model::{Business, BusinessFields, RelationshipType};
use crate::business::repository::{
    BusinessFilter, BusinessImport, BusinessPatch, BusinessStatistics, ImportedBusiness,
    MockBusinessRepository,
};
use crate::business::service::{BusinessError, BusinessService, ImportElement, ImportRequest};
use crate::test_support::{ada, clock, now, person, platform_admin, roster_memberships};
use crate::user::User;

fn outsider() -> User {
    person(8, "outsider@example.com")
}
fn site_admin() -> User {
    platform_admin(9, "root@example.com")
}

/// The mock repository, and who belongs where as the fallback of every membership question.
struct Setup {
    businesses: MockBusinessRepository,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            businesses: MockBusinessRepository::new(),
        }
    }

    /// Ada belongs to team 1 (active) and team 2 (deactivated).
    fn build(self) -> BusinessService {
        let member = crate::team::Role::Member;
        let memberships = roster_memberships(vec![
            (1, ada().id, member, true),
            (2, ada().id, member, false),
        ]);
        BusinessService {
            businesses: Arc::new(self.businesses),
            memberships: Arc::new(memberships),
            clock: clock(),
        }
    }
}

fn business(name: &str, city: &str, state: &str) -> BusinessFields {
    BusinessFields {
        name: Some(name.into()),
        city: Some(city.into()),
        state: Some(state.into()),
        ..BusinessFields::default()
    }
}

fn with_phone(name: &str, phone: &str) -> BusinessFields {
    BusinessFields {
        name: Some(name.into()),
        phone: Some(phone.into()),
        ..BusinessFields::default()
    }
}

fn with_website(name: &str, website: &str) -> BusinessFields {
    BusinessFields {
        name: Some(name.into()),
        website: Some(website.into()),
        ..BusinessFields::default()
    }
}

fn import(elements: Vec<ImportElement>) -> ImportRequest {
    ImportRequest {
        elements,
        relationship_type: RelationshipType::Prospect,
        skip_duplicates: true,
        auto_categorize: true,
        team_id: None,
    }
}

/// Imports `a` and `b` together; whether the repository, applying the domain's rule to what it
/// was handed, finds them the same business.
async fn same_business(a: BusinessFields, b: BusinessFields) -> bool {
    let handed: Arc<Mutex<Option<BusinessImport>>> = Arc::default();
    let keep = handed.clone();
    let mut s = Setup::new();
    s.businesses
        .expect_import_businesses()
        .withf(|i| i.skip_duplicates && i.businesses.len() == 2)
        .times(1)
        .returning(move |i| {
            *keep.lock().unwrap() = Some(i);
            Ok(vec![
                ImportedBusiness::Created(1),
                ImportedBusiness::Created(2),
            ])
        });
    s.build()
        .import(&ada(), import(vec![Ok(a), Ok(b)]))
        .await
        .unwrap();
    let handed = handed.lock().unwrap().take().unwrap();
    let [first, second] = &handed.businesses[..] else {
        panic!("{handed:?}")
    };
    first
        .duplicate_keys()
        .same_business(&second.duplicate_keys())
}

// ---- Duplicates ----

#[tokio::test]
async fn the_duplicate_rule() {
    // (the rule, one business, another, whether they are the same business)
    let cases = [
        (
            "the same normalised name in the same city and state",
            business("Joe's Plumbing & Heating, L.L.C.", "Austin", "tx"),
            business("JOES PLUMBING AND HEATING", " AUSTIN ", "TX"),
            true,
        ),
        (
            "the same name elsewhere is another business",
            business("Acme Plumbing", "Austin", "TX"),
            business("Acme Plumbing", "Dallas", "TX"),
            false,
        ),
        (
            "the same name without a place is another business",
            business("Acme Plumbing", "Austin", "TX"),
            with_phone("Acme Plumbing", "(512) 555-0177"),
            false,
        ),
        (
            "the same phone in any format",
            with_phone("Acme", "(512) 555-0100"),
            with_phone("Other Name", "+1 512.555.0100"),
            true,
        ),
        (
            "the same website domain",
            with_website("Acme", "https://www.acme.com/about"),
            with_website("Other Name", "acme.com"),
            true,
        ),
        (
            "another host of the domain is another business",
            with_website("Acme", "https://acme.com"),
            with_website("Other Name", "https://shop.acme.com"),
            false,
        ),
    ];
    for (rule, a, b, same) in cases {
        assert_eq!(same_business(a, b).await, same, "{rule}");
    }
}

#[tokio::test]
async fn a_repeat_within_one_import_is_reported_skipped_by_its_own_index() {
    let mut s = Setup::new();
    // Both copies reach the repository, in order: the rule applies to earlier elements too.
    s.businesses
        .expect_import_businesses()
        .withf(|i| {
            i.skip_duplicates
                && i.businesses.iter().map(|b| b.name.as_str()).eq([
                    "Acme Plumbing",
                    "ACME PLUMBING INC",
                    "Top Roofing",
                ])
        })
        .times(1)
        .returning(|_| {
            Ok(vec![
                ImportedBusiness::Created(10),
                ImportedBusiness::Duplicate(10),
                ImportedBusiness::Created(11),
            ])
        });
    let outcome = s
        .build()
        .import(
            &ada(),
            import(vec![
                Ok(business("Acme Plumbing", "Austin", "TX")),
                Err("rating: Input should be a valid number".into()),
                Ok(business("ACME PLUMBING INC", "Austin", "TX")),
                Ok(business("Top Roofing", "Austin", "TX")),
            ]),
        )
        .await
        .unwrap();
    assert_eq!(outcome.imported, vec![(0, 10), (3, 11)]);
    assert_eq!(outcome.skipped, vec![(2, 10)]);
    assert_eq!(outcome.errors.len(), 1);
    assert_eq!(outcome.errors[0].index, 1);
}

#[tokio::test]
async fn without_skip_duplicates_the_repository_is_told_to_store_everything() {
    let mut s = Setup::new();
    s.businesses
        .expect_import_businesses()
        .withf(|i| !i.skip_duplicates && i.businesses.len() == 2)
        .times(1)
        .returning(|_| {
            Ok(vec![
                ImportedBusiness::Created(10),
                ImportedBusiness::Created(11),
            ])
        });
    let mut request = import(vec![
        Ok(business("Acme", "Austin", "TX")),
        Ok(business("Acme", "Austin", "TX")),
    ]);
    request.skip_duplicates = false;
    let outcome = s.build().import(&ada(), request).await.unwrap();
    assert_eq!(outcome.imported, vec![(0, 10), (1, 11)]);
    assert!(outcome.skipped.is_empty());
}

// ---- Categories ----

#[tokio::test]
async fn auto_categorise_maps_given_industries_and_infers_missing_ones() {
    for (auto, expected) in [
        (true, [Some("plumbing"), Some("roofing")]),
        (false, [Some("Plumbing Services"), None]),
    ] {
        let mut s = Setup::new();
        s.businesses
            .expect_import_businesses()
            .withf(move |i| {
                i.businesses
                    .iter()
                    .map(|b| b.industry.as_deref())
                    .eq(expected)
            })
            .times(1)
            .returning(|i| {
                Ok((0..i.businesses.len() as i64)
                    .map(ImportedBusiness::Created)
                    .collect())
            });
        let mut request = import(vec![
            Ok(BusinessFields {
                industry: Some("Plumbing Services".into()),
                ..business("Joe's", "Austin", "TX")
            }),
            Ok(business("Top Roofing", "Austin", "TX")),
        ]);
        request.auto_categorize = auto;
        s.build().import(&ada(), request).await.unwrap();
    }
}

// ---- Where an import may go ----

#[tokio::test]
async fn an_import_into_a_team_one_may_not_add_to_stores_nothing() {
    for (who, team, reason) in [
        (outsider(), 1, "Not a member of this team"),
        (ada(), 2, "Team is inactive"),
        (ada(), 3, "Not a member of this team"),
        (site_admin(), 2, "Team is inactive"),
        (site_admin(), 3, "Not a member of this team"),
    ] {
        let mut s = Setup::new();
        s.businesses.expect_import_businesses().never();
        let mut request = import(vec![Ok(business("Acme", "Austin", "TX"))]);
        request.team_id = Some(team);
        match s.build().import(&who, request).await {
            Err(BusinessError::Forbidden(r)) => assert_eq!(r, reason, "{} into {team}", who.email),
            other => panic!("{} into {team}: {other:?}", who.email),
        }
    }
}

#[tokio::test]
async fn an_import_without_a_valid_element_asks_no_repository() {
    let mut s = Setup::new();
    s.businesses.expect_import_businesses().never();
    let outcome = s
        .build()
        .import(
            &ada(),
            import(vec![Ok(BusinessFields::default()), Err("bad".into())]),
        )
        .await
        .unwrap();
    assert_eq!(outcome.errors.len(), 2);
}

// ---- Visibility ----

fn stored(id: i64, team_id: Option<i64>) -> Business {
    Business {
        id,
        team_id,
        name: "Acme".into(),
        phone: None,
        website: None,
        address: None,
        city: None,
        state: None,
        zip_code: None,
        industry: None,
        rating: None,
        review_count: None,
        relationship_type: "prospect".into(),
        status: "prospect".into(),
        created_at: now(),
        updated_at: now(),
    }
}

#[tokio::test]
async fn a_team_s_business_is_seen_by_its_members_and_platform_admins_only() {
    let mut s = Setup::new();
    // Business n belongs to team n; business 0 to no team.
    s.businesses
        .expect_find_business()
        .returning(|id| Ok(Some(stored(id, (id > 0).then_some(id)))));
    let service = s.build();
    for (who, id, sees) in [
        (ada(), 1, true),
        (ada(), 2, true), // a deactivated team's members still see its businesses
        (ada(), 3, false),
        (outsider(), 1, false),
        (outsider(), 0, true),
        (site_admin(), 3, true),
    ] {
        let result = service.business(&who, id).await;
        match (sees, result) {
            (true, Ok(b)) => assert_eq!(b.id, id),
            (false, Err(BusinessError::NotFound("Business"))) => {}
            (_, other) => panic!("{} business {id}: {other:?}", who.email),
        }
    }
}

#[tokio::test]
async fn a_business_one_may_not_see_is_not_changed() {
    let mut s = Setup::new();
    s.businesses
        .expect_find_business()
        .returning(|id| Ok(Some(stored(id, Some(1)))));
    s.businesses.expect_update_business().never();
    let result = s
        .build()
        .update(&outsider(), 5, BusinessPatch::default())
        .await;
    assert!(matches!(result, Err(BusinessError::NotFound("Business"))));
}

#[tokio::test]
async fn lists_and_statistics_cover_the_caller_s_teams_and_every_team_for_an_admin() {
    for (who, visible) in [
        (ada(), Some(vec![1, 2])),
        (outsider(), Some(vec![])),
        (site_admin(), None),
    ] {
        let mut s = Setup::new();
        let expected = visible.clone();
        s.businesses
            .expect_list_businesses()
            .withf(move |filter, _, _| filter.visible_teams == expected)
            .times(1)
            .returning(|_, _, _| Ok((vec![], 0)));
        let expected = visible.clone();
        s.businesses
            .expect_business_statistics()
            .withf(move |filter| filter.visible_teams == expected)
            .times(1)
            .returning(|_| Ok(BusinessStatistics::default()));
        let service = s.build();
        // A caller cannot widen what they see by filling in `visible_teams` themselves.
        let forged = BusinessFilter {
            visible_teams: Some(vec![1, 2, 3]),
            ..BusinessFilter::default()
        };
        service
            .businesses(&who, forged.clone(), 50, 0)
            .await
            .unwrap();
        service.statistics(&who, forged).await.unwrap();
    }
}
