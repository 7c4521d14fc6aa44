//! Shared by the PostgreSQL cases of the db tests.
use diesel::connection::SimpleConnection;
use diesel::prelude::*;

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
