//! Connecting: the URL picks the backend, r2d2 pools connections, migrations are embedded.
use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::dsl::Limit;
use diesel::pg::PgConnection;
use diesel::query_builder::SelectQuery;
use diesel::query_dsl::methods::LimitDsl;
use diesel::query_dsl::LoadQuery;
use diesel::r2d2::{CustomizeConnection, Pool};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, ExpressionMethods, QueryDsl, QueryResult, RunQueryDsl};
use diesel_migrations::MigrationHarness;

use leadhub_domain::api_key::StoredApiKey;
use leadhub_domain::store::{DatabaseUnreachable, StoreError};
use leadhub_domain::user::User;

use crate::job::job_wakeups::JobSignal;
use crate::lead::change_groups::{change_queue, ChangeQueue};
use crate::pool::checkpoint::{self, Writers, AUTOCHECKPOINT_PAGES, LOG_SIZE_LIMIT};
use crate::pool::manager::{self, DbManager, QueryErrorsOnly};
use crate::pool::migrations::{run_pending, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use crate::pool::pool_threads::{self, OpenPool};
use crate::pool::recent::Recent;
use crate::pool::writable::{cannot_create, check_sqlite_writable};
use crate::pool::write_faults::WriteFaults;
use crate::schema::users;
use crate::sql::error::{is_read_only, store_error};

/// One connection type for both backends; queries are written once against it.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("DATABASE_URL must start with sqlite:// or postgres:// (got {0:?})")]
    UnknownScheme(String),
    #[error("cannot open the database: {0}")]
    Connect(String),
    #[error("cannot migrate the database: {0}")]
    Migrate(String),
    /// A SQLite database this process cannot write: the file and what is wrong, on one line.
    #[error("cannot write the database {path}: {problem}")]
    ReadOnly { path: String, problem: String },
}

type DbPool = Pool<DbManager>;

/// A pool of connections to one database. Cheap to clone.
#[derive(Clone)]
pub struct Database {
    pool: DbPool,
    backend: Backend,
    /// The queue of this process's SQLite writers (see `write`); the background checkpoint
    /// runs while it lives.
    writer: Arc<Writers>,
    pub(crate) job_signal: Arc<JobSignal>,
    /// API keys by hash and users by id, as read in the last moment (recent.rs).
    pub(crate) recent_keys: Arc<Recent<String, StoredApiKey>>,
    pub(crate) recent_users: Arc<Recent<i64, User>>,
    /// Single-submission groups written at once, when configured (`intake_runners`).
    pub(crate) intake_runners: Option<usize>,
    /// When a statement last found the storage full or the database read-only, for `/readyz`.
    faults: Arc<WriteFaults>,
    /// Where the database is, for messages: the SQLite file or `host:port/name`, no password.
    place: Arc<str>,
    /// Lead changes waiting to be written together (SQLite; lead/change_groups.rs).
    pub(crate) lead_changes: Arc<ChangeQueue>,
    /// Last, so the pool is closed by the time the last clone counts as gone (`settle`).
    _open: Arc<OpenPool>,
}

/// How much of the SQLite database file each connection reads through a memory map rather
/// than read() calls: duplicate lookups and outcome updates read many pages, and a mapped page
/// costs no system call and no copy (a batch of 1000 leads: 39 -> 35.5 ms). The mapping is
/// file-backed (the kernel's page cache, shared by the connections), not heap memory.
const SQLITE_MMAP_BYTES: u64 = 256 << 20;

/// How long `/readyz` waits for a pooled connection before it answers not ready.
const READY_WAIT: Duration = Duration::from_millis(900);

