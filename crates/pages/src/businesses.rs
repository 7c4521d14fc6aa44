//! `/businesses`: the business directory the person may see, with the filters of
//! `GET /api/v1/lead-sources/businesses` kept in the URL, paged, and the statistics of the same
//! filter (`GET /api/v1/lead-sources/statistics`) as charts. Both read the filter as the API
//! does (`BusinessQuery`) and call the same service.
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;

use leadhub_api::businesses::BusinessQuery;
use leadhub_domain::business::{industry_slugs, Business, BusinessStatus, RelationshipType};
use leadhub_domain::clock::UtcOffset;
use leadhub_domain::parse::display_phone;

use crate::charts::ranked;
use crate::list::{self, refuse, PAGE_SIZE};
use crate::render::{when, PageError};
use crate::session::Visitor;

/// The filters a `/businesses` URL may carry, named as the API's query parameters.
const FILTERS: [&str; 5] = [
    "relationship_type",
    "industry",
    "status",
    "state",
    "team_id",
];

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/businesses", web::get().to(list));
}

/// One row of the directory.
#[derive(Serialize)]
struct BusinessLine {
    name: String,
    industry: String,
    locality: String,
    phone: String,
    website: String,
    relationship: String,
    status: String,
    added: String,
}

impl BusinessLine {
    fn new(b: &Business, offset: UtcOffset) -> BusinessLine {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        BusinessLine {
            name: b.name.clone(),
            industry: text(&b.industry).replace('_', " "),
            locality: [&b.city, &b.state]
                .iter()
                .filter_map(|p| p.as_deref())
                .collect::<Vec<_>>()
                .join(", "),
            phone: b.phone.as_deref().map(display_phone).unwrap_or_default(),
            // Shown as text, never a link: an imported value is not a trusted URL.
            website: text(&b.website),
            relationship: b.relationship_type.replace('_', " "),
            status: b.status.clone(),
            added: when(b.created_at, offset),
        }
    }
}

async fn list(visitor: Visitor, req: HttpRequest) -> Result<HttpResponse, PageError> {
    let (filters, mut context, _) = list::start(&visitor, &req, &FILTERS, "/businesses").await?;
    context.insert("relationship_types", &RelationshipType::NAMES);
    context.insert("statuses", &BusinessStatus::NAMES);
    context.insert("industries", &industry_slugs().collect::<Vec<_>>());
    let status = match filters.read::<BusinessQuery>() {
        Ok(query) => {
            let filter = query.filter();
            let (found, total) = visitor
                .state
                .businesses
                .businesses(&visitor.user, filter.clone(), PAGE_SIZE, filters.offset)
                .await?;
            let stats = visitor
                .state
                .businesses
                .statistics(&visitor.user, filter)
                .await?;
            let words = |m: std::collections::BTreeMap<String, i64>| {
                m.into_iter().map(|(k, n)| (k.replace('_', " "), n))
            };
            context.insert(
                "charts",
                &[
                    ranked(
                        "by-relationship",
                        "By relationship type",
                        "Relationship type",
                        words(stats.by_relationship_type),
                    ),
                    ranked(
                        "by-industry",
                        "By industry",
                        "Industry",
                        words(stats.by_industry),
                    ),
                    ranked("by-state", "By state", "State", stats.by_state),
                    ranked("by-status", "By status", "Status", stats.by_status),
                ],
            );
            context.insert(
                "businesses",
                &found
                    .iter()
                    .map(|b| BusinessLine::new(b, visitor.offset))
                    .collect::<Vec<_>>(),
            );
            filters.insert_page(&mut context, "/businesses", total);
            StatusCode::OK
        }
        Err(problems) => refuse(&mut context, &problems),
    };
    visitor.page(status, "businesses.html", &context)
}
