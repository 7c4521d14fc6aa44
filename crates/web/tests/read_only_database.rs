//! A database the service cannot write stops `leadhub serve` and the commands at once, with one
//! line naming the file (or the PostgreSQL database) and the problem (docs/operations.md).
//!
//! Permission bits do not stop root, so when the tests run as root the binary runs as `nobody`
//! (uid and gid 65534) over files chowned to it, which is how an operator meets the fault: the
//! service's own user cannot write. PostgreSQL: a database set `default_transaction_read_only`,
//! what a standby also answers.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod binary;

use binary::{free_port, Env};

/// The user the binary runs as when the tests run as root.
const NOBODY: u32 = 65534;

fn running_as_root() -> bool {
    // The owner of a file this process just made is its effective user.
    let probe = binary::temp_dir("whoami");
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&probe).unwrap());
    let _ = std::fs::remove_dir_all(&probe);
    uid == 0
}

/// `env`'s command, as `nobody` when the tests run as root, its folder and files owned by it.
fn as_service_user(env: &Env, root: bool) -> Command {
    let mut command = env.command();
    if root {
        chown_all(&env.dir);
        command.uid(NOBODY).gid(NOBODY);
    }
    command
}

fn chown_all(path: &Path) {
    std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)).unwrap();
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_all(&entry.unwrap().path());
        }
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs `args` (`serve` on a free port); returns its output and how long it took. A run still
/// going after 20 s (a server that started on the database after all) is killed.
fn run(mut command: Command, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = command
        .args(args)
        .env("LEADHUB_BIND", format!("127.0.0.1:{}", free_port()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    (output, started.elapsed())
}

/// The one line of stderr of a run that must have failed fast.
fn refusal(output: &Output, took: Duration) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // The requirement is under a second; the bound leaves room for a loaded machine, and is far
    // below the 10 s the pool spent retrying before.
    assert!(took < Duration::from_secs(5), "{took:?}: {stderr}");
    eprintln!("refused in {took:?}: {}", stderr.trim());
    stderr.trim().to_owned()
}

/// A migrated SQLite database in `env`, as the service's user left it.
fn migrated(env: &Env, root: bool) -> String {
    let (output, _) = run(as_service_user(env, root), &["migrate"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    env.database_url.trim_start_matches("sqlite://").to_owned()
}

#[test]
fn a_read_only_sqlite_file_stops_the_start_with_one_line() {
    let root = running_as_root();
    let env = Env::new("ro-file", false).unwrap();
    let file = migrated(&env, root);
    chmod(Path::new(&file), 0o400);
    for args in [&["serve"][..], &["user", "add", "--email", "a@example.com"]] {
        let (output, took) = run(as_service_user(&env, root), args);
        let line = refusal(&output, took);
        assert_eq!(
            line,
            format!(
                "leadhub: cannot write the database {file}: the file is read-only for this user (permission denied)"
            ),
            "{args:?}"
        );
    }
    // The file writable again, the -shm file SQLite made meanwhile (with the file's mode) is
    // the next to name; with both writable it starts.
    chmod(Path::new(&file), 0o600);
    let (output, took) = run(as_service_user(&env, root), &["serve"]);
    assert_eq!(
        refusal(&output, took),
        format!(
            "leadhub: cannot write the database {file}: its -shm file {file}-shm is read-only for this user (permission denied)"
        )
    );
    chmod(Path::new(&format!("{file}-shm")), 0o600);
    let (output, _) = run(
        as_service_user(&env, root),
        &["user", "add", "--email", "a@example.com"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn an_unwritable_folder_stops_the_start_with_one_line() {
    let root = running_as_root();
    let env = Env::new("ro-folder", false).unwrap();
    let file = migrated(&env, root);
    // A clean stop removed the -wal and -shm files; SQLite has to make them again, in the folder.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{file}{suffix}"));
    }
    chmod(&env.dir, 0o500);
    let (output, took) = run(as_service_user(&env, root), &["serve"]);
    chmod(&env.dir, 0o700);
    let line = refusal(&output, took);
    assert_eq!(
        line,
        format!(
            "leadhub: cannot write the database {file}: its folder {} is read-only for this user (permission denied); SQLite creates the -wal and -shm files there",
            env.dir.display()
        )
    );
}

#[test]
fn a_read_only_postgres_database_stops_the_start_with_one_line() {
    let Some(env) = Env::new("readonly", true) else {
        return;
    };
    let (output, _) = run(env.command(), &["migrate"]);
    assert!(output.status.success());
    let name = env.database_url.rsplit('/').next().unwrap().to_owned();
    let name = name.split('?').next().unwrap().to_owned();
    {
        use diesel::{Connection, PgConnection, RunQueryDsl};
        let mut conn = PgConnection::establish(&env.database_url).unwrap();
        diesel::sql_query(format!(
            "ALTER DATABASE {name} SET default_transaction_read_only = on"
        ))
        .execute(&mut conn)
        .unwrap();
    }
    let (output, took) = run(env.command(), &["serve"]);
    let line = refusal(&output, took);
    assert!(
        line.starts_with("leadhub: cannot write the database ")
            && line.contains(&format!("/{name}: the database accepts no writes ("))
            && line.contains("read-only transaction"),
        "{line}"
    );
}

/// Takes the immutable flag off again, whatever the test did.
struct Immutable(String);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").args(["-i", &self.0]).status();
    }
}

#[test]
fn an_immutable_file_stops_even_root() {
    // As root only (`chattr +i` needs CAP_LINUX_IMMUTABLE), on a file system that has the flag.
    if !running_as_root() {
        return;
    }
    let env = Env::new("immutable", false).unwrap();
    let file = migrated(&env, false);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{file}{suffix}"));
    }
    let set = Command::new("chattr").args(["+i", &file]).status();
    if !set.is_ok_and(|s| s.success()) {
        eprintln!("chattr +i not available here: the immutable file is not tested");
        return;
    }
    let _undo = Immutable(file.clone());
    let (output, took) = run(env.command(), &["serve"]);
    assert_eq!(
        refusal(&output, took),
        format!(
            "leadhub: cannot write the database {file}: the file cannot be changed (operation not permitted: immutable?)"
        )
    );
}

/// A PostgreSQL database that goes away while the server runs (dropped here; a server down or a
/// network cut alike) answers 503 with `Retry-After` and a detail saying so, not a 500, once the
/// pool's wait for a connection is over (docs/operations.md).
#[test]
fn a_database_gone_while_serving_answers_503() {
    use diesel::{Connection, RunQueryDsl};
    let Some(env) = Env::new("gone", true) else {
        return;
    };
    let key = env.key();
    let mut command = env.command();
    command.env("LEADHUB_WORKERS", "0");
    let (server, base) = binary::serve(command);
    binary::runtime().block_on(async {
        let client = reqwest::Client::new();
        binary::wait_up(&client, &base).await;
        let name = env.database_url.rsplit('/').next().unwrap();
        let name = name.split('?').next().unwrap();
        let admin = std::env::var("TEST_DATABASE_URL").unwrap();
        let mut conn = diesel::PgConnection::establish(&admin).unwrap();
        diesel::sql_query(format!("DROP DATABASE {name} WITH (FORCE)"))
            .execute(&mut conn)
            .unwrap();
        let answer = client
            .get(format!("{base}/api/v1/leads"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), 503);
        assert_eq!(answer.headers()["retry-after"], "10");
        let body: serde_json::Value = answer.json().await.unwrap();
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("The service cannot reach its database right now"),
            "{body}"
        );
        // Readiness says so within an orchestrator's usual 1 s check, not after the pool's 10 s.
        let asked = std::time::Instant::now();
        let ready = client.get(format!("{base}/readyz")).send().await.unwrap();
        assert_eq!(ready.status().as_u16(), 503);
        let waited = asked.elapsed();
        assert!(waited < std::time::Duration::from_secs(3), "{waited:?}");
    });
    drop(server);
}

/// A data folder that is a file (`LEADHUB_DATA_DIR` naming one) stops the start with one line
/// saying so, not the OS's "File exists", which reads as if all were well.
#[test]
fn a_data_folder_that_is_a_file_stops_the_start_with_one_line() {
    let env = Env::new("data-file", false).unwrap();
    let file = env.dir.join("not-a-folder");
    std::fs::write(&file, "").unwrap();
    let mut command = env.command();
    command
        .env_remove("DATABASE_URL")
        .env("LEADHUB_DATA_DIR", &file);
    let (output, took) = run(command, &["serve"]);
    let line = refusal(&output, took);
    assert_eq!(
        line,
        format!(
            "leadhub: cannot open the database: cannot create the folder {}: a file is in the way (is the data folder, LEADHUB_DATA_DIR, a file?)",
            file.display()
        )
    );
}
