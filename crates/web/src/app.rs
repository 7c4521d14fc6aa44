//! The composition root: configuration in, adapters built, services built, one actix `App` out.
//! Tests build the same app with other adapters through `Adapters`.
use leadhub_domain::lead::work::digest::FollowUpDigests;
use leadhub_domain::lead::work::LeadWorkService;
use std::sync::Arc;

use std::net::TcpListener;

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::{from_fn, DefaultHeaders, NormalizePath, TrailingSlash};
use actix_web::{web, App, HttpServer};
use apistos::app::OpenApiWrapper;

use leadhub_api::{self as routes, docs, not_found};
use leadhub_db::Database;
use leadhub_domain::auth::AuthService;
use leadhub_domain::business::BusinessService;
use leadhub_domain::dashboard::DashboardService;
use leadhub_domain::enrich::{AppraisalSource, Geocoder};
use leadhub_domain::identity::{BuiltinIdentity, IdentityProvider};
use leadhub_domain::lead::enrichment_retry::{EnrichmentRetries, RetryPolicy};
use leadhub_domain::lead::merge_leads::LeadMergeService;
use leadhub_domain::lead::saved_views::SavedViews;
use leadhub_domain::mail::Mailer;
use leadhub_domain::mail_throttle::MailThrottle;
use leadhub_domain::rate_limit::RateLimiter;
use leadhub_domain::secret::TokenGenerator;
use leadhub_domain::submission::{Enricher, SubmissionService};
use leadhub_domain::team::TeamService;
use leadhub_domain::upload::UploadService;
use leadhub_domain::webhook::WebhookService;
use leadhub_domain::{Clock, SystemClock};
use leadhub_http::config::Config;
use leadhub_http::extract::{path_error_handler, query_error_handler, BodyLimit};
use leadhub_http::map_tiles::MapTiles;
use leadhub_http::metrics::{self, Metrics};
use leadhub_http::sign_in_links::SignInLinks;
pub use leadhub_http::state::AppState;
use leadhub_http::tokens::RandomTokens;
use leadhub_mail::CountedMailer;
use leadhub_pages::upload_import::UploadImports;
use leadhub_webhooks::{DeliverySettings, HttpSender, SEND_TIMEOUT};

use crate::middleware::{observe, rate_limit};
use crate::openapi;
use crate::webhook_payload::ApiPayloads;
use crate::worker::{self, JobServices, WorkerSettings, Workers};

/// The ports a deployment may swap; `Adapters::production` reads them from the configuration.
#[derive(Clone)]
pub struct Adapters {
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
    pub mailer: Arc<dyn Mailer>,
    /// None: the geocoding stage is skipped (`LEADHUB_GEOCODER=none`).
    pub geocoder: Option<Arc<dyn Geocoder>>,
    /// None: no county appraisal configured.
    pub appraisal: Option<Arc<dyn AppraisalSource>>,
}

impl Adapters {
    /// The real adapters: system clock, OS randomness, SMTP or the outbox folder, the
    /// geocoder chain of `LEADHUB_GEOCODER` (cached in the database), county appraisal layers.
    pub fn production(config: &Config, db: &Database) -> anyhow::Result<Adapters> {
        // Before the adapters exist, so their circuit breakers' gauges are recorded from the start.
        metrics::process_handle();
        let mailer = leadhub_mail::build(
            config.smtp_url.as_deref(),
            &config.mail_from,
            &config.data_dir.join("outbox"),
        )?;
        let mut adapters = Adapters::with_mailer(mailer);
        let geocode_settings = leadhub_geocode::GeocodeSettings::new(
            &config.census_url,
            &config.nominatim_url,
            leadhub_geocode::user_agent(&config.public_url),
        );
        adapters.geocoder =
            leadhub_geocode::build(&config.geocoders, &geocode_settings, Arc::new(db.clone()))
                .map_err(|e| anyhow::anyhow!("LEADHUB_GEOCODER: {e:#}"))?;
        adapters.appraisal = match &config.counties_file {
            Some(path) => Some(
                leadhub_appraisal::from_file(path, leadhub_appraisal::DEFAULT_TIMEOUT)
                    .map_err(|e| anyhow::anyhow!("LEADHUB_COUNTIES: {e:#}"))?,
            ),
            None => None,
        };
        Ok(adapters)
    }

