//! Shared by the db tests: a database of a test's own, on SQLite or PostgreSQL.
#![allow(dead_code)]
pub mod schema;

use std::io::Write;
use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use leadhub_db::Database;

/// The migrated database at `url`, with `connections` connections.
pub fn migrated(url: &str, connections: u32) -> Database {
    let db = Database::connect(url, connections).unwrap();
    db.migrate().unwrap();
    db
}

/// A fresh SQLite database file of a test's own, in a folder of its own.
pub struct OwnFile {
    dir: PathBuf,
    pub path: PathBuf,
}

impl OwnFile {
    pub fn create(prefix: &str) -> OwnFile {
        let dir = std::env::temp_dir().join(format!("leadhub-{prefix}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("db.sqlite");
        let _ = std::fs::remove_file(&path);
        OwnFile { dir, path }
    }

    pub fn url(&self) -> String {
        format!("sqlite://{}", self.path.display())
    }

    /// A plain diesel connection to the file, without the service's pool or pragmas.
    pub fn connect(&self) -> SqliteConnection {
        SqliteConnection::establish(&self.path.display().to_string()).unwrap()
    }

    /// Removes the folder; every connection to the file must be closed first.
    pub fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    /// `test` on a plain connection to a fresh file of its own (`prefix` names its folder); the
    /// connection is closed and the file removed before its answer is returned.
    pub fn with_connection<T>(prefix: &str, test: impl FnOnce(&mut SqliteConnection) -> T) -> T {
        let file = OwnFile::create(prefix);
        let mut conn = file.connect();
        let answer = test(&mut conn);
        drop(conn);
        file.remove();
        answer
    }
}

/// A fresh PostgreSQL schema of a test's own, so that it shares nothing with other tests.
pub struct OwnSchema {
    admin: PgConnection,
    name: String,
    /// `TEST_DATABASE_URL` with this schema as the search path.
    pub url: String,
}

impl OwnSchema {
    /// A schema of its own on `TEST_DATABASE_URL`; None when that is not set, said on stderr
    /// (`what` names what is skipped).
    pub fn on_test_database(prefix: &str, what: &str) -> Option<OwnSchema> {
        let Ok(pg_url) = std::env::var("TEST_DATABASE_URL") else {
            // Straight to stderr: the harness keeps a passing test's `eprintln!` to itself.
            let _ = writeln!(
                std::io::stderr(),
                "\n*** {what} SKIPPED: TEST_DATABASE_URL is not set ***\n"
            );
            return None;
        };
        Some(OwnSchema::create(&pg_url, prefix))
    }

    pub fn create(pg_url: &str, prefix: &str) -> OwnSchema {
        let name = format!("{prefix}_{}", std::process::id());
        let mut admin = PgConnection::establish(pg_url).unwrap();
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
            ))
            .unwrap();
        let sep = if pg_url.contains('?') { '&' } else { '?' };
        let url = format!("{pg_url}{sep}options=-csearch_path%3D{name}");
        OwnSchema { admin, name, url }
    }

    /// The schema's name, which PostgreSQL's catalog writes into the functions it shows.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Drops the schema; every connection to it must be closed first.
    pub fn remove(mut self) {
        self.admin
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name))
            .unwrap();
    }

    /// `test` on a plain connection to a fresh schema of its own on `TEST_DATABASE_URL` (given
    /// the schema too); the connection is closed and the schema dropped before its answer is
    /// returned. None when that is not set, as `on_test_database` says.
    pub fn with_connection<T>(
        prefix: &str,
        what: &str,
        test: impl FnOnce(&mut PgConnection, &OwnSchema) -> T,
    ) -> Option<T> {
        let own = OwnSchema::on_test_database(prefix, what)?;
        let mut conn = PgConnection::establish(&own.url).unwrap();
        let answer = test(&mut conn, &own);
        drop(conn);
        own.remove();
        Some(answer)
    }
}
