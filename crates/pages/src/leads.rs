//! `/leads`: the leads the signed-in person may see, with the API's filters kept in the URL (a
//! GET form), paged; `/leads/export`: the same filter as CSV (`/leads/export.xlsx`: as an Excel
//! workbook, `lead_workbook`). All read the filter exactly as
//! `GET /api/v1/leads` does (`LeadQuery`) and go through the same visibility rule
//! (`SubmissionService::visible_filter`).
use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::NaiveDate;
use serde::Serialize;

use leadhub_api::lead_export::{ExportSource, LeadsCsv};
use leadhub_api::leads::{LeadQuery, ENRICHMENT_STATUSES};
use leadhub_domain::clock::UtcOffset;
use leadhub_domain::error::ServiceError;
use leadhub_domain::lead::fields::PROPERTY_TYPES;
use leadhub_domain::lead::nearby::Circle;
use leadhub_domain::lead::record::{Lead, LeadFilter};
use leadhub_domain::lead::search::{LeadSort, SortField};
use leadhub_domain::lead::work::{LeadStatus, StatusFilter, BULK_MAX_IDS};
use leadhub_domain::parse::display_phone;
use leadhub_domain::submission::VisibleLeadFilter;
use leadhub_domain::team::{permits_on_lead, Actor, LeadWorkAction};

use crate::lead_view::{owner_choices, tag_links, ContactLine, TagLink};
use crate::list::{self, refuse, PageFilters, TeamChoice, PAGE_SIZE};
use crate::render::{when, PageError};
use crate::session::Visitor;
use crate::Done;
use crate::{lead, lead_actions, lead_edit, lead_tags, lead_walk};

/// The filters a `/leads` URL may carry, named as the API's query parameters, and the order.
pub const FILTERS: [&str; 28] = [
    "q",
    "status",
    "assignee",
    "archived",
    "team_id",
    "state",
    "city",
    "zip_code",
    "property_type",
    "permit_status",
    "source",
    "enrichment_status",
    "created_after",
    "created_before",
    "upload",
    "follow_up_by",
    "contacted",
    "last_contact_before",
    "contacted_by",
    "contacted_since",
    "has_phone",
    "has_email",
    "do_not_call",
    "tag",
    "without_tag",
    "near",
    "within_miles",
    "sort",
];

/// The filters always in sight on the list's form (besides the hidden ones it carries); the
/// others are "More filters", folded on a phone.
const PLAIN_FILTERS: [&str; 7] = [
    "q",
    "status",
    "assignee",
    "sort",
    "upload",
    "near",
    "within_miles",
];

/// The orders of the list's "Order" choice: the API's `sort` word and what a person reads; ""
/// is the API's default, newest first. Last contact, longest ago first is the salesperson's
/// call order: the leads nobody has called, then the ones tried longest ago.
/// "nearest first" is offered only on a list of the leads near a place (`near`).
const SORTS: [(&str, &str); 11] = [
    ("", "newest first"),
    ("created_at", "oldest first"),
    ("-updated_at", "last changed first"),
    ("updated_at", "longest untouched first"),
    ("city", "city, A to Z"),
    ("-permit_date", "newest permit first"),
    ("permit_date", "oldest permit first"),
    ("follow_up_on", "follow-up day, soonest first"),
    (
        "last_contact_at",
        "last contact, longest ago first (never first)",
    ),
    ("-last_contact_at", "last contact, latest first"),
    ("distance", "nearest first"),
];

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/leads", web::get().to(list))
        .route("/leads/export", web::get().to(export))
        .route(
            "/leads/export.xlsx",
            web::get().to(crate::lead_workbook::export),
        )
        .route("/leads/bulk", web::post().to(crate::lead_bulk::bulk))
        .configure(crate::saved_views::configure)
        .configure(lead_edit::configure)
        .configure(lead_actions::configure)
        .configure(lead_tags::configure)
        .configure(lead::configure);
}

/// One row of the list: what a person scans.
#[derive(Serialize)]
struct LeadLine {
    id: i64,
    address: String,
    locality: String,
    owner: String,
    phone: String,
    permit: String,
    source: String,
    enrichment: &'static str,
    created: String,
    status: &'static str,
    /// Who works it ("" for nobody), and the list of their leads.
    assignee: String,
    assignee_leads: Option<String>,
    /// The follow-up day (`YYYY-MM-DD`, "" for none), and whether it is today or past.
    follow_up: String,
    follow_up_due: bool,
    /// The owner must not be called.
    do_not_call: bool,
    /// Its tags, each a link to the leads carrying it.
    tags: Vec<TagLink>,
    /// The team's name, "" for a lead of no team (which every user sees).
    team: String,
    unassigned: bool,
    /// The lead's link's query: its place in this list, for its page's previous and next.
    walk: String,
    /// The contacts logged on it, if any.
    contacts: Option<ContactLine>,
    /// How far it is from the list's `near` place ("0.4 mi"), on a list of the leads near one.
    distance: Option<String>,
}

