//! Leads as CSV: every lead a visible filter matches, with the contacts logged on it, streamed in
//! keyset-paged chunks so that memory stays flat however many leads match. Shared by `GET /api/v1/leads/export` and the
//! page route `/leads/export`; a lead's cells (`write_lead`) and the chunked reading
//! (`read_ahead`) also serve the pages' Excel download (`leadhub_pages::lead_workbook`).
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use actix_web::body::BoxBody;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, Responder};
use apistos::paths::{MediaType, Response, Responses};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use futures_util::{stream, StreamExt};
use schemars::schema::{InstanceType, SchemaObject};

use leadhub_domain::lead::fields::{EXPORT_RECORD_COLUMNS, STRING_FIELDS};
use leadhub_domain::lead::record::{Lead, LeadCursor};
use leadhub_domain::lead::work::{ContactSummary, LeadWorkService};
use leadhub_domain::submission::{SubmissionError, SubmissionService, VisibleLeadFilter};
use leadhub_http::state::AppState;
use leadhub_http::time::iso;
use leadhub_spreadsheet::cell::defuse_formula;

/// Leads read per database query: large enough to amortise the query and the hop to a blocking
/// thread, small enough to keep memory flat (a chunk's CSV is about half a megabyte).
pub const CHUNK: i64 = 2000;

/// The header row: the lead's field names.
pub fn columns() -> Vec<&'static str> {
    let mut columns = vec!["id", "team_id"];
    columns.extend(STRING_FIELDS);
    columns.extend(EXPORT_RECORD_COLUMNS);
    columns
}

/// A number cell of an export: integers stay integers in CSV text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Integer(i64),
    Decimal(f64),
}

/// Where an exported lead's cells go, left to right in `columns()` order: a CSV row here, a
/// workbook row for the pages' Excel download. None is an empty cell.
pub trait LeadCells {
    type Error;
    fn text(&mut self, value: Option<&str>) -> Result<(), Self::Error>;
    fn number(&mut self, value: Option<Number>) -> Result<(), Self::Error>;
    /// Text written from a value: the appraisal's JSON.
    fn shown(&mut self, value: Option<&dyn std::fmt::Display>) -> Result<(), Self::Error>;
    fn end_row(&mut self) -> Result<(), Self::Error>;
}

/// Writes one lead's cells, in `columns()` order, each straight from the lead and the contacts
/// logged on it: an export writes a million of them, so no cell is copied first.
pub fn write_lead<C: LeadCells>(
    out: &mut C,
    lead: &Lead,
    contacts: Option<&ContactSummary>,
) -> Result<(), C::Error> {
    use Number::{Decimal, Integer};
    out.number(Some(Integer(lead.id)))?;
    out.number(lead.team_id.map(Integer))?;
    for value in lead.fields.string_values() {
        out.text(value.as_deref())?;
    }
    let geocode = lead.geocode.as_ref();
    out.number(lead.fields.bedrooms.map(Integer))?;
    out.number(lead.fields.latitude.map(Decimal))?;
    out.number(lead.fields.longitude.map(Decimal))?;
    out.text(lead.address_standardized.as_deref())?;
    out.number(lead.lot_size_acres.map(Decimal))?;
    out.text(geocode.map(|g| g.source.as_str()))?;
    out.text(geocode.map(|g| g.match_type.as_str()))?;
    out.text(geocode.and_then(|g| g.matched_address.as_deref()))?;
    out.shown(lead.appraisal.as_ref().map(|a| a as _))?;
    out.text(Some(lead.enrichment_status.as_str()))?;
    out.number(Some(Integer(i64::from(lead.submission_count))))?;
    out.text(Some(&iso(lead.created_at)))?;
    out.text(Some(&iso(lead.updated_at)))?;
    out.text(lead.county_fips.as_deref())?;
    let work = &lead.work;
    out.text(Some(work.status.as_str()))?;
    out.text(work.assignee.as_ref().map(|a| a.user_id.as_str()))?;
    out.text(work.assignee.as_ref().map(|a| a.email.as_str()))?;
    out.text(work.archived_at.map(iso).as_deref())?;
    out.text(work.follow_up_on.map(|d| d.to_string()).as_deref())?;
    out.text(contacts.map(|c| iso(c.last_at)).as_deref())?;
    out.text(contacts.map(|c| c.last_outcome.as_str()))?;
    out.number(Some(Integer(contacts.map_or(0, |c| c.count))))?;
    out.text(Some(if work.do_not_call { "true" } else { "false" }))?;
    // The import's `tags` column reads this back (commas separate tags).
    out.text(Some(&work.tags.join(", ")))?;
    // The import's `do_not_call_phones` column reads this back (the numbers stay barred);
    // `wrong_phones` is for the reader: a number wrong for one lead is no rule for another.
    out.text(Some(&work.barred.wrong.join(", ")))?;
    out.text(Some(&work.barred.not_to_call.join(", ")))?;
    out.end_row()
}

/// A CSV row's cells, each through the formula guard; `number` is the buffer a value is
/// written into first, kept from row to row.
struct CsvCells<'a> {
    writer: &'a mut csv::Writer<Vec<u8>>,
    number: String,
}

