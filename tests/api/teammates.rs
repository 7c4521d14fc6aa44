//! The people one works with on the leads list (docs/working-leads.md "The pages"): the owner
//! filter names them, and the bulk bar gives the ticked leads to one of them.
use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_work::{cast, lead_at, patch};
use crate::pages::{assert_shows, sign_in};

backend_tests!(a_team_admin_shares_leads_out_from_the_list);

async fn a_team_admin_shares_leads_out_from_the_list(app: TestApp) {
    let c = cast(&app).await;
    let key = &c.olive.key;
    let first = lead_at(&app, key, 1, Some(c.a)).await;
    let second = lead_at(&app, key, 2, Some(c.a)).await;
    let (mia_id, otto_id) = (&c.mia.user.user_id, &c.otto.user.user_id);
    let mut adam = sign_in(&app, "adam@example.com").await;

    // The owner filter offers Adam's teammates (not Adam, who is "me"; not Otto, of team B).
    let list = adam.get("/leads").await;
    let start = list.body.find("<select id=\"f-assignee\"").unwrap();
    let filter = &list.body[start..start + list.body[start..].find("</select>").unwrap()];
    assert!(
        filter.contains(&format!("<option value=\"{mia_id}\">")),
        "{filter}"
    );
    assert!(filter.contains(&format!("<option value=\"{}\">", c.olive.user.user_id)));
    assert!(!filter.contains(&c.adam.user.user_id), "{filter}");
    assert!(
        !list.body.contains(otto_id.as_str()),
        "no one of another team"
    );
    assert_shows(
        &list.body,
        &[
            &format!("<option value=\"assign:{mia_id}\">give them to "),
            &format!("<input type=\"checkbox\" name=\"share:{mia_id}\">"),
            &format!(
                "<input type=\"checkbox\" name=\"share:{}\"> me",
                c.adam.user.user_id
            ),
        ],
    );

    // Giving both to Mia: one bulk change, back to the list.
    let csrf = list.field("csrf");
    let (first_tick, second_tick) = (format!("lead-{first}"), format!("lead-{second}"));
    let ticks = [first_tick.as_str(), second_tick.as_str()];
    let to_mia = format!("assign:{mia_id}");
    let (redirect, _) = adam
        .post_and_follow("/leads/bulk", &ticked(&csrf, ticks, &to_mia))
        .await;
    assert_eq!(redirect.location(), "/leads?done=bulk");
    for lead in [first, second] {
        let (_, api) = app.get(&format!("/api/v1/leads/{lead}"), key).await;
        assert_eq!(api["assignee_id"], json!(mia_id), "{api}");
    }

    // Mia's leads, chosen by name in the filter.
    let hers = adam.get(&format!("/leads?assignee={mia_id}")).await;
    assert_eq!(hers.status, StatusCode::OK);
    assert_shows(
        &hers.body,
        &[
            "2 leads match these filters",
            &format!("<option value=\"{mia_id}\" selected>"),
        ],
    );

    // Someone who is not of the leads' team cannot be given them: each lead named, none changed.
    let to_otto = format!("assign:{otto_id}");
    let refused = adam
        .post("/leads/bulk", &ticked(&csrf, ticks, &to_otto))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(
        &refused.body,
        &[&format!("lead {first}: "), &format!("lead {second}: ")],
    );
    let (_, api) = app.get(&format!("/api/v1/leads/{first}"), key).await;
    assert_eq!(api["assignee_id"], json!(mia_id));

    // Sharing three leads out between Mia and Olive: each gets the next lead in turn (the
    // leads by number, the people with the fewest open leads first), in one change.
    let third = lead_at(&app, key, 3, Some(c.a)).await;
    let olive_id = &c.olive.user.user_id;
    let third_tick = format!("lead-{third}");
    let (share_mia, share_olive) = (format!("share:{mia_id}"), format!("share:{olive_id}"));
    let mut share = vec![
        ("csrf", csrf.as_str()),
        (first_tick.as_str(), "on"),
        (second_tick.as_str(), "on"),
        (third_tick.as_str(), "on"),
        ("action", ""),
        ("share_out", "1"),
    ];
    let nobody_ticked = adam.post("/leads/bulk", &share).await;
    assert_eq!(nobody_ticked.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_shows(
        &nobody_ticked.body,
        &["No one was ticked to share the leads among."],
    );
    share.extend([(share_mia.as_str(), "on"), (share_olive.as_str(), "on")]);
    // The one with the smaller id works both open leads, so the one with the larger id, working
    // none, comes first: the turn goes by load, not by id.
    let (busy, idle) = if mia_id < olive_id {
        (mia_id, olive_id)
    } else {
        (olive_id, mia_id)
    };
    for lead in [first, second] {
        let given = patch(&app, lead, key, json!({ "assignee_id": busy })).await;
        assert_eq!(given.0, StatusCode::OK);
    }
    let (redirect, page) = adam.post_and_follow("/leads/bulk", &share).await;
    assert_eq!(redirect.location(), "/leads?done=shared");
    assert_shows(
        &page.body,
        &["Leads shared out: each person ticked got their share"],
    );
    let people = [idle, busy];
    for (lead, owner) in [(first, people[0]), (second, people[1]), (third, people[0])] {
        let (_, api) = app.get(&format!("/api/v1/leads/{lead}"), key).await;
        assert_eq!(api["assignee_id"], json!(owner), "{api}");
    }

    // The team page counts each member's open leads and those due: a lead won is not open, a
    // day passed is due; a lead nobody works is counted apart.
    let day = json!({"follow_up_on": "2001-01-01"});
    assert_eq!(patch(&app, first, key, day).await.0, StatusCode::OK);
    let won = json!({"status": "won"});
    assert_eq!(patch(&app, second, key, won).await.0, StatusCode::OK);
    lead_at(&app, key, 4, Some(c.a)).await;
    let team = adam.get(&format!("/teams/{}", c.a)).await;
    let (a, adam_id) = (c.a, &c.adam.user.user_id);
    assert_shows(
        &team.body,
        &[
            &format!("id=\"open-{}\">2</a>", people[0]),
            &format!("id=\"due-{}\">1</a>", people[0]),
            &format!("id=\"open-{}\">0</a>", people[1]),
            &format!("id=\"open-{adam_id}\">0</a>"),
            &format!("nobody works: <a href=\"/leads?team_id={a}&amp;assignee=none&amp;status=open\">1</a>"),
        ],
    );
    assert!(!team.body.contains(&format!("id=\"due-{}\"", people[1])));
    // Each count links to the leads it counts: the won lead is not in its owner's open list.
    let open_list = format!("/leads?team_id={a}&assignee={}&status=open", people[1]);
    assert_shows(
        &team.body,
        &[&format!(
            "href=\"{}\" id=\"open-{}\">0</a>",
            open_list.replace('&', "&amp;"),
            people[1]
        )],
    );
    let listed = adam.get(&open_list).await;
    assert_shows(&listed.body, &["0 leads match these filters"]);

    // An owner id the list does not know still shows as chosen.
    let unknown = adam.get("/leads?assignee=usr_gone").await;
    assert_shows(
        &unknown.body,
        &["<option value=\"usr_gone\" selected>usr_gone</option>"],
    );
}

/// The bulk bar's form: two leads ticked and the action.
fn ticked<'a>(csrf: &'a str, ticks: [&'a str; 2], action: &'a str) -> [(&'a str, &'a str); 4] {
    [
        ("csrf", csrf),
        (ticks[0], "on"),
        (ticks[1], "on"),
        ("action", action),
    ]
}