/// How long a SQLite writer waits for a writer of another process (the CLI) before it fails with
/// "database is locked": this process's own writers queue in `Database::write` instead.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A plain connection to the SQLite file `path` outside the pool (`leadhub backup`, `copy-to`),
/// waiting `SQLITE_BUSY_TIMEOUT` for a server's writer as the pool's connections do; the error
/// as text.
pub(crate) fn open_sqlite_file(path: &str) -> Result<SqliteConnection, String> {
    let mut conn = SqliteConnection::establish(path).map_err(|e| e.to_string())?;
    conn.batch_execute(&format!(
        "PRAGMA busy_timeout = {};",
        SQLITE_BUSY_TIMEOUT.as_millis()
    ))
    .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Per-connection SQLite settings. `busy_timeout` must come before `journal_mode`, or the
/// pool's first parallel connections fail with "database is locked" while WAL is switched on.
/// `temp_store = MEMORY` keeps statement journals in memory: a write transaction with a
/// savepoint (fresh_submissions.rs) journals every page it changes there, and past 64 KiB SQLite
/// moved them to a temporary file, created, written and deleted in every such transaction.
#[derive(Debug)]
struct SqliteSettings {
    busy_timeout: Duration,
}

impl CustomizeConnection<DbConnection, diesel::r2d2::Error> for SqliteSettings {
    fn on_acquire(&self, conn: &mut DbConnection) -> Result<(), diesel::r2d2::Error> {
        if let DbConnection::Sqlite(c) = conn {
            c.batch_execute(&format!(
                "PRAGMA busy_timeout = {}; PRAGMA journal_mode = WAL; \
                 PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; \
                 PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}; \
                 PRAGMA journal_size_limit = {LOG_SIZE_LIMIT}; PRAGMA mmap_size = {SQLITE_MMAP_BYTES};",
                self.busy_timeout.as_millis()
            ))
            .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

impl Database {
    /// Opens `sqlite://PATH` (creating the file and its folder, private) or `postgres://...`.
    /// An unreachable server is reported within a few seconds rather than after r2d2's 30 s.
    pub fn connect(url: &str, pool_size: u32) -> Result<Database, DbError> {
        Self::connect_with_busy_timeout(url, pool_size, SQLITE_BUSY_TIMEOUT)
    }

    /// `connect`, with SQLite's busy timeout chosen (zero: a write that finds the database
    /// locked fails at once instead of sleeping in SQLite's busy handler).
    pub fn connect_with_busy_timeout(
        url: &str,
        pool_size: u32,
        busy_timeout: Duration,
    ) -> Result<Database, DbError> {
        let (backend, target) = if let Some(path) = url.strip_prefix("sqlite://") {
            create_sqlite_file(path)?;
            // Before the pool, whose connection settings would fail quietly for 10 s.
            check_sqlite_writable(path)?;
            (Backend::Sqlite, path.to_owned())
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, with_connect_timeout(url))
        } else {
            let scheme = url.split(':').next().unwrap_or_default().to_owned();
            return Err(DbError::UnknownScheme(scheme));
        };
        // One direct attempt first: it carries the server's own error message.
        manager::establish(backend, &target)
            .map(drop)
            .map_err(|e| DbError::Connect(one_line(&e.to_string())))?;
        let writer = Arc::new(Writers::default());
        if backend == Backend::Sqlite {
            checkpoint::start(target.clone(), &writer);
        }
        let open = Arc::new(OpenPool::new());
        let job_signal = Arc::new(JobSignal::new(
            (backend == Backend::Postgres).then(|| target.clone()),
        ));
        let place = manager::place_of(backend, &target).into();
        let manager = DbManager::new(backend, target);
        let mut builder = Pool::builder()
            // A connection error is the manager's own to log.
            .error_handler(Box::<QueryErrorsOnly>::default())
            .thread_pool(pool_threads::workers())
            .max_size(pool_size)
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(10));
        if backend == Backend::Sqlite {
            // A connection to a file cannot be lost, so it is not tested (a SELECT 1) at each
            // checkout; a PostgreSQL connection can be, by a server restart, and is.
            builder = builder
                .connection_customizer(Box::new(SqliteSettings { busy_timeout }))
                .test_on_check_out(false);
        }
        let pool = builder
            .build(manager)
            .map_err(|e| DbError::Connect(e.to_string()))?;
        Ok(Database {
            pool,
            backend,
            writer,
            job_signal,
            recent_keys: Arc::default(),
            recent_users: Arc::default(),
            intake_runners: None,
            faults: Arc::default(),
            place,
            lead_changes: change_queue(),
            _open: open,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Forgets the keys and users read in the last moment (recent.rs), for a change made
    /// around this process's repositories (a test writing rows itself).
    pub fn forget_recent(&self) {
        self.recent_keys.clear();
        self.recent_users.clear();
    }

    /// Applies pending migrations, as a writer; returns how many ran.
    pub fn migrate(&self) -> Result<usize, DbError> {
        let _turn = self
            .writer
            .turn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut conn = self
            .pool
            .get()
            .map_err(|e| DbError::Connect(e.to_string()))?;
        let harness: &mut DbConnection = &mut conn;
        let applied = match harness {
            DbConnection::Sqlite(c) => run_pending(c, SQLITE_MIGRATIONS),
            DbConnection::Postgres(c) => run_pending(c, POSTGRES_MIGRATIONS),
        };
        applied.map_err(|e| {
            let said = one_line(&e.to_string());
            if is_read_only(&said) {
                // A PostgreSQL standby or read-only setting (SQLite's file was checked at connect).
                DbError::ReadOnly {
                    path: self.place.to_string(),
                    problem: format!("the database accepts no writes ({said})"),
                }
            } else {
                DbError::Migrate(said)
            }
        })
    }

    /// True when the database answers and no migration is pending (readiness). It waits at
    /// most `READY_WAIT` for a connection, not the pool's 10 s: an orchestrator's check gives
    /// up after a second or so, and a database that is gone must read as not ready, not as a
    /// check that timed out.
    pub async fn is_ready(&self) -> bool {
        let pool = self.pool.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let mut conn = pool.get_timeout(READY_WAIT).ok()?;
            let pending = match &mut *conn {
                DbConnection::Sqlite(c) => c.has_pending_migration(SQLITE_MIGRATIONS),
                DbConnection::Postgres(c) => c.has_pending_migration(POSTGRES_MIGRATIONS),
            };
            pending.ok().map(|p| !p)
        });
        matches!(checked.await, Ok(Some(true)))
    }

    /// Pool figures for /metrics: (connections open, idle).
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    pub fn pool_max_size(&self) -> u32 {
        self.pool.max_size()
    }

    /// Runs `work`, which only reads, with a pooled connection on the blocking thread pool. The
    /// connection runs SELECT statements and nothing else (see `ReadConnection`), so a read never
    /// queues behind the writers, and nothing written goes around them.
    pub async fn read<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut ReadConnection<'_>) -> QueryResult<T> + Send + 'static,
    {
        let done = on_blocking_pool(self.pool.clone(), None, move |conn| {
            work(&mut ReadConnection(conn)).map_err(store_error)
        })
        .await;
        self.note_storage(done)
    }

    /// Runs `work`, which writes, on the blocking thread pool: the only way to a connection that
    /// can write. On SQLite this process's writers take turns on a mutex, so none sleeps in
    /// SQLite's busy handler (up to 100 ms a try); that is left to other processes (the CLI).
    pub async fn write<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> QueryResult<T> + Send + 'static,
    {
        let writer = (self.backend == Backend::Sqlite).then(|| self.writer.clone());
        let signal = self.job_signal.clone();
        let done = on_blocking_pool(self.pool.clone(), writer, move |conn| {
            let done = work(conn).map_err(store_error);
            signal.wake_announced();
            done
        })
        .await;
        self.note_storage(done)
    }

    /// `write` on this thread, which must be one that may block: for a runner on the blocking
    /// pool that writes one group after another.
    pub(crate) fn write_here<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        F: FnOnce(&mut DbConnection) -> QueryResult<T>,
    {
        let writer = (self.backend == Backend::Sqlite).then_some(self.writer.as_ref());
        let done = with_connection(&self.pool, writer, |conn| work(conn).map_err(store_error));
        self.job_signal.wake_announced();
        self.note_storage(done)
    }

    /// Notes the error of `done`, if any (`note_storage_error`), and passes `done` on.
    fn note_storage<T>(&self, done: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(error) = &done {
            self.note_storage_error(error);
        }
        done
    }

    /// The one place a full storage or a read-only database is noted (`WriteFaults`): counted
    /// for `/metrics` and remembered for `/readyz`, so the two never disagree. Every failed
    /// `read` and `write` passes here, and so must a failure a transaction lives through (a
    /// savepoint rolled back) before it is handed on inside a successful answer.
    pub(crate) fn note_storage_error(&self, error: &StoreError) {
        self.faults.note(error);
    }

    /// Seconds since a statement last found the storage full, if within `window`.
    pub fn storage_full_within(&self, window: Duration) -> Option<u64> {
        self.faults.storage_full_within(window)
    }

    /// Seconds since a statement last found the database read-only, if within `window`.
    pub fn read_only_within(&self, window: Duration) -> Option<u64> {
        self.faults.read_only_within(window)
    }
}

/// The connection `Database::read` hands out: it runs SELECT statements only (diesel's
/// `SelectQuery`: no INSERT, UPDATE, DELETE, `sql_query` or `batch_execute`), so that every
/// write takes `Database::write`. A writer reads through `ReadConnection::of`.
pub struct ReadConnection<'a>(&'a mut DbConnection);

impl<'a> ReadConnection<'a> {
    /// Reads through a writer's connection, for helpers shared by reads and writes.
    pub fn of(conn: &'a mut DbConnection) -> Self {
        ReadConnection(conn)
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        match self.0 {
            DbConnection::Sqlite(_) => Backend::Sqlite,
            DbConnection::Postgres(_) => Backend::Postgres,
        }
    }

    /// `RunQueryDsl::load`, for a SELECT.
    pub fn load<'q, Q, U>(&mut self, query: Q) -> QueryResult<Vec<U>>
    where
        Q: SelectQuery + RunQueryDsl<DbConnection> + LoadQuery<'q, DbConnection, U>,
    {
        query.load(self.0)
    }

    /// `RunQueryDsl::get_result`, for a SELECT.
    pub fn get_result<'q, Q, U>(&mut self, query: Q) -> QueryResult<U>
    where
        Q: SelectQuery + RunQueryDsl<DbConnection> + LoadQuery<'q, DbConnection, U>,
    {
        query.get_result(self.0)
    }

    /// `RunQueryDsl::first`, for a SELECT.
    pub fn first<'q, Q, U>(&mut self, query: Q) -> QueryResult<U>
    where
        Q: LimitDsl + RunQueryDsl<DbConnection>,
        Limit<Q>: SelectQuery + LoadQuery<'q, DbConnection, U>,
    {
        query.first(self.0)
    }
}

/// Runs `work` on tokio's blocking pool with a pooled connection, after taking this process's
/// turn as a writer when `writer` is given (see `Database::write`).
async fn on_blocking_pool<T, F>(
    pool: DbPool,
    writer: Option<Arc<Writers>>,
    work: F,
) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> Result<T, StoreError> + Send + 'static,
{
    if BLOCKING_HERE.get() {
        return with_connection(&pool, writer.as_deref(), work);
    }
    tokio::task::spawn_blocking(move || with_connection(&pool, writer.as_deref(), work))
        .await
        .map_err(|e| StoreError::Unexpected(anyhow::Error::new(e)))?
}

/// Runs `work` with a pooled connection on this thread, as a writer when `writer` is given.
fn with_connection<T, F>(pool: &DbPool, writer: Option<&Writers>, work: F) -> Result<T, StoreError>
where
    F: FnOnce(&mut DbConnection) -> Result<T, StoreError>,
{
    // A writer that panicked left nothing half-done behind the mutex (its transaction rolled
    // back), so a poisoned queue is still a queue.
    let _turn = writer.map(|w| {
        w.turn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    });
    let mut conn = pool.get().map_err(|e| {
        let said = one_line(&e.to_string());
        StoreError::Unexpected(anyhow::Error::new(DatabaseUnreachable(said)))
    })?;
    let done = work(&mut conn);
    if let Some(w) = writer {
        w.note_write();
    }
    done
}

thread_local! {
    /// Set by `blocking_here` on a thread that may block: its reads and writes run on it
    /// rather than being handed to another thread of the blocking pool and back.
    static BLOCKING_HERE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on this thread, which must be one that may block (tokio's blocking pool, never an
/// async worker), with every `Database::read` and `Database::write` that `f` polls running
/// right here: for a caller that drives async repository calls with `Handle::block_on` on a
/// blocking thread, which would otherwise hand each query to yet another thread.
pub fn blocking_here<T>(f: impl FnOnce() -> T) -> T {
    /// Restores the flag however `f` ends (a panic included).
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            BLOCKING_HERE.set(self.0);
        }
    }
    let _restore = Restore(BLOCKING_HERE.replace(true));
    f()
}

/// Makes the current transaction a writer before it reads. SQLite transactions begin deferred:
/// one that reads and then writes can find another writer in the way and fail at once with
/// "database is locked" (the busy timeout does not apply to that upgrade). Any UPDATE takes the
/// write lock, waiting politely, even when it matches no row. PostgreSQL needs nothing here.
pub(crate) fn take_write_lock(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    if let DbConnection::Sqlite(_) = conn {
        // Written with the DSL, so that the statement is prepared once per connection.
        diesel::update(users::table.filter(users::id.eq(-1)))
            .set(users::id.eq(users::id))
            .execute(conn)?;
    }
    Ok(())
}

/// Runs `$body` with the backend's own connection bound to `$c`, for the statements
/// `MultiConnection` cannot express (multi-row INSERT ... RETURNING): written once, compiled
/// for each backend.
macro_rules! on_backend {
    ($conn:expr, $c:ident => $body:expr) => {
        match $conn {
            $crate::DbConnection::Sqlite($c) => $body,
            $crate::DbConnection::Postgres($c) => $body,
        }
    };
}
pub(crate) use on_backend;

/// Creates a missing SQLite file, and its missing folders, readable by this user only: it holds
/// every lead and credential, and SQLite gives its -wal and -shm files the file's own mode.
/// Folders and files that exist keep their modes.
fn create_sqlite_file(path: &str) -> Result<(), DbError> {
    if path == ":memory:" || path.starts_with("file:") {
        return Ok(());
    }
    let path = Path::new(path);
    let failed = |what: &Path, e: std::io::Error| {
        DbError::Connect(format!("cannot create {}: {e}", what.display()))
    };
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        let mut folders = std::fs::DirBuilder::new();
        folders.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut folders, 0o700);
        folders.create(folder).map_err(|e| match e.kind() {
            // A file where the folder should be (LEADHUB_DATA_DIR naming a file): the OS says
            // only "File exists", which reads as if all were well.
            std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory => {
                DbError::Connect(format!(
                    "cannot create the folder {}: a file is in the way (is the data folder, LEADHUB_DATA_DIR, a file?)",
                    folder.display()
                ))
            }
            _ => failed(folder, e),
        })?;
    }
    match create_private_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(1 | 13 | 30)) => Err(cannot_create(path, &e)),
        Err(e) => Err(failed(path, e)),
    }
}

/// Creates `path`, which must not exist, readable and writable by this user only.
pub(crate) fn create_private_file(path: &Path) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    file.open(path).map(drop)
}

/// libpq's messages span lines; a start-up error should be one.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// libpq waits for an unreachable server as long as the OS lets it; bound it unless the
/// operator chose a timeout already.
pub(crate) fn with_connect_timeout(url: &str) -> String {
    if url.contains("connect_timeout=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&connect_timeout=5")
    } else {
        format!("{url}?connect_timeout=5")
    }
}
