//! `/leads/{id}`: one lead, what a person acts on first (status, owner, contacts, the newest
//! note, the next step), then its notes, its timeline, its fields (empty ones folded), its
//! enrichment and its submissions. A lead merged into another redirects to the survivor.
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::{LeadDesk, LeadStatus, LeadWorkError};
use leadhub_domain::parse::display_phone;
use leadhub_domain::team::{permits_on_lead, Actor, LeadWorkAction, Member};

use crate::lead_enrichment::{insert_enrichment, HistoryLine};
use crate::lead_view::{
    emails, next_action, owner_choices, phones, ContactLine, Group, Names, NoteLine, TimelineLine,
    OWNER, PERMIT, PROPERTY,
};
use crate::lead_walk::{self, Walk};
use crate::list::{neighbours, team_choices, TeamChoice};
use crate::render::{see_other, when, PageError};
use crate::session::Visitor;
use crate::{base_context, id_of, Done};

/// Submissions shown in a lead's history (the newest ones).
const HISTORY: i64 = 100;
/// Timeline entries on one page.
const TIMELINE: i64 = 50;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/leads/{id}", web::get().to(detail));
}

/// `?timeline=`: the offset of the timeline's page (anything but a number: the first page).
#[derive(Deserialize)]
struct TimelinePage {
    timeline: Option<String>,
}

/// The lead's team's active members, who may own it.
async fn members(visitor: &Visitor, lead: &Lead) -> Result<Vec<Member>, PageError> {
    let Some(team_id) = lead.team_id else {
        return Ok(Vec::new());
    };
    Ok(visitor
        .state
        .teams
        .members(&visitor.user, team_id)
        .await?
        .into_iter()
        .filter(|m| m.is_active)
        .collect())
}

/// What the person may do here, for the page to show only buttons that would be accepted.
fn insert_permits(context: &mut tera::Context, actor: Actor) {
    for (name, action) in [
        ("may_edit", LeadWorkAction::Edit),
        ("may_note", LeadWorkAction::AddNote),
        ("may_claim", LeadWorkAction::Claim),
        ("may_move", LeadWorkAction::MoveOut),
        ("may_archive", LeadWorkAction::Archive),
        ("may_clear_do_not_call", LeadWorkAction::ClearDoNotCall),
        ("may_delete_any_note", LeadWorkAction::DeleteOthersNote),
    ] {
        context.insert(name, &permits_on_lead(actor, action));
    }
}

