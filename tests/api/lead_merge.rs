//! `POST /api/v1/leads/{id}/merge` (issue 29, point 6; docs/merging-leads.md): the survivor's
//! values win, gaps are filled, phones and e-mails merge as sets; the merged lead's submissions,
//! notes and history move to the survivor; it leaves every list and gives its address up; who may
//! merge what; the `lead.updated` webhook with `changes` and `merged_id`.

use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use leadhub_db::schema::{lead_activity, lead_notes, leads, submissions};
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::{join, lead_total, onlookers, submit, team};
use crate::webhooks::{first_payload, hooked_team};

backend_tests!(
    the_survivor_wins_gaps_fill_and_the_history_moves,
    a_survivor_without_an_address_takes_the_merged_property,
    who_may_merge_what,
    the_merge_sends_lead_updated_with_changes_and_the_merged_id,
    two_merges_of_one_lead_at_once_make_one,
    the_merge_answers_the_survivor_with_its_assignee,
);

/// POST /api/v1/leads/{id}/merge into `into` as `key`.
async fn merge(app: &TestApp, key: &str, id: i64, into: Value) -> (StatusCode, Value) {
    app.post(
        &format!("/api/v1/leads/{id}/merge"),
        key,
        json!({ "into": into }),
    )
    .await
}

/// The lead id a submission went to.
fn lead_of(result: &Value) -> i64 {
    result["result_lead_id"].as_i64().unwrap()
}

/// (merged_into_id, street_key, address_key, version) of a stored lead.
async fn merge_state(app: &TestApp, id: i64) -> (Option<i64>, Option<String>, Option<String>, i64) {
    app.read_db(move |conn| {
        conn.first(leads::table.find(id).select((
            leads::merged_into_id,
            leads::street_key,
            leads::address_key,
            leads::version,
        )))
    })
    .await
}

/// The lead ids of the submissions, notes and activity rows stored, each sorted.
async fn history_owners(app: &TestApp) -> (Vec<i64>, Vec<i64>, Vec<(i64, String, String)>) {
    app.read_db(|conn| {
        let subs: Vec<Option<i64>> = conn.load(
            submissions::table
                .order(submissions::id)
                .select(submissions::result_lead_id),
        )?;
        let notes: Vec<i64> = conn.load(
            lead_notes::table
                .order(lead_notes::id)
                .select(lead_notes::lead_id),
        )?;
        let activity: Vec<(i64, String, String)> =
            conn.load(lead_activity::table.order(lead_activity::id).select((
                lead_activity::lead_id,
                lead_activity::kind,
                lead_activity::detail,
            )))?;
        Ok((subs.into_iter().flatten().collect(), notes, activity))
    })
    .await
}

