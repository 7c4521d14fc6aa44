//! The operator's commands at 3 a.m. (`leadhub user list`, `user deactivate`, `key list`,
//! `key revoke`, `team list`), run as the real binary on SQLite and on PostgreSQL: aligned text
//! on stdout, what was done or refused on stderr, and the effect on the keys.
#![allow(clippy::unwrap_used)]

use std::process::Output;

use leadhub_domain::team::TeamRepository;
use leadhub_domain::user::UserRepository;

mod binary;

use binary::Env;

fn run(env: &Env, args: &[&str]) -> Output {
    env.command().args(args).output().unwrap()
}

fn ok(env: &Env, args: &[&str]) -> (String, String) {
    let out = run(env, args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// The one-line refusal of a command that must fail.
fn refused(env: &Env, args: &[&str]) -> String {
    let out = run(env, args);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap().trim().to_owned()
}

/// Each header word starts every row's cell in the same column.
fn assert_aligned(table: &str, column: &str) {
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    let at = header.find(column).unwrap();
    for line in lines {
        let before = &line[..at];
        assert!(
            before.ends_with("  ") && !line[at..].starts_with(' '),
            "{column} not aligned:\n{table}"
        );
    }
}

fn cells(row: &str) -> Vec<&str> {
    row.split_whitespace().collect()
}

/// The row that mentions `what`.
fn row_of<'a>(table: &'a str, prefix: &str) -> &'a str {
    table.lines().find(|l| l.contains(prefix)).unwrap()
}

fn operator_commands(postgres: bool) {
    let Some(env) = Env::new("operator", postgres) else {
        return;
    };
    ok(
        &env,
        &["user", "add", "--email", "ann@example.com", "--admin"],
    );
    ok(
        &env,
        &[
            "user",
            "add",
            "--email",
            "bob@example.com",
            "--first-name",
            "Bob",
            "--last-name",
            "Builder",
        ],
    );
    let key = |name: &str| {
        let (out, _) = ok(
            &env,
            &[
                "key",
                "create",
                "--email",
                "bob@example.com",
                "--name",
                name,
            ],
        );
        out.trim().to_owned()
    };
    let (deploy, backup) = (key("deploy"), key("backup"));

    let (users, _) = ok(&env, &["user", "list"]);
    assert!(users.starts_with("USER_ID"), "{users}");
    assert_eq!(users.lines().count(), 3, "{users}");
    for column in ["EMAIL", "ROLE", "STATE", "KEYS", "NAME"] {
        assert_aligned(&users, column);
    }
    let bob = row_of(&users, "bob@example.com");
    assert_eq!(cells(bob)[2..6], ["user", "active", "0", "2"], "{bob}");
    assert!(bob.ends_with("Bob Builder"), "{bob}");
    assert_eq!(cells(row_of(&users, "ann@example.com"))[2], "admin");

    let (keys, _) = ok(&env, &["key", "list", "--email", "BOB@example.com"]);
    assert_eq!(keys.lines().count(), 3, "{keys}");
    assert_aligned(&keys, "PREFIX");
    let deploy_prefix: String = deploy.chars().take(12).collect();
    assert!(row_of(&keys, &deploy_prefix).contains("live"), "{keys}");
    assert!(!keys.contains(&deploy), "the key itself is never shown");

    // A prefix both keys share names neither; 12 characters name one; an unknown id none.
    let both = refused(&env, &["key", "revoke", "lhk_"]);
    assert!(both.contains("2 live keys have prefix"), "{both}");
    let (_, said) = ok(&env, &["key", "revoke", &deploy_prefix]);
    assert!(said.contains("revoked"), "{said}");
    assert_eq!(
        refused(&env, &["key", "revoke", "999999"]),
        "leadhub: no live key has id 999999"
    );
    let (keys, _) = ok(&env, &["key", "list", "--email", "bob@example.com"]);
    assert!(row_of(&keys, &deploy_prefix).contains("revoked"), "{keys}");

    // A team for `team list`, made as the API would.
    let db = env.db();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let bob_id = runtime.block_on(async {
        let ann = UserRepository::find_by_email(&db, "ann@example.com")
            .await
            .unwrap()
            .unwrap();
        db.create_team("Night Shift".into(), None, ann.id, chrono::Utc::now())
            .await
            .unwrap();
        let bob = UserRepository::find_by_email(&db, "bob@example.com")
            .await
            .unwrap()
            .unwrap();
        bob.id
    });

    let (_, said) = ok(&env, &["user", "deactivate", "--email", "Bob@Example.com"]);
    assert!(
        said.contains("bob@example.com deactivated; 1 key(s) revoked"),
        "{said}"
    );
    assert_eq!(
        refused(&env, &["user", "deactivate", "--email", "bob@example.com"]),
        "leadhub: bob@example.com is deactivated already"
    );
    assert_eq!(
        refused(
            &env,
            &["user", "deactivate", "--email", "nobody@example.com"]
        ),
        "leadhub: no account has nobody@example.com"
    );
    // A new key for the account is refused as deactivated, not as unknown.
    assert_eq!(
        refused(&env, &["key", "create", "--email", "Bob@example.com"]),
        "leadhub: bob@example.com is deactivated: it can no longer act (leadhub user list shows it)"
    );
    let (users, _) = ok(&env, &["user", "list"]);
    assert_eq!(
        cells(row_of(&users, "bob@example.com"))[3..6],
        ["deactivated", "0", "0"],
        "{users}"
    );
    let (keys, _) = ok(&env, &["key", "list", "--email", "bob@example.com"]);
    let backup_prefix: String = backup.chars().take(12).collect();
    assert!(row_of(&keys, &backup_prefix).contains("revoked"), "{keys}");
    // Authentication finds people through these lookups: a deactivated account is none of them.
    runtime.block_on(async {
        let db = env.db();
        assert!(UserRepository::find_by_email(&db, "bob@example.com")
            .await
            .unwrap()
            .is_none());
        assert!(UserRepository::find_by_internal_id(&db, bob_id)
            .await
            .unwrap()
            .is_none());
    });

    let (teams, _) = ok(&env, &["team", "list"]);
    assert!(teams.starts_with("ID"), "{teams}");
    let night = row_of(&teams, "Night Shift");
    assert_eq!(
        cells(night)[1..4],
        ["active", "1", "ann@example.com"],
        "{teams}"
    );
    assert_aligned(&teams, "CREATED_BY");

    // The revoked keys open nothing on the running service; a live key still does.
    let (live, _) = ok(&env, &["key", "create", "--email", "ann@example.com"]);
    let (_server, base) = env.serve();
    runtime.block_on(async {
        let client = reqwest::Client::new();
        binary::wait_up(&client, &base).await;
        for (key, status) in [(live.trim(), 200), (&deploy, 401), (&backup, 401)] {
            let answer = client
                .get(format!("{base}/api/keys"))
                .bearer_auth(key)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status().as_u16(), status, "{}", &key[..12]);
        }
    });
}

#[test]
fn operator_commands_on_sqlite() {
    operator_commands(false);
}

#[test]
fn operator_commands_on_postgres() {
    operator_commands(true);
}
