//! New leads in turn (docs/working-leads.md "New leads in turn"): the members who take a team's
//! new leads get them one after another as they arrive, by every way in (a single submission,
//! a batch now or deferred, an upload); a lead whose row names its owner, a lead merged into
//! and a lead of another team are left as they were; owners and admins choose who takes them,
//! a member may step out.
use std::time::Duration;

use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::{jobs, users};
use leadhub_domain::lead::work::given_mail::LEADS_GIVEN_IN_TURN;
use leadhub_domain::mail::Message;
use leadhub_mail::SentMail;
use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::helpers::{batch_ok, completed_batch, locs, problem_type, result_lead_ids, submit};
use crate::lead_uploads::{count, finished, upload};
use crate::lead_work::{cast, lead_at, newest_of_kind};
use crate::pages::{assert_shows, page_shows, sign_in};
use crate::workbook_imports::lead as by_address;

backend_tests!(
    a_teams_new_leads_go_to_its_takers_in_turn_however_they_arrive,
    owners_and_admins_choose_who_takes_new_leads_and_a_member_steps_out,
    the_team_page_shows_who_takes_new_leads_and_changes_it,
    each_taker_is_told_at_once_by_email_unless_they_turned_it_off,
    the_new_leads_put_names_unknown_members_and_refuses_an_empty_body,
);

/// `key`'s holder puts `member` in or out of team `team_id`'s new leads in turn.
async fn takes(
    app: &TestApp,
    key: &str,
    team_id: i64,
    member: &TestUser,
    body: Value,
) -> (StatusCode, Value) {
    let path = format!(
        "/api/teams/{team_id}/members/{}/new-leads",
        member.user.user_id
    );
    app.call(Method::PUT, &path, Some(key), Some(&body)).await
}

/// The public id of the owner of lead `id`, or null.
async fn owner_of(app: &TestApp, key: &str, id: i64) -> Value {
    let (status, lead) = app.get(&format!("/api/v1/leads/{id}"), key).await;
    assert_eq!(status, StatusCode::OK, "{lead}");
    lead["assignee_id"].clone()
}

fn public(user: &TestUser) -> Value {
    json!(user.user.user_id)
}

