//! Working a lead over the API: edit (PATCH), notes, the timeline, archive and restore, team
//! moves and claims, bulk changes. The rules are `LeadWorkService`'s (docs/working-leads.md).
use actix_web::web::{self, Json};
use apistos::api_operation;

use leadhub_domain::error::FieldError;
use leadhub_http::error::ApiError;
use leadhub_http::extract::{Call, PageQuery, ValidatedJson, ValidatedQuery};
use leadhub_http::refusals::{
    Answer, Clashing, ClashingBody, Guarded, Queried, Seen, SeenClashing, SeenClashingBody,
    Versioned,
};
use leadhub_http::schemas::{Detail, JsonWithStatus};

use crate::lead_work_views::{
    team_id_refused, ActivityPage, BulkBody, BulkResult, ContactBody, EditedLeadView, IfMatch,
    LeadPatchBody, NoteBody, NotePage, NoteView, NumberBody, Tagged, TeamBody,
};
use crate::page::page;
use crate::submission_views::LeadView;
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        POST "/api/v1/leads/bulk" => bulk_change,
        PATCH "/api/v1/leads/{id}" => edit_lead,
        DELETE "/api/v1/leads/{id}" => archive_lead,
        POST "/api/v1/leads/{id}/restore" => restore_lead,
        POST "/api/v1/leads/{id}/move" => move_lead,
        POST "/api/v1/leads/{id}/claim" => claim_lead,
        GET "/api/v1/leads/{id}/notes" => list_notes,
        POST "/api/v1/leads/{id}/notes" => add_note,
        POST "/api/v1/leads/{id}/contacts" => log_contact,
        POST "/api/v1/leads/{id}/do-not-call-phones" => bar_lead_number,
        POST "/api/v1/leads/{id}/do-not-call-phones/remove" => unbar_lead_number,
        DELETE "/api/v1/leads/{id}/notes/{note_id}" => delete_note,
        GET "/api/v1/leads/{id}/activity" => lead_activity,
    }
}

/// Changes a lead's fields (intake's validation and normalisation; `null` or `""` clears a
/// field), `status` and `assignee_id` (an active member of the lead's team). A new address
/// that another lead of the same team (or of no team) already is answers 409 naming it in
/// `lead_id`. With `If-Match` (the `ETag` of the GET) a lead changed meanwhile answers 412;
/// without it the change applies to the lead as it is. The answer carries the new `ETag`.
#[api_operation(operation_id = "edit_lead", tag = "leads")]
pub async fn edit_lead(
    call: Call,
    if_match: IfMatch,
    id: web::Path<i64>,
    body: ValidatedJson<LeadPatchBody>,
) -> Answer<Tagged<EditedLeadView>, Versioned> {
    let members = match body.raw.json() {
        serde_json::Value::Object(members) => members,
        _ => serde_json::Map::new(),
    };
    if members.contains_key("team_id") {
        return Err(ApiError::Validation(vec![team_id_refused()]).into());
    }
    let patch = body.value.into_patch(&members);
    let edited = call
        .state
        .lead_work
        .edit(call.user(), id.into_inner(), patch, if_match.0)
        .await?;
    Ok(Tagged::edited(edited))
}

/// Archives a lead (team admins and owners, platform admins; an unassigned lead: platform
/// admins). Its data stays; it leaves lists and exports unless `archived=true` is asked for.
#[api_operation(operation_id = "archive_lead", tag = "leads")]
pub async fn archive_lead(lead: Call<i64>) -> Answer<Tagged<LeadView>, Clashing> {
    set_archived(lead, true).await
}

/// Restores an archived lead (who may archive it).
#[api_operation(operation_id = "restore_lead", tag = "leads")]
pub async fn restore_lead(lead: Call<i64>) -> Answer<Tagged<LeadView>, Clashing> {
    set_archived(lead, false).await
}

/// Archive and restore: one change, either way.
async fn set_archived(lead: Call<i64>, archived: bool) -> Answer<Tagged<LeadView>, Clashing> {
    let work = &lead.state.lead_work;
    let changed = work.set_archived(lead.user(), lead.path, archived).await?;
    Ok(Tagged::of(changed))
}

/// Moves a team's lead to another team: an admin or owner of its team (or a platform admin)
/// who is a member of the target. The assignee is cleared. A lead of the target team that is
/// the same property answers 409 naming it.
#[api_operation(operation_id = "move_lead", tag = "leads")]
pub async fn move_lead(
    lead: Call<i64>,
    body: ValidatedJson<TeamBody>,
) -> Answer<Tagged<LeadView>, Clashing> {
    let work = &lead.state.lead_work;
    let moved = work
        .move_to(lead.user(), lead.path, body.value.team_id())
        .await?;
    Ok(Tagged::of(moved))
}

/// Claims an unassigned lead into one of the caller's teams (any user).
#[api_operation(operation_id = "claim_lead", tag = "leads")]
pub async fn claim_lead(
    lead: Call<i64>,
    body: ValidatedJson<TeamBody>,
) -> Answer<Tagged<LeadView>, Clashing> {
    let work = &lead.state.lead_work;
    let claimed = work
        .claim(lead.user(), lead.path, body.value.team_id())
        .await?;
    Ok(Tagged::of(claimed))
}

