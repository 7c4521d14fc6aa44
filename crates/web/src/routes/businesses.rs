//! The business directory: imports, queries, changes and statistics (contract section 5).
use actix_web::{web, HttpResponse};
use serde_json::Value;

use leadhub_domain::business::model::{MAX_FIELD_LEN, STRING_FIELDS};
use leadhub_domain::business::{
    element_problems, BusinessError, BusinessFields, BusinessFilter, BusinessPatch, BusinessStatus,
    ImportElement, ImportRequest, RelationshipType,
};
use leadhub_domain::error::{FieldError, LocPart};

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::extract::{
    Caller, Fields, FromBody, FromQuery, Paging, QueryFields, ValidatedJson, ValidatedQuery,
};
use crate::routes::business_views::{
    BusinessPage, BusinessPatchSchema, BusinessView, ImportRequestSchema, ImportResult,
    StatisticsView,
};
use crate::routes::schemas::{ErrorBody, ValidationErrorBody};

/// Most businesses one import may carry.
pub const MAX_IMPORT: usize = 1000;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api/v1/lead-sources/import",
        web::post().to(import_businesses),
    )
    .route(
        "/api/v1/lead-sources/businesses",
        web::get().to(list_businesses),
    )
    .route(
        "/api/v1/lead-sources/businesses/{id}",
        web::get().to(get_business),
    )
    .route(
        "/api/v1/lead-sources/businesses/{id}",
        web::patch().to(update_business),
    )
    .route(
        "/api/v1/lead-sources/statistics",
        web::get().to(business_statistics),
    );
}

impl From<BusinessError> for ApiError {
    fn from(e: BusinessError) -> Self {
        match e {
            BusinessError::Forbidden(reason) => ApiError::Forbidden(reason),
            BusinessError::NotFound(thing) => ApiError::not_found(thing),
            BusinessError::Invalid(problems) => ApiError::Validation(problems),
            BusinessError::Unexpected(cause) => ApiError::unexpected(cause),
        }
    }
}

/// Reads one business (a JSON element, or a CSV row as an object of strings: numbers in strings
/// are accepted). A problem makes the element an error for a person, with every reason, instead
/// of a 422: a bad element must not stop its neighbours.
pub fn read_business(value: &Value) -> ImportElement {
    let mut problems = Vec::new();
    let Some(fields) = Fields::of(value, Vec::new(), &mut problems) else {
        return Err("Input should be an object".to_owned());
    };
    let mut business = BusinessFields::default();
    for name in STRING_FIELDS {
        let v = fields.opt_string(name, MAX_FIELD_LEN, &mut problems);
        if let Some(slot) = business.string_field_mut(name) {
            *slot = v;
        }
    }
    business.rating = fields.opt_float("rating", &mut problems);
    business.review_count = fields.opt_int("review_count", &mut problems);
    if problems.is_empty() {
        return Ok(business);
    }
    let mut reasons: Vec<String> = problems
        .iter()
        .map(|p| {
            let field = match p.loc.last() {
                Some(LocPart::Field(f)) => f.clone(),
                _ => String::new(),
            };
            format!("{field}: {}", p.msg)
        })
        .collect();
    reasons.extend(element_problems(&business));
    Err(reasons.join("; "))
}

/// `POST /api/v1/lead-sources/import`.
pub struct ImportBody(pub ImportRequest);

