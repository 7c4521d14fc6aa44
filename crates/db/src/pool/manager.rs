//! The pool's connection manager. diesel's `ConnectionManager` opens a `MultiConnection` by trying
//! each backend in turn and, when all fail, reports "Invalid connection url for multiconnection",
//! dropping the server's own words: while PostgreSQL restarted, that line was all the log said.
//! This one opens the backend the URL named and says what went wrong, once per episode: the first
//! failure (host and error) at ERROR, the recovery at WARN, nothing for the attempts in between.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use diesel::pg::PgConnection;
use diesel::r2d2::{Error, HandleError, ManageConnection, R2D2Connection};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, ConnectionResult};

use crate::pool::connection::{one_line, Backend, DbConnection};

#[derive(Debug)]
pub(crate) struct DbManager {
    backend: Backend,
    target: String,
    /// Where the database is, for the log: `host:port/name` or the SQLite file; no password.
    place: String,
    unreachable: AtomicBool,
}

impl DbManager {
    pub(crate) fn new(backend: Backend, target: String) -> DbManager {
        DbManager {
            place: place_of(backend, &target),
            backend,
            target,
            unreachable: AtomicBool::default(),
        }
    }
}

/// Opens a connection to the backend `target` names (a file, or a server URL).
pub(crate) fn establish(backend: Backend, target: &str) -> ConnectionResult<DbConnection> {
    match backend {
        Backend::Sqlite => SqliteConnection::establish(target).map(DbConnection::Sqlite),
        Backend::Postgres => PgConnection::establish(target).map(DbConnection::Postgres),
    }
}

impl ManageConnection for DbManager {
    type Connection = DbConnection;
    type Error = Error;

    fn connect(&self) -> Result<DbConnection, Error> {
        match establish(self.backend, &self.target) {
            Ok(conn) => {
                if self.unreachable.swap(false, Ordering::Relaxed) {
                    tracing::warn!(database = %self.place, "database reachable again");
                }
                Ok(conn)
            }
            Err(e) => {
                if !self.unreachable.swap(true, Ordering::Relaxed) {
                    let error = one_line(&e.to_string());
                    tracing::error!(database = %self.place, %error, "database cannot be reached; retrying quietly until it can");
                }
                Err(Error::ConnectionError(e))
            }
        }
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), Error> {
        conn.ping().map_err(Error::QueryError)
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        std::thread::panicking() || conn.is_broken()
    }
}

/// r2d2's default handler logs every failed attempt; connection failures are logged by the
/// manager, once per episode.
#[derive(Debug, Default)]
pub(crate) struct QueryErrorsOnly {
    /// When the last line was written (seconds of the process's clock).
    last_said: AtomicU64,
}

/// Connections failing their check together (the server closed them all) are one line.
const QUIET_FOR: Duration = Duration::from_secs(10);

impl HandleError<Error> for QueryErrorsOnly {
    fn handle_error(&self, error: Error) {
        if let Error::QueryError(e) = error {
            // A pooled connection the server closed (a restart, `pg_terminate_backend`) fails its
            // check and is replaced: worth a line, not an alarm. libpq's text spans lines.
            let error = one_line(&e.to_string());
            let now = started().elapsed().as_secs() + QUIET_FOR.as_secs();
            let last = self.last_said.load(Ordering::Relaxed);
            if now >= last + QUIET_FOR.as_secs()
                && self
                    .last_said
                    .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                tracing::warn!(%error, "database connections failed their check or set-up; others are opened (said once in 10 s)");
            } else {
                tracing::debug!(%error, "a database connection failed its check or set-up");
            }
        }
    }
}

/// The process's clock for `QueryErrorsOnly`: its first use.
fn started() -> Instant {
    static STARTED: OnceLock<Instant> = OnceLock::new();
    *STARTED.get_or_init(Instant::now)
}

/// `host:port/dbname` of a PostgreSQL URL (user and password left out), or the SQLite path.
pub(crate) fn place_of(backend: Backend, target: &str) -> String {
    match backend {
        Backend::Sqlite => target.to_owned(),
        Backend::Postgres => {
            let rest = target.split_once("://").map_or(target, |(_, r)| r);
            let rest = rest.split('?').next().unwrap_or(rest);
            rest.rsplit_once('@').map_or(rest, |(_, r)| r).to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_names_host_and_database_never_the_password() {
        assert_eq!(
            place_of(
                Backend::Postgres,
                "postgres://app:s3cret@db.internal:5433/leads?connect_timeout=5"
            ),
            "db.internal:5433/leads"
        );
        assert_eq!(
            place_of(Backend::Postgres, "postgres://127.0.0.1/test"),
            "127.0.0.1/test"
        );
    }

    #[test]
    fn an_unreachable_server_is_named_with_its_own_error() {
        let manager = DbManager::new(
            Backend::Postgres,
            "postgres://u:p@127.0.0.1:9/none?connect_timeout=2".to_owned(),
        );
        let Err(Error::ConnectionError(e)) = manager.connect() else {
            panic!("nothing listens on port 9");
        };
        assert!(!e.to_string().contains("multiconnection"), "{e}");
        assert!(manager.unreachable.load(Ordering::Relaxed));
    }
}