impl LeadLine {
    fn new(
        lead: &Lead,
        names: &HashMap<i64, String>,
        teams: &[TeamChoice],
        today: NaiveDate,
        offset: UtcOffset,
        walk: String,
    ) -> LeadLine {
        let f = &lead.fields;
        let join = |parts: &[&Option<String>], sep: &str| {
            parts
                .iter()
                .filter_map(|p| p.as_deref())
                .collect::<Vec<_>>()
                .join(sep)
        };
        LeadLine {
            id: lead.id,
            address: lead
                .address_standardized
                .clone()
                .or_else(|| f.address.clone())
                .unwrap_or_else(|| "(no address)".to_owned()),
            locality: join(&[&f.city, &f.state, &f.zip_code], " "),
            owner: join(&[&f.first_name, &f.last_name], " "),
            // The first number of the five (a skip-traced lead may have none in the first slot).
            phone: f.phones().next().map(display_phone).unwrap_or_default(),
            permit: join(&[&f.permit_status, &f.project_number], " · "),
            source: f.source.clone().unwrap_or_default(),
            enrichment: lead.enrichment_status.as_str(),
            created: when(lead.created_at, offset),
            status: lead.work.status.as_str(),
            assignee: lead
                .work
                .assignee_id
                .map(|a| {
                    names
                        .get(&a)
                        .cloned()
                        .unwrap_or_else(|| format!("user #{a}"))
                })
                .unwrap_or_default(),
            assignee_leads: lead
                .work
                .assignee
                .as_ref()
                .map(|a| format!("/leads?assignee={}", a.user_id)),
            team: lead
                .team_id
                .map(|t| {
                    let id = t.to_string();
                    teams
                        .iter()
                        .find(|c| c.id == id)
                        .map_or_else(|| format!("team {id}"), |c| c.name.clone())
                })
                .unwrap_or_default(),
            unassigned: lead.team_id.is_none(),
            follow_up: lead
                .work
                .follow_up_on
                .map(|d| d.to_string())
                .unwrap_or_default(),
            follow_up_due: lead.work.follow_up_due(today),
            do_not_call: lead.work.do_not_call,
            tags: tag_links(&lead.work.tags),
            walk,
            contacts: None,
            distance: None,
        }
    }
}

async fn list(
    visitor: Visitor,
    req: HttpRequest,
    done: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let (filters, mut context, all_teams) = list::start(&visitor, &req, &FILTERS, "/leads").await?;
    context.insert("notice", &done.notice());
    context.insert(
        "saved_views",
        &crate::saved_views::views_of(&visitor, &all_teams).await?,
    );
    context.insert(
        "share_teams",
        &crate::saved_views::share_choices(&all_teams),
    );
    context.insert("statuses", &LeadStatus::NAMES);
    context.insert("status_filters", &StatusFilter::WORDS);
    // The rows name, and the bulk bar offers, the active teams only.
    let teams: Vec<TeamChoice> = all_teams.into_iter().filter(|t| t.active).collect();
    insert_bulk_permits(&mut context, &visitor, &teams);
    context.insert("property_types", &PROPERTY_TYPES);
    context.insert("enrichment_statuses", &ENRICHMENT_STATUSES);
    context.insert("sorts", &SORTS);
    context.insert(
        "more_filters_set",
        &filters.given_count(|name| !PLAIN_FILTERS.contains(&name)),
    );
    let today = visitor.today();
    context.insert("today", &today.to_string());
    crate::lead_view::insert_follow_up_bounds(&mut context);
    // The people the visitor works with: the owner filter's and the bulk bar's choices.
    let teammates = visitor.state.teams.teammates(&visitor.user).await?;
    let others = teammates
        .iter()
        .filter(|m| m.user_id != visitor.user.user_id);
    let teammates = owner_choices(others);
    let teammate_ids: Vec<&str> = teammates.iter().map(|c| c.value.as_str()).collect();
    context.insert("teammate_ids", &teammate_ids);
    context.insert("teammates", &teammates);
    context.insert("me", &visitor.user.user_id);
    context.insert("contact_outcomes", &crate::lead_view::contact_choices());
    context.insert("bulk_max", &BULK_MAX_IDS);
    let status = match filters.read::<LeadQuery>() {
        Ok(lead_query) => {
            let LeadFilter { near, upload, .. } = lead_query.filter();
            if let Some(upload) = upload {
                context.insert(
                    "upload_filter",
                    &upload_filter(&visitor, &filters, upload).await?,
                );
            }
            if let Some(circle) = &near {
                context.insert("near_filter", &near_filter(&filters, circle));
            }
            let (leads, total) = listed(&visitor, &lead_query, PAGE_SIZE, filters.offset).await?;
            // Who works the page's leads and their last contacts: two reads at once.
            let work = &visitor.state.lead_work;
            let (names, contacts) = futures_util::future::try_join(
                work.assignee_names(&leads),
                work.contact_summaries(&leads),
            )
            .await
            .map_err(ServiceError::from)?;
            let list = filters.query_string();
            let lines: Vec<LeadLine> = (filters.offset..)
                .zip(&leads)
                .map(|(at, l)| {
                    let walk = lead_walk::query(&list, at);
                    let offset = visitor.offset;
                    let mut line = LeadLine::new(l, &names, &teams, today, offset, walk);
                    line.contacts = contacts.get(&l.id).map(|c| ContactLine::of(c, offset));
                    line.distance = near.and_then(|circle| crate::nearby::distance(&circle, l));
                    line
                })
                .collect();
            context.insert("leads", &lines);
            filters.insert_page(&mut context, "/leads", total);
            context.insert("bulk_teams", &teams);
            StatusCode::OK
        }
        Err(problems) => refuse(&mut context, &problems),
    };
    visitor.page(status, "leads.html", &context)
}

