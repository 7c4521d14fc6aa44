//! `/leads`: the leads the signed-in person may see, with the API's filters kept in the URL (a
//! GET form), paged; `/leads/export`: the same filter as CSV. Both read the filter exactly as
//! `GET /api/v1/leads` does (`LeadQuery`) and go through the same visibility rule
//! (`SubmissionService::visible_filter`).
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;

use leadhub_domain::lead::fields::PROPERTY_TYPES;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::submission::SubmissionError;

use crate::app::AppState;
use crate::extract::read_query;
use crate::lead_export::LeadsCsv;
use crate::pages::render::{html, problems_text, render, when, PageError};
use crate::pages::session::Visitor;
use crate::pages::{base_context, lead};
use crate::routes::leads::{LeadQuery, ENRICHMENT_STATUSES};

/// Leads on one page.
const PAGE_SIZE: i64 = 50;

/// The filters a `/leads` URL may carry, named as the API's query parameters.
const FILTERS: [&str; 11] = [
    "q",
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
];

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/leads", web::get().to(list))
        .route("/leads/export", web::get().to(export))
        .configure(lead::configure);
}

/// The filters of a page's URL: known names with a non-blank value, in `FILTERS` order, and
/// the offset of the page.
struct PageFilters {
    given: Vec<(&'static str, String)>,
    offset: i64,
}

impl PageFilters {
    fn of(query: &str) -> PageFilters {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let value = |name: &str| {
            pairs
                .iter()
                .rev()
                .find(|(n, v)| n == name && !v.trim().is_empty())
                .map(|(_, v)| v.trim().to_owned())
        };
        PageFilters {
            given: FILTERS
                .iter()
                .filter_map(|name| value(name).map(|v| (*name, v)))
                .collect(),
            offset: value("offset")
                .and_then(|o| o.parse::<i64>().ok())
                .filter(|o| *o >= 0)
                .unwrap_or(0),
        }
    }

    /// The filters as a query string (no offset): the base of the page links and the export.
    fn query_string(&self) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.given.iter().map(|(n, v)| (*n, v.as_str())))
            .finish()
    }

    /// The filters read as the API reads them, or the problems with them as one sentence.
    fn read(&self) -> Result<LeadQuery, String> {
        read_query::<LeadQuery>(&self.query_string()).map_err(|p| problems_text(&p))
    }
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
}

impl LeadLine {
    fn new(lead: &Lead) -> LeadLine {
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
            phone: f.primary_phone.clone().unwrap_or_default(),
            permit: join(&[&f.permit_status, &f.project_number], " · "),
            source: f.source.clone().unwrap_or_default(),
            enrichment: lead.enrichment_status.as_str(),
            created: when(lead.created_at),
        }
    }
}

#[derive(Serialize)]
struct TeamChoice {
    id: String,
    name: String,
}

async fn list(
    state: web::Data<AppState>,
    visitor: Visitor,
    req: HttpRequest,
) -> Result<HttpResponse, PageError> {
    let filters = PageFilters::of(req.query_string());
    let mut context = base_context(Some(&visitor), "leads");
    let teams: Vec<TeamChoice> = state
        .teams
        .list(&visitor.user)
        .await?
        .into_iter()
        .map(|t| TeamChoice {
            id: t.team.id.to_string(),
            name: t.team.name,
        })
        .collect();
    context.insert("teams", &teams);
    context.insert("property_types", &PROPERTY_TYPES);
    context.insert("enrichment_statuses", &ENRICHMENT_STATUSES);
    // Every filter, "" when not given: the form shows each one.
    let chosen: std::collections::HashMap<&str, &str> = FILTERS
        .iter()
        .map(|name| {
            let given = filters.given.iter().find(|(n, _)| n == name);
            (*name, given.map_or("", |(_, v)| v.as_str()))
        })
        .collect();
    context.insert("f", &chosen);
    context.insert("filtered", &!filters.given.is_empty());
    let query = filters.query_string();
    context.insert("query", &query);
    let status = match filters.read() {
        Ok(lead_query) => {
            let (leads, total) = state
                .submissions
                .leads(
                    &visitor.user,
                    lead_query.filter(),
                    PAGE_SIZE,
                    filters.offset,
                )
                .await
                .map_err(page_error)?;
            let lines: Vec<LeadLine> = leads.iter().map(LeadLine::new).collect();
            let link = |offset: i64| {
                let sep = if query.is_empty() { "" } else { "&" };
                format!("/leads?{query}{sep}offset={offset}")
            };
            context.insert("leads", &lines);
            context.insert("total", &total);
            context.insert("first", &(filters.offset + 1));
            context.insert("last", &(filters.offset + PAGE_SIZE).min(total));
            if filters.offset > 0 {
                context.insert("previous", &link((filters.offset - PAGE_SIZE).max(0)));
            }
            if filters.offset + PAGE_SIZE < total {
                context.insert("next", &link(filters.offset + PAGE_SIZE));
            }
            StatusCode::OK
        }
        Err(problems) => {
            context.insert(
                "error",
                &format!("These filters cannot be used: {problems}."),
            );
            StatusCode::UNPROCESSABLE_ENTITY
        }
    };
    Ok(visitor.finish(html(status, render("leads.html", &context)?)))
}

/// GET /leads/export: the list's filter as CSV, for the session (the API route takes a Bearer
/// credential; a page's link cannot send one).
async fn export(
    state: web::Data<AppState>,
    visitor: Visitor,
    req: HttpRequest,
) -> Result<HttpResponse, PageError> {
    let lead_query = PageFilters::of(req.query_string())
        .read()
        .map_err(|_| PageError::BadForm)?;
    let filter = state
        .submissions
        .visible_filter(&visitor.user, lead_query.filter())
        .await
        .map_err(page_error)?;
    Ok(visitor.finish(LeadsCsv::new(state.submissions.clone(), filter).into_response()))
}

/// A lead the person may not see is "not found", like one that does not exist.
pub fn page_error(e: SubmissionError) -> PageError {
    match e {
        SubmissionError::NotFound(thing) => PageError::NotFound(thing.into()),
        SubmissionError::Forbidden(reason) => PageError::Forbidden(reason),
        SubmissionError::Invalid(_) => PageError::BadForm,
        SubmissionError::Unexpected(cause) => PageError::unexpected(cause),
    }
}

#[cfg(test)]
mod tests {
    use super::PageFilters;

    #[test]
    fn keeps_known_non_blank_filters_in_order() {
        let f = PageFilters::of("city=&state=TX&q=main+st&bogus=1&offset=50&team_id=+");
        assert_eq!(f.query_string(), "q=main+st&state=TX");
        assert_eq!(f.offset, 50);
        assert_eq!(PageFilters::of("offset=-3").offset, 0);
    }
}
