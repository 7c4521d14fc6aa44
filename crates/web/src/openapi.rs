//! The OpenAPI 3 description, assembled from the handlers' annotations.
use std::sync::OnceLock;

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes::{
    auth, business_views, businesses, health, invites, keys, lead_body, leads, schemas,
    submission_views, submissions, team_views, teams,
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "leadhub",
        version = "2025.12.30",
        description = "Lead intake, business directory and teams. Authenticate with `Authorization: Bearer <API key or access token>`."
    ),
    paths(
        health::healthz,
        health::readyz,
        health::metrics,
        keys::list_keys,
        keys::create_key,
        keys::revoke_key,
        submissions::submit_single,
        submissions::submit_batch,
        submissions::submission_status,
        submissions::batch_status,
        leads::list_leads,
        leads::get_lead,
        leads::enrich_lead,
        businesses::import_businesses,
        businesses::list_businesses,
        businesses::get_business,
        businesses::update_business,
        businesses::business_statistics,
        auth::magic_link,
        auth::verify,
        auth::refresh,
        auth::logout,
        auth::me,
        teams::list_teams,
        teams::create_team,
        teams::get_team,
        teams::update_team,
        teams::deactivate_team,
        teams::list_members,
        teams::change_role,
        teams::remove_member,
        teams::my_memberships,
        invites::create_invite,
        invites::list_invites,
        invites::revoke_invite,
        invites::invite_info,
        invites::accept_invite,
    ),
    components(schemas(
        schemas::ErrorBody,
        schemas::ValidationErrorBody,
        schemas::ValidationProblem,
        keys::ApiKeyView,
        keys::CreatedApiKeyView,
        keys::CreateKeyRequest,
        lead_body::LeadSubmissionSchema,
        lead_body::BatchRequestSchema,
        submission_views::WarningView,
        submission_views::SingleResult,
        submission_views::ElementResult,
        submission_views::BatchResult,
        submission_views::SubmissionStatusView,
        submission_views::BatchStatusView,
        submission_views::LeadViewSchema,
        business_views::BusinessInputSchema,
        business_views::ImportRequestSchema,
        business_views::ImportErrorView,
        business_views::SkippedView,
        business_views::ImportResult,
        business_views::BusinessView,
        business_views::BusinessPage,
        business_views::BusinessPatchSchema,
        business_views::StatisticsView,
        auth::MagicLinkRequest,
        auth::TokenRequest,
        auth::RefreshRequest,
        auth::SessionView,
        auth::SignedIn,
        team_views::UserView,
        team_views::TeamView,
        team_views::MemberView,
        team_views::MembershipView,
        team_views::InviteView,
        team_views::InviteInfoView,
        teams::CreateTeamRequest,
        teams::UpdateTeamRequest,
        teams::RoleRequest,
        invites::InviteRequest,
        invites::AcceptRequest,
        invites::AcceptedView,
    )),
    modifiers(&BearerScheme),
    tags(
        (name = "submissions", description = "Lead intake: single and batch submissions, their status"),
        (name = "leads", description = "Stored leads"),
        (name = "businesses", description = "The business directory: imports, queries, statistics"),
        (name = "auth", description = "Sign-in by magic link, sessions of access and refresh tokens"),
        (name = "teams", description = "Teams and their members"),
        (name = "invites", description = "Team invites, and the public invite endpoints"),
        (name = "api keys", description = "Programmatic credentials"),
        (name = "operations", description = "Health, readiness and metrics"),
    )
)]
pub struct ApiDoc;

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.description = Some("An API key (`lhk_...`) or an access token (`lha_...`).".into());
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// Rendered once: the document never changes while the process runs.
pub fn openapi_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        ApiDoc::openapi()
            .to_pretty_json()
            .unwrap_or_else(|_| "{}".to_owned())
    })
}
