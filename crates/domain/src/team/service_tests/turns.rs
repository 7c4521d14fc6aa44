//! Who takes the team's new leads in turn: owners and admins choose; a member steps out alone.
use super::*;

#[tokio::test]
async fn a_member_takes_themself_out_of_the_turn_but_never_in() {
    let mut s = Setup::new();
    s.teams
        .expect_set_takes_new_leads()
        .with(eq(TEAM), eq(member().id), eq(false))
        .times(1)
        .returning(|_, _, _| Ok(()));
    s.teams.expect_set_takes_new_leads().never();
    let service = s.build();
    let me = member().user_id;
    service
        .set_takes_new_leads(&member(), TEAM, &me, false)
        .await
        .unwrap();
    for result in [
        service
            .set_takes_new_leads(&member(), TEAM, &me, true)
            .await,
        service
            .set_takes_new_leads(&member(), TEAM, &colleague().user_id, false)
            .await,
    ] {
        assert!(matches!(result, Err(TeamError::Forbidden(_))), "{result:?}");
    }
}

#[tokio::test]
async fn an_inactive_member_is_not_put_in_the_turn() {
    let mut s = Setup::new();
    s.roster.push((outsider(), Role::Member));
    s.teams.expect_set_takes_new_leads().never();
    // `build` lists the roster as active; this member's membership is not.
    let mut listed: Vec<Member> = s
        .roster
        .iter()
        .map(|(user, role)| member_of(user, *role, true))
        .collect();
    if let Some(last) = listed.last_mut() {
        last.is_active = false;
    }
    s.teams
        .expect_members()
        .returning(move |_| Ok(listed.clone()));
    let service = s.build();
    let result = service
        .set_takes_new_leads(&owner(), TEAM, &outsider().user_id, true)
        .await;
    assert!(matches!(result, Err(TeamError::Conflict(_))), "{result:?}");
}