/// A note and an activity row on `lead_id` by `author`, straight into the tables: the merge is
/// tested on its own, whatever the notes API and the edits write.
async fn note_and_activity(app: &TestApp, lead_id: i64, author: i64) {
    let now = chrono::Utc::now().naive_utc();
    app.write_db(move |conn| {
        diesel::insert_into(lead_notes::table)
            .values((
                lead_notes::lead_id.eq(lead_id),
                lead_notes::author_id.eq(author),
                lead_notes::body.eq("Owner wants a quote in spring"),
                lead_notes::created_at.eq(now),
            ))
            .execute(conn)?;
        diesel::insert_into(lead_activity::table)
            .values((
                lead_activity::lead_id.eq(lead_id),
                lead_activity::actor_id.eq(Some(author)),
                lead_activity::kind.eq("status_changed"),
                lead_activity::detail.eq(r#"{"old":"new","new":"contacted"}"#),
                lead_activity::created_at.eq(now),
            ))
            .execute(conn)
    })
    .await;
}

async fn the_survivor_wins_gaps_fill_and_the_history_moves(app: TestApp) {
    let o = onlookers(&app).await;
    let place = json!({"city": "Austin", "state": "TX", "zip_code": "78701", "team_id": o.team});
    let with = |extra: Value| {
        let mut lead = place.clone();
        lead.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        lead
    };
    let survivor = lead_of(
        &submit(
            &app,
            &o.mate.key,
            with(json!({"address": "100 Main St", "first_name": "Ann",
                        "primary_phone": "512-555-0100", "primary_phone_type": "mobile",
                        "email_1": "ann@example.com"})),
        )
        .await,
    );
    let typo = with(
        json!({"address": "100 Mian St", "first_name": "Anne", "last_name": "Smith",
                           "primary_phone": "(512) 555-0199", "phone_2": "512 555 0100",
                           "email_1": "SMITH@example.com", "bedrooms": 3}),
    );
    let merged = lead_of(&submit(&app, &o.alice.key, typo.clone()).await);
    assert_eq!(lead_of(&submit(&app, &o.alice.key, typo).await), merged);
    assert_ne!(survivor, merged);
    note_and_activity(&app, merged, o.alice.user.id).await;
    assert_eq!(lead_total(&app, &o.mate.key, "").await, 2);

    let (status, lead) = merge(&app, &o.mate.key, merged, json!(survivor)).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(lead["id"], json!(survivor));
    // Where both have a value, the survivor's stays; its gaps take the merged lead's values.
    assert_eq!(lead["address"], json!("100 Main St"));
    assert_eq!(lead["first_name"], json!("Ann"));
    assert_eq!(lead["last_name"], json!("Smith"));
    assert_eq!(lead["bedrooms"], json!(3));
    // Phones and e-mails as sets: the survivor's first, the number both have once.
    assert_eq!(
        [&lead["primary_phone"], &lead["phone_2"], &lead["phone_3"]],
        [&json!("+15125550100"), &json!("+15125550199"), &Value::Null]
    );
    assert_eq!(lead["primary_phone_type"], json!("mobile"));
    assert_eq!(
        [&lead["email_1"], &lead["email_2"]],
        [&json!("ann@example.com"), &json!("smith@example.com")]
    );
    assert_eq!(lead["submission_count"], json!(3));
    let (_, fetched) = app
        .get(&format!("/api/v1/leads/{survivor}"), &o.mate.key)
        .await;
    assert_eq!(fetched, lead);

    // The merged lead keeps its data, points at the survivor and gives up its address keys.
    let (into, street, key, version) = merge_state(&app, merged).await;
    assert_eq!(
        (into, street, key, version),
        (Some(survivor), None, None, 2)
    );
    let (into, street, _, version) = merge_state(&app, survivor).await;
    assert_eq!(
        (into, street.as_deref(), version),
        (None, Some("100 MAIN ST"), 2)
    );

    // Submissions, notes and activity moved; one `merged` entry on the survivor names it.
    let (subs, notes, activity) = history_owners(&app).await;
    assert_eq!(subs, [survivor, survivor, survivor]);
    assert_eq!(notes, [survivor]);
    assert_eq!(activity.len(), 2, "{activity:?}");
    assert_eq!(
        (activity[0].0, activity[0].1.as_str()),
        (survivor, "status_changed")
    );
    assert_eq!(
        (activity[1].0, activity[1].1.as_str()),
        (survivor, "merged")
    );
    let detail: Value = serde_json::from_str(&activity[1].2).unwrap();
    assert_eq!(detail, json!({ "merged_id": merged }));
    let actor: Option<i64> = app
        .read_db(|conn| {
            conn.first(
                lead_activity::table
                    .filter(lead_activity::kind.eq("merged"))
                    .select(lead_activity::actor_id),
            )
        })
        .await;
    assert_eq!(actor, Some(o.mate.user.id));

    // The merged lead leaves the lists (and the export's count with them).
    assert_eq!(lead_total(&app, &o.mate.key, "").await, 1);
    assert_eq!(lead_total(&app, &o.mate.key, "?q=Mian").await, 0);
    let (status, csv) = app
        .call(
            reqwest::Method::GET,
            "/api/v1/leads/export",
            Some(&o.mate.key),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let csv = csv.as_str().unwrap();
    assert!(
        csv.contains("100 Main St") && !csv.contains("Mian"),
        "{csv}"
    );
    // A submission of the survivor's address merges into the survivor.
    let again = submit(&app, &o.mate.key, with(json!({"address": "100 Main St"}))).await;
    assert_eq!(lead_of(&again), survivor);
    // Merging it again is refused: it lives on in its survivor only.
    let (status, body) = merge(&app, &o.mate.key, merged, json!(survivor)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["detail"],
        json!(format!(
            "Lead {merged} was already merged into lead {survivor}"
        ))
    );
}

async fn a_survivor_without_an_address_takes_the_merged_property(app: TestApp) {
    let o = onlookers(&app).await;
    // Unassigned leads: any user may merge them, Stranger included.
    let survivor = lead_of(
        &submit(
            &app,
            &o.alice.key,
            json!({"first_name": "Bo", "primary_phone": "512-555-0142"}),
        )
        .await,
    );
    let property = json!({"address": "200 Oak St", "city": "Austin", "state": "TX",
                          "zip_code": "78702"});
    let merged = lead_of(&submit(&app, &o.alice.key, property.clone()).await);
    let (status, lead) = merge(&app, &o.stranger.key, merged, json!(survivor)).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(lead["address"], json!("200 Oak St"));
    assert_eq!(lead["address_standardized"], json!("200 OAK ST"));
    assert_eq!(lead["first_name"], json!("Bo"));
    assert_eq!(lead["zip_code"], json!("78702"));
    // The property's key moved to the survivor: a new submission of it lands there.
    let again = submit(&app, &o.stranger.key, property).await;
    assert_eq!(lead_of(&again), survivor);
    assert_eq!(again["result_action"], json!("skipped"));
    let (into, street, key, _) = merge_state(&app, merged).await;
    assert_eq!((into, street, key), (Some(survivor), None, None));
    assert_eq!(lead_total(&app, &o.stranger.key, "").await, 1);
}

async fn who_may_merge_what(app: TestApp) {
    let o = onlookers(&app).await;
    let other_owner = app.user("other@example.com").await;
    let other = team(&app, "Other", &other_owner).await;
    let lead = |street: &str, team: Option<i64>| {
        let mut body = json!({"address": street, "city": "Austin", "state": "TX"});
        if let Some(team) = team {
            body["team_id"] = json!(team);
        }
        body
    };
    let a = lead_of(&submit(&app, &o.alice.key, lead("1 Elm St", Some(o.team))).await);
    let b = lead_of(&submit(&app, &o.alice.key, lead("2 Elm St", Some(o.team))).await);
    let c = lead_of(&submit(&app, &o.alice.key, lead("3 Elm St", Some(o.team))).await);
    let foreign = lead_of(&submit(&app, &other_owner.key, lead("4 Elm St", Some(other))).await);
    let unassigned = lead_of(&submit(&app, &o.alice.key, lead("5 Elm St", None)).await);

    // Outsiders get 404, as for GET, whichever side they cannot see.
    for (key, id, into) in [
        (&o.stranger.key, a, b),
        (&other_owner.key, a, b),
        (&o.mate.key, foreign, a),
        (&o.mate.key, a, foreign),
        (&o.mate.key, a, 999_999),
    ] {
        let (status, body) = merge(&app, key, id, json!(into)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{id}->{into}: {body}");
        assert_eq!(body["detail"], json!("Lead not found"));
    }
    // Leads of two teams, a team's and an unassigned one, or a lead and itself: 422 on `into`.
    let admin_mixed = merge(&app, &o.admin.key, foreign, json!(a)).await;
    for (status, body) in [
        admin_mixed,
        merge(&app, &o.mate.key, unassigned, json!(a)).await,
        merge(&app, &o.mate.key, a, json!(a)).await,
        merge(&app, &o.mate.key, a, json!("b")).await,
        merge(&app, &o.mate.key, a, Value::Null).await,
    ] {
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "into"]), "{body}");
    }
    let (status, body) = app
        .post(&format!("/api/v1/leads/{a}/merge"), &o.mate.key, json!({}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    // A plain member merges; a platform admin too.
    let (status, body) = merge(&app, &o.mate.key, b, json!(a)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = merge(&app, &o.admin.key, c, json!(a)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["submission_count"], json!(3));
    // Into a lead merged before: 409 naming where it went, no chain followed.
    let (status, body) = merge(&app, &o.mate.key, a, json!(b)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["detail"],
        json!(format!("Lead {b} was already merged into lead {a}"))
    );
    // A member who joins later may merge too (membership, not authorship, decides).
    let late = app.user("late@example.com").await;
    join(&app, o.team, &late).await;
    let d = lead_of(&submit(&app, &o.alice.key, lead("6 Elm St", Some(o.team))).await);
    let (status, body) = merge(&app, &late.key, d, json!(a)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn the_merge_sends_lead_updated_with_changes_and_the_merged_id(app: TestApp) {
    let (app, owner, team) = hooked_team(app, json!(["lead.updated"])).await;
    let survivor = lead_of(
        &submit(
            &app,
            &owner.key,
            json!({"team_id": team, "address": "7 Pine St", "city": "Austin", "state": "TX"}),
        )
        .await,
    );
    let merged = lead_of(
        &submit(
            &app,
            &owner.key,
            json!({"team_id": team, "address": "7 Pnie St", "city": "Austin", "state": "TX",
                   "last_name": "Smith"}),
        )
        .await,
    );
    let (status, body) = merge(&app, &owner.key, merged, json!(survivor)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let payload = first_payload(&app, "lead.updated").await;
    assert_eq!(payload["type"], json!("lead.updated"));
    assert_eq!(payload["data"]["id"], json!(survivor));
    assert_eq!(payload["data"]["last_name"], json!("Smith"));
    assert_eq!(payload["merged_id"], json!(merged));
    assert_eq!(
        payload["changes"],
        json!({"last_name": {"old": null, "new": "Smith"}})
    );
}

async fn the_merge_answers_the_survivor_with_its_assignee(app: TestApp) {
    let o = onlookers(&app).await;
    let at = |street: &str| json!({"address": street, "city": "Austin", "state": "TX", "team_id": o.team});
    let survivor = lead_of(&submit(&app, &o.alice.key, at("8 Cedar St")).await);
    let merged = lead_of(&submit(&app, &o.alice.key, at("8 Cedra St")).await);
    let mate_id = o.mate.user.user_id.clone();
    let (status, body) = app
        .patch(
            &format!("/api/v1/leads/{survivor}"),
            &o.alice.key,
            json!({ "assignee_id": mate_id }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, lead) = merge(&app, &o.alice.key, merged, json!(survivor)).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    assert_eq!(lead["assignee_id"], json!(mate_id));
    let (_, fetched) = app
        .get(&format!("/api/v1/leads/{survivor}"), &o.alice.key)
        .await;
    assert_eq!(fetched, lead);
}

/// Of two merges raced against each other, one lands and the other is refused as a conflict.
fn one_wins(first: &(StatusCode, Value), second: &(StatusCode, Value)) {
    let mut statuses = [first.0, second.0];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CONFLICT],
        "{first:?} {second:?}"
    );
}

async fn two_merges_of_one_lead_at_once_make_one(app: TestApp) {
    let o = onlookers(&app).await;
    for round in 0..5 {
        let mut ids = Vec::new();
        for n in 0..3 {
            let body = json!({"address": format!("{round}{n} Birch St"), "city": "Austin",
                              "state": "TX", "team_id": o.team});
            ids.push(lead_of(&submit(&app, &o.alice.key, body).await));
        }
        let (a, b, c) = (ids[0], ids[1], ids[2]);
        // One lead into two survivors, and two leads into each other, at the same time.
        let (first, second) = tokio::join!(
            merge(&app, &o.alice.key, a, json!(b)),
            merge(&app, &o.mate.key, a, json!(c)),
        );
        one_wins(&first, &second);
        let winner = if first.0 == StatusCode::OK { b } else { c };
        assert_eq!(merge_state(&app, a).await.0, Some(winner));
        let loser = if winner == b { c } else { b };
        let (first, second) = tokio::join!(
            merge(&app, &o.alice.key, winner, json!(loser)),
            merge(&app, &o.mate.key, loser, json!(winner)),
        );
        one_wins(&first, &second);
    }
    // Of the 15 leads, 5 survive; every submission sits on a survivor.
    assert_eq!(lead_total(&app, &o.mate.key, "").await, 5);
    let (subs, _, _) = history_owners(&app).await;
    for id in subs {
        assert_eq!(
            merge_state(&app, id).await.0,
            None,
            "submission on merged lead {id}"
        );
    }
}
