//! A team's tags as a whole: the tags on the leads the caller sees with how many carry each, and
//! one tag renamed or taken off all of them (`LeadWorkService::tag_counts`, `retag`;
//! docs/working-leads.md "Tags").
use actix_web::web::Json;
use apistos::api_operation;
use serde::{Deserialize, Serialize};
use validator::Validate;

use leadhub_domain::lead::work::{Retagged, TagCount};
use leadhub_http::extract::rules::a_tag;
use leadhub_http::extract::{
    json_type, Call, Lax, RequestBody, RequestQuery, ValidatedJson, ValidatedQuery,
};
use leadhub_http::refusals::{Answer, Queried, Sweeping};

use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        GET "/api/v1/tags" => list_tags,
        POST "/api/v1/tags/rename" => rename_tag,
        POST "/api/v1/tags/remove" => remove_tag,
    }
}

/// `GET /api/v1/tags`.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TagQuery {
    /// Only this team's leads.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
}

impl RequestQuery for TagQuery {}

/// A tag and how many leads carry it.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TagView {
    /// The tag, as stored (lower case).
    pub tag: String,
    /// The leads carrying it, archived ones left out.
    pub lead_count: i64,
}

/// The tags on the leads the caller sees, most used first.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TagList {
    pub items: Vec<TagView>,
}

/// `POST /api/v1/tags/rename`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct RenameTagBody {
    /// The tag to rename (any case).
    #[validate(custom(function = "json_type"), required, custom(function = "a_tag"))]
    pub from: Lax<String>,
    /// Its new name: 1 to 40 characters, no comma or semicolon. A tag the lead carries already
    /// stays one tag.
    #[validate(custom(function = "json_type"), required, custom(function = "a_tag"))]
    pub to: Lax<String>,
    /// Only this team's leads (default: every lead the caller sees).
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
}

impl RequestBody for RenameTagBody {}

/// `POST /api/v1/tags/remove`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct RemoveTagBody {
    /// The tag to take off (any case).
    #[validate(custom(function = "json_type"), required, custom(function = "a_tag"))]
    pub tag: Lax<String>,
    /// Only this team's leads (default: every lead the caller sees).
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
}

impl RequestBody for RemoveTagBody {}

/// What a rename or a removal changed.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct RetagResult {
    /// The leads changed (archived ones among them).
    pub updated: usize,
}

impl From<Retagged> for RetagResult {
    fn from(done: Retagged) -> Self {
        RetagResult {
            updated: done.leads,
        }
    }
}

impl From<TagCount> for TagView {
    fn from(count: TagCount) -> Self {
        TagView {
            tag: count.tag,
            lead_count: count.leads,
        }
    }
}

/// The tags on the leads the caller sees, with how many leads carry each.
/// Archived leads are left out. Most used first, then by tag; at most 500.
#[api_operation(operation_id = "list_tags", tag = "leads")]
pub async fn list_tags(
    call: Call,
    query: ValidatedQuery<TagQuery>,
) -> Answer<Json<TagList>, Queried> {
    let team_id = query.0.team_id.value().copied();
    let counts = call
        .state
        .lead_work
        .tag_counts(call.user(), team_id)
        .await?;
    Ok(Json(TagList {
        items: counts.into_iter().map(TagView::from).collect(),
    }))
}

/// Renames a tag on every lead the caller sees that carries it.
/// Of `team_id` alone when given; archived leads too. Each lead changes as a bulk change changes
/// it (a `tags_changed` timeline entry, `lead.updated`), a thousand leads a transaction. A refusal
/// (409) stops the rename there; sending it again finishes it.
#[api_operation(operation_id = "rename_tag", tag = "leads")]
pub async fn rename_tag(
    call: Call,
    body: ValidatedJson<RenameTagBody>,
) -> Answer<Json<RetagResult>, Sweeping> {
    let body = body.value;
    // Both are there (validation); a blank one reaches the service as "" and is refused there,
    // never as a missing `to`, which would take the tag off instead.
    let (from, to) = (body.from.text().unwrap_or(""), body.to.text().unwrap_or(""));
    let team_id = body.team_id.value().copied();
    let work = &call.state.lead_work;
    let done = work.retag(call.user(), team_id, from, Some(to)).await?;
    Ok(Json(RetagResult::from(done)))
}

/// Takes a tag off every lead the caller sees that carries it.
/// Of `team_id` alone when given; archived leads too, as the rename does.
#[api_operation(operation_id = "remove_tag", tag = "leads")]
pub async fn remove_tag(
    call: Call,
    body: ValidatedJson<RemoveTagBody>,
) -> Answer<Json<RetagResult>, Sweeping> {
    let body = body.value;
    let team_id = body.team_id.value().copied();
    let work = &call.state.lead_work;
    let done = work
        .retag(call.user(), team_id, body.tag.text().unwrap_or(""), None)
        .await?;
    Ok(Json(RetagResult::from(done)))
}
