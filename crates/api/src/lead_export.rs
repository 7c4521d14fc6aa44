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
use leadhub_http::time::iso;
use leadhub_spreadsheet::cell::defuse_formula;

/// Leads read per database query: large enough to amortise the query and the hop to a blocking
/// thread, small enough to keep memory flat (a chunk's CSV is about half a megabyte).
pub const CHUNK: i64 = 2000;

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

/// Writes one lead's cells, in `columns()` order (empty where the lead has no value), each
/// straight from the lead: an export writes a million of them, so no cell is copied first.
fn write_lead(
    writer: &mut csv::Writer<Vec<u8>>,
    lead: &Lead,
    number: &mut String,
) -> csv::Result<()> {
    use std::fmt::Write as _;
    let text = |writer: &mut csv::Writer<Vec<u8>>, v: Option<&str>| {
        writer.write_field(defuse_formula(v.unwrap_or_default()).as_bytes())
    };
    let mut shown = |writer: &mut csv::Writer<Vec<u8>>, v: Option<&dyn std::fmt::Display>| {
        number.clear();
        if let Some(v) = v {
            // Writing into a String cannot fail.
            let _ = write!(number, "{v}");
        }
        writer.write_field(defuse_formula(number).as_bytes())
    };
    shown(writer, Some(&lead.id))?;
    shown(writer, lead.team_id.as_ref().map(|t| t as _))?;
    for value in lead.fields.string_values() {
        text(writer, value.as_deref())?;
    }
    let geocode = lead.geocode.as_ref();
    shown(writer, lead.fields.bedrooms.as_ref().map(|b| b as _))?;
    shown(writer, lead.fields.latitude.as_ref().map(|v| v as _))?;
    shown(writer, lead.fields.longitude.as_ref().map(|v| v as _))?;
    text(writer, lead.address_standardized.as_deref())?;
    shown(writer, lead.lot_size_acres.as_ref().map(|v| v as _))?;
    text(writer, geocode.map(|g| g.source.as_str()))?;
    text(writer, geocode.map(|g| g.match_type.as_str()))?;
    text(writer, geocode.and_then(|g| g.matched_address.as_deref()))?;
    shown(writer, lead.appraisal.as_ref().map(|a| a as _))?;
    text(writer, Some(lead.enrichment_status.as_str()))?;
    shown(writer, Some(&lead.submission_count))?;
    text(writer, Some(&iso(lead.created_at)))?;
    text(writer, Some(&iso(lead.updated_at)))?;
    text(writer, lead.county_fips.as_deref())?;
    writer.write_record(None::<&[u8]>)
}

/// Writes rows (and the header first when asked) into one chunk of CSV text.
fn chunk_text(header: bool, leads: &[Lead]) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::with_capacity(leads.len() * 512 + 1024));
    if header {
        writer.write_record(columns())?;
    }
    let mut number = String::new();
    for lead in leads {
        write_lead(&mut writer, lead, &mut number)?;
    }
    writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))
}

/// What the reader of an export hands the CSV writer: the next chunk of leads, or the failure
/// that ended the reading.
type Chunk = Result<Vec<Lead>, leadhub_domain::submission::SubmissionError>;

/// Reads every lead `filter` matches, a chunk at a time, into `chunks`, one chunk ahead of the
/// CSV writer: the database reads and decodes the next chunk while the writer turns the last one
/// into CSV and sends it. Stops at the last chunk, at a failure, or when the download is gone.
async fn read_ahead(
    submissions: Arc<SubmissionService>,
    filter: VisibleLeadFilter,
    chunks: tokio::sync::mpsc::Sender<Chunk>,
) {
    let mut after = None;
    loop {
        let chunk = submissions.leads_after(&filter, after, CHUNK).await;
        let last = match &chunk {
            Ok(leads) if i64::try_from(leads.len()).unwrap_or(0) == CHUNK => {
                leads.last().map(LeadCursor::of)
            }
            _ => None,
        };
        if chunks.send(chunk).await.is_err() || last.is_none() {
            return;
        }
        after = last;
    }
}

/// The CSV of every lead `filter` matches, newest first, as a body stream. A failure after the
/// first bytes cannot change the status any more: it is logged and the body ends early (the
/// client sees a cut connection, not a complete file).
fn body(
    submissions: Arc<SubmissionService>,
    filter: VisibleLeadFilter,
) -> impl futures_util::Stream<Item = Result<Bytes, actix_web::Error>> {
    let (sender, chunks) = tokio::sync::mpsc::channel(1);
    actix_web::rt::spawn(read_ahead(submissions, filter, sender));
    // The state is None once a failure was sent: nothing may follow it.
    stream::unfold(Some((chunks, true)), |state| async move {
        let (mut chunks, header) = state?;
        let text = match chunks.recv().await? {
            Ok(leads) => chunk_text(header, &leads).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match text {
            Ok(text) => Some((Ok(Bytes::from(text)), Some((chunks, false)))),
            Err(e) => {
                tracing::error!(error = %e, "lead export stopped");
                let failed = actix_web::error::ErrorInternalServerError("export failed");
                Some((Err(failed), None))
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
