//! A running server per test, on its own thread and actix system, on 127.0.0.1:<free port>.
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use actix_web::dev::ServerHandle;
use actix_web::web;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use diesel::QueryResult;
use leadhub_db::{Database, DbConnection, ReadConnection, SQLITE_BUSY_TIMEOUT};
use leadhub_domain::auth::NewUserRequest;
use leadhub_domain::enrich::{AppraisalSource, Geocoder};
use leadhub_domain::mail::Mailer;
use leadhub_domain::user::User;
use leadhub_domain::Clock;
use leadhub_http::config::Config;
use leadhub_mail::MemoryMailer;
use leadhub_web::app::{app_state, http_server, start_workers, Adapters, AppState};
use leadhub_web::worker::Workers;

use crate::database::TestDatabase;
use crate::python::LOCAL_WEBHOOKS;

pub struct TestApp {
    pub base_url: String,
    pub state: web::Data<AppState>,
    pub client: reqwest::Client,
    pub db: Arc<TestDatabase>,
    /// Every e-mail the app sent.
    pub mail: Arc<MemoryMailer>,
    /// The job-queue workers, as `leadhub serve` runs them.
    workers: Option<Workers>,
    handle: ServerHandle,
}

/// A user with an API key of their own.
#[derive(Clone)]
pub struct TestUser {
    pub user: User,
    pub key: String,
}

impl TestApp {
    /// The app every `backend_tests!` case gets: production adapters, mail kept in memory.
    pub async fn start(db: TestDatabase) -> TestApp {
        Self::builder(db).build().await
    }

    /// An app on `db` that differs from `start`'s only in what the test names.
    pub fn builder(db: impl Into<Arc<TestDatabase>>) -> TestAppBuilder {
        let mail = Arc::new(MemoryMailer::new());
        TestAppBuilder {
            db: db.into(),
            adapters: Adapters::with_mailer(mail.clone()),
            mail,
            vars: HashMap::new(),
            http_workers: 1,
            busy_timeout: SQLITE_BUSY_TIMEOUT,
            pool_size: None,
        }
    }

    /// Another app on the same database, differing from `start`'s only in these variables.
    pub async fn with_env(&self, vars: &[(&str, &str)]) -> TestApp {
        let mut builder = Self::builder(self.db.clone());
        for (name, value) in vars {
            builder = builder.env(name, value);
        }
        builder.build().await
    }

    /// Stops this app; the builder starts another on the same database.
    pub fn restart(self) -> TestAppBuilder {
        let db = self.db.clone();
        drop(self);
        Self::builder(db)
    }

