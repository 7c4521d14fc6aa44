//! Teams, members and invites over HTTP: the role matrix of contract sections 6 and 7, the invite
//! life cycle, membership taking effect on the very next request, and the invite e-mail through a
//! real SMTP server (Python aiosmtpd) and through the outbox folder.
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::team_invites;
use leadhub_domain::mail::Message;
use leadhub_tests::python::{python_has, scratch_dir, spawn_ready, Helper};
use leadhub_tests::{backend_tests, free_port, Backend, TestApp, TestDatabase, TestUser};

use crate::helpers::{locs, problem_type, submit, SINGLE};

// ---------------------------------------------------------------------------------------------
// Helpers shared with identity.rs
// ---------------------------------------------------------------------------------------------

/// POST /api/teams as `key`, asserting 200; returns the team.
pub async fn create_team(app: &TestApp, key: &str, name: &str) -> Value {
    let (status, team) = app
        .post("/api/teams", key, json!({"name": name, "description": "d"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{team}");
    team
}

/// The id of a team created over the API by the holder of `key`.
pub async fn create_team_id(app: &TestApp, key: &str, name: &str) -> i64 {
    create_team(app, key, name).await["id"].as_i64().unwrap()
}

/// POST /api/teams/{id}/invites, asserting 200 and that the answer carries no link or token;
/// returns the invite plus `mailed_url`, the link read from the invitee's mailbox (null when the
/// e-mail did not go out).
pub async fn invite(app: &TestApp, key: &str, team: i64, email: &str, role: Option<&str>) -> Value {
    let mut body = json!({ "email": email });
    if let Some(role) = role {
        body["role"] = json!(role);
    }
    let earlier = app.mail.sent().len();
    let (status, mut invite) = post_invite(app, key, team, body).await;
    assert_eq!(status, StatusCode::OK, "{invite}");
    assert!(invite.get("invite_url").is_none(), "{invite}");
    assert!(
        !invite.to_string().contains("lhi_"),
        "a token in the answer: {invite}"
    );
    let mailed = app.mail.sent()[earlier..]
        .iter()
        .rev()
        .find(|m| m.to == invite["email"].as_str().unwrap())
        .map(|m| mailed_invite_url(&m.message));
    if mailed.is_some() {
        assert_eq!(invite["email_sent"], true, "{invite}");
    }
    invite["mailed_url"] = json!(mailed);
    invite
}

/// POST /api/teams/{id}/invites as `key`, whatever the answer.
pub async fn post_invite(app: &TestApp, key: &str, team: i64, body: Value) -> (StatusCode, Value) {
    app.post(&format!("/api/teams/{team}/invites"), key, body)
        .await
}

/// The link of an invite e-mail.
pub fn mailed_invite_url(message: &Message) -> String {
    match message {
        Message::Invite { invite_url, .. } => invite_url.clone(),
        other => panic!("not an invite: {other:?}"),
    }
}

/// The token of an invite link: its last path segment.
pub fn token_of(invite_url: &str) -> String {
    invite_url.rsplit('/').next().unwrap().to_owned()
}

/// GET /api/invites/{token}, without credentials.
pub async fn invite_info(app: &TestApp, token: &str) -> (StatusCode, Value) {
    app.call(Method::GET, &format!("/api/invites/{token}"), None, None)
        .await
}

/// POST /api/invites/{token}/accept, without credentials.
pub async fn accept(app: &TestApp, token: &str, body: Value) -> (StatusCode, Value) {
    app.post_public(&format!("/api/invites/{token}/accept"), body)
        .await
}

/// Accepts an invite, asserting 200; returns the answer.
pub async fn accept_ok(app: &TestApp, token: &str, body: Value) -> Value {
    let (status, answer) = accept(app, token, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// Removes `user` from `team` as `key`, asserting 200.
pub async fn remove_member(app: &TestApp, key: &str, team: i64, user: &TestUser) {
    let path = format!("/api/teams/{team}/members/{}", user.user.user_id);
    let (status, body) = app.delete(&path, key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"detail": "Member removed"}));
}

/// Makes an existing user a member with `role` the way a person would: invite, then accept.
pub async fn add_member(app: &TestApp, inviter_key: &str, team: i64, user: &TestUser, role: &str) {
    let created = invite(app, inviter_key, team, &user.user.email, Some(role)).await;
    let token = token_of(created["mailed_url"].as_str().unwrap());
    accept_ok(app, &token, json!({})).await;
}

/// A team made over the API by `owner`, with each of `members` in the role beside them.
pub async fn team_of(
    app: &TestApp,
    owner: &TestUser,
    name: &str,
    members: &[(&TestUser, &str)],
) -> i64 {
    let team = create_team_id(app, &owner.key, name).await;
    for (member, role) in members {
        add_member(app, &owner.key, team, member, role).await;
    }
    team
}

fn team_id(team: &Value) -> i64 {
    team["id"].as_i64().unwrap()
}

async fn members(app: &TestApp, key: &str, team: i64) -> Vec<Value> {
    let (status, body) = app.get(&format!("/api/teams/{team}/members"), key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().unwrap().clone()
}

async fn pending(app: &TestApp, key: &str, team: i64) -> Vec<Value> {
    let (status, body) = app.get(&format!("/api/teams/{team}/invites"), key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().unwrap().clone()
}

fn forbidden(body: &Value) {
    assert!(
        body["detail"].as_str().is_some(),
        "403 without a reason: {body}"
    );
}

// ---------------------------------------------------------------------------------------------
// 1. The role matrix
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Outsider,
    Member,
    TeamAdmin,
    Owner,
    PlatformAdmin,
}

const ACTORS: [Who; 5] = [
    Who::Outsider,
    Who::Member,
    Who::TeamAdmin,
    Who::Owner,
    Who::PlatformAdmin,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    GetTeam,
    PatchTeam,
    DeleteTeam,
    GetMembers,
    /// Another plain member to admin.
    PatchMember,
    /// The owner's role.
    PatchOwner,
    /// Another plain member.
    DeleteMember,
    DeleteOwner,
    /// The actor removes their own user_id.
    LeaveSelf,
    PostInvite,
    GetInvites,
    DeleteInvite,
}

impl Op {
    fn destructive(self) -> bool {
        !matches!(self, Op::GetTeam | Op::GetMembers | Op::GetInvites)
    }
}

/// One team with an owner, a team admin, a member, another member to act on and a pending
/// invite. The outsider and the platform admin are shared by every fixture.
struct Fixture {
    team: i64,
    owner: TestUser,
    admin: TestUser,
    member: TestUser,
    target: TestUser,
    invite_id: i64,
}

struct World {
    outsider: TestUser,
    platform_admin: TestUser,
}

impl Fixture {
    async fn build(app: &TestApp, label: &str) -> Fixture {
        let owner = app.user(&format!("{label}.owner@example.com")).await;
        let admin = app.user(&format!("{label}.admin@example.com")).await;
        let member = app.user(&format!("{label}.member@example.com")).await;
        let target = app.user(&format!("{label}.target@example.com")).await;
        let members = [(&admin, "admin"), (&member, "member"), (&target, "member")];
        let team = team_of(app, &owner, &format!("Team {label}"), &members).await;
        let pending = invite(
            app,
            &owner.key,
            team,
            &format!("{label}.pending@example.com"),
            None,
        )
        .await;
        Fixture {
            team,
            owner,
            admin,
            member,
            target,
            invite_id: pending["id"].as_i64().unwrap(),
        }
    }

    fn actor<'a>(&'a self, world: &'a World, who: Who) -> &'a TestUser {
        match who {
            Who::Outsider => &world.outsider,
            Who::Member => &self.member,
            Who::TeamAdmin => &self.admin,
            Who::Owner => &self.owner,
            Who::PlatformAdmin => &world.platform_admin,
        }
    }

    /// The request `op` sends as `actor`: method, path and body.
    fn request(&self, actor: &TestUser, op: Op) -> (Method, String, Option<Value>) {
        let t = self.team;
        let team = format!("/api/teams/{t}");
        let member = |user: &TestUser| format!("{team}/members/{}", user.user.user_id);
        match op {
            Op::GetTeam => (Method::GET, team.clone(), None),
            Op::PatchTeam => (
                Method::PATCH,
                team.clone(),
                Some(json!({"name": "Renamed", "description": "new"})),
            ),
            Op::DeleteTeam => (Method::DELETE, team.clone(), None),
            Op::GetMembers => (Method::GET, format!("{team}/members"), None),
            Op::PatchMember => (
                Method::PATCH,
                member(&self.target),
                Some(json!({"role": "admin"})),
            ),
            Op::PatchOwner => (
                Method::PATCH,
                member(&self.owner),
                Some(json!({"role": "member"})),
            ),
            Op::DeleteMember => (Method::DELETE, member(&self.target), None),
            Op::DeleteOwner => (Method::DELETE, member(&self.owner), None),
            Op::LeaveSelf => (Method::DELETE, member(actor), None),
            Op::PostInvite => (
                Method::POST,
                format!("{team}/invites"),
                Some(json!({"email": "newcomer@example.com"})),
            ),
            Op::GetInvites => (Method::GET, format!("{team}/invites"), None),
            Op::DeleteInvite => (
                Method::DELETE,
                format!("{team}/invites/{}", self.invite_id),
                None,
            ),
        }
    }

    async fn perform(&self, app: &TestApp, actor: &TestUser, op: Op) -> (StatusCode, Value) {
        let (method, path, body) = self.request(actor, op);
        app.call(method, &path, Some(&actor.key), body.as_ref())
            .await
    }

    /// What a successful `op` must have changed (seen by the owner), and what a refused one
    /// must have left alone.
    async fn check_effect(&self, app: &TestApp, op: Op, actor: &TestUser, ok: bool) {
        let t = self.team;
        let owner = &self.owner.key;
        let (_, team) = app.get(&format!("/api/teams/{t}"), owner).await;
        let list = members(app, owner, t).await;
        let role_of = |user: &TestUser| {
            list.iter()
                .find(|m| m["user_id"] == user.user.user_id.as_str())
                .map(|m| m["role"].as_str().unwrap().to_owned())
        };
        match op {
            Op::PatchTeam => assert_eq!(team["name"] == "Renamed", ok, "{team}"),
            Op::DeleteTeam => assert_eq!(team["is_active"] == false, ok, "{team}"),
            Op::PatchMember => assert_eq!(
                role_of(&self.target).as_deref(),
                Some(if ok { "admin" } else { "member" })
            ),
            Op::DeleteMember => assert_eq!(role_of(&self.target).is_none(), ok),
            Op::LeaveSelf if ok => assert_eq!(role_of(actor), None),
            Op::DeleteInvite => {
                let still = pending(app, owner, t)
                    .await
                    .iter()
                    .any(|i| i["id"] == self.invite_id);
                assert_eq!(still, !ok);
            }
            Op::PostInvite => {
                let made = pending(app, owner, t)
                    .await
                    .iter()
                    .any(|i| i["email"] == "newcomer@example.com");
                assert_eq!(made, ok);
            }
            _ => {}
        }
        // The owner is never removed nor re-roled.
        assert_eq!(role_of(&self.owner).as_deref(), Some("owner"));
    }
}

async fn the_role_matrix(app: TestApp) {
    let world = World {
        outsider: app.user("outsider@example.com").await,
        platform_admin: app.admin("root@example.com").await,
    };
    // Expected statuses, in the order of ACTORS: outsider, member, team admin, owner, platform admin.
    // Grouped by who may: readers, team admins, the owner, no one, and leaving.
    let table: [(&[Op], [u16; 5]); 5] = [
        (&[Op::GetTeam, Op::GetMembers], [404, 200, 200, 200, 200]),
        (
            &[
                Op::PatchTeam,
                Op::PatchMember,
                Op::DeleteMember,
                Op::PostInvite,
                Op::GetInvites,
                Op::DeleteInvite,
            ],
            [404, 403, 200, 200, 200],
        ),
        (&[Op::DeleteTeam], [404, 403, 403, 200, 200]),
        (
            &[Op::PatchOwner, Op::DeleteOwner],
            [404, 403, 403, 403, 403],
        ),
        // A platform admin who is not a member has no membership to leave.
        (&[Op::LeaveSelf], [404, 200, 200, 403, 404]),
    ];
    let shared = Fixture::build(&app, "shared").await;
    let mut n = 0;
    for (ops, expected) in table {
        for &op in ops {
            for (who, want) in ACTORS.into_iter().zip(expected) {
                let fresh;
                let fx = if op.destructive() {
                    n += 1;
                    fresh = Fixture::build(&app, &format!("f{n}")).await;
                    &fresh
                } else {
                    &shared
                };
                let actor = fx.actor(&world, who);
                let (status, body) = fx.perform(&app, actor, op).await;
                assert_eq!(status.as_u16(), want, "{op:?} by {who:?}: {body}");
                match want {
                    404 => {
                        let detail = body["detail"].as_str().unwrap_or_default();
                        assert!(detail.ends_with("not found"), "{op:?} by {who:?}: {body}");
                    }
                    403 => forbidden(&body),
                    _ => {}
                }
                if op.destructive() {
                    fx.check_effect(&app, op, actor, want == 200).await;
                }
            }
        }
    }

    // A platform admin who is also a plain member of the team keeps every platform-admin right
    // (and, like everyone, may not touch the owner).
    let root_member = app.admin("root.member@example.com").await;
    for (op, want) in [
        (Op::PatchTeam, 200),
        (Op::PatchMember, 200),
        (Op::DeleteMember, 200),
        (Op::PostInvite, 200),
        (Op::GetInvites, 200),
        (Op::DeleteInvite, 200),
        (Op::DeleteTeam, 200),
        (Op::PatchOwner, 403),
        (Op::DeleteOwner, 403),
        (Op::LeaveSelf, 200),
    ] {
        n += 1;
        let fx = Fixture::build(&app, &format!("f{n}")).await;
        add_member(&app, &fx.owner.key, fx.team, &root_member, "member").await;
        let (status, body) = fx.perform(&app, &root_member, op).await;
        assert_eq!(
            status.as_u16(),
            want,
            "{op:?} by a platform admin who is a member: {body}"
        );
        fx.check_effect(&app, op, &root_member, want == 200).await;
        let (_, team) = app
            .get(&format!("/api/teams/{}", fx.team), &root_member.key)
            .await;
        if op != Op::LeaveSelf {
            assert_eq!(team["my_role"], "member", "my_role stays the team role");
        }
    }

    // Bodies of the successful answers.
    let t = shared.team;
    let (_, team) = app
        .get(&format!("/api/teams/{t}"), &world.platform_admin.key)
        .await;
    assert_eq!(
        team["my_role"],
        Value::Null,
        "a platform admin is no member"
    );
    assert_eq!(team["member_count"], 4);
    let (_, team) = app.get(&format!("/api/teams/{t}"), &shared.admin.key).await;
    assert_eq!(team["my_role"], "admin");
    let list = members(&app, &shared.member.key, t).await;
    assert_eq!(list.len(), 4);
    let owner_row = &list[0];
    assert_eq!(owner_row["user_id"], shared.owner.user.user_id.as_str());
    assert_eq!(owner_row["user_email"], "shared.owner@example.com");
    assert_eq!(owner_row["user_name"], "Test User");
    assert_eq!(owner_row["role"], "owner");
    assert_eq!(owner_row["is_active"], true);
    assert!(owner_row["joined_at"].as_str().unwrap().ends_with('Z'));
    assert!(owner_row["id"].as_i64().is_some());

    // Successful role change and removal answers.
    let fx = Fixture::build(&app, "bodies").await;
    let u = &fx.target.user.user_id;
    let (status, changed) = app
        .patch(
            &format!("/api/teams/{}/members/{u}", fx.team),
            &fx.admin.key,
            json!({"role": "admin"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["role"], "admin");
    assert_eq!(changed["user_id"], u.as_str());
    for bad in [json!({"role": "owner"}), json!({"role": "boss"}), json!({})] {
        let (status, body) = app
            .patch(
                &format!("/api/teams/{}/members/{u}", fx.team),
                &fx.owner.key,
                bad.clone(),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "role"]));
    }
    remove_member(&app, &fx.owner.key, fx.team, &fx.target).await;
    let nobody = format!("/api/teams/{}/members/usr_nobody", fx.team);
    for ((status, body), detail) in [
        (app.delete(&nobody, &fx.owner.key).await, "Member not found"),
        (
            app.get("/api/teams/999999", &fx.owner.key).await,
            "Team not found",
        ),
    ] {
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        assert_eq!(body, json!({ "detail": detail }));
    }
    let (status, _) = app.get("/api/teams/abc", &fx.owner.key).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// Contract 1: a PATCH member the body does not know is a 422 naming it (as the lead and
/// business PATCH answer), and a PATCH naming nothing is the lead PATCH's 422; nothing changes.
async fn patches_name_unknown_members_and_refuse_empty_bodies(app: TestApp) {
    let [ada, bob] = app.users(["ada", "bob"]).await;
    let t = team_of(&app, &ada, "Crew", &[(&bob, "admin")]).await;
    let team = format!("/api/teams/{t}");
    let lead = submit(&app, &ada.key, json!({"address": "1 Oak St", "team_id": t})).await;
    let (_, before) = app.get(&team, &ada.key).await;

    let (status, body) = app
        .patch(&team, &ada.key, json!({"descripton": "typo", "colour": 1}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let found = locs(&body);
    assert_eq!(found.len(), 2, "{body}");
    for at in [json!(["body", "descripton"]), json!(["body", "colour"])] {
        assert!(found.contains(&at), "{at}: {body}");
        assert_eq!(problem_type(&body, &at).as_deref(), Some("extra_forbidden"));
    }
    // Beside a known member too: the typo alone is named and the name stays.
    let (status, body) = app
        .patch(
            &team,
            &ada.key,
            json!({"name": "Renamed", "descripton": "typo"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "descripton"])]);

    // `{}` answers as the lead PATCH does.
    let lead_path = format!("/api/v1/leads/{}", lead["result_lead_id"]);
    let (status, lead_answer) = app.patch(&lead_path, &ada.key, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{lead_answer}");
    let (status, body) = app.patch(&team, &ada.key, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body, lead_answer);
    assert_eq!(
        body,
        json!({"detail": [{"loc": ["body"], "msg": "Give at least one field to change",
            "type": "missing"}]})
    );
    let (_, after) = app.get(&team, &ada.key).await;
    assert_eq!(after, before, "nothing changed");

    // A member's role: an unknown member beside it is named; the role stays.
    let member = format!("{team}/members/{}", bob.user.user_id);
    let (status, body) = app
        .patch(&member, &ada.key, json!({"role": "member", "colour": 1}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(locs(&body), [json!(["body", "colour"])]);
    let roles = members(&app, &ada.key, t).await;
    let of_bob = roles
        .iter()
        .find(|m| m["user_id"] == bob.user.user_id.as_str())
        .unwrap();
    assert_eq!(of_bob["role"], "admin");
}

async fn team_lists_creation_counts_and_memberships(app: TestApp) {
    let [ada, bob] = app.users(["ada", "bob"]).await;
    let root = app.admin("root@example.com").await;
    let nobody = app.user("nobody@example.com").await;

    // POST (with and without the trailing slash) makes the caller the owner.
    let (status, a) = app
        .post(
            "/api/teams/",
            &ada.key,
            json!({"name": "  Austin   roofing ", "description": "Roofs"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(a["name"], "Austin roofing");
    assert_eq!(a["description"], "Roofs");
    assert_eq!(a["my_role"], "owner");
    assert_eq!(a["member_count"], 1);
    assert_eq!(a["lead_count"], 0);
    assert_eq!(a["is_active"], true);
    assert!(a["created_at"].as_str().unwrap().ends_with('Z'));
    let a_id = team_id(&a);
    let b = create_team(&app, &bob.key, "Dallas solar").await;
    let b_id = team_id(&b);
    assert_eq!(b["description"], "d");

    // Validation.
    for bad in [
        json!({}),
        json!({"name": ""}),
        json!({"name": "x".repeat(101)}),
    ] {
        let (status, body) = app.post("/api/teams", &ada.key, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "name"]));
    }

    // Counts follow members and leads.
    add_member(&app, &ada.key, a_id, &bob, "member").await;
    submit(
        &app,
        &ada.key,
        json!({"address": "1 Count St", "team_id": a_id}),
    )
    .await;
    submit(
        &app,
        &bob.key,
        json!({"address": "2 Count St", "team_id": a_id}),
    )
    .await;
    submit(&app, &bob.key, json!({"address": "3 Open St"})).await;
    let (_, a) = app.get(&format!("/api/teams/{a_id}"), &ada.key).await;
    assert_eq!(
        (a["member_count"].clone(), a["lead_count"].clone()),
        (json!(2), json!(2))
    );

    // Each sees their own teams; a platform admin sees all; trailing slash is the same route.
    for path in ["/api/teams", "/api/teams/"] {
        let ids = |v: &Value| -> Vec<i64> { v.as_array().unwrap().iter().map(team_id).collect() };
        let (status, list) = app.get(path, &ada.key).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(ids(&list), vec![a_id]);
        assert_eq!(list[0]["my_role"], "owner");
        let (_, list) = app.get(path, &bob.key).await;
        let mut bobs = ids(&list);
        bobs.sort_unstable();
        assert_eq!(bobs, vec![a_id, b_id]);
        let mine = list.as_array().unwrap();
        let role = |id: i64| mine.iter().find(|t| team_id(t) == id).unwrap()["my_role"].clone();
        assert_eq!((role(a_id), role(b_id)), (json!("member"), json!("owner")));
        let (_, list) = app.get(path, &nobody.key).await;
        assert_eq!(list, json!([]));
        let (_, list) = app.get(path, &root.key).await;
        let mut all = ids(&list);
        all.sort_unstable();
        assert_eq!(all, vec![a_id, b_id]);
        assert!(list
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["my_role"].is_null()));
    }

    // Memberships, with their roles.
    for path in ["/api/teams/me/memberships", "/api/teams/me/memberships/"] {
        let (status, list) = app.get(path, &bob.key).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 2);
        let of = |id: i64| list.iter().find(|m| m["team_id"] == id).unwrap().clone();
        assert_eq!(of(a_id)["team_name"], "Austin roofing");
        assert_eq!(of(a_id)["role"], "member");
        assert_eq!(of(a_id)["is_active"], true);
        assert!(of(a_id)["joined_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(of(b_id)["role"], "owner");
        let (_, none) = app.get(path, &root.key).await;
        assert_eq!(none, json!([]));
    }

    // PATCH: absent fields stay, null description clears (with or without the trailing slash).
    for (path, change, name) in [
        ("/", json!({"description": null}), "Austin roofing"),
        ("", json!({"name": "Austin roofs"}), "Austin roofs"),
    ] {
        let (status, t) = app
            .patch(&format!("/api/teams/{a_id}{path}"), &ada.key, change)
            .await;
        assert_eq!(status, StatusCode::OK, "{t}");
        assert_eq!(t["name"], name);
        assert_eq!(t["description"], Value::Null);
        assert_eq!(t["my_role"], "owner");
    }

    // Without a credential: the exact 401.
    let (status, body) = app.call(Method::GET, "/api/teams", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body, json!({"detail": "Invalid or expired API key"}));
}

// ---------------------------------------------------------------------------------------------
// 2. Invites
// ---------------------------------------------------------------------------------------------

async fn invites_are_created_validated_and_replaced(app: TestApp) {
    let [ada, bob] = app.users(["ada", "bob"]).await;
    let t = team_of(&app, &ada, "Team", &[(&bob, "member")]).await;

    // Default role member; the link is {public_url}/invite/{token}; an e-mail carries it.
    let created = invite(&app, &ada.key, t, "  Sam@Example.COM ", None).await;
    assert_eq!(created["email"], "sam@example.com");
    assert_eq!(created["role"], "member");
    assert_eq!(created["is_used"], false);
    assert_eq!(created["invited_by"], ada.user.user_id.as_str());
    assert_eq!(created["email_sent"], true);
    let url = created["mailed_url"].as_str().unwrap().to_owned();
    let public = &app.state.config.public_url;
    assert!(url.starts_with(&format!("{public}/invite/lhi_")), "{url}");
    let token = token_of(&url);
    assert!(token.len() >= 4 + 43, "256 bits at least: {token}");
    let created_at: DateTime<Utc> = created["created_at"].as_str().unwrap().parse().unwrap();
    let expires_at: DateTime<Utc> = created["expires_at"].as_str().unwrap().parse().unwrap();
    assert_eq!((expires_at - created_at).num_days(), 7);
    let mail = app
        .mail
        .last_to("sam@example.com")
        .expect("an invite e-mail");
    match &mail.message {
        Message::Invite {
            invite_url,
            team_name,
            role,
            ..
        } => {
            assert_eq!(invite_url, &url);
            assert_eq!(team_name, "Team");
            assert_eq!(role, "member");
        }
        other => panic!("not an invite: {other:?}"),
    }
    assert!(mail.text.contains(&url));

    // Role admin.
    let admin_invite = invite(&app, &ada.key, t, "carol@example.com", Some("admin")).await;
    assert_eq!(admin_invite["role"], "admin");

    // Bad role, bad e-mail, missing e-mail: 422.
    for (body, loc) in [
        (json!({"email": "x@example.com", "role": "owner"}), "role"),
        (json!({"email": "x@example.com", "role": "boss"}), "role"),
        (json!({"email": "not-an-email"}), "email"),
        (json!({"email": "a@b@c"}), "email"),
        (json!({"role": "member"}), "email"),
    ] {
        let (status, answer) = post_invite(&app, &ada.key, t, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        assert_eq!(answer["detail"][0]["loc"], json!(["body", loc]), "{answer}");
    }

    // A current member (any case): 409.
    for email in ["bob@example.com", "BOB@example.com", "ada@example.com"] {
        let (status, body) = post_invite(&app, &ada.key, t, json!({ "email": email })).await;
        assert_eq!(status, StatusCode::CONFLICT, "{email}: {body}");
        assert!(body["detail"].as_str().is_some());
    }

    // Re-inviting replaces the pending invite: the old link is gone, the new one works.
    let again = invite(&app, &ada.key, t, "sam@example.com", Some("admin")).await;
    let new_token = token_of(again["mailed_url"].as_str().unwrap());
    assert_ne!(new_token, token);
    let (status, body) = invite_info(&app, &token).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    assert!(body["detail"].as_str().is_some());
    let (status, body) = accept(&app, &token, json!({"first_name": "S", "last_name": "A"})).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    let (status, info) = invite_info(&app, &new_token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(info["role"], "admin");

    // Pending only: used, revoked and expired invites are not listed.
    let list = pending(&app, &ada.key, t).await;
    let emails: Vec<&str> = list.iter().map(|i| i["email"].as_str().unwrap()).collect();
    assert_eq!(
        emails,
        vec!["sam@example.com", "carol@example.com"],
        "newest first"
    );
    assert!(list.iter().all(|i| i.get("invite_url").is_none()));
    assert_eq!(list[0]["id"], again["id"]);
    let dave = invite(&app, &ada.key, t, "dave@example.com", None).await;
    let erin = invite(&app, &ada.key, t, "erin@example.com", None).await;
    let fay = invite(&app, &ada.key, t, "fay@example.com", None).await;
    // dave accepts, erin's is revoked, fay's expires.
    let (status, _) = accept(
        &app,
        &token_of(dave["mailed_url"].as_str().unwrap()),
        json!({"first_name": "Dave", "last_name": "D"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let erin_id = erin["id"].as_i64().unwrap();
    let (status, body) = app
        .delete(&format!("/api/teams/{t}/invites/{erin_id}"), &ada.key)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"detail": "Invite revoked"}));
    let (status, body) = app
        .delete(&format!("/api/teams/{t}/invites/{erin_id}"), &ada.key)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "revoking twice: {body}");
    let (status, _) = invite_info(&app, &token_of(erin["mailed_url"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::GONE, "a revoked link");
    let fay_id = fay["id"].as_i64().unwrap();
    let past = (Utc::now() - chrono::Duration::minutes(1)).naive_utc();
    app.write_db(move |conn| {
        diesel::update(team_invites::table.find(fay_id))
            .set(team_invites::expires_at.eq(past))
            .execute(conn)
    })
    .await;
    let fay_token = token_of(fay["mailed_url"].as_str().unwrap());
    let (status, _) = invite_info(&app, &fay_token).await;
    assert_eq!(status, StatusCode::GONE, "an expired link");
    let (status, _) = accept(
        &app,
        &fay_token,
        json!({"first_name": "F", "last_name": "F"}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::GONE,
        "an expired link cannot be accepted"
    );
    let emails: Vec<String> = pending(&app, &ada.key, t)
        .await
        .iter()
        .map(|i| i["email"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(emails, vec!["sam@example.com", "carol@example.com"]);

    // An invite of another team cannot be revoked through this one.
    let other = create_team_id(&app, &ada.key, "Other").await;
    let (status, _) = app
        .delete(
            &format!("/api/teams/{other}/invites/{}", again["id"]),
            &ada.key,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn the_public_invite_page_and_accepting(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let t = create_team_id(&app, &ada.key, "Roofers").await;
    let created = invite(&app, &ada.key, t, "sam@example.com", Some("admin")).await;
    let token = token_of(created["mailed_url"].as_str().unwrap());

    // Public, read as often as you like without spending it.
    for _ in 0..3 {
        let (status, info) = invite_info(&app, &token).await;
        assert_eq!(status, StatusCode::OK, "{info}");
        assert_eq!(
            info,
            json!({
                "team_name": "Roofers",
                "team_description": "d",
                "email": "sam@example.com",
                "role": "admin",
                "invited_by_name": "Test User",
                "expires_at": created["expires_at"],
            })
        );
    }
    let (status, body) = invite_info(&app, "lhi_unknownunknownunknownunknownunknownunknown0").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body, json!({"detail": "Invite not found"}));
    let (status, _) = accept(
        &app,
        "lhi_nope",
        json!({"first_name": "A", "last_name": "B"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A new address needs both names; every missing one is named.
    for body in [json!({}), json!({"first_name": "  ", "last_name": ""})] {
        let (status, answer) = accept(&app, &token, body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(
            locs(&answer),
            vec![json!(["body", "first_name"]), json!(["body", "last_name"])]
        );
    }
    let (status, answer) = accept(&app, &token, json!({"first_name": "Sam"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(answer["detail"].as_array().unwrap().len(), 1);
    assert_eq!(answer["detail"][0]["loc"], json!(["body", "last_name"]));
    let (status, answer) = accept(
        &app,
        &token,
        json!({"first_name": "x".repeat(101), "last_name": "Ok"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["detail"][0]["loc"], json!(["body", "first_name"]));
    let (status, _) = invite_info(&app, &token).await;
    assert_eq!(status, StatusCode::OK, "a refused accept does not spend it");

    // Accept: the account, the membership with the invite's role, a session.
    let sam = json!({"first_name": " Sam ", "last_name": "Spade"});
    let accepted = accept_ok(&app, &token, sam).await;
    assert_eq!(accepted["success"], true);
    assert_eq!(accepted["team_id"], t);
    assert_eq!(accepted["team_name"], "Roofers");
    assert_eq!(accepted["expires_in"], 3600);
    let access = accepted["access_token"].as_str().unwrap().to_owned();
    let refresh = accepted["refresh_token"].as_str().unwrap();
    assert!(access.starts_with("lha_") && refresh.starts_with("lhr_"));
    let (status, me) = app.get("/api/auth/me", &access).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["email"], "sam@example.com");
    assert_eq!(me["first_name"], "Sam");
    assert_eq!(me["last_name"], "Spade");
    assert_eq!(me["is_admin"], false);
    assert!(me["user_id"].as_str().unwrap().starts_with("usr_"));
    let (status, team) = app.get(&format!("/api/teams/{t}"), &access).await;
    assert_eq!(status, StatusCode::OK, "{team}");
    assert_eq!(team["my_role"], "admin");
    assert_eq!(team["member_count"], 2);
    // As a team admin, Sam can manage invites at once.
    assert!(pending(&app, &access, t).await.is_empty());

    // Spent: 410 for reading and accepting.
    let (status, body) = accept(&app, &token, json!({"first_name": "Sam", "last_name": "S"})).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    let (status, _) = invite_info(&app, &token).await;
    assert_eq!(status, StatusCode::GONE);

    // An address that has an account: no names needed, and it signs that user in.
    let bob = app.user("Bob@Example.com").await;
    let created = invite(&app, &ada.key, t, "bob@example.com", None).await;
    let (status, accepted) = accept(
        &app,
        &token_of(created["mailed_url"].as_str().unwrap()),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    let (_, me) = app
        .get("/api/auth/me", accepted["access_token"].as_str().unwrap())
        .await;
    assert_eq!(me["user_id"], bob.user.user_id.as_str());
    assert_eq!(
        me["first_name"], "Test",
        "the existing account is kept as it is"
    );
    let (_, team) = app.get(&format!("/api/teams/{t}"), &bob.key).await;
    assert_eq!(team["my_role"], "member");
}

async fn concurrent_accepts_give_one_success(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let t = create_team_id(&app, &ada.key, "Race").await;
    for round in 0..3 {
        let email = format!("racer{round}@example.com");
        let created = invite(&app, &ada.key, t, &email, None).await;
        let token = token_of(created["mailed_url"].as_str().unwrap());
        let body = json!({"first_name": "Race", "last_name": "Car"});
        let (a, b) = tokio::join!(
            accept(&app, &token, body.clone()),
            accept(&app, &token, body)
        );
        let mut statuses = [a.0.as_u16(), b.0.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 410], "round {round}: {} / {}", a.1, b.1);
        let list = members(&app, &ada.key, t).await;
        assert_eq!(
            list.iter()
                .filter(|m| m["user_email"] == email.as_str())
                .count(),
            1
        );
    }
    assert_eq!(members(&app, &ada.key, t).await.len(), 4);
}

async fn a_failed_email_keeps_the_invite(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let t = create_team_id(&app, &ada.key, "Quiet").await;
    app.mail.set_failing(Some("down"));
    let created = invite(&app, &ada.key, t, "sam@example.com", None).await;
    app.mail.set_failing(None);
    assert_eq!(created["email_sent"], false);
    assert!(created["mailed_url"].is_null());
    assert_eq!(pending(&app, &ada.key, t).await.len(), 1);
    // Inviting again mails a new link, which works.
    let again = invite(&app, &ada.key, t, "sam@example.com", None).await;
    assert_eq!(again["email_sent"], true);
    let token = token_of(again["mailed_url"].as_str().unwrap());
    let (status, _) = invite_info(&app, &token).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = accept(&app, &token, json!({"first_name": "Sam", "last_name": "S"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn an_inactive_team_keeps_reads_and_refuses_writes(app: TestApp) {
    let [ada, bob] = app.users(["ada", "bob"]).await;
    let t = team_of(&app, &ada, "Closing", &[(&bob, "admin")]).await;
    let lead = submit(&app, &ada.key, json!({"address": "1 Old St", "team_id": t})).await;
    let lead_id = lead["result_lead_id"].as_i64().unwrap();
    let early = invite(&app, &ada.key, t, "late@example.com", None).await;
    let early_token = token_of(early["mailed_url"].as_str().unwrap());

    let (status, team) = app.delete(&format!("/api/teams/{t}"), &ada.key).await;
    assert_eq!(status, StatusCode::OK, "{team}");
    assert_eq!(team["is_active"], false);
    assert_eq!(team["id"], t);

    // Reads still work.
    let (status, team) = app.get(&format!("/api/teams/{t}"), &bob.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(team["is_active"], false);
    assert_eq!(team["lead_count"], 1);
    assert_eq!(members(&app, &bob.key, t).await.len(), 2);
    let (status, _) = app.get(&format!("/api/v1/leads/{lead_id}"), &bob.key).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a deactivated team's leads stay visible"
    );
    let (_, mine) = app.get("/api/teams/me/memberships", &bob.key).await;
    assert_eq!(mine[0]["is_active"], false);
    let (_, list) = app.get("/api/teams", &bob.key).await;
    assert_eq!(list[0]["is_active"], false);

    // No new invites, members or leads.
    let (status, body) = post_invite(&app, &ada.key, t, json!({"email": "new@example.com"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body, json!({"detail": "Team is inactive"}));
    let (status, body) = accept(
        &app,
        &early_token,
        json!({"first_name": "Late", "last_name": "L"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body, json!({"detail": "Team is inactive"}));
    assert_eq!(members(&app, &ada.key, t).await.len(), 2, "nobody joined");
    for key in [&ada.key, &bob.key] {
        let (status, body) = app
            .post(SINGLE, key, json!({"address": "2 New St", "team_id": t}))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body, json!({"detail": "Team is inactive"}));
    }
    // Deactivating twice still returns the (inactive) team.
    let (status, team) = app.delete(&format!("/api/teams/{t}"), &ada.key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(team["is_active"], false);
}

// ---------------------------------------------------------------------------------------------
// 3. Membership takes effect on the very next request
// ---------------------------------------------------------------------------------------------

async fn a_removed_member_loses_access_at_once(app: TestApp) {
    let [ada, bob, cy] = app.users(["ada", "bob", "cy"]).await;
    let t = team_of(&app, &ada, "Crew", &[(&bob, "member")]).await;
    add_member(&app, &ada.key, t, &cy, "admin").await;
    let lead = submit(
        &app,
        &ada.key,
        json!({"address": "9 Secret Ln", "team_id": t}),
    )
    .await;
    let lead_path = format!("/api/v1/leads/{}", lead["result_lead_id"]);
    for user in [&bob, &cy] {
        assert_eq!(app.get(&lead_path, &user.key).await.0, StatusCode::OK);
        assert_eq!(crate::helpers::lead_total(&app, &user.key, "").await, 1);
    }

    // Bob is removed by the owner: the next request already sees it.
    remove_member(&app, &ada.key, t, &bob).await;
    let (status, body) = app.get(&format!("/api/teams/{t}"), &bob.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = app.get(&lead_path, &bob.key).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(crate::helpers::lead_total(&app, &bob.key, "").await, 0);
    let (_, list) = app.get("/api/teams", &bob.key).await;
    assert_eq!(list, json!([]));
    let (_, mine) = app.get("/api/teams/me/memberships", &bob.key).await;
    assert_eq!(mine, json!([]));
    let (status, _) = app
        .post(
            SINGLE,
            &bob.key,
            json!({"address": "1 Sneaky St", "team_id": t}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Cy (a team admin) leaves on their own.
    remove_member(&app, &cy.key, t, &cy).await;
    assert_eq!(
        app.get(&format!("/api/teams/{t}"), &cy.key).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.get(&lead_path, &cy.key).await.0, StatusCode::NOT_FOUND);
    let (_, team) = app.get(&format!("/api/teams/{t}"), &ada.key).await;
    assert_eq!(team["member_count"], 1);

    // A removed member can be invited again and is back at once.
    add_member(&app, &ada.key, t, &bob, "member").await;
    assert_eq!(app.get(&lead_path, &bob.key).await.0, StatusCode::OK);
}

// ---------------------------------------------------------------------------------------------
// 6. The invite e-mail through a real SMTP server and through the outbox folder.
//    SQLite only: these exercise the mail transports, not the database.
// ---------------------------------------------------------------------------------------------

const PUBLIC_URL: &str = "https://leads.example.test";

/// aiosmtpd on 127.0.0.1: writes each message it receives as NNNN.eml into `inbox`.
const SMTP_SINK: &str = r#"
import os, sys
from aiosmtpd.controller import Controller

port, inbox = int(sys.argv[1]), sys.argv[2]

class Handler:
    count = 0
    async def handle_DATA(self, server, session, envelope):
        Handler.count += 1
        name = "%04d.eml" % Handler.count
        data = envelope.original_content or envelope.content
        if isinstance(data, str):
            data = data.encode("utf-8")
        tmp = os.path.join(inbox, "." + name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, os.path.join(inbox, name))
        return "250 OK"

controller = Controller(Handler(), hostname="127.0.0.1", port=port)
controller.start()
print("READY", flush=True)
try:
    sys.stdin.read()
finally:
    controller.stop()
"#;

struct SmtpSink(Helper);

impl SmtpSink {
    /// None (with a notice) when aiosmtpd is not installed, unless `CI` is set: then it fails.
    fn start() -> Option<SmtpSink> {
        if !python_has("aiosmtpd", "invite flow over real SMTP") {
            return None;
        }
        let dir = scratch_dir("smtp");
        let inbox = dir.join("inbox");
        std::fs::create_dir_all(&inbox).unwrap();
        let port = free_port();
        let (child, line) = spawn_ready(
            &dir.join("sink.py"),
            SMTP_SINK,
            &[OsStr::new(&port.to_string()), inbox.as_os_str()],
        );
        let sink = SmtpSink(Helper::new(child, port, dir));
        assert_eq!(line, "READY", "aiosmtpd did not start");
        Some(sink)
    }

    fn inbox(&self) -> PathBuf {
        self.0.dir.join("inbox")
    }
}

/// The only complete `.eml` in `dir` (hidden temporary files ignored), waiting up to 10 s.
async fn only_eml(dir: &Path) -> Vec<u8> {
    for _ in 0..100 {
        let files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        let name = p.file_name().unwrap().to_string_lossy().into_owned();
                        name.ends_with(".eml") && !name.starts_with('.')
                    })
                    .collect()
            })
            .unwrap_or_default();
        match files.len() {
            0 => tokio::time::sleep(Duration::from_millis(100)).await,
            1 => return std::fs::read(&files[0]).unwrap(),
            n => panic!("{n} e-mails in {}, expected one", dir.display()),
        }
    }
    panic!("no e-mail arrived in {}", dir.display());
}

/// Undoes quoted-printable (soft breaks and `=XX`).
fn decode_qp(s: &str) -> String {
    let s = s.replace("=\r\n", "").replace("=\n", "");
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decodes every run of base64 lines (a base64 body part).
fn decode_base64_runs(s: &str) -> String {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let mut bits = 0u32;
        let mut n = 0;
        let mut bytes = Vec::new();
        for c in run.bytes().filter(|c| *c != b'=') {
            if let Some(v) = value(c) {
                bits = (bits << 6) | v;
                n += 6;
                if n >= 8 {
                    n -= 8;
                    bytes.push((bits >> n) as u8);
                    bits &= (1 << n) - 1;
                }
            }
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        out.push('\n');
        run.clear();
    };
    for line in s.lines() {
        let line = line.trim_end();
        let looks = line.len() >= 16
            && line
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
        if looks {
            run.push_str(line);
        } else if !run.is_empty() {
            flush(&mut run, &mut out);
        }
    }
    if !run.is_empty() {
        flush(&mut run, &mut out);
    }
    out
}

/// The invite link in an e-mail, whatever transfer encoding its parts use.
fn invite_url_in(eml: &[u8]) -> String {
    let raw = String::from_utf8_lossy(eml).into_owned();
    let prefix = format!("{PUBLIC_URL}/invite/");
    for text in [decode_qp(&raw), decode_base64_runs(&raw), raw.clone()] {
        if let Some(at) = text.find(&prefix) {
            let token: String = text[at + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            return format!("{prefix}{token}");
        }
    }
    panic!("no invite link in the e-mail:\n{raw}");
}

/// Invite over HTTP, read the e-mail the transport delivered into `folder`, follow its link.
async fn invite_flow_through(app: &TestApp, folder: &Path) {
    let ada = app.user("ada@example.com").await;
    let t = create_team_id(app, &ada.key, "Mail crew").await;
    let created = invite(app, &ada.key, t, "sam@example.com", Some("admin")).await;
    let eml = only_eml(folder).await;
    let raw = String::from_utf8_lossy(&eml);
    assert!(
        raw.contains("sam@example.com"),
        "addressed to the invitee:\n{raw}"
    );
    assert!(
        raw.contains("noreply@localhost"),
        "from the configured sender"
    );
    assert_eq!(created["email_sent"], true, "{created}");
    let url = invite_url_in(&eml);
    let token = token_of(&url);
    assert!(token.starts_with("lhi_"));
    let (status, info) = invite_info(app, &token).await;
    assert_eq!(status, StatusCode::OK, "{info}");
    assert_eq!(info["team_name"], "Mail crew");
    assert_eq!(info["email"], "sam@example.com");
    let (status, accepted) = accept(
        app,
        &token,
        json!({"first_name": "Sam", "last_name": "Spade"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    let (status, me) = app
        .get("/api/auth/me", accepted["access_token"].as_str().unwrap())
        .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["email"], "sam@example.com");
    let (_, team) = app
        .get(
            &format!("/api/teams/{t}"),
            accepted["access_token"].as_str().unwrap(),
        )
        .await;
    assert_eq!(team["my_role"], "admin");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A SQLite app whose e-mail goes out through `smtp_url` (None: `outbox` as .eml files), and
/// `invite_flow_through` it, the invitee's mail read from `inbox`; then `check` of the app.
fn sqlite_invite_flow(
    smtp_url: Option<&str>,
    outbox: &Path,
    inbox: &Path,
    check: impl FnOnce(&TestApp),
) {
    let db = TestDatabase::create(Backend::Sqlite).unwrap();
    let mailer = leadhub_mail::build(smtp_url, "leadhub <noreply@localhost>", outbox).unwrap();
    runtime().block_on(async {
        let app = TestApp::builder(db)
            .mailer(mailer)
            .env("LEADHUB_PUBLIC_URL", PUBLIC_URL)
            .build()
            .await;
        invite_flow_through(&app, inbox).await;
        check(&app);
    });
    let _ = std::fs::remove_dir_all(outbox);
}

/// SQLite only.
#[test]
fn sqlite_only_invite_flow_over_real_smtp() {
    let Some(sink) = SmtpSink::start() else {
        return;
    };
    let smtp_url = format!("smtp://127.0.0.1:{}", sink.0.port);
    let outbox = scratch_dir("unused_outbox");
    sqlite_invite_flow(Some(&smtp_url), &outbox, &sink.inbox(), |app| {
        assert!(app.mail.sent().is_empty(), "the memory mailer was not used");
    });
}

/// SQLite only.
#[test]
fn sqlite_only_invite_flow_through_the_outbox_folder() {
    let outbox = scratch_dir("outbox");
    sqlite_invite_flow(None, &outbox, &outbox, |_| {});
}

/// A team's lead count is its live leads, as the lead list and the dashboard count them: an
/// archived lead and one merged into another leave it (docs/merging-leads.md), in the API's
/// `lead_count` and on the teams list and team pages.
async fn team_lead_counts_leave_out_archived_and_merged_leads(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let t = team_id(&create_team(&app, &ada.key, "Counted").await);
    let mut leads = Vec::new();
    for n in 1..=5 {
        let lead = submit(
            &app,
            &ada.key,
            json!({"address": format!("{n} Count St"), "city": "Austin", "state": "TX", "team_id": t}),
        )
        .await;
        leads.push(lead["result_lead_id"].as_i64().unwrap());
    }
    for archived in &leads[..2] {
        let (status, body) = app
            .delete(&format!("/api/v1/leads/{archived}"), &ada.key)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{}/merge", leads[2]),
            &ada.key,
            json!({"into": leads[3]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (_, listed) = app.get("/api/v1/leads", &ada.key).await;
    assert_eq!(listed["total"], 2, "the lead list");
    let (_, team) = app.get(&format!("/api/teams/{t}"), &ada.key).await;
    assert_eq!(team["lead_count"], 2, "{team}");
    let (_, teams) = app.get("/api/teams", &ada.key).await;
    assert_eq!(teams[0]["lead_count"], 2, "{teams}");
    let mut b = crate::pages::sign_in(&app, "ada@example.com").await;
    for page in ["/teams".to_owned(), format!("/teams/{t}")] {
        let body = b.get(&page).await.body;
        assert!(body.contains("<span>2 leads</span>"), "{page}: {body}");
    }
}

backend_tests!(
    team_lead_counts_leave_out_archived_and_merged_leads,
    patches_name_unknown_members_and_refuse_empty_bodies,
    the_role_matrix,
    team_lists_creation_counts_and_memberships,
    invites_are_created_validated_and_replaced,
    the_public_invite_page_and_accepting,
    concurrent_accepts_give_one_success,
    a_failed_email_keeps_the_invite,
    an_inactive_team_keeps_reads_and_refuses_writes,
    a_removed_member_loses_access_at_once,
);