impl FromBody for ImportBody {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let fields = Fields::of(value, vec![LocPart::from("body")], &mut problems)
            .ok_or_else(|| problems.clone())?;
        let relationship_type = fields
            .opt_enum("relationship_type", &RelationshipType::NAMES, &mut problems)
            .and_then(RelationshipType::parse)
            .unwrap_or(RelationshipType::Prospect);
        let skip_duplicates = fields
            .opt_bool("skip_duplicates", &mut problems)
            .unwrap_or(true);
        let auto_categorize = fields
            .opt_bool("auto_categorize", &mut problems)
            .unwrap_or(true);
        let team_id = fields.opt_int("team_id", &mut problems);
        let elements = fields
            .array("businesses", 1, MAX_IMPORT, &mut problems)
            .map(|items| items.iter().map(read_business).collect())
            .unwrap_or_default();
        if problems.is_empty() {
            Ok(ImportBody(ImportRequest {
                elements,
                relationship_type,
                skip_duplicates,
                auto_categorize,
                team_id,
            }))
        } else {
            Err(problems)
        }
    }
}

/// `PATCH /api/v1/lead-sources/businesses/{id}`.
pub struct PatchBody(BusinessPatch);

impl FromBody for PatchBody {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Vec::new();
        let f = Fields::of(value, vec![LocPart::from("body")], &mut p).ok_or_else(|| p.clone())?;
        let patch = BusinessPatch {
            status: f
                .opt_enum("status", &BusinessStatus::NAMES, &mut p)
                .and_then(BusinessStatus::parse),
            relationship_type: f
                .opt_enum("relationship_type", &RelationshipType::NAMES, &mut p)
                .and_then(RelationshipType::parse),
            industry: f
                .has("industry")
                .then(|| f.opt_string("industry", MAX_FIELD_LEN, &mut p)),
        };
        if p.is_empty() {
            Ok(PatchBody(patch))
        } else {
            Err(p)
        }
    }
}

/// The filters of the list and the statistics.
pub struct BusinessQuery {
    filter: BusinessFilter,
}

impl FromQuery for BusinessQuery {
    fn from_query(q: &QueryFields) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let filter = read_filter(q, &mut problems);
        if problems.is_empty() {
            Ok(BusinessQuery { filter })
        } else {
            Err(problems)
        }
    }
}

fn read_filter(q: &QueryFields, problems: &mut Vec<FieldError>) -> BusinessFilter {
    BusinessFilter {
        visible_teams: None,
        team_id: q.int_in("team_id", i64::MIN, i64::MAX, problems),
        relationship_type: q
            .enum_value("relationship_type", &RelationshipType::NAMES, problems)
            .and_then(RelationshipType::parse),
        industry: q.string("industry"),
        status: q
            .enum_value("status", &BusinessStatus::NAMES, problems)
            .and_then(BusinessStatus::parse),
        state: q.string("state"),
    }
}

pub struct BusinessListQuery {
    filter: BusinessFilter,
    paging: Paging,
}

impl FromQuery for BusinessListQuery {
    fn from_query(q: &QueryFields) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let paging = Paging::read(q, &mut problems);
        let filter = read_filter(q, &mut problems);
        if problems.is_empty() {
            Ok(BusinessListQuery { filter, paging })
        } else {
            Err(problems)
        }
    }
}

/// Imports up to 1000 businesses; bad elements are reported by index, the rest imported.
#[utoipa::path(post, path = "/api/v1/lead-sources/import", operation_id = "import_businesses", tag = "businesses",
    security(("bearer" = [])),
    request_body = ImportRequestSchema,
    responses(
        (status = 200, description = "Counts, the new ids, and every rejected element by index", body = ImportResult),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 403, description = "team_id of a team the caller is not a member of, or an inactive team", body = ErrorBody),
        (status = 413, description = "Request body too large", body = ErrorBody),
        (status = 422, description = "A bad request-level field (businesses missing, empty or over 1000, unknown relationship_type, ...)", body = ValidationErrorBody)))]
pub async fn import_businesses(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<ImportBody>,
) -> ApiResult<HttpResponse> {
    let outcome = state.businesses.import(&caller.user, body.value.0).await?;
    Ok(HttpResponse::Ok().json(ImportResult::from(&outcome)))
}

