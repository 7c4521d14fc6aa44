//! `GET /leads/export.xlsx`: the list's filter as an Excel workbook, for people who open their
//! export in Excel, where a CSV file loses ZIPs' leading zeros and shows phones as `1.51256E+10`
//! (`leadhub_spreadsheet::workbook_export`). The same leads, columns and order as the CSV export.
//!
//! The leads are read a chunk at a time as for the CSV (`read_ahead`) and written into the
//! workbook on a blocking thread, whose rows go to temporary files; memory stays flat. A workbook
//! is a zip archive whose directory comes last, so the download's bytes start once the last lead
//! is written, and are then zipped straight into the response.
use std::io::{BufWriter, Write};

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use futures_util::stream;
use tokio::sync::mpsc::{channel, Receiver, Sender};

use leadhub_api::lead_export::{
    columns, read_ahead, write_lead, Chunk, ExportSource, LeadCells, Number,
};
use leadhub_spreadsheet::workbook_export::{WorkbookExport, XlsxError};

use crate::leads::export_filter;
use crate::render::{attachment, PageError, XLSX};
use crate::session::Visitor;

/// Bytes of the zipped workbook sent at a time.
const BODY_PIECE: usize = 64 * 1024;

/// GET /leads/export.xlsx, for the session, like `/leads/export`.
pub async fn export(visitor: Visitor, req: HttpRequest) -> Result<HttpResponse, PageError> {
    let filter = export_filter(&visitor, &req).await?;
    let source = ExportSource::of(&visitor.state);
    let (leads, chunks) = channel(1);
    actix_web::rt::spawn(read_ahead(source, filter, leads));
    let (pieces, body) = channel(4);
    actix_web::rt::task::spawn_blocking(move || {
        if let Err(e) = write_workbook(chunks, &pieces) {
            tracing::error!(error = %e, "lead workbook export stopped");
            // The status is sent already: the body ends early, a cut download.
            let _ = pieces.blocking_send(Err(()));
        }
    });
    let body = stream::unfold(body, |mut body| async move {
        let piece = body.recv().await?;
        let piece = piece.map_err(|()| actix_web::error::ErrorInternalServerError("export failed"));
        Some((piece, body))
    });
    Ok(visitor.finish(attachment(XLSX, "leads.xlsx").streaming(body)))
}

/// Writes every chunk's leads into a workbook, then zips it into `pieces`. Stops early, without
/// an error, when the download is gone.
fn write_workbook(
    mut chunks: Receiver<Chunk>,
    pieces: &Sender<Result<Bytes, ()>>,
) -> anyhow::Result<()> {
    let mut workbook = WorkbookExport::new("Leads", &columns())?;
    while let Some(chunk) = chunks.blocking_recv() {
        if pieces.is_closed() {
            return Ok(());
        }
        for (lead, contacts) in chunk?.rows() {
            write_lead(&mut WorkbookCells(&mut workbook), lead, contacts)?;
        }
    }
    if workbook.cut_cells() > 0 {
        tracing::warn!(
            cells = workbook.cut_cells(),
            "lead workbook export: cells cut to fit Excel (32,767 characters a cell)"
        );
    }
    let mut body = BufWriter::with_capacity(BODY_PIECE, Body(pieces));
    match workbook.finish(&mut body).and_then(|()| Ok(body.flush()?)) {
        // A write fails once the client is gone: that is no failure of the export.
        Err(e) if pieces.is_closed() => {
            tracing::debug!(error = %e, "lead workbook download gone");
            Ok(())
        }
        done => Ok(done?),
    }
}

/// A lead's cells as a workbook row: numbers as numbers, all else as text.
struct WorkbookCells<'a>(&'a mut WorkbookExport);

impl LeadCells for WorkbookCells<'_> {
    type Error = XlsxError;

    fn text(&mut self, value: Option<&str>) -> Result<(), XlsxError> {
        self.0.text(value.unwrap_or_default())
    }

    fn number(&mut self, value: Option<Number>) -> Result<(), XlsxError> {
        match value {
            // Ids and counts are far below 2^53, where an f64 stops holding every integer.
            Some(Number::Integer(n)) => self.0.number(n as f64),
            Some(Number::Decimal(n)) => self.0.number(n),
            None => {
                self.0.empty();
                Ok(())
            }
        }
    }

    fn shown(&mut self, value: Option<&dyn std::fmt::Display>) -> Result<(), XlsxError> {
        match value {
            Some(value) => self.0.text(&value.to_string()),
            None => self.text(None),
        }
    }

    fn end_row(&mut self) -> Result<(), XlsxError> {
        self.0.end_row()
    }
}

/// The response body as a writer: each write is a piece sent to the client.
struct Body<'a>(&'a Sender<Result<Bytes, ()>>);

impl Write for Body<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(bytes)))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
