//! The lead page's forms: status and owner, notes, do-not-call, claim, move, archive and restore, merge and
//! "Enrich again". Each calls the same domain method as its API route (so both refuse alike)
//! and answers with a redirect to the lead (Post/Redirect/Get) or a page saying what was
//! refused.
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use chrono::NaiveDate;

use leadhub_domain::error::FieldError;
use leadhub_domain::lead::work::{
    follow_up_day, ContactLog, ContactOutcome, LeadPatch, LeadStatus, LeadWorkError, FOLLOW_UP_RULE,
};

use crate::lead::refused;
use crate::lead_walk::{self, Walk};
use crate::render::{see_other, PageError};
use crate::session::{Posted, Visitor};
use crate::{id_of, Button};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        POST "/leads/{id}/work" => work,
        POST "/leads/{id}/notes" => add_note,
        POST "/leads/{id}/contact" => log_contact,
        POST "/leads/{id}/notes/{note}/delete" => delete_note,
        POST "/leads/{id}/claim" => claim,
        POST "/leads/{id}/move" => move_to,
        POST "/leads/{id}/do-not-call" => do_not_call,
        POST "/leads/{id}/may-call" => may_call,
        POST "/leads/{id}/numbers/not-to-call" => bar_number,
        POST "/leads/{id}/numbers/may-call" => unbar_number,
        POST "/leads/{id}/archive" => archive,
        POST "/leads/{id}/restore" => restore,
        POST "/leads/{id}/merge" => merge,
        POST "/leads/{id}/enrich" => enrich,
    }
}

/// Back to the lead, with the notice of what was done (and where on the page it shows), on the
/// walk down the list the lead was opened from (the form's URL carries it: `lead_walk`).
fn back_to(id: i64, done: &str, anchor: &str, walk: &Walk) -> HttpResponse {
    see_other(&format!("/leads/{id}?done={done}{}#{anchor}", walk.and()))
}

/// What a change of lead `id` answers: back to the lead with the notice `done` (at `anchor`),
/// or the page saying why it was refused.
fn answer<T>(
    visitor: Visitor,
    walk: &Walk,
    id: i64,
    outcome: Result<T, LeadWorkError>,
    done: &str,
    anchor: &str,
) -> Result<HttpResponse, PageError> {
    outcome.map_err(|e| refused(e, id, walk))?;
    Ok(visitor.finish(back_to(id, done, anchor, walk)))
}

/// The status and owner form: the version the page showed (a change made since is refused, not
/// overwritten), the status word, the owner's public id ("" for nobody) and the follow-up day
/// ("" for none; a form without the field leaves the day as it is).
/// (Text fields only: the form is read through a `flatten`, which hands every value over as text.)
#[derive(Deserialize)]
struct WorkForm {
    version: String,
    status: String,
    assignee: String,
    follow_up: Option<String>,
    /// `next`: "Save and open the next lead" of the walk down a list.
    then: Option<String>,
}

/// The form's follow-up day as a change: None leaves it, `Some(None)` clears it.
fn follow_up_change(given: Option<&str>) -> Result<Option<Option<NaiveDate>>, LeadWorkError> {
    let Some(given) = given.map(str::trim) else {
        return Ok(None);
    };
    if given.is_empty() {
        return Ok(Some(None));
    }
    match follow_up_day(given) {
        Some(day) => Ok(Some(Some(day))),
        None => Err(LeadWorkError::Invalid(vec![FieldError::body(
            &["follow_up_on".into()],
            "date_parsing",
            format!("The follow-up day must be {FOLLOW_UP_RULE}"),
        )])),
    }
}

