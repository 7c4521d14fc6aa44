//! The business directory: imports, queries, changes and statistics (contract section 5).
use actix_web::web::Json;
use apistos::api_operation;
use serde::Deserialize;
use validator::{Validate, ValidationError, ValidationErrors};

use leadhub_domain::business::{
    BusinessFilter, BusinessPatch, BusinessStatus, ImportRequest, RelationshipType,
};
use leadhub_domain::lead::search::SearchText;
use leadhub_http::extract::rules::{one_of, one_of_text, phone_number, state_code};
use leadhub_http::extract::{
    flat_problems, json_type, Call, Lax, PageQuery, RequestBody, RequestQuery, ValidatedJson,
    ValidatedQuery,
};
use leadhub_http::refusals::{Answer, Import, Queried, Seen, SeenBody};

use crate::business_views::{
    BusinessItem, BusinessPage, BusinessView, ImportResult, StatisticsView,
};
use crate::page::page;
use crate::Api;

/// Most businesses one import may carry.
pub const MAX_IMPORT: usize = 1000;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/v1/lead-sources/import" => import_businesses,
        GET "/api/v1/lead-sources/businesses" => list_businesses,
        GET "/api/v1/lead-sources/businesses/{id}" => get_business,
        PATCH "/api/v1/lead-sources/businesses/{id}" => update_business,
        GET "/api/v1/lead-sources/statistics" => business_statistics,
    }
}

fn relationship_type(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &RelationshipType::NAMES)
}

fn business_status(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &BusinessStatus::NAMES)
}

fn relationship_type_text(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of_text(field, &RelationshipType::NAMES)
}

fn business_status_text(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of_text(field, &BusinessStatus::NAMES)
}

/// `POST /api/v1/lead-sources/import`. A bad element is not a 422: it is reported in the
/// answer's `errors`, by index, and its neighbours are imported.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct ImportBody {
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 1000))]
    pub businesses: Lax<Vec<BusinessItem>>,
    /// lead_buyer, lead_source, marketing_partner or prospect (default).
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "relationship_type_text")
    )]
    #[schemars(default = "prospect")]
    pub relationship_type: Lax<String>,
    /// true (default): a business already stored (or earlier in this import) with the same
    /// normalised name in the same city and state, the same phone or the same website domain
    /// is skipped.
    #[validate(custom(function = "json_type"))]
    #[schemars(default = "yes")]
    pub skip_duplicates: Lax<bool>,
    /// true (default): map the industry to a canonical slug, or infer a missing one from name
    /// and website.
    #[validate(custom(function = "json_type"))]
    #[schemars(default = "yes")]
    pub auto_categorize: Lax<bool>,
    /// Imports into this team (the caller must be a member of it); absent: unassigned.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
}

fn prospect() -> &'static str {
    RelationshipType::Prospect.as_str()
}

fn yes() -> bool {
    true
}

impl RequestBody for ImportBody {}

impl ImportBody {
    fn into_request(self) -> ImportRequest {
        ImportRequest {
            relationship_type: self
                .relationship_type
                .text()
                .and_then(RelationshipType::parse)
                .unwrap_or(RelationshipType::Prospect),
            skip_duplicates: self.skip_duplicates.value().copied().unwrap_or(true),
            auto_categorize: self.auto_categorize.value().copied().unwrap_or(true),
            team_id: self.team_id.value().copied(),
            elements: self
                .businesses
                .into_value()
                .unwrap_or_default()
                .into_iter()
                .map(BusinessItem::into_element)
                .collect(),
        }
    }
}

/// `PATCH /api/v1/lead-sources/businesses/{id}`: absent fields stay as they are, `null` (or
/// "") clears an optional one; values are normalised as an import normalises them. A member
/// not listed here is a 422 naming it.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct PatchBody {
    /// prospect, active or inactive.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "business_status_text")
    )]
    pub status: Lax<String>,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "relationship_type_text")
    )]
    pub relationship_type: Lax<String>,
    /// The business's name; cannot be cleared.
    #[serde(default)]
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "kept_name")
    )]
    pub name: Lax<String>,
    /// Stored as E.164 (`+15125550100`); a number that is not valid by libphonenumber's rules
    /// (as for leads: a US number without a country code is read as US) is a 422.
    #[serde(default)]
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "phone_number")
    )]
    pub phone: Lax<String>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub website: Lax<String>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub address: Lax<String>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub city: Lax<String>,
    /// US state, DC or territory code, any case.
    #[serde(default)]
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "state_code")
    )]
    pub state: Lax<String>,
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub zip_code: Lax<String>,
    /// Stored as given.
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub industry: Lax<String>,
    /// 0 to 5.
    #[serde(default)]
    #[validate(custom(function = "json_type"), range(min = 0.0, max = 5.0))]
    pub rating: Lax<f64>,
    /// 0 or more.
    #[serde(default)]
    #[validate(custom(function = "json_type"), range(min = 0))]
    pub review_count: Lax<i64>,
}

/// A name sent must be text: `null` or blank would leave a business without one.
fn kept_name(field: &Lax<String>) -> Result<(), ValidationError> {
    match field {
        Lax::Null => Err(ValidationError::new("string_type")
            .with_message("Input should be a valid string".into())),
        Lax::Given(_) if field.text().is_none() => Err(ValidationError::new("too_short")
            .with_message("String should have at least 1 character".into())),
        _ => Ok(()),
    }
}