async fn a_teams_new_leads_go_to_its_takers_in_turn_however_they_arrive(app: TestApp) {
    let c = cast(&app).await;
    let (olive, mia) = (&c.olive, &c.mia);
    let adam = &c.adam.key;
    for who in [olive, mia] {
        let (status, body) = takes(&app, adam, c.a, who, json!({"takes_new_leads": true})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["takes_new_leads"], true, "{body}");
    }

    // Single submissions: Olive joined first, so she is first among those who never had one.
    let mut given = Vec::new();
    for n in 1..=3 {
        let id = lead_at(&app, adam, n, Some(c.a)).await;
        given.push(owner_of(&app, adam, id).await);
    }
    assert_eq!(given, [public(olive), public(mia), public(olive)]);
    let first = lead_at(&app, adam, 1, Some(c.a)).await;
    let entry = newest_of_kind(&app, first, adam, "assigned").await;
    assert_eq!(
        entry["detail"],
        json!({"old": null, "new": olive.user.id, "in_turn": true}),
        "{entry}"
    );
    assert_eq!(entry["actor"], Value::Null, "the service gave it: {entry}");

    // A resubmission of a lead's property merges into it: nobody's turn is used, and its
    // owner stays. The next new lead is Mia's, after Olive's third.
    assert_eq!(owner_of(&app, adam, first).await, public(olive));
    // A batch deals its new leads on where the singles stopped.
    let leads: Vec<Value> = (4..=6)
        .map(|n| {
            json!({"address": format!("{n} Oak St"), "city": "Austin", "state": "TX",
            "zip_code": "78701", "team_id": c.a})
        })
        .collect();
    let answer = batch_ok(&app, adam, json!({"leads": leads})).await;
    let mut dealt = Vec::new();
    for id in result_lead_ids(&answer) {
        dealt.push(owner_of(&app, adam, id).await);
    }
    assert_eq!(dealt, [public(mia), public(olive), public(mia)], "{answer}");
    // A deferred batch, when its job runs.
    let later = json!({"leads": [{"address": "7 Oak St", "city": "Austin", "state": "TX",
        "zip_code": "78701", "team_id": c.a}], "process_immediately": false});
    let answer = batch_ok(&app, adam, later).await;
    let done = completed_batch(&app, adam, &answer).await;
    let (_, leads) = app.get("/api/v1/leads?limit=100", adam).await;
    let deferred = by_address(&leads, "7 Oak St");
    assert_eq!(deferred["assignee_id"], public(olive), "{done}");

    // Another team's lead, and a lead of no team, go to nobody.
    let otto = &c.otto.key;
    let elsewhere = lead_at(&app, otto, 8, Some(c.b)).await;
    assert_eq!(owner_of(&app, otto, elsewhere).await, Value::Null);
    let teamless = lead_at(&app, adam, 9, None).await;
    assert_eq!(owner_of(&app, adam, teamless).await, Value::Null);

    // An upload: the row that names its owner keeps it and uses nobody's turn; the others go
    // on in turn (Mia's, then Olive's).
    let sheet = format!(
        "address,city,state,zip_code,Assigned To\n\
         10 Oak St,Austin,TX,78701,{}\n\
         11 Oak St,Austin,TX,78701,\n\
         12 Oak St,Austin,TX,78701,\n",
        c.adam.user.email
    );
    let mut b = sign_in(&app, "adam@example.com").await;
    let sent = upload(&mut b, "/leads/import", c.a, None, sheet.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let report = finished(&mut b, sent.location()).await;
    assert_eq!(count(&report, "created"), 3, "{}", report.body);
    let (_, leads) = app.get("/api/v1/leads?limit=100", adam).await;
    let owner = |address: &str| by_address(&leads, address)["assignee_id"].clone();
    assert_eq!(
        [owner("10 Oak St"), owner("11 Oak St"), owner("12 Oak St")],
        [public(&c.adam), public(mia), public(olive)],
        "{leads}"
    );
    let named = by_address(&leads, "10 Oak St")["id"].as_i64().unwrap();
    let entry = newest_of_kind(&app, named, adam, "assigned").await;
    assert_eq!(
        entry["detail"].get("in_turn"),
        None,
        "the upload's owner: {entry}"
    );
}

async fn owners_and_admins_choose_who_takes_new_leads_and_a_member_steps_out(app: TestApp) {
    let c = cast(&app).await;
    let (olive, adam, mia) = (&c.olive.key, &c.adam.key, &c.mia.key);
    let (_, members) = app.get(&format!("/api/teams/{}/members", c.a), mia).await;
    assert!(
        members
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["takes_new_leads"] == false),
        "{members}"
    );

    // A member may not put themself in, nor anyone else; another team's member is not found.
    let on = json!({"takes_new_leads": true});
    let (status, body) = takes(&app, mia, c.a, &c.mia, on.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = takes(&app, mia, c.a, &c.adam, on.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = takes(&app, &c.otto.key, c.a, &c.mia, on.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = takes(&app, adam, c.a, &c.otto, on.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    for bad in [
        json!({}),
        json!({"takes_new_leads": "yes"}),
        json!({"takes_new_leads": null}),
    ] {
        let (status, body) = takes(&app, adam, c.a, &c.mia, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }

    // The owner puts Mia and Adam in; the first new lead goes to Adam (he joined first).
    for who in [&c.mia, &c.adam] {
        let (status, body) = takes(&app, olive, c.a, who, on.clone()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let first = lead_at(&app, olive, 1, Some(c.a)).await;
    assert_eq!(owner_of(&app, olive, first).await, public(&c.adam));

    // Mia steps out herself: the next leads are Adam's alone, and her own lead stays hers.
    let second = lead_at(&app, olive, 2, Some(c.a)).await;
    assert_eq!(owner_of(&app, olive, second).await, public(&c.mia));
    let (status, body) = takes(&app, mia, c.a, &c.mia, json!({"takes_new_leads": false})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["takes_new_leads"], false, "{body}");
    for n in 3..=4 {
        let id = lead_at(&app, olive, n, Some(c.a)).await;
        assert_eq!(owner_of(&app, olive, id).await, public(&c.adam), "lead {n}");
    }
    assert_eq!(owner_of(&app, olive, second).await, public(&c.mia));

    // Adam leaves the team: his leads are nobody's (as ever), and new ones wait for a taker.
    let (status, body) = app
        .delete(
            &format!("/api/teams/{}/members/{}", c.a, c.adam.user.user_id),
            olive,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let fifth = lead_at(&app, olive, 5, Some(c.a)).await;
    assert_eq!(owner_of(&app, olive, fifth).await, Value::Null);
    assert_eq!(owner_of(&app, olive, first).await, Value::Null);

    // The service answers each submission as before: the owner is the lead's, not the answer's.
    let answer = submit(
        &app,
        olive,
        json!({"address": "6 Oak St", "city": "Austin", "state": "TX", "team_id": c.a}),
    )
    .await;
    assert_eq!(answer["status"], "completed", "{answer}");
}

/// Contract 1, as the team and member-role PATCHes: a member the body does not know is a 422
/// naming it (beside a valid `takes_new_leads` too), `{}` a 422 naming the missing field; the
/// member's turn stays as it was.
async fn the_new_leads_put_names_unknown_members_and_refuses_an_empty_body(app: TestApp) {
    let c = cast(&app).await;
    let adam = &c.adam.key;
    let taking = |members: &Value| {
        members
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["user_id"] == c.mia.user.user_id.as_str())
            .unwrap()["takes_new_leads"]
            .clone()
    };
    let team_members = format!("/api/teams/{}/members", c.a);

    let body = json!({"takes_new_leads": true, "bogus": 1});
    let (status, answer) = takes(&app, adam, c.a, &c.mia, body).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(locs(&answer), [json!(["body", "bogus"])], "{answer}");
    let at = json!(["body", "bogus"]);
    assert_eq!(
        problem_type(&answer, &at).as_deref(),
        Some("extra_forbidden")
    );
    assert_eq!(
        answer,
        json!({"detail": [{"loc": ["body", "bogus"], "msg": "Extra inputs are not permitted",
            "type": "extra_forbidden"}]})
    );
    // Every unknown member is listed, beside the missing field.
    let (status, answer) = takes(&app, adam, c.a, &c.mia, json!({"take": true, "x": 1})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let found = locs(&answer);
    assert_eq!(found.len(), 3, "{answer}");
    for at in [json!(["body", "take"]), json!(["body", "x"])] {
        assert!(found.contains(&at), "{at}: {answer}");
        assert_eq!(
            problem_type(&answer, &at).as_deref(),
            Some("extra_forbidden")
        );
    }
    let missing = json!(["body", "takes_new_leads"]);
    assert_eq!(problem_type(&answer, &missing).as_deref(), Some("missing"));

    // `{}` names the one field it needs, as the member-role PATCH does.
    let (status, answer) = takes(&app, adam, c.a, &c.mia, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(
        answer,
        json!({"detail": [{"loc": ["body", "takes_new_leads"], "msg": "Field required",
            "type": "missing"}]})
    );

    let (_, members) = app.get(&team_members, adam).await;
    assert_eq!(taking(&members), false, "nothing changed: {members}");
    // The body alone is taken.
    let on = json!({"takes_new_leads": true});
    let (status, answer) = takes(&app, adam, c.a, &c.mia, on).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let (_, members) = app.get(&team_members, adam).await;
    assert_eq!(taking(&members), true, "{members}");
}

async fn the_team_page_shows_who_takes_new_leads_and_changes_it(app: TestApp) {
    let c = cast(&app).await;
    let path = format!("/teams/{}", c.a);
    let mut adam = sign_in(&app, "adam@example.com").await;
    let page = page_shows(
        &mut adam,
        &path,
        &[
            "Nobody takes this team's new leads in turn",
            "Give new leads",
        ],
    )
    .await;
    // The members table's e-mail may wrap after its @ and before a dot only (pages.css: .email).
    let cell =
        "<td data-label=\"E-mail\"><span class=\"email\">mia@<wbr>example<wbr>.com</span></td>";
    assert_shows(&page.body, &[cell]);
    let csrf = page.field("csrf");
    let to_mia = format!("{path}/members/{}/new-leads", c.mia.user.user_id);
    let sent = adam
        .post(&to_mia, &[("csrf", csrf.as_str()), ("takes", "true")])
        .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    assert_eq!(sent.location(), format!("{path}?done=takes-new-leads"));
    let page = page_shows(
        &mut adam,
        sent.location(),
        &[
            "New leads of the team now come to this member in turn.",
            "New leads of this team go to Test User: every lead that arrives",
        ],
    )
    .await;
    assert!(
        page.body.contains(&format!(
            "aria-label=\"Stop new leads to {}\"",
            c.mia.user.email
        )),
        "{}",
        page.body
    );

    // Mia sees the button to step out on her own row only, and it works for her.
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = page_shows(&mut mia, &path, &["Stop new leads"]).await;
    assert!(!page.body.contains("Give new leads"), "{}", page.body);
    let csrf = page.field("csrf");
    let sent = mia
        .post(&to_mia, &[("csrf", csrf.as_str()), ("takes", "false")])
        .await;
    assert_eq!(sent.location(), format!("{path}?done=no-new-leads"));
    // Putting herself back is refused on the page, as in the API.
    let refused = mia
        .post(&to_mia, &[("csrf", csrf.as_str()), ("takes", "true")])
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    let id = lead_at(&app, &c.olive.key, 1, Some(c.a)).await;
    assert_eq!(owner_of(&app, &c.olive.key, id).await, Value::Null);

    // A lead given in turn says so on its page.
    let (olive, on) = (&c.olive.key, json!({"takes_new_leads": true}));
    takes(&app, olive, c.a, &c.mia, on.clone()).await;
    let given = lead_at(&app, olive, 2, Some(c.a)).await;
    let texts = ["Given in turn to Test User"];
    page_shows(&mut mia, &format!("/leads/{given}"), &texts).await;
    // With two and three takers the page names the next two, then all of them in order.
    takes(&app, olive, c.a, &c.olive, on.clone()).await;
    let two = "is given to Test User, the next one to Test User.";
    page_shows(&mut mia, &path, &[two]).await;
    takes(&app, olive, c.a, &c.adam, on).await;
    let three = "and so on in this order: Test User, Test User, Test User.";
    page_shows(&mut mia, &path, &[three]).await;
}

/// The e-mails of leads given in turn, once every job that sends them has run (up to 10 s).
async fn told_so_far(app: &TestApp) -> Vec<SentMail> {
    for _ in 0..200 {
        let waiting: i64 = app
            .read_db(|conn| {
                conn.get_result(
                    jobs::table
                        .filter(jobs::kind.eq(LEADS_GIVEN_IN_TURN))
                        .filter(jobs::status.ne("done"))
                        .count(),
                )
            })
            .await;
        if waiting == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all = app.mail.sent().into_iter();
    all.filter(|m| matches!(m.message, Message::LeadsGiven { .. }))
        .collect()
}

async fn each_taker_is_told_at_once_by_email_unless_they_turned_it_off(app: TestApp) {
    let c = cast(&app).await;
    let adam = &c.adam.key;
    for who in [&c.olive, &c.mia] {
        takes(&app, adam, c.a, who, json!({"takes_new_leads": true})).await;
    }
    let leads: Vec<Value> = (1..=3)
        .map(|n| {
            json!({"address": format!("{n} Oak St"), "city": "Austin", "state": "TX",
            "zip_code": "78701", "team_id": c.a, "first_name": "Lee"})
        })
        .collect();
    let answer = batch_ok(&app, adam, json!({"leads": leads})).await;
    let ids = result_lead_ids(&answer);

    // One e-mail each: Olive's two leads (1 and 3), Mia's one, each a link to its page.
    let sent = told_so_far(&app).await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    let to = |email: &str| sent.iter().find(|m| m.to == email).unwrap();
    let olive = to("olive@example.com");
    assert_eq!(olive.subject, "2 new leads for you", "{}", olive.text);
    for id in [ids[0], ids[2]] {
        assert!(
            olive.text.contains(&format!("/leads/{id}\n")),
            "{}",
            olive.text
        );
    }
    assert!(
        olive.text.contains("3 Oak St, Austin TX 78701, Lee (new)"),
        "{}",
        olive.text
    );
    let mia = to("mia@example.com");
    assert_eq!(mia.subject, "A new lead for you: 2 Oak St, Austin TX 78701");
    assert!(
        mia.html.contains(&format!("/leads/{}", ids[1])),
        "{}",
        mia.html
    );

    // Mia turned the e-mail of her leads off: her next lead comes without one; Olive's with.
    let mia_id = c.mia.user.id;
    app.write_db(move |conn| {
        diesel::update(users::table.find(mia_id))
            .set(users::follow_up_digest.eq(false))
            .execute(conn)
    })
    .await;
    let next = lead_at(&app, adam, 4, Some(c.a)).await;
    assert_eq!(owner_of(&app, adam, next).await, public(&c.mia));
    let last = lead_at(&app, adam, 5, Some(c.a)).await;
    assert_eq!(owner_of(&app, adam, last).await, public(&c.olive));
    let sent = told_so_far(&app).await;
    let told: Vec<(&str, &str)> = sent
        .iter()
        .map(|m| (m.to.as_str(), m.subject.as_str()))
        .collect();
    assert_eq!(
        told[2..],
        [(
            "olive@example.com",
            "A new lead for you: 5 Oak St, Austin TX 78701"
        )],
        "{told:?}"
    );
    assert_eq!(told_so_far(&app).await.len(), 3, "none to Mia");

    // A server that sends no morning e-mail still offers the switch for these.
    let quiet = app
        .with_env(&[("LEADHUB_FOLLOW_UP_DIGEST_HOUR", "off")])
        .await;
    let mut olive = sign_in(&quiet, "olive@example.com").await;
    let home = olive.get("/").await;
    assert_shows(
        &home.body,
        &[
            "This server sends no morning e-mail of follow-ups due. You get an e-mail as soon as \
             your team gives you new leads in turn.",
            "id=\"digest-off\"",
        ],
    );
}
