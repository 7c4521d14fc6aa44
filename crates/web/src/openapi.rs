//! The OpenAPI 3 document's frame: title, version and tags. apistos writes the rest from the
//! handlers (`#[api_operation]`), their extractors and answers (`ApiComponent`) and `ApiError`
//! (`ApiErrorComponent`), as `leadhub_api::api` registers them; it is served at `/openapi.json`.
use apistos::info::Info;
use apistos::spec::{DefaultParameters, Spec};
use apistos::tag::Tag;

use leadhub_http::schemas::error_body_schemas;

/// The version of the interface the document describes.
pub const VERSION: &str = "2025.12.30";

pub fn spec() -> Spec {
    Spec {
        info: Info {
            title: "leadhub".to_owned(),
            version: VERSION.to_owned(),
            description: Some(
                "Lead intake, business directory and teams. Authenticate with \
                 `Authorization: Bearer <API key or access token>`."
                    .to_owned(),
            ),
            ..Default::default()
        },
        tags: [
            (
                "submissions",
                "Lead intake: single and batch submissions, their status",
            ),
            ("leads", "Stored leads"),
            (
                "businesses",
                "The business directory: imports, queries, statistics",
            ),
            (
                "auth",
                "Sign-in by magic link, sessions of access and refresh tokens",
            ),
            ("teams", "Teams and their members"),
            ("invites", "Team invites, and the public invite endpoints"),
            ("api keys", "Programmatic credentials"),
            ("operations", "Health, readiness and metrics"),
        ]
        .into_iter()
        .map(|(name, description)| Tag {
            name: name.to_owned(),
            description: Some(description.to_owned()),
            ..Default::default()
        })
        .collect(),
        // No parameter: only the error bodies, registered once for the operations that answer
        // them (see `leadhub_http::refusals`).
        default_parameters: vec![DefaultParameters {
            parameters: Vec::new(),
            components: error_body_schemas(),
        }],
        ..Default::default()
    }
}
