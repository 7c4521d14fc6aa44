//! Shared by the db tests: a database of a test's own, on SQLite or PostgreSQL.
#![allow(dead_code)]
use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

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

    /// Removes the folder; every connection to the file must be closed first.
    pub fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
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

    /// Drops the schema; every connection to it must be closed first.
    pub fn remove(mut self) {
        self.admin
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name))
            .unwrap();
    }
}