async fn detail(
    visitor: Visitor,
    id: web::Path<String>,
    done: web::Query<Done>,
    page: web::Query<TimelinePage>,
    walk: web::Query<Walk>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let state = visitor.state.clone();
    let offset = page
        .timeline
        .as_deref()
        .and_then(|t| t.parse::<i64>().ok())
        .unwrap_or(0)
        .max(0);
    let desk = match state
        .lead_work
        .desk(&visitor.user, id, TIMELINE, offset)
        .await
    {
        Ok(desk) => desk,
        Err(LeadWorkError::Merged(into)) => {
            return Ok(visitor.finish(see_other(&format!("/leads/{into}?done=merged-away"))))
        }
        Err(e) => return Err(refused(e, id, &walk)),
    };
    let LeadDesk {
        lead,
        actor,
        notes,
        timeline,
        timeline_total,
        contacts,
    } = desk;
    // `desk` proved the person may see the lead: its history need not check again.
    let history = state
        .submissions
        .history_of_opened_lead(&lead, HISTORY)
        .await?;
    let members = members(&visitor, &lead).await?;
    let my_teams = team_choices(&visitor, true).await?;
    let names = Names::of(
        &members,
        my_teams
            .iter()
            .filter_map(|t| Some((t.id.parse().ok()?, t.name.clone()))),
    );

    let mut context = base_context(Some(&visitor), "leads");
    context.insert("notice", &done.notice());
    // The lead's place in the list it was opened from; its forms carry it on (`lead_walk`).
    let walk = lead_walk::around(&visitor, lead.id, &walk).await?;
    let walk_suffix = walk.as_ref().map(|w| format!("?{}", w.query));
    context.insert("walk_suffix", &walk_suffix.unwrap_or_default());
    context.insert("walk", &walk);
    context.insert("id", &lead.id);
    context.insert("version", &lead.work.version);
    context.insert("title", &title(&lead));
    context.insert("address_standardized", &lead.address_standardized);
    context.insert("team_id", &lead.team_id);
    context.insert(
        "team_name",
        &lead.team_id.and_then(|t| names.teams.get(&t).cloned()),
    );
    context.insert("status", lead.work.status.as_str());
    context.insert("statuses", &LeadStatus::NAMES);
    context.insert("contact_outcomes", &crate::lead_view::contact_choices());
    context.insert(
        "contacts",
        &contacts
            .as_ref()
            .map(|c| ContactLine::of(c, visitor.offset)),
    );
    context.insert("archived", &lead.work.archived_at.is_some());
    context.insert("do_not_call", &lead.work.do_not_call);
    context.insert("tags", &crate::lead_view::tag_links(&lead.work.tags));
    let today = visitor.today();
    let follow_up = lead.work.follow_up_on.map(|d| d.to_string());
    context.insert("follow_up_on", &follow_up);
    context.insert("follow_up_due", &lead.work.follow_up_due(today));
    crate::lead_view::insert_follow_up_bounds(&mut context);
    context.insert(
        "assignee_id",
        &lead.work.assignee.as_ref().map(|a| &a.user_id),
    );
    context.insert(
        "assignee",
        &lead.work.assignee_id.map(|a| {
            names
                .users
                .get(&a)
                .cloned()
                .unwrap_or_else(|| format!("user #{a}"))
        }),
    );
    context.insert("owners", &owner_choices(&members));
    context.insert("me", &visitor.user.user_id);
    let team_text = lead.team_id.map(|t| t.to_string()).unwrap_or_default();
    let move_teams: Vec<&TeamChoice> = my_teams.iter().filter(|t| t.id != team_text).collect();
    context.insert("move_teams", &move_teams);
    context.insert("my_teams", &my_teams);
    insert_permits(&mut context, actor);

    let (phones, emails) = (phones(&lead), emails(&lead));
    context.insert(
        "next_action",
        &next_action(
            &lead,
            !phones.is_empty() || !emails.is_empty(),
            contacts.as_ref(),
            today,
        ),
    );
    context.insert("phones", &phones);
    context.insert("emails", &emails);
    let barred = &lead.work.barred;
    let wrong: Vec<String> = barred.wrong.iter().map(|p| display_phone(p)).collect();
    context.insert("wrong_phones", &wrong);
    let not_to_call: Vec<serde_json::Value> = barred
        .not_to_call
        .iter()
        .map(|p| serde_json::json!({"value": p, "text": display_phone(p)}))
        .collect();
    context.insert("not_to_call", &not_to_call);
    let note_lines: Vec<NoteLine> = notes
        .iter()
        .map(|n| NoteLine::new(n, visitor.user.id, visitor.offset))
        .collect();
    context.insert("notes", &note_lines);
    let lines: Vec<TimelineLine> = timeline
        .iter()
        .map(|e| TimelineLine::new(e, &names, visitor.offset))
        .collect();
    context.insert("timeline", &lines);
    context.insert("timeline_total", &timeline_total);
    let (newer, older) = neighbours(offset, TIMELINE, timeline_total);
    if let Some(offset) = newer {
        context.insert("timeline_newer", &offset);
    }
    if let Some(offset) = older {
        context.insert("timeline_older", &offset);
    }

    let f = &lead.fields;
    let mut property = Group::of(&lead, &PROPERTY);
    property.add("bedrooms", f.bedrooms.map(|b| b.to_string()));
    property.add("lot_size_acres", lead.lot_size_acres.map(|a| a.to_string()));
    context.insert("property", &property);
    context.insert("owner", &Group::of(&lead, &OWNER));
    context.insert("permit", &Group::of(&lead, &PERMIT));
    insert_enrichment(&mut context, &state, &lead, &history, visitor.offset).await?;
    context.insert(
        "may_enrich",
        &state.submissions.may_enrich(&visitor.user, &lead).await?,
    );
    context.insert("submission_count", &lead.submission_count);
    context.insert("created", &when(lead.created_at, visitor.offset));
    context.insert("updated", &when(lead.updated_at, visitor.offset));
    context.insert(
        "history",
        &history
            .iter()
            .map(|h| HistoryLine::new(h, visitor.offset))
            .collect::<Vec<_>>(),
    );
    context.insert("history_cut", &(lead.submission_count > HISTORY as i32));
    context.insert("nearby", &crate::nearby::of(&visitor, &lead).await?);
    visitor.page(StatusCode::OK, "lead.html", &context)
}

/// The lead's name on its page: its standardised address, else its address as given.
pub fn title(lead: &Lead) -> String {
    lead.address_standardized
        .clone()
        .or_else(|| lead.fields.address.clone())
        .unwrap_or_else(|| format!("Lead {}", lead.id))
}

/// A refusal of the lead work service as a page, with a link back to lead `id` (on its walk down
/// a list, when it has one).
pub fn refused(e: LeadWorkError, id: i64, walk: &Walk) -> PageError {
    let back = format!("/leads/{id}{}", walk.suffix());
    let refusal = |status, title, text: String| PageError::Refused {
        status,
        title,
        text,
        back: back.clone(),
    };
    match e {
        LeadWorkError::NotFound(thing) => PageError::NotFound(thing.into()),
        LeadWorkError::Forbidden(reason) => PageError::Forbidden(reason),
        LeadWorkError::Invalid(problems) => refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "This change cannot be made",
            format!(
                "{}. Nothing was changed.",
                crate::render::problems_text(&problems)
            ),
        ),
        LeadWorkError::Conflict { detail, lead_id } => refusal(
            StatusCode::CONFLICT,
            "This change cannot be made",
            match lead_id {
                Some(other) => format!(
                    "{detail}. Nothing was changed. If both are one property, merge this lead \
                     into lead {other} from the lead page."
                ),
                None => format!("{detail}. Nothing was changed."),
            },
        ),
        LeadWorkError::PreconditionFailed => refusal(
            StatusCode::PRECONDITION_FAILED,
            "Someone changed this lead first",
            "The lead changed after you opened it, so your change was not saved (it would \
             have overwritten theirs). Open the lead again to see what changed, then make \
             your change again."
                .to_owned(),
        ),
        LeadWorkError::Merged(into) => refusal(
            StatusCode::CONFLICT,
            "This lead was merged",
            format!("This lead was merged into lead {into}: work on that one."),
        ),
        LeadWorkError::Unexpected(cause) => PageError::unexpected(cause),
    }
}