/// The businesses the caller may see (their teams' and unassigned ones), newest first.
#[utoipa::path(get, path = "/api/v1/lead-sources/businesses", operation_id = "list_businesses", tag = "businesses",
    security(("bearer" = [])),
    params(
        ("relationship_type" = Option<String>, Query, description = "lead_buyer, lead_source, marketing_partner or prospect"),
        ("industry" = Option<String>, Query, description = "e.g. plumbing, hvac, real_estate (case-insensitive)"),
        ("status" = Option<String>, Query, description = "prospect, active or inactive"),
        ("state" = Option<String>, Query, description = "State code"),
        ("team_id" = Option<i64>, Query, description = "Only this team's businesses"),
        ("limit" = Option<i64>, Query, description = "1..=500, default 50"),
        ("offset" = Option<i64>, Query, description = "default 0")),
    responses(
        (status = 200, description = "A page of businesses", body = BusinessPage),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 422, description = "Bad query parameter", body = ValidationErrorBody)))]
pub async fn list_businesses(
    state: web::Data<AppState>,
    caller: Caller,
    query: ValidatedQuery<BusinessListQuery>,
) -> ApiResult<HttpResponse> {
    let BusinessListQuery { filter, paging } = query.0;
    let (items, total) = state
        .businesses
        .businesses(&caller.user, filter, paging.limit, paging.offset)
        .await?;
    Ok(HttpResponse::Ok().json(BusinessPage {
        items: items.iter().map(BusinessView::from).collect(),
        total,
        limit: paging.limit,
        offset: paging.offset,
    }))
}

/// One business.
#[utoipa::path(get, path = "/api/v1/lead-sources/businesses/{id}", operation_id = "get_business", tag = "businesses",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The business's id")),
    responses(
        (status = 200, description = "The business", body = BusinessView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such business the caller may see", body = ErrorBody),
        (status = 422, description = "The id is not a whole number", body = ValidationErrorBody)))]
pub async fn get_business(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let found = state
        .businesses
        .business(&caller.user, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(BusinessView::from(&found)))
}

/// Changes a business's status, relationship type or industry.
#[utoipa::path(patch, path = "/api/v1/lead-sources/businesses/{id}", operation_id = "update_business", tag = "businesses",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The business's id")),
    request_body = BusinessPatchSchema,
    responses(
        (status = 200, description = "The changed business", body = BusinessView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 404, description = "No such business the caller may see", body = ErrorBody),
        (status = 422, description = "A value outside its list", body = ValidationErrorBody)))]
pub async fn update_business(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<PatchBody>,
) -> ApiResult<HttpResponse> {
    let changed = state
        .businesses
        .update(&caller.user, id.into_inner(), body.value.0)
        .await?;
    Ok(HttpResponse::Ok().json(BusinessView::from(&changed)))
}

/// Counts by relationship type, industry, state and status over the businesses the caller can see.
#[utoipa::path(get, path = "/api/v1/lead-sources/statistics", operation_id = "business_statistics", tag = "businesses",
    security(("bearer" = [])),
    params(
        ("team_id" = Option<i64>, Query, description = "Only this team's businesses"),
        ("relationship_type" = Option<String>, Query, description = "Narrow to one relationship type"),
        ("industry" = Option<String>, Query, description = "Narrow to one industry"),
        ("status" = Option<String>, Query, description = "Narrow to one status"),
        ("state" = Option<String>, Query, description = "Narrow to one state")),
    responses(
        (status = 200, description = "The counts", body = StatisticsView),
        (status = 401, description = "Missing, invalid or expired credential", body = ErrorBody),
        (status = 422, description = "Bad query parameter", body = ValidationErrorBody)))]
pub async fn business_statistics(
    state: web::Data<AppState>,
    caller: Caller,
    query: ValidatedQuery<BusinessQuery>,
) -> ApiResult<HttpResponse> {
    let stats = state
        .businesses
        .statistics(&caller.user, query.0.filter)
        .await?;
    Ok(HttpResponse::Ok().json(StatisticsView::from(stats)))
}