/// Whether the bulk bar offers the changes only a team admin or owner may make (archive and
/// restore, taking the do-not-call mark off): when the visitor may make them on some lead they
/// see, i.e. is a platform admin or an admin or owner of an active team. A plain member is not
/// offered what every lead would refuse.
fn insert_bulk_permits(context: &mut tera::Context, visitor: &Visitor, teams: &[TeamChoice]) {
    let actors = teams
        .iter()
        .filter_map(|t| t.actor)
        .chain(Actor::of(&visitor.user, None));
    let actors: Vec<Actor> = actors.collect();
    for (name, action) in [
        ("bulk_may_archive", LeadWorkAction::Archive),
        ("bulk_may_clear_do_not_call", LeadWorkAction::ClearDoNotCall),
    ] {
        let may = actors.iter().any(|a| permits_on_lead(*a, action));
        context.insert(name, &may);
    }
}

/// The `upload` filter as the page shows it: the upload's file name (when the visitor may see
/// the upload; else only its number, so the page tells nothing of another team's upload) and
/// the link to the same list without it.
async fn upload_filter(
    visitor: &Visitor,
    filters: &PageFilters,
    upload: i64,
) -> Result<serde_json::Value, PageError> {
    let file_name = match visitor.state.uploads.visible(&visitor.user, upload).await {
        Ok(found) => Some(found.file_name),
        Err(ServiceError::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    Ok(serde_json::json!({
        "id": upload,
        "file_name": file_name,
        "remove": list_link(&filters.query_string_without("upload")),
    }))
}

/// The `near` filter as the page shows it: the place and the radius, and the link to the same
/// list without them (and without the order by distance, which needs them).
fn near_filter(filters: &PageFilters, circle: &Circle) -> serde_json::Value {
    let rest = filters.query_string_where(|name, value| match name {
        "near" | "within_miles" => false,
        "sort" => LeadSort::parse(value).is_none_or(|s| s.field != SortField::Distance),
        _ => true,
    });
    serde_json::json!({
        "place": format!("{:.5}, {:.5}", circle.latitude, circle.longitude),
        "radius": if circle.miles == 1.0 { "1 mile".to_owned() } else { format!("{} miles", circle.miles) },
        "remove": list_link(&rest),
    })
}

/// The list with these filters (none: every lead).
fn list_link(query: &str) -> String {
    if query.is_empty() {
        "/leads".to_owned()
    } else {
        format!("/leads?{query}")
    }
}

/// The leads of a list URL's filter that the visitor may see, `limit` from `offset`, and how
/// many in all: the list page, a lead page's previous and next and the bulk bar's "every lead of
/// this list" read their list here, its days on the visitor's clock (`LeadQuery::filter_on_clock`).
pub(crate) async fn listed(
    visitor: &Visitor,
    query: &LeadQuery,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Lead>, i64), PageError> {
    let filter = query.filter_on_clock(visitor.offset);
    let submissions = &visitor.state.submissions;
    Ok(submissions
        .leads(&visitor.user, filter, limit, offset)
        .await?)
}

/// GET /leads/export: the list's filter as CSV, for the session (the API route takes a Bearer
/// credential; a page's link cannot send one).
async fn export(visitor: Visitor, req: HttpRequest) -> Result<HttpResponse, PageError> {
    let filter = export_filter(&visitor, &req).await?;
    let source = ExportSource::of(&visitor.state);
    let csv = LeadsCsv::new(source, filter).for_people();
    Ok(visitor.finish(csv.into_response()))
}

/// The leads an export of the list's URL holds: its filters, read as the API reads them, within
/// what the visitor may see. Both page exports (CSV and Excel) start here.
pub(crate) async fn export_filter(
    visitor: &Visitor,
    req: &HttpRequest,
) -> Result<VisibleLeadFilter, PageError> {
    let lead_query = PageFilters::of(req.query_string(), &FILTERS)
        .read::<LeadQuery>()
        .map_err(|_| PageError::BadForm)?;
    let submissions = &visitor.state.submissions;
    Ok(submissions
        .visible_filter(&visitor.user, lead_query.filter_on_clock(visitor.offset))
        .await?)
}

#[cfg(test)]
mod tests {
    use leadhub_domain::lead::search::LeadSort;

    use super::SORTS;

    #[test]
    fn every_offered_order_is_one_the_api_takes() {
        for (value, _) in SORTS.iter().filter(|(value, _)| !value.is_empty()) {
            assert!(LeadSort::parse(value).is_some(), "{value}");
        }
    }
}
