//! The real `leadhub` binary in a temporary folder, on SQLite or on a fresh PostgreSQL
//! database, for the tests that start, kill and restart it.
#![allow(clippy::unwrap_used, dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use leadhub_db::Database;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_leadhub");

pub struct Env {
    pub dir: PathBuf,
    pub database_url: String,
    _postgres: Option<PgDatabase>,
    /// Added to every command (`var`).
    vars: Vec<(String, String)>,
}

/// A fresh, empty folder of this test process.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leadhub-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Env {
    pub fn new(tag: &str, postgres: bool) -> Option<Env> {
        // The backend is in the folder's name: a test run on both backends at once must not
        // have one remove the other's folder.
        let backend = if postgres { "postgres" } else { "sqlite" };
        let dir = temp_dir(&format!("bin-{tag}-{backend}"));
        if !postgres {
            let database_url = format!("sqlite://{}", dir.join("leadhub.db").display());
            return Some(Env {
                dir,
                database_url,
                _postgres: None,
                vars: Vec::new(),
            });
        }
        let postgres = PgDatabase::create(tag)?;
        Some(Env {
            dir,
            database_url: postgres.url.clone(),
            _postgres: Some(postgres),
            vars: Vec::new(),
        })
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env_clear()
            .env("DATABASE_URL", &self.database_url)
            .env("LEADHUB_DATA_DIR", &self.dir)
            .env("LEADHUB_GEOCODER", "none")
            .env("LEADHUB_WORKERS", "2")
            .env("LEADHUB_JOB_LEASE_SECS", "2")
            .env("LEADHUB_JOB_POLL_MS", "50")
            .env("RUST_LOG", "warn")
            .current_dir(&self.dir);
        c.envs(self.vars.iter().map(|(n, v)| (n, v)));
        c
    }

    /// Adds a variable to every command of this environment.
    pub fn var(mut self, name: &str, value: &str) -> Env {
        self.vars.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Adds these variables to every command of this environment.
    pub fn vars(self, vars: &[(&str, &str)]) -> Env {
        vars.iter()
            .fold(self, |env, (name, value)| env.var(name, value))
    }

    pub fn key(&self) -> String {
        let added = self
            .command()
            .args(["user", "add", "--email", "jobs@example.com"])
            .output()
            .unwrap();
        assert!(
            added.status.success(),
            "{}",
            String::from_utf8_lossy(&added.stderr)
        );
        let key = self
            .command()
            .args(["key", "create", "--email", "jobs@example.com"])
            .output()
            .unwrap();
        assert!(key.status.success());
        String::from_utf8(key.stdout).unwrap().trim().to_owned()
    }

    pub fn serve(&self) -> (Server, String) {
        serve(self.command())
    }

    pub fn db(&self) -> Database {
        Database::connect(&self.database_url, 2).unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts `command` as a server on a free port; it is killed when the `Server` drops.
pub fn serve(command: Command) -> (Server, String) {
    let (server, port) = serve_on_port(command);
    (server, format!("http://127.0.0.1:{port}"))
}

pub fn serve_on_port(mut command: Command) -> (Server, u16) {
    let port = free_port();
    let child = command
        .env("LEADHUB_BIND", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (Server(child), port)
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct Server(Child);

impl Server {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// SIGKILL: no shutdown hook, no graceful anything.
    pub fn kill(mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub async fn wait_up(client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.get(format!("{base}/healthz")).send().await.is_err() {
        assert!(Instant::now() < deadline, "server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A PostgreSQL database of its own, dropped afterwards; None (said on stderr) without
/// TEST_DATABASE_URL.
pub struct PgDatabase {
    admin_url: String,
    name: String,
    pub url: String,
}

impl PgDatabase {
    pub fn create(tag: &str) -> Option<PgDatabase> {
        use diesel::{Connection, PgConnection, RunQueryDsl};
        let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\n*** PostgreSQL test of the binary SKIPPED: TEST_DATABASE_URL is not set ***\n"
            );
            return None;
        };
        let name = format!("lh_bin_{tag}_{}", std::process::id());
        let mut admin = PgConnection::establish(&admin_url).unwrap();
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut admin)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .unwrap();
        let url = with_database(&admin_url, &name);
        Some(PgDatabase {
            admin_url,
            name,
            url,
        })
    }
}

/// `postgres://u@h:p/db?x` with another database name.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, String::new()), |(b, q)| (b, format!("?{q}")));
    let host = base.find("://").map_or(0, |i| i + 3);
    let path = base[host..].find('/').map_or(base.len(), |j| host + j);
    format!("{}/{name}{query}", &base[..path])
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        use diesel::{Connection, PgConnection, RunQueryDsl};
        if let Ok(mut admin) = PgConnection::establish(&self.admin_url) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .execute(&mut admin);
        }
    }
}

/// A runtime for one test's async body.
/// Runs `test` on a fresh `Env`: always on SQLite, on PostgreSQL when `TEST_DATABASE_URL` is set.
pub fn run_on<F: std::future::Future<Output = ()>>(
    tag: &str,
    postgres: bool,
    test: impl FnOnce(Env) -> F,
) {
    let env = Env::new(tag, postgres);
    assert!(postgres || env.is_some(), "SQLite needs no set-up");
    if let Some(env) = env {
        runtime().block_on(test(env));
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}
