//! Lead queries.
use actix_web::{web, HttpResponse};
use serde_json::json;

use leadhub_domain::error::FieldError;
use leadhub_domain::lead::fields::PROPERTY_TYPES;
use leadhub_domain::lead::record::LeadFilter;

use crate::app::AppState;
use crate::error::ApiResult;
use crate::extract::{Caller, FromQuery, Paging, QueryFields, ValidatedQuery};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};
use crate::routes::submission_views::{lead_json, LeadViewSchema};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/leads", web::get().to(list_leads))
        .route("/api/v1/leads/{id}", web::get().to(get_lead))
        .route("/api/v1/leads/{id}/enrich", web::post().to(enrich_lead));
}

pub struct LeadQuery {
    filter: LeadFilter,
    paging: Paging,
}

impl FromQuery for LeadQuery {
    fn from_query(q: &QueryFields) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let paging = Paging::read(q, &mut problems);
        let filter = LeadFilter {
            visible_teams: None,
            team_id: q.int_in("team_id", i64::MIN, i64::MAX, &mut problems),
            state: q.string("state"),
            city: q.string("city"),
            zip_code: q.string("zip_code"),
            property_type: q
                .enum_value("property_type", &PROPERTY_TYPES, &mut problems)
                .map(str::to_owned),
            permit_status: q.string("permit_status"),
            source: q.string("source"),
            q: q.string("q"),
            created_after: q.timestamp("created_after", &mut problems),
            created_before: q.timestamp("created_before", &mut problems),
        };
        if problems.is_empty() {
            Ok(LeadQuery { filter, paging })
        } else {
            Err(problems)
        }
    }
}

/// The leads the caller may see (their teams' and unassigned ones), newest first.
#[utoipa::path(get, path = "/api/v1/leads", operation_id = "list_leads", tag = "leads",
    security(("bearer" = [])),
    params(
        ("team_id" = Option<i64>, Query, description = "Only this team's leads"),
        ("state" = Option<String>, Query, description = "State code"),
        ("city" = Option<String>, Query, description = "City, as normalised"),
        ("zip_code" = Option<String>, Query, description = "ZIP code or its prefix"),
        ("property_type" = Option<String>, Query, description = "residential, commercial, agricultural or vacant_land"),
        ("permit_status" = Option<String>, Query, description = "Permit status"),
        ("source" = Option<String>, Query, description = "Lead channel"),
        ("q" = Option<String>, Query, description = "Substring of the address, owner name or project number"),
        ("created_after" = Option<String>, Query, description = "ISO 8601 date or timestamp"),
        ("created_before" = Option<String>, Query, description = "ISO 8601 date or timestamp"),
        ("limit" = Option<i64>, Query, description = "1..=500, default 50"),
        ("offset" = Option<i64>, Query, description = "default 0")),
    responses(
        (status = 200, description = "A page of leads: {items, total, limit, offset}", body = serde_json::Value),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 422, description = "Bad query parameter", body = ValidationErrorBody)))]
pub async fn list_leads(
    state: web::Data<AppState>,
    caller: Caller,
    query: ValidatedQuery<LeadQuery>,
) -> ApiResult<HttpResponse> {
    let LeadQuery { filter, paging } = query.0;
    let (leads, total) = state
        .submissions
        .leads(&caller.user, filter, paging.limit, paging.offset)
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "items": leads.iter().map(lead_json).collect::<Vec<_>>(),
        "total": total,
        "limit": paging.limit,
        "offset": paging.offset,
    })))
}

/// One lead with everything the pipeline added.
#[utoipa::path(get, path = "/api/v1/leads/{id}", operation_id = "get_lead", tag = "leads",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The lead's id")),
    responses(
        (status = 200, description = "The lead", body = LeadViewSchema),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such lead the caller may see", body = ErrorBody),
        (status = 422, description = "The id is not a whole number", body = ValidationErrorBody)))]
pub async fn get_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let lead = state
        .submissions
        .lead(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(lead_json(&lead)))
}

/// Geocodes and appraises the lead again now (its team's members and platform admins).
#[utoipa::path(post, path = "/api/v1/leads/{id}/enrich", operation_id = "enrich_lead", tag = "leads",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The lead's id")),
    responses(
        (status = 200, description = "The lead after enrichment", body = LeadViewSchema),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such lead the caller may see", body = ErrorBody),
        (status = 422, description = "The id is not a whole number", body = ValidationErrorBody)))]
pub async fn enrich_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let lead = state
        .submissions
        .enrich_now(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(lead_json(&lead)))
}
