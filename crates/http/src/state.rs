//! `AppState`: the services and adapters every handler, page and worker reads. Built by the
//! composition root (`leadhub-web`'s `app.rs`); it knows nothing of routes or pages.
use std::sync::Arc;

use leadhub_db::{Database, SingleIntake};
use leadhub_domain::auth::AuthService;
use leadhub_domain::business::BusinessService;
use leadhub_domain::dashboard::DashboardService;
use leadhub_domain::jobs::JobQueue;
use leadhub_domain::lead::enrichment_retry::EnrichmentRetries;
use leadhub_domain::lead::merge_leads::LeadMergeService;
use leadhub_domain::lead::saved_views::SavedViews;
use leadhub_domain::lead::work::digest::FollowUpDigests;
use leadhub_domain::lead::work::LeadWorkService;
use leadhub_domain::rate_limit::RateLimiter;
use leadhub_domain::submission::{SubmissionRepository, SubmissionService};
use leadhub_domain::team::TeamService;
use leadhub_domain::upload::UploadService;
use leadhub_domain::webhook::WebhookService;
use leadhub_domain::Clock;

use crate::config::Config;
use crate::map_tiles::MapTiles;
use crate::metrics::Metrics;
use crate::sign_in_links::SignInLinks;

/// Everything handlers need, shared by every worker.
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Database,
    pub auth: Arc<AuthService>,
    pub teams: Arc<TeamService>,
    pub submissions: Arc<SubmissionService>,
    /// People merging two leads into one.
    pub lead_merges: Arc<LeadMergeService>,
    /// Working leads: edits, notes, the timeline, archive, moves, bulk changes.
    pub lead_work: Arc<LeadWorkService>,
    /// Single submissions, grouped while the database is busy.
    pub single_intake: Arc<SingleIntake>,
    /// Sign-in links, sent after the answer.
    pub sign_in_links: Arc<SignInLinks>,
    pub businesses: Arc<BusinessService>,
    /// CSV files uploaded from the pages.
    pub uploads: Arc<UploadService>,
    pub dashboard: Arc<DashboardService>,
    /// The daily e-mail of follow-ups due: sent by the workers, turned off on the dashboard.
    pub follow_up_digests: Arc<FollowUpDigests>,
    /// Each person's saved views of the leads list (the pages').
    pub saved_views: Arc<SavedViews>,
    pub webhooks: Arc<WebhookService>,
    /// For idempotent replays, which sit in the web layer (they store HTTP answers).
    pub submissions_repo: Arc<dyn SubmissionRepository>,
    pub clock: Arc<dyn Clock>,
    pub jobs: Arc<dyn JobQueue>,
    /// Settles enrichment retry jobs and tells what lies ahead for a lead's enrichment.
    pub enrichment_retries: Arc<EnrichmentRetries>,
    pub metrics: Arc<Metrics>,
    pub rate_limiter: Arc<RateLimiter>,
    /// The lead page's map tiles, fetched through our origin, when `LEADHUB_MAP_TILES` is set.
    pub map_tiles: Option<Arc<MapTiles>>,
}
