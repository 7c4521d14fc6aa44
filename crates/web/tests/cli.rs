//! The real `leadhub` binary: CLI output that scripts rely on, and clear start-up failures.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod binary;

use binary::{free_port, serve_on_port as serve, temp_dir, PgDatabase};

const BIN: &str = env!("CARGO_BIN_EXE_leadhub");

/// The binary with a clean environment, its data in `data`, run in `cwd`.
fn leadhub_command(data: &Path, cwd: &Path) -> Command {
    let mut command = Command::new(BIN);
    command
        .env_clear()
        .env("LEADHUB_DATA_DIR", data)
        .env("RUST_LOG", "warn")
        .current_dir(cwd);
    command
}

fn leadhub(dir: &Path, args: &[&str]) -> Output {
    leadhub_command(dir, dir).args(args).output().unwrap()
}

/// The stdout of a run that must have succeeded (its stderr shown when not).
fn stdout_of(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn user_add_and_key_create_give_a_working_key() {
    let dir = temp_dir("key");
    let added = leadhub(
        &dir,
        &[
            "user",
            "add",
            "--email",
            "Ops@Example.com",
            "--first-name",
            "Ops",
            "--admin",
        ],
    );
    let user_id = stdout_of(added);
    assert!(
        user_id.trim().starts_with("usr_") && user_id.trim().len() == 30,
        "{user_id}"
    );

    let created = leadhub(
        &dir,
        &[
            "key",
            "create",
            "--email",
            "ops@example.com",
            "--name",
            "deploy",
        ],
    );
    let stdout = stdout_of(created);
    assert_eq!(
        stdout.lines().count(),
        1,
        "the key alone on stdout: {stdout:?}"
    );
    let key = stdout.trim().to_owned();
    assert!(key.starts_with("lhk_"));

    let duplicate = leadhub(&dir, &["user", "add", "--email", "OPS@example.com"]);
    assert!(
        !duplicate.status.success(),
        "e-mail is unique case-insensitively"
    );
    let unknown = leadhub(&dir, &["key", "create", "--email", "nobody@example.com"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("User not found"));

    let (server, port) = serve(leadhub_command(&dir, &dir));
    let client = http::blocking_get_keys(port, &key);
    drop(server);
    let (status, body) = client;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"deploy\""), "{body}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tiny blocking HTTP GET, so this test needs no async runtime.
mod http {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    pub fn blocking_get_keys(port: u16, key: &str) -> (u16, String) {
        blocking_send(
            port,
            &format!(
                "GET /api/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
            ),
        )
    }

    /// POSTs a JSON body.
    pub fn blocking_post(port: u16, path: &str, body: &str) -> (u16, String) {
        blocking_send(
            port,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    }

    /// Sends `request` once the server listens (within 30 s); returns the status and body.
    fn blocking_send(port: u16, request: &str) -> (u16, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
                stream.write_all(request.as_bytes()).unwrap();
                let mut response = String::new();
                stream.read_to_string(&mut response).unwrap();
                let status = response[9..12].parse().unwrap();
                let body = response
                    .split("\r\n\r\n")
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                return (status, body);
            }
            assert!(Instant::now() < deadline, "server did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// What a fresh start on SQLite creates is its user's only: the data folder, the database with
/// its -wal and -shm files, the outbox with its messages (sign-in links), the import reports.
#[cfg(unix)]
#[test]
fn a_fresh_start_creates_private_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("private");
    let data = dir.join("data");
    let leadhub_in = |args: &[&str]| {
        let output = leadhub_command(&data, &dir)
            .args(args)
            .env("LEADHUB_GEOCODER", "none")
            .output()
            .unwrap();
        stdout_of(output);
    };
    leadhub_in(&["user", "add", "--email", "ops@example.com", "--admin"]);
    std::fs::write(
        dir.join("leads.csv"),
        "address,city,state,zip_code\n1 Main St,Austin,XX,78701\n",
    )
    .unwrap();
    leadhub_in(&["import", "leads", "leads.csv"]);

    let mut command = leadhub_command(&data, &dir);
    command.env("LEADHUB_GEOCODER", "none");
    let (server, port) = serve(command);
    let (status, body) = http::blocking_post(
        port,
        "/api/auth/magic-link",
        r#"{"email": "ops@example.com"}"#,
    );
    assert_eq!(status, 202, "{body}");
    let outbox = data.join("outbox");
    // The outbox writes each message under a hidden temporary name and then renames it: only
    // the finished files count (listing the temporary one raced with its rename).
    let files_in = |folder: &PathBuf| -> Vec<PathBuf> {
        std::fs::read_dir(folder)
            .map(|entries| entries.map(|e| e.unwrap().path()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while files_in(&outbox).is_empty() {
        assert!(Instant::now() < deadline, "no e-mail in {outbox:?}");
        std::thread::sleep(Duration::from_millis(50));
    }

    let mode = |path: &PathBuf| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let mut expected = vec![
        (data.clone(), 0o700),
        (data.join("leadhub.db"), 0o600),
        // The server holds connections open, so SQLite's side files exist now.
        (data.join("leadhub.db-wal"), 0o600),
        (data.join("leadhub.db-shm"), 0o600),
        (outbox.clone(), 0o700),
        (data.join("reports"), 0o700),
    ];
    let messages = files_in(&outbox);
    let reports = files_in(&data.join("reports"));
    assert_eq!(reports.len(), 1, "{reports:?}");
    expected.extend(messages.into_iter().chain(reports).map(|f| (f, 0o600)));
    let wrong: Vec<String> = expected
        .iter()
        .filter(|(path, want)| mode(path) != *want)
        .map(|(path, want)| format!("{}: {:o}, not {want:o}", path.display(), mode(path)))
        .collect();
    drop(server);
    assert!(wrong.is_empty(), "{wrong:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_database_scheme_is_a_one_line_error() {
    let dir = temp_dir("scheme");
    let output = Command::new(BIN)
        .args(["migrate"])
        .env_clear()
        .env("DATABASE_URL", "mysql://localhost/x")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("DATABASE_URL"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_value_stops_the_start_naming_the_variable() {
    let dir = temp_dir("bounds");
    for (name, value) in [
        ("LEADHUB_WEBHOOK_RETRY_SCALE", "1e15"),
        ("LEADHUB_BODY_LIMIT", "0"),
        ("LEADHUB_JOB_LEASE_SECS", "0"),
        ("LEADHUB_JOB_POLL_MS", "0"),
        // Words that were read as something else: a log filter, a switch, a geocoder list.
        ("RUST_LOG", "foo=bar=baz["),
        ("LEADHUB_WEBHOOK_ALLOW_HTTP", "yes"),
        ("LEADHUB_GEOCODER", ","),
    ] {
        let output = leadhub_command(&dir.join("data"), &dir)
            .arg("serve")
            .env(name, value)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{name}={value}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("leadhub: configuration error: {name}: ")),
            "{stderr}"
        );
    }
    assert!(
        !dir.join("data").exists(),
        "nothing made before the refusal"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreachable_database_fails_fast() {
    let dir = temp_dir("unreachable");
    // A port nothing listens on: the refusal must come back as an error within seconds.
    let port = free_port();
    let started = Instant::now();
    let output = Command::new(BIN)
        .args(["serve"])
        .env_clear()
        .env(
            "DATABASE_URL",
            format!("postgres://nobody@127.0.0.1:{port}/none"),
        )
        .env("RUST_LOG", "off")
        .env("LEADHUB_BIND", format!("127.0.0.1:{}", free_port()))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(started.elapsed() < Duration::from_secs(15));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("cannot open the database"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_busy_port_fails_first_and_touches_nothing() {
    let dir = temp_dir("busy");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let data = dir.join("data");
    let started = Instant::now();
    let output = leadhub_command(&data, &dir)
        .arg("serve")
        .env("LEADHUB_BIND", &address)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(started.elapsed() < Duration::from_secs(5));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&address) && stderr.contains("LEADHUB_BIND"),
        "{stderr}"
    );
    // No database made, no data folder even.
    assert!(!data.exists(), "{:?}", std::fs::read_dir(&data).ok());
    drop(taken);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn commands_log_warnings_only_unless_asked_and_never_in_colour() {
    let dir = temp_dir("quiet");
    let run = |log: Option<&str>, email: &str| {
        let mut command = leadhub_command(&dir, &dir);
        command.env_remove("RUST_LOG");
        if let Some(filter) = log {
            command.env("RUST_LOG", filter);
        }
        command
            .args(["user", "add", "--email", email])
            .output()
            .unwrap()
    };
    let quiet = run(None, "a@example.com");
    assert!(quiet.status.success());
    let stderr = String::from_utf8(quiet.stderr).unwrap();
    assert!(!stderr.contains("INFO"), "{stderr}");
    // Asked for: INFO lines, and no escape codes on a pipe.
    let asked = run(Some("info"), "b@example.com");
    let stderr = String::from_utf8(asked.stderr).unwrap();
    assert!(stderr.contains("INFO"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");

    let dead = leadhub(&dir, &["jobs", "dead"]);
    assert!(dead.status.success());
    assert!(dead.stdout.is_empty());
    assert_eq!(
        String::from_utf8(dead.stderr).unwrap().trim(),
        "no dead jobs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every short command on PostgreSQL exits 0, run after run: none may die at exit (a pool
/// thread still inside libpq while the exit handlers free OpenSSL was a SIGSEGV in about one
/// run in ten).
#[test]
fn postgres_commands_exit_cleanly_every_time() {
    const RUNS: usize = 50;
    let Some(db) = PgDatabase::create("exit") else {
        return;
    };
    let dir = temp_dir("pg-exit");
    std::fs::write(
        dir.join("leads.csv"),
        "address,city,state,zip_code,first_name\n1 Main St,Austin,TX,78701,Ann\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        leadhub_command(&dir.join("data"), &dir)
            .args(args)
            .env("DATABASE_URL", &db.url)
            .env("LEADHUB_GEOCODER", "none")
            .output()
            .unwrap()
    };
    let mut failures = Vec::new();
    let mut check = |what: &str, i: usize, output: Output| {
        if output.status.code() != Some(0) {
            failures.push(format!(
                "{what} run {i}: {} {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    };
    for i in 0..RUNS {
        check("migrate", i, run(&["migrate"]));
    }
    for i in 0..RUNS {
        let email = format!("ops{i}@example.com");
        check(
            "user add",
            i,
            run(&["user", "add", "--email", &email, "--admin"]),
        );
    }
    for i in 0..RUNS {
        let email = format!("ops{i}@example.com");
        check("key create", i, run(&["key", "create", "--email", &email]));
    }
    for i in 0..RUNS {
        check("jobs dead", i, run(&["jobs", "dead"]));
    }
    for i in 0..RUNS {
        check("jobs requeue", i, run(&["jobs", "requeue", "--all"]));
    }
    for i in 0..RUNS {
        check("import leads", i, run(&["import", "leads", "leads.csv"]));
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs did not exit 0:\n{}",
        failures.len(),
        6 * RUNS,
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