    async fn launch(builder: TestAppBuilder) -> TestApp {
        let TestAppBuilder {
            db,
            adapters,
            mail,
            mut vars,
            http_workers: workers,
            busy_timeout,
            pool_size,
        } = builder;
        vars.insert("DATABASE_URL".into(), db.url.clone());
        vars.entry("LEADHUB_JOB_POLL_MS".into())
            .or_insert_with(|| "50".into());
        // Tests that count e-mails must not meet a morning digest; the digest's tests set it.
        vars.entry("LEADHUB_FOLLOW_UP_DIGEST_HOUR".into())
            .or_insert_with(|| "off".into());
        // Every test client is 127.0.0.1, and tests mail one address often: rate limits and the
        // per-address e-mail quota stay off unless a test turns them on.
        for limit in [
            "LEADHUB_RATE_LIMIT_PER_KEY_HOUR",
            "LEADHUB_RATE_LIMIT_PER_IP_MINUTE",
            "LEADHUB_MAIL_PER_ADDRESS_MINUTE",
            "LEADHUB_MAIL_PER_ADDRESS_HOUR",
        ] {
            vars.entry(limit.into()).or_insert_with(|| "0".into());
        }
        let config = Config::from_vars(&vars).unwrap();
        let url = db.url.clone();
        let pool = pool_size.unwrap_or(if workers > 1 { 16 } else { 4 });
        let database = tokio::task::spawn_blocking(move || {
            let database = Database::connect_with_busy_timeout(&url, pool, busy_timeout).unwrap();
            database.migrate().unwrap();
            database
        })
        .await
        .unwrap();
        let state = web::Data::new(app_state(config, database, adapters));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = mpsc::channel();
        let server_state = state.clone();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = http_server(server_state, listener, workers).unwrap();
                tx.send(server.handle()).unwrap();
                let _ = server.await;
            })
        });
        let handle = rx.recv().unwrap();
        let workers = Some(start_workers(&state));
        TestApp {
            base_url,
            state,
            client: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(60))
                .build()
                .unwrap(),
            db,
            mail,
            workers,
            handle,
        }
    }

    /// Returns once every sign-in link asked for so far was handled (they are sent after the
    /// response).
    pub async fn mail_settled(&self) {
        self.state.sign_in_links.idle().await;
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// A user (created through the service, as the CLI does) and an API key for them.
    pub async fn user(&self, email: &str) -> TestUser {
        self.user_with(email, false).await
    }

    /// One user per name, at `{name}@example.com`, made in the order given (so their ids ascend
    /// in that order).
    pub async fn users<const N: usize>(&self, names: [&str; N]) -> [TestUser; N] {
        let mut made = Vec::with_capacity(N);
        for name in names {
            made.push(self.user(&format!("{name}@example.com")).await);
        }
        match made.try_into() {
            Ok(users) => users,
            Err(_) => unreachable!("one user per name"),
        }
    }

    pub async fn admin(&self, email: &str) -> TestUser {
        self.user_with(email, true).await
    }

    async fn user_with(&self, email: &str, is_admin: bool) -> TestUser {
        let user = self
            .state
            .auth
            .add_user(NewUserRequest {
                email: email.into(),
                first_name: Some("Test".into()),
                last_name: Some("User".into()),
                is_admin,
            })
            .await
            .unwrap();
        let key = self
            .state
            .auth
            .create_api_key(&user, "test", None)
            .await
            .unwrap()
            .secret;
        TestUser { user, key }
    }

    /// The page at `path` as the signed-in session with `cookies` sees it, asserting 200.
    pub async fn page_with_cookies(&self, path: &str, cookies: &str) -> String {
        let request = self.client.get(self.url(path)).header("cookie", cookies);
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.text().await.unwrap()
    }

    /// Makes `user` an active member of `team_id`, straight in the database.
    pub async fn join_team(&self, team_id: i64, user: &TestUser) {
        use diesel::prelude::*;
        use leadhub_db::schema::team_members;
        let user_id = user.user.id;
        let now = chrono::Utc::now().naive_utc();
        self.write_db(move |conn| {
            diesel::insert_into(team_members::table)
                .values((
                    team_members::team_id.eq(team_id),
                    team_members::user_id.eq(user_id),
                    team_members::role.eq("member"),
                    team_members::is_active.eq(true),
                    team_members::joined_at.eq(now),
                ))
                .execute(conn)
        })
        .await;
    }

    /// A bench's user (bench@example.com) and the id of their team "Bench", made over the API.
    pub async fn bench_team(&self) -> (TestUser, i64) {
        let user = self.user("bench@example.com").await;
        let body = serde_json::json!({"name": "Bench"});
        let (status, team) = self.post("/api/teams", &user.key, body).await;
        assert_eq!(status, StatusCode::OK, "{team}");
        (user, team["id"].as_i64().unwrap())
    }

    /// Streams GET `path` as `key` to its end, calling `on_chunk` after every piece it reads
    /// (where a bench takes its memory readings); returns the bytes and the lines it had.
    pub async fn download(&self, path: &str, key: &str, on_chunk: impl FnMut()) -> (usize, usize) {
        let request = self.client.get(self.url(path)).bearer_auth(key);
        Self::stream(request, on_chunk).await
    }

    /// `download` for a page, with a session's cookies instead of a key.
    pub async fn download_page(
        &self,
        path: &str,
        cookies: &str,
        on_chunk: impl FnMut(),
    ) -> (usize, usize) {
        let request = self.client.get(self.url(path)).header("cookie", cookies);
        Self::stream(request, on_chunk).await
    }

    async fn stream(
        request: reqwest::RequestBuilder,
        mut on_chunk: impl FnMut(),
    ) -> (usize, usize) {
        let mut response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let (mut bytes, mut lines) = (0, 0);
        while let Some(chunk) = response.chunk().await.unwrap() {
            bytes += chunk.len();
            lines += chunk.iter().filter(|b| **b == b'\n').count();
            on_chunk();
        }
        (bytes, lines)
    }

    /// Reads the app's database directly, for what a test checks behind the API.
    pub async fn read_db<T: Send + 'static>(
        &self,
        query: impl FnOnce(&mut ReadConnection<'_>) -> QueryResult<T> + Send + 'static,
    ) -> T {
        self.state.db.read(query).await.unwrap()
    }

    /// Changes the app's database directly (through the writer), for what the API cannot set up.
    pub async fn write_db<T: Send + 'static>(
        &self,
        change: impl FnOnce(&mut DbConnection) -> QueryResult<T> + Send + 'static,
    ) -> T {
        let changed = self.state.db.write(change).await.unwrap();
        // Counts at once, as the service's own changes do (not as another process's would).
        self.state.db.forget_recent();
        changed
    }

    /// Sends a request; returns the status and the JSON body (Null when there is none).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, self.url(path));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        let json = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, json)
    }

    /// GET without credentials; returns the body as text, whatever the status.
    pub async fn get_text(&self, path: &str) -> String {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        response.text().await.unwrap()
    }

    /// POST without credentials (sign-in, invites).
    pub async fn post_public(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, None, Some(&body)).await
    }

    pub async fn get(&self, path: &str, key: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(key), Some(&body)).await
    }

    pub async fn patch(&self, path: &str, key: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PATCH, path, Some(key), Some(&body)).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, Some(key), None).await
    }
}

