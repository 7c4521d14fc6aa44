//! How the worker shares its delivery slots: at most `PER_ENDPOINT` deliveries in flight to one
//! endpoint and `team_share` to one team's endpoints, and free slots handed out round-robin, one
//! at a time, over the teams with due deliveries (the one waiting longest first) and, inside a
//! team, over its endpoints. A team whose endpoints never answer holds its share for the 15 s of
//! each attempt and no more, so the other teams' deliveries keep the rest of the slots.
use std::collections::{HashMap, VecDeque};

use leadhub_domain::webhook::DueEndpoint;

/// Deliveries in flight to one endpoint.
pub const PER_ENDPOINT: usize = 4;

/// Deliveries in flight to one team's endpoints: a quarter of the slots (at least an endpoint's
/// share), so a team alone still has several endpoints served at once while three quarters stay
/// free for the other teams whatever it does.
pub fn team_share(concurrency: usize) -> usize {
    (concurrency / 4).max(PER_ENDPOINT)
}

/// What this process has in flight, by endpoint and by team.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    endpoints: HashMap<i64, usize>,
    teams: HashMap<i64, usize>,
}

impl InFlight {
    /// Endpoints with their full share in flight.
    pub(crate) fn full_endpoints(&self) -> Vec<i64> {
        full(&self.endpoints, PER_ENDPOINT)
    }

    /// Teams with their full share in flight.
    pub(crate) fn full_teams(&self, team_share: usize) -> Vec<i64> {
        full(&self.teams, team_share)
    }

    /// Counts a delivery in, unless its endpoint or team has its share in flight already.
    pub(crate) fn enter(&mut self, endpoint_id: i64, team_id: i64, team_share: usize) -> bool {
        if self.endpoint_room(endpoint_id) == 0 || self.team_room(team_id, team_share) == 0 {
            return false;
        }
        *self.endpoints.entry(endpoint_id).or_default() += 1;
        *self.teams.entry(team_id).or_default() += 1;
        true
    }

    pub(crate) fn leave(&mut self, endpoint_id: i64, team_id: i64) {
        decrement(&mut self.endpoints, endpoint_id);
        decrement(&mut self.teams, team_id);
    }

    fn endpoint_room(&self, endpoint_id: i64) -> usize {
        PER_ENDPOINT.saturating_sub(self.endpoints.get(&endpoint_id).copied().unwrap_or(0))
    }

    fn team_room(&self, team_id: i64, team_share: usize) -> usize {
        team_share.saturating_sub(self.teams.get(&team_id).copied().unwrap_or(0))
    }
}

fn full(counts: &HashMap<i64, usize>, share: usize) -> Vec<i64> {
    counts
        .iter()
        .filter(|(_, n)| **n >= share)
        .map(|(id, _)| *id)
        .collect()
}

fn decrement(counts: &mut HashMap<i64, usize>, id: i64) {
    if let Some(n) = counts.get_mut(&id) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            counts.remove(&id);
        }
    }
}

/// How many due deliveries to claim of each endpoint in `due` (ordered by how long each has
/// waited), for `free` slots: one slot at a time to each team in turn, and inside a team to each
/// of its endpoints in turn, within the endpoint's and the team's room. In the order first given.
pub(crate) fn shares(
    due: &[DueEndpoint],
    in_flight: &InFlight,
    free: usize,
    team_share: usize,
) -> Vec<(i64, i64)> {
    // Each team with its room and its endpoints (with theirs), in the order they wait.
    let mut teams: Vec<(usize, VecDeque<(i64, usize)>)> = Vec::new();
    let mut team_index: HashMap<i64, usize> = HashMap::new();
    for d in due {
        let i = *team_index.entry(d.team_id).or_insert_with(|| {
            teams.push((in_flight.team_room(d.team_id, team_share), VecDeque::new()));
            teams.len() - 1
        });
        let room = in_flight.endpoint_room(d.endpoint_id);
        if room > 0 {
            teams[i].1.push_back((d.endpoint_id, room));
        }
    }
    let mut given: Vec<(i64, i64)> = Vec::new();
    let mut left = free;
    let mut progress = true;
    while left > 0 && progress {
        progress = false;
        for (team_room, endpoints) in &mut teams {
            if left == 0 {
                break;
            }
            if *team_room == 0 {
                continue;
            }
            let Some((endpoint_id, room)) = endpoints.pop_front() else {
                continue;
            };
            match given.iter_mut().find(|(id, _)| *id == endpoint_id) {
                Some((_, n)) => *n += 1,
                None => given.push((endpoint_id, 1)),
            }
            if room > 1 {
                endpoints.push_back((endpoint_id, room - 1));
            }
            *team_room -= 1;
            left -= 1;
            progress = true;
        }
    }
    given
}

