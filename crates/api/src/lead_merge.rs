//! `POST /api/v1/leads/{id}/merge`: a person merges a lead into another one (docs/merging-leads.md).
use actix_web::web::Json;
use apistos::api_operation;
use serde::Deserialize;
use validator::Validate;

use leadhub_http::extract::{json_type, Call, Lax, RequestBody, ValidatedJson};
use leadhub_http::refusals::{Answer, SeenClashingBody};

use crate::submission_views::LeadView;
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/v1/leads/{id}/merge" => merge_lead,
    }
}

/// `POST /api/v1/leads/{id}/merge`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct MergeRequest {
    /// The id of the lead that survives: it keeps its values where both leads have one and
    /// takes the merged lead's submissions, notes and history.
    #[validate(custom(function = "json_type"), required)]
    pub into: Lax<i64>,
}

impl RequestBody for MergeRequest {}

/// Merges lead `id` into lead `into`, the survivor (docs/merging-leads.md).
///
/// Where both leads have a value the survivor's stays; the merged lead fills the survivor's
/// empty fields; phones and e-mails merge as sets (5 and 3 slots; what does not fit stays on the
/// merged lead). The merged lead's submissions, notes and history move to the survivor; the
/// merged lead keeps its data but leaves every list. Both leads must be visible to the caller
/// (404 otherwise) and belong to the same team, or both to none (422); a lead merged before
/// cannot take part again (409). Answers the survivor.
#[api_operation(operation_id = "merge_lead", tag = "leads")]
pub async fn merge_lead(
    lead: Call<i64>,
    body: ValidatedJson<MergeRequest>,
) -> Answer<Json<LeadView>, SeenClashingBody> {
    // `required` has refused a missing or null `into` already (as `move_lead`'s `team_id`).
    let into = body.value.into.value().copied().unwrap_or_default();
    let merges = &lead.state.lead_merges;
    let survivor = merges.merge(lead.user(), lead.path, into).await?;
    Ok(Json(LeadView::from(survivor)))
}