/// What a test changes about its app (`TestApp::builder`, `app.restart()`); the rest stays as
/// every test has it.
pub struct TestAppBuilder {
    db: Arc<TestDatabase>,
    adapters: Adapters,
    /// Behind `adapters.mailer` unless the test names a mailer of its own.
    mail: Arc<MemoryMailer>,
    vars: HashMap<String, String>,
    http_workers: usize,
    busy_timeout: Duration,
    /// Database connections; None: 4, or 16 with several HTTP workers.
    pool_size: Option<u32>,
}

impl TestAppBuilder {
    /// Exactly this many database connections (1: every statement on one connection, so a
    /// per-connection setting such as SQLite's `max_page_count` holds for the whole app).
    pub fn pool_size(mut self, connections: u32) -> Self {
        self.pool_size = Some(connections);
        self
    }

    /// A configuration variable, as `leadhub serve` reads it from the environment.
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_owned(), value.to_owned());
        self
    }

    /// `LOCAL_WEBHOOKS`: webhooks may go to the tests' receivers on 127.0.0.1.
    pub fn local_webhooks(self) -> Self {
        LOCAL_WEBHOOKS
            .iter()
            .fold(self, |builder, (name, value)| builder.env(name, value))
    }

    /// `local_webhooks`, with every retry delay times `scale` (`LEADHUB_WEBHOOK_RETRY_SCALE`):
    /// "0.001" lets a failing delivery use up its attempts within a test, "100" holds it after
    /// its first.
    pub fn local_webhooks_scaled(self, scale: &str) -> Self {
        self.local_webhooks()
            .env("LEADHUB_WEBHOOK_RETRY_SCALE", scale)
    }

    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.adapters.clock = clock;
        self
    }

    /// None skips geocoding, as `LEADHUB_GEOCODER=none` does.
    pub fn geocoder(mut self, geocoder: Option<Arc<dyn Geocoder>>) -> Self {
        self.adapters.geocoder = geocoder;
        self
    }

    pub fn appraisal(mut self, appraisal: Option<Arc<dyn AppraisalSource>>) -> Self {
        self.adapters.appraisal = appraisal;
        self
    }

    /// Sends e-mail through `mailer` (real SMTP, an outbox folder); `app.mail` then stays empty.
    pub fn mailer(mut self, mailer: Arc<dyn Mailer>) -> Self {
        self.adapters.mailer = mailer;
        self
    }

    /// HTTP worker threads; more than one also gets a pool of 16 connections.
    pub fn http_workers(mut self, workers: usize) -> Self {
        self.http_workers = workers;
        self
    }

    /// SQLite's busy timeout at zero: a write that finds the database locked fails at once
    /// ("database is locked") instead of sleeping in SQLite's busy handler.
    pub fn without_busy_wait(mut self) -> Self {
        self.busy_timeout = Duration::ZERO;
        self
    }

    pub async fn build(self) -> TestApp {
        TestApp::launch(self).await
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // Stop accepting and let the server thread end; the database is dropped after.
        drop(self.handle.stop(false));
        if let Some(workers) = self.workers.take() {
            workers.signal_stop();
        }
    }
}