async fn work(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<WorkForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let version = form.version.parse().map_err(|_| PageError::BadForm)?;
    let status = LeadStatus::parse(&form.status).ok_or(PageError::BadForm)?;
    let assignee = Some(form.assignee).filter(|a| !a.is_empty());
    let follow_up =
        follow_up_change(form.follow_up.as_deref()).map_err(|e| refused(e, id, &walk))?;
    let patch = LeadPatch {
        status: Some(status),
        assignee: Some(assignee),
        follow_up,
        ..LeadPatch::default()
    };
    let work = &visitor.state.lead_work;
    let edited = work.edit(&visitor.user, id, patch, Some(version)).await;
    let then_next = form.then.as_deref() == Some("next");
    answer_or_next(visitor, &walk, id, edited, then_next, "saved").await
}

/// `answer`, or, when the form asked for it and the change went through, the next lead of the
/// walk with the notice `{done}-then-next` (at the end of the list: back to the lead).
async fn answer_or_next<T>(
    visitor: Visitor,
    walk: &Walk,
    id: i64,
    outcome: Result<T, LeadWorkError>,
    then_next: bool,
    done: &str,
) -> Result<HttpResponse, PageError> {
    if outcome.is_ok() && then_next {
        // Read after the change: a lead it took out of the list is followed by the one at its place.
        let next = lead_walk::around(&visitor, id, walk)
            .await?
            .and_then(|w| w.next);
        if let Some(next) = next {
            return Ok(visitor.finish(see_other(&format!("{next}&done={done}-then-next"))));
        }
    }
    answer(visitor, walk, id, outcome, done, "work")
}

/// The contact form: one button per outcome, what was said, the next follow-up day (as the
/// status form's: "" clears it, a form without the field leaves it) and `then=next`.
#[derive(Deserialize)]
struct ContactForm {
    outcome: String,
    note: Option<String>,
    follow_up: Option<String>,
    then: Option<String>,
    /// The number called (the lead's, as stored); none for an e-mail.
    phone: Option<String>,
}

async fn log_contact(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<ContactForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let outcome = ContactOutcome::parse(&form.outcome).ok_or(PageError::BadForm)?;
    let follow_up =
        follow_up_change(form.follow_up.as_deref()).map_err(|e| refused(e, id, &walk))?;
    let log = ContactLog {
        outcome,
        note: form.note,
        follow_up,
        phone: form.phone.filter(|p| !p.trim().is_empty()),
    };
    let work = &visitor.state.lead_work;
    let logged = work.log_contact(&visitor.user, id, &log).await;
    let then_next = form.then.as_deref() == Some("next");
    answer_or_next(visitor, &walk, id, logged, then_next, "contact-logged").await
}

#[derive(Deserialize)]
struct NoteForm {
    body: String,
}

async fn add_note(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<NoteForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let work = &visitor.state.lead_work;
    let added = work.add_note(&visitor.user, id, &form.body).await;
    answer(visitor, &walk, id, added, "note-added", "notes")
}

async fn delete_note(
    path: web::Path<(String, String)>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let (id, note) = path.into_inner();
    let (id, note) = (id_of(&id, "Lead")?, id_of(&note, "Note")?);
    let work = &visitor.state.lead_work;
    let deleted = work.delete_note(&visitor.user, id, note).await;
    answer(visitor, &walk, id, deleted, "note-deleted", "notes")
}

/// A team chosen in a form's menu.
#[derive(Deserialize)]
struct TeamForm {
    team_id: String,
}

async fn claim(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<TeamForm>,
) -> Result<HttpResponse, PageError> {
    to_team(id, visitor, &walk, form, false).await
}

async fn move_to(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<TeamForm>,
) -> Result<HttpResponse, PageError> {
    to_team(id, visitor, &walk, form, true).await
}

/// A claim (a lead of no team) or a move (`moving`: a lead of a team) into the chosen team.
async fn to_team(
    id: web::Path<String>,
    visitor: Visitor,
    walk: &Walk,
    form: TeamForm,
    moving: bool,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let team_id = form.team_id.parse().map_err(|_| PageError::BadForm)?;
    let work = &visitor.state.lead_work;
    if moving {
        let moved = work.move_to(&visitor.user, id, team_id).await;
        answer(visitor, walk, id, moved, "moved", "work")
    } else {
        let claimed = work.claim(&visitor.user, id, team_id).await;
        answer(visitor, walk, id, claimed, "claimed", "work")
    }
}

