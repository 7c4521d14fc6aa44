use std::sync::Arc;

use mockall::predicate::eq;

use super::*;
use crate::lead::fields::LeadFields;
use crate::team::Role;
use crate::test_support::{
    ada, clock, fresh_lead, now, person, platform_admin, roster_memberships,
};

/// Leads 1 and 2 of team 3, 4 of team 5, 6 and 7 unassigned, 8 of team 3 merged into 2 before.
fn sides() -> Vec<MergeSide> {
    let side = |id, team, merged_into_id| MergeSide {
        lead: fresh_lead(id, team, LeadFields::default(), None),
        merged_into_id,
    };
    vec![
        side(1, Some(3), None),
        side(2, Some(3), None),
        side(4, Some(5), None),
        side(6, None, None),
        side(7, None, None),
        side(8, Some(3), Some(2)),
    ]
}

/// A service over `sides()`, where ada (7) is a member of team 3 only; the store applies
/// exactly the `expected` merge, if any.
fn service(expected: Option<(i64, i64)>) -> LeadMergeService {
    let mut merges = MockLeadMergeRepository::new();
    merges
        .expect_merge_side()
        .returning(|id| Ok(sides().into_iter().find(|s| s.lead.id == id)));
    if let Some((merged_id, survivor_id)) = expected {
        merges
            .expect_merge_leads()
            .with(eq(LeadMerge {
                merged_id,
                survivor_id,
                actor_id: ada().id,
                at: now(),
            }))
            .times(1)
            .returning(move |m| {
                Ok(Ok(fresh_lead(
                    m.survivor_id,
                    None,
                    LeadFields::default(),
                    None,
                )))
            });
    } else {
        merges.expect_merge_leads().never();
    }
    LeadMergeService {
        merges: Arc::new(merges),
        memberships: Arc::new(roster_memberships(vec![(3, ada().id, Role::Member, true)])),
        clock: clock(),
    }
}

/// Ada merges `id` into `into`, and the answer is the surviving lead.
async fn ada_merges(id: i64, into: i64) {
    let lead = service(Some((id, into)))
        .merge(&ada(), id, into)
        .await
        .expect("merged");
    assert_eq!(lead.id, into);
}

#[tokio::test]
async fn a_member_merges_two_leads_of_the_team() {
    ada_merges(1, 2).await;
}

#[tokio::test]
async fn any_user_merges_unassigned_leads() {
    ada_merges(6, 7).await;
}

#[tokio::test]
async fn outsiders_and_unknown_ids_get_not_found() {
    for (id, into) in [(4, 1), (1, 4), (1, 99), (99, 1)] {
        let got = service(None).merge(&ada(), id, into).await;
        assert!(
            matches!(got, Err(MergeError::NotFound("Lead"))),
            "{id}->{into}: {got:?}"
        );
    }
    let stranger = person(70, "x@example.com");
    let got = service(None).merge(&stranger, 1, 2).await;
    assert!(matches!(got, Err(MergeError::NotFound("Lead"))), "{got:?}");
}

#[tokio::test]
async fn a_platform_admin_sees_every_team_but_cannot_mix_teams() {
    let admin = platform_admin(90, "root@example.com");
    let got = service(None).merge(&admin, 4, 1).await;
    assert!(matches!(got, Err(MergeError::Invalid(_))), "{got:?}");
}

#[tokio::test]
async fn refusals_are_invalid_or_conflict() {
    for (id, into, why) in [
        (1, 1, "A lead cannot be merged into itself"),
        (
            1,
            6,
            "Both leads must belong to the same team, or both to none",
        ),
    ] {
        match service(None).merge(&ada(), id, into).await {
            Err(MergeError::Invalid(problems)) => assert_eq!(problems[0].msg, why),
            other => panic!("{id}->{into}: {other:?}"),
        }
    }
    for (id, into) in [(8, 1), (1, 8)] {
        let got = service(None).merge(&ada(), id, into).await;
        match got {
            Err(MergeError::Conflict(detail)) => {
                assert_eq!(detail, "Lead 8 was already merged into lead 2")
            }
            other => panic!("{id}->{into}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_refusal_found_under_the_stores_lock_is_answered_too() {
    let mut merges = MockLeadMergeRepository::new();
    merges
        .expect_merge_side()
        .returning(|id| Ok(sides().into_iter().find(|s| s.lead.id == id)));
    merges
        .expect_merge_leads()
        .returning(|_| Ok(Err(MergeRefusal::AddressTaken { lead_id: 12 })));
    let service = LeadMergeService {
        merges: Arc::new(merges),
        memberships: Arc::new(roster_memberships(vec![(3, ada().id, Role::Member, true)])),
        clock: clock(),
    };
    let got = service.merge(&ada(), 1, 2).await;
    assert!(
        matches!(&got, Err(MergeError::Conflict(d)) if d.contains("lead 12")),
        "{got:?}"
    );
}
