//! A database per test, dropped afterwards.
use std::io::Write;
use std::path::PathBuf;
use std::sync::Once;

use diesel::{Connection, PgConnection, RunQueryDsl};
use rand::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub struct TestDatabase {
    pub url: String,
    pub backend: Backend,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(PathBuf),
    Postgres { admin_url: String, name: String },
}

fn random_name() -> String {
    let n: u64 = rand::rng().random();
    format!("lh_test_{n:016x}")
}

static SKIP_NOTICE: Once = Once::new();

impl TestDatabase {
    /// None (with a one-time notice on stderr that bypasses test capture) when the backend is unavailable.
    pub fn create(backend: Backend) -> Option<TestDatabase> {
        match backend {
            Backend::Sqlite => {
                let dir = std::env::temp_dir().join(random_name());
                std::fs::create_dir_all(&dir).unwrap();
                Some(TestDatabase {
                    url: format!("sqlite://{}", dir.join("leadhub.db").display()),
                    backend,
                    cleanup: Cleanup::Dir(dir),
                })
            }
            Backend::Postgres => {
                let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
                    SKIP_NOTICE.call_once(|| {
                        let _ = writeln!(
                            std::io::stderr(),
                            "\n*** PostgreSQL suite SKIPPED: TEST_DATABASE_URL is not set ***\n"
                        );
                    });
                    return None;
                };
                let name = random_name();
                let mut admin = PgConnection::establish(&admin_url)
                    .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but unreachable: {e}"));
                diesel::sql_query(format!("CREATE DATABASE {name}"))
                    .execute(&mut admin)
                    .unwrap();
                Some(TestDatabase {
                    url: replace_database(&admin_url, &name),
                    backend,
                    cleanup: Cleanup::Postgres { admin_url, name },
                })
            }
        }
    }
}

/// `postgres://u@h:p/db?x` with another database name.
fn replace_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let authority_end = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|start| base[start..].find('/').map(|j| start + j))
        .unwrap_or(base.len());
    format!("{}/{name}{query}", &base[..authority_end])
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        match &self.cleanup {
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Postgres { admin_url, name } => {
                if let Ok(mut admin) = PgConnection::establish(admin_url) {
                    let _ =
                        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                            .execute(&mut admin);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn database_name_is_replaced() {
        assert_eq!(
            super::replace_database("postgres://postgres@127.0.0.1:5432/test", "x"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            super::replace_database("postgres://h/test?sslmode=disable", "x"),
            "postgres://h/x?sslmode=disable"
        );
        assert_eq!(
            super::replace_database("postgres://h", "x"),
            "postgres://h/x"
        );
    }
}