async fn do_not_call(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    mark_do_not_call(id, visitor, &walk, true).await
}

async fn may_call(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    mark_do_not_call(id, visitor, &walk, false).await
}

/// The PATCH's `do_not_call`, from the page's button (whoever may take a mark off is the
/// domain's rule).
async fn mark_do_not_call(
    id: web::Path<String>,
    visitor: Visitor,
    walk: &Walk,
    marked: bool,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let patch = LeadPatch {
        do_not_call: Some(marked),
        ..LeadPatch::default()
    };
    let edited = visitor
        .state
        .lead_work
        .edit(&visitor.user, id, patch, None)
        .await;
    let done = if marked { "do-not-call" } else { "may-call" };
    answer(visitor, walk, id, edited, done, "work")
}

/// A form naming one of the lead's numbers (as stored).
#[derive(Deserialize)]
struct NumberForm {
    phone: String,
}

/// "do not call this number" beside one of the lead's phones.
async fn bar_number(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<NumberForm>,
) -> Result<HttpResponse, PageError> {
    number_change(id, visitor, &walk, &form.phone, true).await
}

/// "may be called again" beside a number not to call (whoever may take the lead's mark off).
async fn unbar_number(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<NumberForm>,
) -> Result<HttpResponse, PageError> {
    number_change(id, visitor, &walk, &form.phone, false).await
}

/// Bars `phone` on the lead or takes it off its numbers not to call, as the API's routes do.
async fn number_change(
    id: web::Path<String>,
    visitor: Visitor,
    walk: &Walk,
    phone: &str,
    barred: bool,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let (work, user) = (&visitor.state.lead_work, &visitor.user);
    let (changed, done) = if barred {
        (work.bar_number(user, id, phone).await, "number-not-to-call")
    } else {
        (work.unbar_number(user, id, phone).await, "number-may-call")
    };
    answer(visitor, walk, id, changed, done, "work")
}

async fn archive(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    set_archived(id, visitor, &walk, true).await
}

async fn restore(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    set_archived(id, visitor, &walk, false).await
}

async fn set_archived(
    id: web::Path<String>,
    visitor: Visitor,
    walk: &Walk,
    archived: bool,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let work = &visitor.state.lead_work;
    let changed = work.set_archived(&visitor.user, id, archived).await;
    let done = if archived { "archived" } else { "restored" };
    answer(visitor, walk, id, changed, done, "work")
}

/// The lead this one merges into, as a person types its number (`1897` or `#1897`).
#[derive(Deserialize)]
struct MergeForm {
    into: String,
}

async fn merge(
    id: web::Path<String>,
    Posted { visitor, form }: Posted<MergeForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let Ok(into) = form.into.trim().trim_start_matches('#').parse::<i64>() else {
        return Err(refused(
            LeadWorkError::Invalid(vec![leadhub_domain::error::FieldError::body(
                &["into".into()],
                "int_parsing",
                "Give the number of the lead to keep (as in its address bar: /leads/1897)",
            )]),
            id,
            &Walk::default(),
        ));
    };
    let survivor = visitor
        .state
        .lead_merges
        .merge(&visitor.user, id, into)
        .await
        .map_err(|e| refused(e.into(), id, &Walk::default()))?;
    Ok(visitor.finish(back_to(survivor.id, "merged", "timeline", &Walk::default())))
}

/// "Enrich again", under the API's rule (`enrich_now`).
async fn enrich(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    visitor
        .state
        .submissions
        .enrich_now(&visitor.user, id)
        .await?;
    Ok(visitor.finish(back_to(id, "enriched", "enrichment", &walk)))
}
