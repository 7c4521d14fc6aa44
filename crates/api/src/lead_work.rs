//! Working a lead over the API: edit (PATCH), notes, the timeline, archive and restore, team
//! moves and claims, bulk changes. The rules are `LeadWorkService`'s (docs/working-leads.md).
use actix_web::http::Method;
use actix_web::web::{self, Json};
use apistos::api_operation;

use leadhub_http::error::{ApiError, ApiResult};
use leadhub_http::extract::{Caller, PageQuery, ValidatedJson, ValidatedQuery};
use leadhub_http::schemas::{Detail, JsonWithStatus};
use leadhub_http::state::AppState;

use crate::lead_work_views::{
    team_id_refused, ActivityPage, ActivityView, BulkBody, BulkResult, EditedLeadView, IfMatch,
    LeadPatchBody, NoteBody, NotePage, NoteView, Tagged, TeamBody,
};
use crate::submission_views::LeadView;
use crate::Api;

pub fn routes(api: &mut Api) {
    api.route(Method::POST, "/api/v1/leads/bulk", bulk_change)
        .route(Method::PATCH, "/api/v1/leads/{id}", edit_lead)
        .route(Method::DELETE, "/api/v1/leads/{id}", archive_lead)
        .route(Method::POST, "/api/v1/leads/{id}/restore", restore_lead)
        .route(Method::POST, "/api/v1/leads/{id}/move", move_lead)
        .route(Method::POST, "/api/v1/leads/{id}/claim", claim_lead)
        .route(Method::GET, "/api/v1/leads/{id}/notes", list_notes)
        .route(Method::POST, "/api/v1/leads/{id}/notes", add_note)
        .route(
            Method::DELETE,
            "/api/v1/leads/{id}/notes/{note_id}",
            delete_note,
        )
        .route(Method::GET, "/api/v1/leads/{id}/activity", lead_activity);
}

/// Changes a lead's fields (intake's validation and normalisation; `null` or `""` clears a
/// field), `status` and `assignee_id` (an active member of the lead's team). A new address
/// that another lead of the same team (or of no team) already is answers 409 naming it in
/// `lead_id`. With `If-Match` (the `ETag` of the GET) a lead changed meanwhile answers 412;
/// without it the change applies to the lead as it is. The answer carries the new `ETag`.
#[api_operation(
    operation_id = "edit_lead",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 409,
    error_code = 412,
    error_code = 422,
    error_code = 429
)]
pub async fn edit_lead(
    state: web::Data<AppState>,
    caller: Caller,
    if_match: IfMatch,
    id: web::Path<i64>,
    body: ValidatedJson<LeadPatchBody>,
) -> ApiResult<Tagged<EditedLeadView>> {
    let members = match body.raw.json() {
        serde_json::Value::Object(members) => members,
        _ => serde_json::Map::new(),
    };
    if members.contains_key("team_id") {
        return Err(ApiError::Validation(vec![team_id_refused()]));
    }
    let patch = body.value.into_patch(&members);
    let edited = state
        .lead_work
        .edit(&caller.user, id.into_inner(), patch, if_match.0)
        .await?;
    Ok(Tagged::edited(edited))
}

/// Archives a lead (team admins and owners, platform admins; an unassigned lead: platform
/// admins). Its data stays; it leaves lists and exports unless `archived=true` is asked for.
#[api_operation(
    operation_id = "archive_lead",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 409,
    error_code = 422,
    error_code = 429
)]
pub async fn archive_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Tagged<LeadView>> {
    let lead = state
        .lead_work
        .set_archived(&caller.user, id.into_inner(), true)
        .await?;
    Ok(Tagged::of(lead))
}

/// Restores an archived lead (who may archive it).
#[api_operation(
    operation_id = "restore_lead",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 409,
    error_code = 422,
    error_code = 429
)]
pub async fn restore_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<Tagged<LeadView>> {
    let lead = state
        .lead_work
        .set_archived(&caller.user, id.into_inner(), false)
        .await?;
    Ok(Tagged::of(lead))
}

/// Moves a team's lead to another team: an admin or owner of its team (or a platform admin)
/// who is a member of the target. The assignee is cleared. A lead of the target team that is
/// the same property answers 409 naming it.
#[api_operation(
    operation_id = "move_lead",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 409,
    error_code = 422,
    error_code = 429
)]
pub async fn move_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<TeamBody>,
) -> ApiResult<Tagged<LeadView>> {
    let team_id = body.value.team_id.value().copied().unwrap_or_default();
    let lead = state
        .lead_work
        .move_to(&caller.user, id.into_inner(), team_id)
        .await?;
    Ok(Tagged::of(lead))
}

