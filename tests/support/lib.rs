//! The `TestApp` harness: a whole leadhub server on 127.0.0.1, with a fresh database of its own
//! (a temporary SQLite file, or a new PostgreSQL database when `TEST_DATABASE_URL` is set).
#![allow(clippy::unwrap_used)]

pub mod bench;
mod database;
mod page_session;
pub mod python;
mod server;

pub use database::{Backend, TestDatabase};
pub use page_session::session_cookies;
pub use server::{TestApp, TestAppBuilder, TestUser};

/// Declares one async test case for each backend:
/// `sqlite::<name>` always, `postgres::<name>` when `TEST_DATABASE_URL` is set (else skipped, said once on stderr).
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    $crate::run(super::$name, $crate::Backend::Sqlite);
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    $crate::run(super::$name, $crate::Backend::Postgres);
                }
            )*
        }
    };
}

/// A port on 127.0.0.1 that was free a moment ago: nothing listens there until someone binds it
/// (a connection to it is refused).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs one case on a fresh runtime against a fresh app.
pub fn run<F, Fut>(case: F, backend: Backend)
where
    F: FnOnce(TestApp) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let Some(db) = TestDatabase::create(backend) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let app = TestApp::start(db).await;
        case(app).await;
    });
}
