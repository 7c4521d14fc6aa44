//! Whom a person works with: the pages' owner filter and "give them to".
use super::*;

use crate::team::model::MembershipSummary;

fn membership(team_id: i64, is_active: bool) -> MembershipSummary {
    MembershipSummary {
        team_id,
        team_name: format!("Team {team_id}"),
        role: Role::Member,
        is_active,
        joined_at: now(),
    }
}

/// `user` as a plain member, active or not.
fn plain(user: &User, is_active: bool) -> Member {
    member_of(user, Role::Member, is_active)
}

#[tokio::test]
async fn teammates_are_the_active_people_of_active_teams_each_once() {
    let mut s = Setup::new();
    let me = member();
    s.teams
        .expect_memberships_of()
        .with(eq(me.id))
        .returning(|_| {
            Ok(vec![
                membership(1, true),
                membership(2, true),
                membership(3, false),
            ])
        });
    // Team 1: me, the owner and a deactivated colleague; team 2: the owner again and the
    // admin; team 3 is deactivated, so its outsider is nobody's teammate.
    s.teams.expect_members().with(eq(1)).returning(|_| {
        Ok(vec![
            plain(&member(), true),
            plain(&owner(), true),
            plain(&colleague(), false),
        ])
    });
    s.teams
        .expect_members()
        .with(eq(2))
        .returning(|_| Ok(vec![plain(&owner(), true), plain(&team_admin(), true)]));
    s.teams.expect_members().with(eq(3)).never();
    let people = s.build().teammates(&me).await.unwrap();
    let mut expected: Vec<Member> = [member(), owner(), team_admin()]
        .iter()
        .map(|u| plain(u, true))
        .collect();
    expected.sort_by_key(|m| m.user_name.to_lowercase());
    assert_eq!(people, expected);
}