/// The lead's notes, newest first (deleted ones left out; the timeline keeps the trace).
#[api_operation(operation_id = "list_lead_notes", tag = "leads")]
pub async fn list_notes(
    lead: Call<i64>,
    query: ValidatedQuery<PageQuery>,
) -> Answer<Json<NotePage>, Seen> {
    let paging = query.0.paging();
    let notes = lead.state.lead_work.notes(lead.user(), lead.path).await?;
    let total = i64::try_from(notes.len()).unwrap_or(i64::MAX);
    let rows = notes
        .into_iter()
        .skip(usize::try_from(paging.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(paging.limit).unwrap_or(0));
    Ok(page(rows, total, paging))
}

/// Adds a note (1 to 10,000 characters) by the caller: any member of the lead's team, any
/// user on an unassigned lead.
#[api_operation(operation_id = "add_lead_note", tag = "leads")]
pub async fn add_note(
    lead: Call<i64>,
    body: ValidatedJson<NoteBody>,
) -> Answer<JsonWithStatus<NoteView, 201>, SeenClashing> {
    let text = body.value.body.value().cloned().unwrap_or_default();
    let work = &lead.state.lead_work;
    let note = work.add_note(lead.user(), lead.path, &text).await?;
    Ok(JsonWithStatus(NoteView::from(note)))
}

/// Logs a call or an e-mail to the lead's owner, with how it went.
/// Anyone who may edit the lead: the `outcome`, what was said (kept as a note), and the next
/// follow-up day (`null` clears it; absent leaves it). A `new` lead whose owner heard from us
/// (`left_message`, `reached`, `emailed`) becomes `contacted`. The timeline says
/// `contact_logged`; `lead.updated` names the outcome in `contact`. The `phone` called, one of
/// the lead's, is named in the entry; a `wrong_number` one is taken off the lead and kept in its
/// `wrong_phones`, a `reached` one becomes its first. Answers the lead with its new `ETag`.
#[api_operation(operation_id = "log_lead_contact", tag = "leads")]
pub async fn log_contact(
    lead: Call<i64>,
    body: ValidatedJson<ContactBody>,
) -> Answer<Tagged<LeadView>, SeenClashing> {
    let log = body.value.into_log().ok_or_else(|| {
        ApiError::Validation(vec![FieldError::body(
            &["outcome".into()],
            "enum",
            "Give the contact's outcome",
        )])
    })?;
    let work = &lead.state.lead_work;
    let logged = work.log_contact(lead.user(), lead.path, &log).await?;
    Ok(Tagged::of(logged))
}

/// Bars one of the lead's numbers at its owner's request ("not this number"): anyone who may
/// edit the lead. It is taken off the lead (the later numbers move up a slot) and kept in its
/// `do_not_call_phones`, so no submission, import or merge of leads adds it back; the timeline
/// says `numbers_not_to_call`. A number that is not the lead's is a 422. Answers the lead with
/// its new `ETag`.
#[api_operation(operation_id = "bar_lead_number", tag = "leads")]
pub async fn bar_lead_number(
    lead: Call<i64>,
    body: ValidatedJson<NumberBody>,
) -> Answer<Tagged<LeadView>, SeenClashingBody> {
    let phone = body.value.phone.text().unwrap_or_default();
    let work = &lead.state.lead_work;
    Ok(Tagged::of(
        work.bar_number(lead.user(), lead.path, phone).await?,
    ))
}

/// Takes a number off the lead's `do_not_call_phones` (the owner agreed to calls there again):
/// who may take a lead's do-not-call mark off, a team admin or owner. It is not put back on the
/// lead's phones (an edit does that). The timeline says `number_callable`. A number not on the
/// list is a 422.
#[api_operation(operation_id = "unbar_lead_number", tag = "leads")]
pub async fn unbar_lead_number(
    lead: Call<i64>,
    body: ValidatedJson<NumberBody>,
) -> Answer<Tagged<LeadView>, ClashingBody> {
    let phone = body.value.phone.text().unwrap_or_default();
    let work = &lead.state.lead_work;
    Ok(Tagged::of(
        work.unbar_number(lead.user(), lead.path, phone).await?,
    ))
}

/// Deletes a note: its author, a team admin or owner, or a platform admin. The note's text is
/// kept for the record; the timeline says `note_deleted`.
#[api_operation(operation_id = "delete_lead_note", tag = "leads")]
pub async fn delete_note(note: Call<(i64, i64)>) -> Answer<Json<Detail>, Guarded> {
    let (id, note_id) = note.path;
    note.state
        .lead_work
        .delete_note(note.user(), id, note_id)
        .await?;
    Ok(Json(Detail::new("Note deleted")))
}

/// The lead's timeline, newest first: its submissions (with their action), edits (field, old
/// value, new value), status and owner changes, notes, team moves, merges, archive and
/// restore, enrichment runs; each with its actor and time.
#[api_operation(operation_id = "lead_activity", tag = "leads")]
pub async fn lead_activity(
    lead: Call<i64>,
    query: ValidatedQuery<PageQuery>,
) -> Answer<Json<ActivityPage>, Seen> {
    let paging = query.0.paging();
    let work = &lead.state.lead_work;
    let (entries, total) = work
        .activity(lead.user(), lead.path, paging.limit, paging.offset)
        .await?;
    Ok(page(entries, total, paging))
}

/// Sets status, assignee, team or archive on up to 1000 leads at once, in one transaction:
/// all or nothing. A 422 names every refused lead at `["body", "ids", index]`. `contact` logs a
/// contact on each lead (and `note` adds a note to each), as a salesperson logs an e-mail sent
/// to a whole list.
#[api_operation(operation_id = "bulk_change_leads", tag = "leads")]
pub async fn bulk_change(
    call: Call,
    body: ValidatedJson<BulkBody>,
) -> Answer<Json<BulkResult>, Queried> {
    let (ids, set) = body.value.into_parts();
    let leads = call.state.lead_work.bulk(call.user(), &ids, &set).await?;
    Ok(Json(BulkResult {
        updated: leads.len(),
        items: leads.into_iter().map(LeadView::from).collect(),
    }))
}