impl LeadCells for CsvCells<'_> {
    type Error = csv::Error;

    fn text(&mut self, value: Option<&str>) -> csv::Result<()> {
        self.writer
            .write_field(defuse_formula(value.unwrap_or_default()).as_bytes())
    }

    fn number(&mut self, value: Option<Number>) -> csv::Result<()> {
        match value {
            Some(Number::Integer(n)) => self.shown(Some(&n)),
            Some(Number::Decimal(n)) => self.shown(Some(&n)),
            None => self.shown(None),
        }
    }

    fn shown(&mut self, value: Option<&dyn std::fmt::Display>) -> csv::Result<()> {
        use std::fmt::Write as _;
        self.number.clear();
        if let Some(value) = value {
            // Writing into a String cannot fail.
            let _ = write!(self.number, "{value}");
        }
        self.writer
            .write_field(defuse_formula(&self.number).as_bytes())
    }

    fn end_row(&mut self) -> csv::Result<()> {
        self.writer.write_record(None::<&[u8]>)
    }
}

/// Writes rows (and the header first when asked) into one chunk of CSV text.
fn chunk_text(header: bool, chunk: &LeadChunk) -> Result<Vec<u8>, csv::Error> {
    let capacity = chunk.leads.len() * 512 + 1024;
    let mut writer = csv::Writer::from_writer(Vec::with_capacity(capacity));
    if header {
        writer.write_record(columns())?;
    }
    let mut cells = CsvCells {
        writer: &mut writer,
        number: String::new(),
    };
    for (lead, contacts) in chunk.rows() {
        write_lead(&mut cells, lead, contacts)?;
    }
    writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))
}

/// Where an export reads: the leads, and the contacts logged on them.
#[derive(Clone)]
pub struct ExportSource {
    pub submissions: Arc<SubmissionService>,
    pub lead_work: Arc<LeadWorkService>,
}

impl ExportSource {
    pub fn of(state: &AppState) -> ExportSource {
        ExportSource {
            submissions: state.submissions.clone(),
            lead_work: state.lead_work.clone(),
        }
    }

    /// The next `CHUNK` leads after `after` and their contacts: two reads, one after the other
    /// (the writer is busy with the last chunk meanwhile).
    async fn chunk(
        &self,
        filter: &VisibleLeadFilter,
        after: Option<LeadCursor>,
    ) -> Result<LeadChunk, SubmissionError> {
        let leads = self.submissions.leads_after(filter, after, CHUNK).await?;
        let contacts = self.lead_work.contact_summaries(&leads).await?;
        Ok(LeadChunk { leads, contacts })
    }
}

/// Leads of an export, newest first, and the contacts logged on them by lead id.
pub struct LeadChunk {
    pub leads: Vec<Lead>,
    pub contacts: HashMap<i64, ContactSummary>,
}

impl LeadChunk {
    /// Each lead with its contacts (None: none logged).
    pub fn rows(&self) -> impl Iterator<Item = (&Lead, Option<&ContactSummary>)> {
        self.leads.iter().map(|l| (l, self.contacts.get(&l.id)))
    }
}

/// What the reader of an export hands the writer: the next chunk of leads, or the failure
/// that ended the reading.
pub type Chunk = Result<LeadChunk, SubmissionError>;

/// Reads every lead `filter` matches, newest first, a chunk at a time, into `chunks`, one chunk
/// ahead of the writer: the database reads and decodes the next chunk while the writer turns the
/// last one into CSV (or a workbook's rows) and sends it. Stops at the last chunk, at a
/// failure, or when the download is gone.
pub async fn read_ahead(
    source: ExportSource,
    filter: VisibleLeadFilter,
    chunks: tokio::sync::mpsc::Sender<Chunk>,
) {
    let mut after = None;
    loop {
        let chunk = source.chunk(&filter, after).await;
        let last = match &chunk {
            Ok(c) if i64::try_from(c.leads.len()).unwrap_or(0) == CHUNK => {
                c.leads.last().map(LeadCursor::of)
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
    source: ExportSource,
    filter: VisibleLeadFilter,
) -> impl futures_util::Stream<Item = Result<Bytes, actix_web::Error>> {
    let (sender, chunks) = tokio::sync::mpsc::channel(1);
    actix_web::rt::spawn(read_ahead(source, filter, sender));
    // The state is None once a failure was sent: nothing may follow it.
    stream::unfold(Some((chunks, true)), |state| async move {
        let (mut chunks, header) = state?;
        let text = match chunks.recv().await? {
            Ok(chunk) => chunk_text(header, &chunk).map_err(|e| e.to_string()),
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

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A CSV download of leads, documented in OpenAPI as `text/csv`.
pub struct LeadsCsv {
    source: ExportSource,
    filter: VisibleLeadFilter,
    /// Starts with a UTF-8 byte-order mark, for a person who opens the file in Excel.
    marked: bool,
}

impl LeadsCsv {
    pub fn new(source: ExportSource, filter: VisibleLeadFilter) -> Self {
        LeadsCsv {
            source,
            filter,
            marked: false,
        }
    }

    /// The download a person clicks: Excel reads a CSV without a byte-order mark in the
    /// computer's own code page, so `José` shows as `JosÃ©`. A program (the API's export) gets
    /// the CSV as it is; an import reads either.
    pub fn for_people(self) -> Self {
        LeadsCsv {
            marked: true,
            ..self
        }
    }

    pub fn into_response(self) -> HttpResponse {
        let mark = self.marked.then(|| Ok(Bytes::from_static(UTF8_BOM)));
        let body = stream::iter(mark).chain(body(self.source, self.filter));
        HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"leads.csv\"",
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .streaming(body)
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
