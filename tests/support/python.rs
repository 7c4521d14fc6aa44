//! The Python helper processes the tests talk to: the webhook receiver (verifying signatures
//! with the `standardwebhooks` library) and the scripts started through `spawn_ready`.
//! Shared by this crate and crates/web/tests (included there with `#[path]`).
#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const RECEIVER: &str = include_str!("../api/webhook_receiver.py");

/// The settings that let the app deliver webhooks to a receiver on 127.0.0.1 over plain HTTP.
pub const LOCAL_WEBHOOKS: [(&str, &str); 2] = [
    ("LEADHUB_WEBHOOK_ALLOW_HTTP", "1"),
    ("LEADHUB_WEBHOOK_ALLOW_PRIVATE", "1"),
];

/// Whether python3 can import `module`. When not: a notice that `what` is skipped, or, with `CI`
/// set, a failure (CI installs scripts/requirements-test.txt).
pub fn python_has(module: &str, what: &str) -> bool {
    let available = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but python3 with {module} is not available (scripts/requirements-test.txt)"
        );
        // Straight to stderr: the test harness keeps `eprintln!` of a passing test to itself.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\n*** {what} SKIPPED: python3 -c 'import {module}' failed ***"
        );
    }
    available
}

/// A fresh, empty folder under the system's temporary folder.
pub fn scratch_dir(what: &str) -> PathBuf {
    let n: u64 = rand::random();
    let dir = std::env::temp_dir().join(format!("lh_{what}_{n:016x}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `source` to `script`, runs it with `args` and returns the child with the first line it
/// printed (its ready signal); its stdin stays open so a script may exit when it closes.
pub fn spawn_ready<A: AsRef<OsStr>>(script: &Path, source: &str, args: &[A]) -> (Child, String) {
    std::fs::write(script, source).unwrap();
    let mut child = Command::new("python3")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line.trim().to_owned())
}

/// A helper process started by `spawn_ready`, listening on `port`, and its scratch folder:
/// dropping it kills the process and removes the folder.
pub struct Helper {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

impl Helper {
    pub fn new(child: Child, port: u16, dir: PathBuf) -> Helper {
        Helper { child, port, dir }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The receiver process; its folder holds the secrets its endpoints are verified with.
pub struct Receiver(Helper);

impl Receiver {
    /// None (with a notice) without python3 and standardwebhooks, unless `CI` is set: then it fails.
    pub fn start() -> Option<Receiver> {
        if !python_has("standardwebhooks", "webhook deliveries") {
            return None;
        }
        let dir = scratch_dir("hooks");
        let (child, line) = spawn_ready(&dir.join("receiver.py"), RECEIVER, &[&dir]);
        let port = line.strip_prefix("READY ").unwrap().parse().unwrap();
        Some(Receiver(Helper::new(child, port, dir)))
    }

    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.0.port)
    }

    /// Makes `secret` the one the receiver verifies `name`'s deliveries with.
    pub fn trust(&self, name: &str, secret: &str) {
        std::fs::write(self.0.dir.join(format!("{name}.secret")), secret).unwrap();
    }

    /// Every delivery received so far.
    pub async fn log(&self) -> Vec<Value> {
        let url = format!("http://127.0.0.1:{}/_log", self.0.port);
        reqwest::get(url).await.unwrap().json().await.unwrap()
    }

    /// The log once `done` holds of it, waiting up to `within`.
    pub async fn wait_for(&self, within: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let log = self.log().await;
            if done(&log) {
                return log;
            }
            assert!(
                start.elapsed() < within,
                "receiver log after {within:?}: {log:#?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
