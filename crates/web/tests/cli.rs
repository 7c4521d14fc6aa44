//! The real `leadhub` binary: CLI output that scripts rely on, and clear start-up failures.
#![allow(clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_leadhub");

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leadhub-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn leadhub(dir: &PathBuf, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("LEADHUB_DATA_DIR", dir)
        .env("RUST_LOG", "warn")
        .current_dir(dir)
        .output()
        .unwrap()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let user_id = String::from_utf8(added.stdout).unwrap();
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
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let stdout = String::from_utf8(created.stdout).unwrap();
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

    let port = free_port();
    let server = Server(
        Command::new(BIN)
            .env_clear()
            .env("LEADHUB_DATA_DIR", &dir)
            .env("LEADHUB_BIND", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
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
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
                let request = format!(
                    "GET /api/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
                );
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
