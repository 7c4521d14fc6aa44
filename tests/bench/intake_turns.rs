//! What new leads in turn cost intake: single submissions from 16 clients and batches of 1000
//! for a team whose new leads go to 3 members in turn, alternating with the same for a team
//! with nobody taking them (which still pays the read of its takers), same run.
use diesel::prelude::*;
use serde_json::{json, Value};

use leadhub_db::schema::team_members;
use leadhub_tests::TestApp;

use super::{lead, median, quartiles, single_figures, timed_batch, BATCH, CLIENTS};

/// Rounds of each team's singles and batch, alternating which team goes first.
const ROUNDS: usize = 8;
/// Singles per client a round (16 clients: 2,000 a round).
const PER_CLIENT: usize = 125;

async fn team(app: &TestApp, key: &str, name: &str) -> i64 {
    let (_, team) = app.post("/api/teams", key, json!({"name": name})).await;
    team["id"].as_i64().unwrap()
}

/// Two more people in `team_id`, and all three of its members taking its new leads.
async fn three_takers(app: &TestApp, team_id: i64) {
    for user in app.users(["turn-a", "turn-b"]).await {
        app.join_team(team_id, &user).await;
    }
    app.write_db(move |conn| {
        diesel::update(team_members::table.filter(team_members::team_id.eq(team_id)))
            .set(team_members::takes_new_leads.eq(true))
            .execute(conn)
    })
    .await;
}

fn for_team(mut lead: Value, team_id: i64) -> Value {
    lead["team_id"] = json!(team_id);
    lead
}

/// Singles a second and batch medians (with quartiles) for the two teams.
pub async fn figure(app: &TestApp, key: &str) -> String {
    let quiet = team(app, key, "Nobody in turn").await;
    let dealt = team(app, key, "Three in turn").await;
    three_takers(app, dealt).await;
    let (mut quiet_rps, mut dealt_rps) = (Vec::new(), Vec::new());
    let (mut quiet_ms, mut dealt_ms) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let mut pair = [
            (quiet, 0, &mut quiet_rps, &mut quiet_ms),
            (dealt, 1, &mut dealt_rps, &mut dealt_ms),
        ];
        if round % 2 == 1 {
            pair.reverse();
        }
        for (team_id, k, rps, ms) in pair {
            // Every round and team its own addresses, so every lead is new.
            let first = 3000 + (2 * round + k) * (CLIENTS + 1);
            let make = move |c, i| for_team(lead(first + c, i), team_id);
            let (per_second, _, _) = single_figures(app, key, PER_CLIENT, make).await;
            rps.push(per_second);
            let leads: Vec<_> = (0..BATCH)
                .map(|i| for_team(lead(first + CLIENTS, i), team_id))
                .collect();
            ms.push(timed_batch(app, key, json!({"leads": leads})).await);
        }
    }
    let given: i64 = app
        .read_db(move |conn| {
            use leadhub_db::schema::leads;
            conn.get_result(
                leads::table
                    .filter(leads::team_id.eq(dealt))
                    .filter(leads::assignee_id.is_not_null())
                    .count(),
            )
        })
        .await;
    let ((q1, q3), (d1, d3)) = (quartiles(quiet_ms.clone()), quartiles(dealt_ms.clone()));
    let (q, d) = (median(quiet_ms), median(dealt_ms));
    let ((r1, r3), (s1, s3)) = (quartiles(quiet_rps.clone()), quartiles(dealt_rps.clone()));
    let (r, s) = (median(quiet_rps), median(dealt_rps));
    format!(
        "{ROUNDS} rounds alternated\n  singles, {CLIENTS} clients: nobody in turn median {r:.0}/s ({r1:.0}-{r3:.0}); 3 in turn {s:.0}/s ({s1:.0}-{s3:.0}); {:+.1}%\n  batch of {BATCH}: nobody in turn median {q:.1} ms ({q1:.1}-{q3:.1}); 3 in turn {d:.1} ms ({d1:.1}-{d3:.1}); {:+.1}%\n  leads given in turn: {given}",
        (s / r - 1.0) * 100.0,
        (d / q - 1.0) * 100.0,
    )
}
