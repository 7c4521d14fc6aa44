//! The permission table through the service, and the rules about members.
use super::*;

use crate::test_support::Answer::{self, Done as Y, Forbidden as F, NotFound as N};

const ACTIONS: [TeamAction; 9] = [
    TeamAction::View,
    TeamAction::Update,
    TeamAction::Deactivate,
    TeamAction::ChangeRole,
    TeamAction::RemoveMember,
    TeamAction::Invite,
    TeamAction::ListInvites,
    TeamAction::RevokeInvite,
    TeamAction::DealNewLeads,
];

/// `actor` attempts `action` on team 1. The write it leads to is expected exactly once when the
/// table says `Done`, never otherwise.
async fn attempt(actor: &User, action: TeamAction, expected: Answer) -> Answer {
    let mut s = Setup::new();
    let writes = usize::from(expected == Y);
    match action {
        TeamAction::View | TeamAction::ManageWebhooks | TeamAction::ShareViews => {}
        TeamAction::Update => {
            s.teams
                .expect_update_team()
                .times(writes)
                .returning(|_, _, _, _| Ok(()));
        }
        TeamAction::Deactivate => {
            s.teams
                .expect_deactivate_team()
                .times(writes)
                .returning(|_, _| Ok(()));
        }
        TeamAction::ChangeRole => {
            s.teams
                .expect_set_member_role()
                .with(eq(TEAM), eq(colleague().id), eq(Role::Admin))
                .times(writes)
                .returning(|_, _, _| Ok(()));
        }
        TeamAction::RemoveMember => {
            s.teams
                .expect_remove_member()
                .with(eq(TEAM), eq(colleague().id))
                .times(writes)
                .returning(|_, _| Ok(()));
        }
        TeamAction::Invite => {
            s.teams
                .expect_create_invite()
                .times(writes)
                .returning(|new| Ok(stored(&new)));
            s.mailer.expect_send().times(writes).returning(|_| Ok(()));
        }
        TeamAction::ListInvites => {
            s.teams
                .expect_pending_invites()
                .times(writes)
                .returning(|_, _| Ok(vec![]));
        }
        TeamAction::RevokeInvite => {
            s.teams
                .expect_revoke_invite()
                .with(eq(TEAM), eq(9), eq(now()))
                .times(writes)
                .returning(|_, _, _| Ok(true));
        }
        TeamAction::DealNewLeads => {
            s.teams
                .expect_set_takes_new_leads()
                .with(eq(TEAM), eq(colleague().id), eq(true))
                .times(writes)
                .returning(|_, _, _| Ok(()));
        }
    }
    let service = s.build();
    let colleague = colleague().user_id;
    let result = match action {
        TeamAction::View => service.get(actor, TEAM).await.map(drop),
        TeamAction::Update => service
            .update(actor, TEAM, Some("Roof Masters"), None)
            .await
            .map(drop),
        TeamAction::Deactivate => service.deactivate(actor, TEAM).await.map(drop),
        TeamAction::ChangeRole => service
            .change_role(actor, TEAM, &colleague, Role::Admin)
            .await
            .map(drop),
        TeamAction::RemoveMember => service.remove_member(actor, TEAM, &colleague).await,
        TeamAction::Invite => service
            .invite(actor, TEAM, "new@example.com", Role::Member)
            .await
            .map(drop),
        TeamAction::ListInvites => service.invites(actor, TEAM).await.map(drop),
        TeamAction::RevokeInvite => service.revoke_invite(actor, TEAM, 9).await,
        TeamAction::DealNewLeads => service
            .set_takes_new_leads(actor, TEAM, &colleague, true)
            .await
            .map(drop),
        TeamAction::ManageWebhooks => unreachable!("WebhookService's (webhook::service_tests)"),
        TeamAction::ShareViews => unreachable!("SavedViews' (lead::saved_views)"),
    };
    Answer::of(result, format_args!("{action:?} by {}", actor.email))
}

#[tokio::test]
async fn the_permission_table_holds_for_every_actor_and_every_action() {
    // A team the caller may not see is "not found", never "forbidden".
    let table: [(&str, User, [Answer; 9]); 6] = [
        //                                          view update deact role remove invite list revoke deal
        ("outsider", outsider(), [N, N, N, N, N, N, N, N, N]),
        ("member", member(), [Y, F, F, F, F, F, F, F, F]),
        ("team admin", team_admin(), [Y, Y, F, Y, Y, Y, Y, Y, Y]),
        ("owner", owner(), [Y, Y, Y, Y, Y, Y, Y, Y, Y]),
        ("platform admin", site_admin(), [Y, Y, Y, Y, Y, Y, Y, Y, Y]),
        (
            "platform admin who is a plain member",
            site_admin_in_team(),
            [Y, Y, Y, Y, Y, Y, Y, Y, Y],
        ),
    ];
    for (who, actor, answers) in table {
        for (action, expected) in ACTIONS.into_iter().zip(answers) {
            // Printed so that a mock refusing a write names the cell of the table.
            eprintln!("{who} attempts {action:?}");
            let answer = attempt(&actor, action, expected).await;
            assert_eq!(answer, expected, "{who} attempts {action:?}");
        }
    }
}

#[tokio::test]
async fn only_the_owner_deactivates_and_the_reason_says_so() {
    let service = Setup::new().build();
    match service.deactivate(&team_admin(), TEAM).await {
        Err(TeamError::Forbidden(reason)) => {
            assert_eq!(reason, "Only the team owner can deactivate the team")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_unknown_team_is_not_found_even_for_a_platform_admin() {
    let service = Setup::new().build();
    assert!(matches!(
        service.get(&site_admin(), 99).await,
        Err(TeamError::NotFound("Team"))
    ));
}

// ---- Members ----

#[tokio::test]
async fn a_member_may_leave_though_not_remove_others() {
    let mut s = Setup::new();
    s.teams
        .expect_remove_member()
        .with(eq(TEAM), eq(member().id))
        .times(1)
        .returning(|_, _| Ok(()));
    let service = s.build();
    service
        .remove_member(&member(), TEAM, &member().user_id)
        .await
        .unwrap();
    assert!(matches!(
        service
            .remove_member(&member(), TEAM, &colleague().user_id)
            .await,
        Err(TeamError::Forbidden(_))
    ));
}

#[tokio::test]
async fn the_owner_is_never_removed_nor_demoted_and_ownership_is_never_granted() {
    let service = Setup::new().changing_no_member().build();
    let owner_id = owner().user_id;
    for result in [
        service.remove_member(&team_admin(), TEAM, &owner_id).await,
        service.remove_member(&owner(), TEAM, &owner_id).await,
        service
            .change_role(&site_admin(), TEAM, &owner_id, Role::Member)
            .await
            .map(drop),
        service
            .change_role(&owner(), TEAM, &colleague().user_id, Role::Owner)
            .await
            .map(drop),
    ] {
        assert!(matches!(result, Err(TeamError::Forbidden(_))), "{result:?}");
    }
}