    /// Real clock and randomness, no enrichment, and the given mailer (tests pass a memory one).
    pub fn with_mailer(mailer: Arc<dyn Mailer>) -> Adapters {
        Adapters {
            clock: Arc::new(SystemClock),
            tokens: Arc::new(RandomTokens),
            mailer,
            geocoder: None,
            appraisal: None,
        }
    }
}

/// The services and adapters of `config`, `db` and `adapters`, built once and shared by every
/// handler, page and worker.
pub fn app_state(config: Config, db: Database, adapters: Adapters) -> AppState {
    metrics::process_handle();
    let mailer: Arc<dyn Mailer> = Arc::new(CountedMailer::new(adapters.mailer.clone()));
    let rate_limit_store = db.rate_limit_store();
    let mail_throttle = Arc::new(MailThrottle {
        store: rate_limit_store.clone(),
        clock: adapters.clock.clone(),
        per_minute: config.mail_per_address_minute.into(),
        per_hour: config.mail_per_address_hour.into(),
    });
    let identity: Arc<dyn IdentityProvider> = Arc::new(BuiltinIdentity {
        users: Arc::new(db.clone()),
        sessions: Arc::new(db.clone()),
        mailer: mailer.clone(),
        clock: adapters.clock.clone(),
        tokens: adapters.tokens.clone(),
        public_url: config.public_url.clone(),
        mail_throttle: Some(mail_throttle.clone()),
    });
    let auth = AuthService {
        identity: identity.clone(),
        users: Arc::new(db.clone()),
        credentials: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
        tokens: adapters.tokens.clone(),
    };
    let sign_in_links = Arc::new(SignInLinks::start(identity.clone()));
    let teams = TeamService {
        teams: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        users: Arc::new(db.clone()),
        identity,
        mailer: mailer.clone(),
        clock: adapters.clock.clone(),
        tokens: adapters.tokens.clone(),
        public_url: config.public_url.clone(),
        invite_ttl: chrono::Duration::days(config.invite_ttl_days),
        mail_throttle: Some(mail_throttle),
    };
    let submissions = SubmissionService {
        leads: Arc::new(db.clone()),
        submissions: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        users: Arc::new(db.clone()),
        enricher: Enricher {
            geocoder: adapters.geocoder.clone(),
            appraisal: adapters.appraisal.clone(),
        },
        retries: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
        tokens: adapters.tokens.clone(),
    };
    let lead_work = LeadWorkService {
        leads: Arc::new(db.clone()),
        work: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        users: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    let businesses = BusinessService {
        businesses: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    let webhooks = WebhookService {
        webhooks: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
        tokens: adapters.tokens.clone(),
        allow_http: config.webhook_allow_http,
        endpoints_per_team: config.webhook_endpoints_per_team,
    };
    let rate_limiter = Arc::new(RateLimiter {
        store: rate_limit_store,
        clock: adapters.clock.clone(),
        per_credential_hour: config.rate_limit_per_key_hour.into(),
        per_ip_minute: config.rate_limit_per_ip_minute.into(),
    });
    let dashboard = DashboardService {
        figures: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    let follow_up_digests = FollowUpDigests {
        digests: Arc::new(db.clone()),
        mailer: mailer.clone(),
        clock: adapters.clock.clone(),
        hour: config.follow_up_digest_hour,
        public_url: config.public_url.clone(),
    };
    let submissions = Arc::new(submissions);
    let uploads = UploadService {
        uploads: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    let map_tiles = config.map_tiles.as_deref().and_then(|template| {
        let user_agent = leadhub_geocode::user_agent(&config.public_url);
        match MapTiles::new(template, &user_agent, config.egress_proxy.as_deref()) {
            Ok(tiles) => Some(Arc::new(tiles)),
            Err(e) => {
                tracing::error!(error = %e, "map tiles off: no client for the tile server");
                None
            }
        }
    });
    let lead_merges = LeadMergeService {
        merges: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    let enrichment_retries = Arc::new(EnrichmentRetries {
        jobs: Arc::new(db.clone()),
        retries: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
        policy: RetryPolicy::giving_up_after(chrono::Duration::seconds(
            // Within 60..=2_592_000 (its bound).
            config.enrichment_give_up_secs as i64,
        )),
    });
    let saved_views = SavedViews {
        views: Arc::new(db.clone()),
        memberships: Arc::new(db.clone()),
        clock: adapters.clock.clone(),
    };
    AppState {
        lead_merges: Arc::new(lead_merges),
        enrichment_retries,
        uploads: Arc::new(uploads),
        single_intake: Arc::new(db.single_intake(submissions.clone())),
        sign_in_links,
        rate_limiter,
        config: Arc::new(config),
        submissions_repo: Arc::new(db.clone()),
        jobs: Arc::new(db.clone()),
        db,
        auth: Arc::new(auth),
        teams: Arc::new(teams),
        lead_work: Arc::new(lead_work),
        submissions,
        businesses: Arc::new(businesses),
        dashboard: Arc::new(dashboard),
        follow_up_digests: Arc::new(follow_up_digests),
        saved_views: Arc::new(saved_views),
        webhooks: Arc::new(webhooks),
        clock: adapters.clock,
        metrics: Arc::new(Metrics::new()),
        map_tiles,
    }
}

/// The whole application: the API (documented by apistos, its document at `/openapi.json`),
/// the docs UI and the pages, behind the middleware (outermost last).
pub fn application(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let limit = state.config.body_limit;
    App::new()
        .document(openapi::spec())
        .wrap(from_fn(leadhub_pages::error_layout))
        .wrap(from_fn(rate_limit))
        .wrap(NormalizePath::new(TrailingSlash::Trim))
        .wrap(from_fn(observe))
        .wrap(security_headers())
        .app_data(state)
        .app_data(web::Data::new(BodyLimit(limit)))
        .app_data(web::PathConfig::default().error_handler(path_error_handler))
        .app_data(web::QueryConfig::default().error_handler(query_error_handler))
        .configure(|cfg| routes::api(&mut routes::Api::new(cfg)))
        .build("/openapi.json")
        .configure(configure)
}

/// What is not part of the API: the docs UI, the pages for people, and unknown routes.
fn configure(cfg: &mut web::ServiceConfig) {
    cfg.configure(docs::configure)
        .configure(leadhub_pages::configure)
        .default_service(web::to(not_found));
}

/// Headers for every response, outermost so the other middleware's answers (429s) get them too;
/// a response that sets one keeps its own (pages send a fuller CSP). No MIME sniffing, no
/// framing, and no Referer, since sign-in and invite URLs carry tokens.
fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
        .add((header::CONTENT_SECURITY_POLICY, "frame-ancestors 'none'"))
        .add((header::REFERRER_POLICY, "no-referrer"))
}

/// Time a client has to send a request's line and headers (else 408).
pub const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// An idle keep-alive connection is closed after this long.
pub const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(30);
/// Open connections per HTTP worker thread; beyond it, new connections wait in the backlog.
pub const MAX_CONNECTIONS_PER_WORKER: usize = 10_000;

/// An HTTP server for `state` on an already bound listener (tests bind port 0).
pub fn http_server(
    state: web::Data<AppState>,
    listener: TcpListener,
    workers: usize,
) -> std::io::Result<Server> {
    Ok(HttpServer::new(move || application(state.clone()))
        .workers(workers)
        // Slow or idle clients cannot hold connections for long (docs/hardening.md).
        .client_request_timeout(REQUEST_HEAD_TIMEOUT)
        .client_disconnect_timeout(std::time::Duration::from_secs(5))
        .keep_alive(KEEP_ALIVE)
        .max_connections(MAX_CONNECTIONS_PER_WORKER)
        .listen(listener)?
        .run())
}

/// Takes the port, connects, migrates and serves until stopped.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    // The port first: a port in use fails the start before a database is created or migrated.
    let bind = config.bind;
    let listener = TcpListener::bind(bind)
        .map_err(|e| anyhow::anyhow!("cannot listen on {bind} (LEADHUB_BIND): {e}"))?;
    let db = Database::connect(&config.database_url, config.db_pool_size)?;
    let applied = db.migrate()?;
    tracing::info!(applied, backend = ?db.backend(), "database ready");
    let adapters = Adapters::production(&config, &db)?;
    let state = web::Data::new(app_state(config, db, adapters));
    tracing::info!(%bind, "serving");
    let http_workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let background = start_workers(&state);
    // Runs until SIGTERM or SIGINT; actix then stops accepting and finishes open requests.
    let served = http_server(state, listener, http_workers)?.await;
    background.shutdown(SHUTDOWN_GRACE).await;
    served?;
    Ok(())
}

/// How long in-flight jobs may take to finish once the server is told to stop.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(20);

/// The job-queue workers of this process (`LEADHUB_WORKERS`).
pub fn start_workers(state: &web::Data<AppState>) -> Workers {
    let mut workers = worker::start(
        JobServices {
            queue: state.jobs.clone(),
            submissions: state.submissions.clone(),
            uploads: Arc::new(UploadImports {
                uploads: Arc::new(state.db.clone()),
                users: Arc::new(state.db.clone()),
                submissions: state.submissions.clone(),
                businesses: state.businesses.clone(),
                lead_work: state.lead_work.clone(),
                clock: state.clock.clone(),
            }),
            enrichment: state.enrichment_retries.clone(),
            digests: state.follow_up_digests.clone(),
            clock: state.clock.clone(),
        },
        WorkerSettings {
            count: state.config.workers,
            lease: std::time::Duration::from_secs(state.config.job_lease_secs),
            poll: std::time::Duration::from_millis(state.config.job_poll_ms),
            wakeups: state.db.job_wakeups(),
        },
        (state.config.workers > 0)
            .then(|| state.db.listen_for_jobs())
            .flatten(),
    );
    if state.config.workers > 0 {
        // With the job workers, as documented: a process started with none (an API-only one)
        // leaves the webhook deliveries to those that have them.
        workers.add(|stopped| start_deliveries(state, stopped));
        let digests = state.follow_up_digests.clone();
        let every = std::time::Duration::from_millis(state.config.job_poll_ms);
        workers.add(|stopped| tokio::spawn(worker::queue_digests(digests, every, stopped)));
    }
    workers
}

/// The webhook delivery worker of `state`'s database and configuration (`LEADHUB_WEBHOOK_*`).
fn start_deliveries(
    state: &web::Data<AppState>,
    stopped: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let db = &state.db;
    let sender = match HttpSender::new(
        state.clock.clone(),
        state.config.webhook_allow_private,
        state.config.egress_proxy.as_deref(),
    ) {
        Ok(sender) => sender,
        Err(e) => {
            tracing::error!(error = %e, "webhook delivery worker not started");
            return tokio::spawn(async {});
        }
    };
    let settings = DeliverySettings {
        poll: std::time::Duration::from_millis(state.config.job_poll_ms),
        // The job lease, plus the longest an attempt may take.
        hold: std::time::Duration::from_secs(state.config.job_lease_secs) + SEND_TIMEOUT,
        concurrency: 32,
        retry_scale: state.config.webhook_retry_scale,
        wakeups: db.webhook_wakeups(),
    };
    let payloads = ApiPayloads {
        leads: Arc::new(db.clone()),
        submissions: Arc::new(db.clone()),
    };
    leadhub_webhooks::start(
        Arc::new(db.clone()),
        Arc::new(payloads),
        Arc::new(sender),
        state.clock.clone(),
        state.teams.mailer.clone(),
        settings,
        stopped,
    )
}
