//! Leads as CSV: every lead a visible filter matches, streamed in keyset-paged chunks so that
//! memory stays flat however many leads match. Shared by `GET /api/v1/leads/export` and the
//! page route `/leads/export`.
use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::body::BoxBody;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, Responder};
use apistos::paths::{MediaType, Response, Responses};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use futures_util::stream;
use schemars::schema::{InstanceType, SchemaObject};

use leadhub_domain::lead::fields::STRING_FIELDS;
use leadhub_domain::lead::record::{Lead, LeadCursor};
use leadhub_domain::submission::{SubmissionService, VisibleLeadFilter};

use crate::csv_cell::defuse_formula;
use crate::time::iso;

/// Leads read per database query: large enough to amortise the query, small enough to keep
/// memory flat (a chunk's CSV is a few hundred kilobytes).
pub const CHUNK: i64 = 500;

/// The columns after `id`, `team_id` and the string fields: named as in the lead's JSON.
const OTHER_COLUMNS: [&str; 14] = [
    "bedrooms",
    "latitude",
    "longitude",
    "address_standardized",
    "lot_size_acres",
    "geocode_source",
    "geocode_match",
    "geocode_matched_address",
    "appraisal",
    "enrichment_status",
    "submission_count",
    "created_at",
    "updated_at",
    "county_fips",
];

/// The header row: the lead's field names.
pub fn columns() -> Vec<&'static str> {
    let mut columns = vec!["id", "team_id"];
    columns.extend(STRING_FIELDS);
    columns.extend(OTHER_COLUMNS);
    columns
}

/// One lead's cells, in `columns()` order (empty where the lead has no value).
fn cells(lead: &Lead) -> Vec<String> {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let number = |v: Option<f64>| v.map(|n| n.to_string()).unwrap_or_default();
    let mut cells = vec![
        lead.id.to_string(),
        lead.team_id.map(|t| t.to_string()).unwrap_or_default(),
    ];
    for name in STRING_FIELDS {
        cells.push(lead.fields.string_field(name).map(text).unwrap_or_default());
    }
    let geocode = lead.geocode.as_ref();
    cells.extend([
        lead.fields
            .bedrooms
            .map(|b| b.to_string())
            .unwrap_or_default(),
        number(lead.fields.latitude),
        number(lead.fields.longitude),
        text(&lead.address_standardized),
        number(lead.lot_size_acres),
        geocode.map(|g| g.source.clone()).unwrap_or_default(),
        geocode.map(|g| g.match_type.clone()).unwrap_or_default(),
        geocode
            .and_then(|g| g.matched_address.clone())
            .unwrap_or_default(),
        lead.appraisal
            .as_ref()
            .map(|a| a.to_string())
            .unwrap_or_default(),
        lead.enrichment_status.as_str().to_owned(),
        lead.submission_count.to_string(),
        iso(lead.created_at),
        iso(lead.updated_at),
        text(&lead.county_fips),
    ]);
    cells
}

/// Writes rows (and the header first when asked) into one chunk of CSV text.
fn chunk_text(header: bool, leads: &[Lead]) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::with_capacity(leads.len() * 512 + 1024));
    if header {
        writer.write_record(columns())?;
    }
    for lead in leads {
        writer.write_record(cells(lead).iter().map(|c| defuse_formula(c).into_owned()))?;
    }
    writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))
}

struct Progress {
    submissions: Arc<SubmissionService>,
    filter: VisibleLeadFilter,
    after: Option<LeadCursor>,
    header_sent: bool,
    done: bool,
}

/// The CSV of every lead `filter` matches, newest first, as a body stream. A failure after the
/// first bytes cannot change the status any more: it is logged and the body ends early (the
/// client sees a cut connection, not a complete file).
fn body(
    submissions: Arc<SubmissionService>,
    filter: VisibleLeadFilter,
) -> impl futures_util::Stream<Item = Result<Bytes, actix_web::Error>> {
    let start = Progress {
        submissions,
        filter,
        after: None,
        header_sent: false,
        done: false,
    };
    stream::unfold(start, |mut p| async move {
        if p.done {
            return None;
        }
        let leads = match p.submissions.leads_after(&p.filter, p.after, CHUNK).await {
            Ok(leads) => leads,
            Err(e) => {
                tracing::error!(error = %e, "lead export stopped");
                p.done = true;
                let failed = actix_web::error::ErrorInternalServerError("export failed");
                return Some((Err(failed), p));
            }
        };
        p.done = i64::try_from(leads.len()).unwrap_or(0) < CHUNK;
        p.after = leads.last().map(LeadCursor::of);
        let header = !p.header_sent;
        p.header_sent = true;
        match chunk_text(header, &leads) {
            Ok(text) => Some((Ok(Bytes::from(text)), p)),
            Err(e) => {
                tracing::error!(error = %e, "lead export stopped");
                p.done = true;
                let failed = actix_web::error::ErrorInternalServerError("export failed");
                Some((Err(failed), p))
            }
        }
    })
}

/// A CSV download of leads, documented in OpenAPI as `text/csv`.
pub struct LeadsCsv {
    submissions: Arc<SubmissionService>,
    filter: VisibleLeadFilter,
}

impl LeadsCsv {
    pub fn new(submissions: Arc<SubmissionService>, filter: VisibleLeadFilter) -> Self {
        LeadsCsv {
            submissions,
            filter,
        }
    }

    pub fn into_response(self) -> HttpResponse {
        HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"leads.csv\"",
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .streaming(body(self.submissions, self.filter))
    }
}

impl Responder for LeadsCsv {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        self.into_response()
    }
}

impl ApiComponent for LeadsCsv {
    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        Vec::new()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        None
    }

    fn responses(_: Option<String>) -> Option<Responses> {
        let text = SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            ..Default::default()
        };
        Some(Responses {
            responses: BTreeMap::from([(
                "200".to_owned(),
                ReferenceOr::Object(Response {
                    description: "CSV (RFC 4180, UTF-8): a header row of the lead's field names, \
                                  then one row per lead, newest first. Cells that a spreadsheet \
                                  would read as a formula start with `'`."
                        .to_owned(),
                    content: BTreeMap::from([(
                        "text/csv".to_owned(),
                        MediaType {
                            schema: Some(ReferenceOr::Object(Schema::Object(text))),
                            ..Default::default()
                        },
                    )]),
                    ..Default::default()
                }),
            )]),
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_every_column_once() {
        let columns = columns();
        let mut unique = columns.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), columns.len());
        assert_eq!(columns[..3], ["id", "team_id", "address"]);
    }
}
