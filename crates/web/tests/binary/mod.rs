//! The real `leadhub` binary against a fresh database of its own (SQLite file, or a PostgreSQL
//! database made for the test): for tests that kill it and start it again.
#![allow(dead_code)]

use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use leadhub_db::Database;

const BIN: &str = env!("CARGO_BIN_EXE_leadhub");

pub struct Env {
    /// Variables every command of this environment gets besides the defaults.
    vars: Vec<(String, String)>,
    dir: PathBuf,
    database_url: String,
    drop_pg: Option<(String, String)>,
}

impl Env {
    pub fn new(tag: &str, postgres: bool) -> Option<Env> {
        let dir = std::env::temp_dir().join(format!("leadhub-jobs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if !postgres {
            let database_url = format!("sqlite://{}", dir.join("leadhub.db").display());
            return Some(Env {
                vars: Vec::new(),
                dir,
                database_url,
                drop_pg: None,
            });
        }
        let Ok(admin) = std::env::var("TEST_DATABASE_URL") else {
            let _ = writeln!(
                std::io::stderr(),
                "\n*** PostgreSQL job-queue test SKIPPED: TEST_DATABASE_URL is not set ***\n"
            );
            return None;
        };
        let name = format!("lh_jobs_{tag}_{}", std::process::id());
        let mut conn = diesel::PgConnection::establish(&admin).unwrap();
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut conn)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .unwrap();
        let base = admin.rsplit_once('/').map(|(b, _)| b.to_owned()).unwrap();
        Some(Env {
            vars: Vec::new(),
            dir,
            database_url: format!("{base}/{name}"),
            drop_pg: Some((admin, name)),
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
        for (name, value) in &self.vars {
            c.env(name, value);
        }
        c
    }

    /// Adds a variable to every command of this environment.
    pub fn var(mut self, name: &str, value: &str) -> Env {
        self.vars.push((name.to_owned(), value.to_owned()));
        self
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
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = self
            .command()
            .env("LEADHUB_BIND", format!("127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        (Server(child), format!("http://127.0.0.1:{port}"))
    }

    /// The environment's own folder (removed with it).
    pub fn folder(&self) -> PathBuf {
        self.dir.clone()
    }

    pub fn db(&self) -> Database {
        Database::connect(&self.database_url, 2).unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some((admin, name)) = &self.drop_pg {
            if let Ok(mut conn) = diesel::PgConnection::establish(admin) {
                let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut conn);
            }
        }
    }
}

pub struct Server(Child);

impl Server {
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

/// A runtime for one test's async body.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}