impl RequestBody for PatchBody {
    const REFUSES_UNKNOWN: bool = true;
}

impl PatchBody {
    fn into_patch(self) -> BusinessPatch {
        fn change(field: Lax<String>) -> Option<Option<String>> {
            field.is_sent().then(|| field.into_text())
        }
        fn number<T>(field: Lax<T>) -> Option<Option<T>> {
            field.is_sent().then(|| field.into_value())
        }
        BusinessPatch {
            status: self.status.text().and_then(BusinessStatus::parse),
            relationship_type: self
                .relationship_type
                .text()
                .and_then(RelationshipType::parse),
            name: self.name.into_text(),
            phone: change(self.phone),
            website: change(self.website),
            address: change(self.address),
            city: change(self.city),
            state: change(self.state),
            zip_code: change(self.zip_code),
            industry: change(self.industry),
            rating: number(self.rating),
            review_count: number(self.review_count),
        }
    }
}

/// The filters of the list and the statistics.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BusinessQuery {
    /// lead_buyer, lead_source, marketing_partner or prospect.
    #[validate(custom(function = "json_type"), custom(function = "relationship_type"))]
    pub relationship_type: Lax<String>,
    /// e.g. plumbing, hvac, real_estate (case-insensitive).
    #[validate(custom(function = "json_type"))]
    pub industry: Lax<String>,
    /// prospect, active or inactive.
    #[validate(custom(function = "json_type"), custom(function = "business_status"))]
    pub status: Lax<String>,
    /// State code.
    #[validate(custom(function = "json_type"))]
    pub state: Lax<String>,
    /// Only this team's businesses.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
    /// Search, any case: a substring of the name, website or city, or of the phone number
    /// (written any way, compared by its digits).
    #[validate(custom(function = "json_type"))]
    pub q: Lax<String>,
}

impl RequestQuery for BusinessQuery {}

impl BusinessQuery {
    pub fn filter(&self) -> BusinessFilter {
        BusinessFilter {
            visible_teams: None,
            team_id: self.team_id.value().copied(),
            relationship_type: self
                .relationship_type
                .text()
                .and_then(RelationshipType::parse),
            industry: self.industry.text().map(str::to_owned),
            status: self.status.text().and_then(BusinessStatus::parse),
            state: self.state.text().map(str::to_owned),
            q: self.q.text().and_then(SearchText::parse),
        }
    }
}

/// A page of the businesses a filter finds.
#[derive(Deserialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BusinessListQuery {
    #[serde(flatten)]
    pub filter: BusinessQuery,
    #[serde(flatten)]
    pub page: PageQuery,
}

impl Validate for BusinessListQuery {
    fn validate(&self) -> Result<(), ValidationErrors> {
        flat_problems([self.filter.validate(), self.page.validate()])
    }
}

impl RequestQuery for BusinessListQuery {}

/// Imports up to 1000 businesses; bad elements are reported by index, the rest imported.
#[api_operation(operation_id = "import_businesses", tag = "businesses")]
pub async fn import_businesses(
    call: Call,
    body: ValidatedJson<ImportBody>,
) -> Answer<Json<ImportResult>, Import> {
    let outcome = call
        .state
        .businesses
        .import(call.user(), body.value.into_request())
        .await?;
    Ok(Json(ImportResult::from(&outcome)))
}

/// The businesses the caller may see (their teams' and unassigned ones), newest first.
/// `q` searches the name, the phone (any writing), the website and the city.
#[api_operation(operation_id = "list_businesses", tag = "businesses")]
pub async fn list_businesses(
    call: Call,
    query: ValidatedQuery<BusinessListQuery>,
) -> Answer<Json<BusinessPage>, Queried> {
    let query = query.0;
    let paging = query.page.paging();
    let (items, total) = call
        .state
        .businesses
        .businesses(
            call.user(),
            query.filter.filter(),
            paging.limit,
            paging.offset,
        )
        .await?;
    Ok(page(&items, total, paging))
}

/// One business.
#[api_operation(operation_id = "get_business", tag = "businesses")]
pub async fn get_business(business: Call<i64>) -> Answer<Json<BusinessView>, Seen> {
    let directory = &business.state.businesses;
    let found = directory.business(business.user(), business.path).await?;
    Ok(Json(BusinessView::from(&found)))
}

/// Changes any field of a business that an import accepts, name included.
/// Values are normalised as an import normalises them; a member it does not know is a 422 naming it.
#[api_operation(operation_id = "update_business", tag = "businesses")]
pub async fn update_business(
    business: Call<i64>,
    body: ValidatedJson<PatchBody>,
) -> Answer<Json<BusinessView>, SeenBody> {
    let patch = body.value.into_patch();
    let directory = &business.state.businesses;
    let changed = directory
        .update(business.user(), business.path, patch)
        .await?;
    Ok(Json(BusinessView::from(&changed)))
}

/// Counts by relationship type, industry, state and status over the businesses the caller can see.
#[api_operation(operation_id = "business_statistics", tag = "businesses")]
pub async fn business_statistics(
    call: Call,
    query: ValidatedQuery<BusinessQuery>,
) -> Answer<Json<StatisticsView>, Queried> {
    let stats = call
        .state
        .businesses
        .statistics(call.user(), query.0.filter())
        .await?;
    Ok(Json(StatisticsView::from(stats)))
}