#[cfg(test)]
mod tests {
    use super::*;

    fn due(pairs: &[(i64, i64)]) -> Vec<DueEndpoint> {
        pairs
            .iter()
            .map(|&(endpoint_id, team_id)| DueEndpoint {
                endpoint_id,
                team_id,
            })
            .collect()
    }

    #[test]
    fn a_team_with_many_endpoints_takes_its_share_and_no_more() {
        // Team 1 has 20 endpoints waiting longest; team 2's one endpoint comes last.
        let mut list: Vec<(i64, i64)> = (1..=20).map(|e| (e, 1)).collect();
        list.push((100, 2));
        let given = shares(&due(&list), &InFlight::default(), 32, team_share(32));
        let team_1: i64 = given.iter().filter(|(e, _)| *e < 100).map(|(_, n)| n).sum();
        assert_eq!(team_1, 8, "{given:?}");
        // Eight endpoints get one slot each rather than two getting four.
        assert!(given.iter().filter(|(e, _)| *e < 100).all(|(_, n)| *n == 1));
        assert_eq!(given.iter().find(|(e, _)| *e == 100), Some(&(100, 4)));
        // Team 2 is served in the first turn, right after team 1's first endpoint.
        assert_eq!(given[1], (100, 4), "{given:?}");
    }

    #[test]
    fn few_slots_go_to_each_team_in_turn() {
        let list = due(&[(1, 1), (2, 1), (3, 1), (10, 2), (20, 3)]);
        let given = shares(&list, &InFlight::default(), 3, 8);
        assert_eq!(given, vec![(1, 1), (10, 1), (20, 1)]);
    }

    #[test]
    fn what_is_in_flight_counts_against_endpoints_and_teams() {
        let mut in_flight = InFlight::default();
        for _ in 0..PER_ENDPOINT {
            assert!(in_flight.enter(1, 1, 8));
        }
        assert!(!in_flight.enter(1, 1, 8), "endpoint 1 is full");
        for _ in 0..3 {
            assert!(in_flight.enter(2, 1, 8));
        }
        assert_eq!(in_flight.full_endpoints(), vec![1]);
        assert!(in_flight.full_teams(8).is_empty());
        // Team 1 has 7 of 8 in flight: one more slot, on endpoint 2 (endpoint 1 is full).
        let given = shares(&due(&[(1, 1), (2, 1), (3, 2)]), &in_flight, 10, 8);
        assert_eq!(given, vec![(2, 1), (3, 4)]);
        assert!(in_flight.enter(2, 1, 8));
        assert_eq!(in_flight.full_teams(8), vec![1]);
        assert!(!in_flight.enter(3, 1, 8), "team 1 is full");
        in_flight.leave(1, 1);
        assert_eq!(in_flight.full_endpoints(), vec![2]);
        assert!(in_flight.full_teams(8).is_empty());
        assert!(in_flight.enter(3, 1, 8));
    }

    #[test]
    fn a_lone_team_still_has_several_endpoints_served() {
        assert_eq!(team_share(32), 8);
        assert_eq!(team_share(4), PER_ENDPOINT);
        let given = shares(&due(&[(1, 1), (2, 1)]), &InFlight::default(), 32, 8);
        assert_eq!(given, vec![(1, 4), (2, 4)]);
    }
}