/// Claims an unassigned lead into one of the caller's teams (any user).
#[api_operation(
    operation_id = "claim_lead",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 409,
    error_code = 422,
    error_code = 429
)]
pub async fn claim_lead(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<TeamBody>,
) -> ApiResult<Tagged<LeadView>> {
    let team_id = body.value.team_id.value().copied().unwrap_or_default();
    let lead = state
        .lead_work
        .claim(&caller.user, id.into_inner(), team_id)
        .await?;
    Ok(Tagged::of(lead))
}

/// The lead's notes, newest first (deleted ones left out; the timeline keeps the trace).
#[api_operation(
    operation_id = "list_lead_notes",
    tag = "leads",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn list_notes(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: ValidatedQuery<PageQuery>,
) -> ApiResult<Json<NotePage>> {
    let paging = query.0.paging();
    let notes = state.lead_work.notes(&caller.user, id.into_inner()).await?;
    let total = i64::try_from(notes.len()).unwrap_or(i64::MAX);
    let items = notes
        .into_iter()
        .skip(usize::try_from(paging.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(paging.limit).unwrap_or(0))
        .map(NoteView::from)
        .collect();
    Ok(Json(NotePage {
        items,
        total,
        limit: paging.limit,
        offset: paging.offset,
    }))
}

/// Adds a note (1 to 10,000 characters) by the caller: any member of the lead's team, any
/// user on an unassigned lead.
#[api_operation(
    operation_id = "add_lead_note",
    tag = "leads",
    error_code = 401,
    error_code = 404,
    error_code = 409,
    error_code = 422,
    error_code = 429
)]
pub async fn add_note(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidatedJson<NoteBody>,
) -> ApiResult<JsonWithStatus<NoteView, 201>> {
    let text = body.value.body.value().cloned().unwrap_or_default();
    let note = state
        .lead_work
        .add_note(&caller.user, id.into_inner(), &text)
        .await?;
    Ok(JsonWithStatus(NoteView::from(note)))
}

/// Deletes a note: its author, a team admin or owner, or a platform admin. The note's text is
/// kept for the record; the timeline says `note_deleted`.
#[api_operation(
    operation_id = "delete_lead_note",
    tag = "leads",
    error_code = 401,
    error_code = 403,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn delete_note(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<Json<Detail>> {
    let (id, note_id) = path.into_inner();
    state
        .lead_work
        .delete_note(&caller.user, id, note_id)
        .await?;
    Ok(Json(Detail::new("Note deleted")))
}

/// The lead's timeline, newest first: its submissions (with their action), edits (field, old
/// value, new value), status and owner changes, notes, team moves, merges, archive and
/// restore, enrichment runs; each with its actor and time.
#[api_operation(
    operation_id = "lead_activity",
    tag = "leads",
    error_code = 401,
    error_code = 404,
    error_code = 422,
    error_code = 429
)]
pub async fn lead_activity(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: ValidatedQuery<PageQuery>,
) -> ApiResult<Json<ActivityPage>> {
    let paging = query.0.paging();
    let (entries, total) = state
        .lead_work
        .activity(&caller.user, id.into_inner(), paging.limit, paging.offset)
        .await?;
    Ok(Json(ActivityPage {
        items: entries.into_iter().map(ActivityView::from).collect(),
        total,
        limit: paging.limit,
        offset: paging.offset,
    }))
}

/// Sets status, assignee, team or archive on up to 1000 leads at once, in one transaction:
/// all or nothing. A 422 names every refused lead at `["body", "ids", index]`.
#[api_operation(
    operation_id = "bulk_change_leads",
    tag = "leads",
    error_code = 401,
    error_code = 422,
    error_code = 429
)]
pub async fn bulk_change(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidatedJson<BulkBody>,
) -> ApiResult<Json<BulkResult>> {
    let (ids, set) = body.value.into_parts();
    let leads = state.lead_work.bulk(&caller.user, &ids, &set).await?;
    Ok(Json(BulkResult {
        updated: leads.len(),
        items: leads.into_iter().map(LeadView::from).collect(),
    }))
}
