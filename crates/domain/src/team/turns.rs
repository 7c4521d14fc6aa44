//! New leads in turn: the members who take a team's new leads, and who gets the next one.
//!
//! A lead the team's intake creates without an owner goes to the taker who has waited longest
//! (never had one first, then the oldest turn; among equals, the one who joined first); that taker's
//! turn becomes the team's newest. A batch deals its new leads round the takers in that order,
//! so a batch of five among two takers gives three and two, and the next lead goes on where the
//! batch stopped. The intake adapter asks `deal` inside the leads' transaction.

/// A member who takes the team's new leads, and the last turn they had (None: never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taker {
    pub user_id: i64,
    pub last_turn: Option<i64>,
}

/// What `deal` decided: an owner per new lead, in the leads' order, and each taker's new turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dealt {
    pub owners: Vec<i64>,
    /// (user id, their new last turn), for the takers who got a lead.
    pub turns: Vec<(i64, i64)>,
}

/// The takers in the order they get the next leads: who has waited longest first; equals in
/// the order given (the members' order of joining).
pub fn in_turn_order(mut takers: Vec<Taker>) -> Vec<Taker> {
    // `None` sorts before every `Some`: whoever never had a lead goes first. The sort is
    // stable, so equals keep their order.
    takers.sort_by_key(|t| t.last_turn);
    takers
}

/// Deals `leads` new leads round `takers` (nobody gets any when there are none). The turns
/// count on from the newest a taker holds.
pub fn deal(takers: Vec<Taker>, leads: usize) -> Dealt {
    let order = in_turn_order(takers);
    if order.is_empty() || leads == 0 {
        return Dealt::default();
    }
    let newest = order.iter().filter_map(|t| t.last_turn).max().unwrap_or(0);
    let owners = (0..leads).map(|i| order[i % order.len()].user_id).collect();
    // A taker's new turn is that of the last lead they got in this deal.
    let turns = order
        .iter()
        .enumerate()
        .filter(|(k, _)| *k < leads)
        .map(|(k, t)| {
            let last_round = (leads - 1 - k) / order.len();
            let index = k + last_round * order.len();
            (t.user_id, newest + 1 + index as i64)
        })
        .collect();
    Dealt { owners, turns }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taker(user_id: i64, last_turn: Option<i64>) -> Taker {
        Taker { user_id, last_turn }
    }

    /// Deals `counts` batches one after another, keeping the turns as a store would.
    fn batches(mut takers: Vec<Taker>, counts: &[usize]) -> Vec<Vec<i64>> {
        counts
            .iter()
            .map(|&n| {
                let dealt = deal(takers.clone(), n);
                for (user, turn) in &dealt.turns {
                    if let Some(t) = takers.iter_mut().find(|t| t.user_id == *user) {
                        t.last_turn = Some(*turn);
                    }
                }
                dealt.owners
            })
            .collect()
    }

    #[test]
    fn leads_go_round_the_takers_across_batches() {
        let takers = vec![taker(7, None), taker(3, None), taker(5, None)];
        let dealt = batches(takers, &[1, 1, 4, 2]);
        assert_eq!(
            dealt,
            vec![vec![7], vec![3], vec![5, 7, 3, 5], vec![7, 3]],
            "in the order given among those who never had one, then on where the last batch stopped"
        );
    }

    #[test]
    fn whoever_never_had_a_lead_goes_first_then_the_oldest_turn() {
        let takers = vec![taker(1, Some(9)), taker(2, Some(4)), taker(3, None)];
        let dealt = deal(takers, 4);
        assert_eq!(dealt.owners, vec![3, 2, 1, 3]);
        // The newest turn was 9: the deal's leads are turns 10 to 13.
        assert_eq!(dealt.turns, vec![(3, 13), (2, 11), (1, 12)]);
    }

    #[test]
    fn fewer_leads_than_takers_leave_the_others_waiting() {
        let takers = vec![taker(1, Some(2)), taker(2, Some(1)), taker(3, Some(3))];
        let dealt = deal(takers.clone(), 1);
        assert_eq!(dealt.owners, vec![2]);
        assert_eq!(dealt.turns, vec![(2, 4)]);
        assert_eq!(batches(takers, &[1, 1, 1, 1]), [[2], [1], [3], [2]]);
    }

    #[test]
    fn nobody_takes_leads_when_nobody_is_a_taker() {
        assert_eq!(deal(Vec::new(), 3), Dealt::default());
        assert_eq!(deal(vec![taker(1, None)], 0), Dealt::default());
    }
}
