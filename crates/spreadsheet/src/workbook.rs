//! An Excel workbook (`.xlsx`) as rows: its first visible worksheet, read cell by cell by `calamine`
//! and handed over a row at a time, each cell's value as text (`cell_text`), so the import's cleaning
//! (a ZIP's lost zero, dates, numbers) is the CSV's.
//!
//! `calamine`'s streaming cell reader borrows the workbook it reads, so the two live on a thread of
//! their own that sends the rows through a short channel: a sheet of any length is read in the
//! memory of a few rows. A dense read (`worksheet_range`) would allocate the sheet's whole bounding
//! box, which one cell at `XFD1048576` makes seventeen billion cells.
//!
//! Bounds, checked on the archive's directory before anything is decompressed (the `zip` crate
//! then stops every part at its declared size): the shared strings, held in memory whole, at most
//! `SHARED_STRINGS_MAX`; all parts together at most `WORKBOOK_MAX`; a cell past Excel's last
//! column (XFD) ends the read as a broken file.
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use anyhow::{bail, Context};
use calamine::{DataRef, Reader, SheetType, SheetVisible, Xlsx};

use leadhub_domain::import::{ReadRow, SheetRow, SheetRows};

/// The shared strings table is read into memory whole.
pub const SHARED_STRINGS_MAX: u64 = 256 << 20;
/// Every part of the workbook together, decompressed.
pub const WORKBOOK_MAX: u64 = 1 << 30;
/// Excel's own last column, XFD.
const COLUMNS_MAX: u32 = 16_384;
/// Rows read ahead of the import.
const ROWS_AHEAD: usize = 64;

/// What the reading thread sends: first the sheet, then its rows, then the end or why it stopped.
enum Next {
    Opened {
        sheet: String,
        header: Vec<String>,
        unread: Vec<String>,
    },
    Row(SheetRow),
    End,
    Failed(String),
}

/// An opened workbook's first visible worksheet.
pub struct WorkbookSheet {
    sheet: String,
    header: Vec<String>,
    /// The other worksheets, not read.
    unread: Vec<String>,
    rows: Receiver<Next>,
    ended: bool,
    read: Arc<AtomicU64>,
}

/// Whether `start` (a file's first bytes) opens a zip archive, the container of `.xlsx`.
pub(crate) fn is_zip(start: &[u8]) -> bool {
    start.starts_with(b"PK\x03\x04")
}

impl WorkbookSheet {
    /// Opens the workbook in `file` (`len` bytes) and reads its header row: the first row holding
    /// a cell that is not blank.
    pub fn open<R: Read + Seek + Send + 'static>(
        mut file: R,
        len: u64,
    ) -> anyhow::Result<WorkbookSheet> {
        check_sizes(&mut file)?;
        let (sender, rows) = sync_channel(ROWS_AHEAD);
        let read = Arc::new(AtomicU64::new(0));
        let progress = read.clone();
        std::thread::Builder::new()
            .name("xlsx-reader".into())
            .spawn(move || {
                if let Err(e) = send_rows(file, len, &sender, &progress) {
                    // The receiver may be gone (the import stopped); nobody is left to tell then.
                    let _ = sender.send(Next::Failed(format!("{e:#}")));
                }
            })
            .context("cannot start reading the workbook")?;
        match rows.recv() {
            Ok(Next::Opened {
                sheet,
                header,
                unread,
            }) => Ok(WorkbookSheet {
                sheet,
                header,
                unread,
                rows,
                ended: false,
                read,
            }),
            Ok(Next::Failed(reason)) => bail!("{reason}"),
            Ok(Next::Row(_) | Next::End) | Err(_) => bail!("the workbook could not be read"),
        }
    }
}

impl SheetRows for WorkbookSheet {
    fn header(&self) -> Vec<String> {
        self.header.clone()
    }

    fn encoding(&self) -> String {
        format!("Excel workbook (.xlsx), sheet \"{}\"", self.sheet)
    }

    fn next_row(&mut self) -> anyhow::Result<Option<ReadRow>> {
        if self.ended {
            return Ok(None);
        }
        match self.rows.recv() {
            Ok(Next::Row(row)) => Ok(Some(ReadRow::Row(row))),
            Ok(Next::End) => {
                self.ended = true;
                Ok(None)
            }
            Ok(Next::Failed(reason)) => bail!("cannot read the workbook: {reason}"),
            // A reader that stops without saying End broke off: never a silent end of the file.
            Ok(Next::Opened { .. }) | Err(_) => bail!("cannot read the workbook any further"),
        }
    }

    fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    fn unread_sheets(&self) -> Vec<String> {
        self.unread.clone()
    }
}

/// Refuses a workbook whose parts would decompress beyond the bounds, reading only the archive's
/// directory; leaves `file` at its start.
fn check_sizes<R: Read + Seek>(file: &mut R) -> anyhow::Result<()> {
    let mut archive = zip::ZipArchive::new(&mut *file).context("not a readable zip archive")?;
    let mut total = 0u64;
    for i in 0..archive.len() {
        let part = archive
            .by_index_raw(i)
            .context("not a readable zip archive")?;
        let strings = part.name().is_ok_and(|n| n.ends_with("sharedStrings.xml"));
        if strings && part.size() > SHARED_STRINGS_MAX {
            bail!(
                "its shared strings hold {} MiB, more than the {} MiB an import reads",
                part.size() >> 20,
                SHARED_STRINGS_MAX >> 20
            );
        }
        total = total.saturating_add(part.size());
    }
    if total > WORKBOOK_MAX {
        bail!(
            "it holds {} MiB decompressed, more than the {} MiB an import reads",
            total >> 20,
            WORKBOOK_MAX >> 20
        );
    }
    drop(archive);
    file.seek(SeekFrom::Start(0))?;
    Ok(())
}

/// Reads the first visible worksheet of the workbook in `file` and sends it: the sheet and its
/// header, each row after it, then End.
fn send_rows<R: Read + Seek>(
    file: R,
    len: u64,
    sender: &SyncSender<Next>,
    progress: &AtomicU64,
) -> anyhow::Result<()> {
    let mut workbook = Xlsx::new(file)
        .context("a zip archive but not an Excel workbook (.xlsx): save it as .xlsx or CSV")?;
    let mut visible = workbook
        .sheets_metadata()
        .iter()
        .filter(|s| s.typ == SheetType::WorkSheet && s.visible == SheetVisible::Visible)
        .map(|s| s.name.clone());
    let sheet = visible
        .next()
        .context("the workbook has no visible worksheet")?;
    let unread: Vec<String> = visible.collect();
    let mut cells = workbook
        .worksheet_cells_reader(&sheet)
        .with_context(|| format!("cannot read the sheet \"{sheet}\""))?;
    let last_row = u64::from(cells.dimensions().end.0) + 1;
    let mut opened = false;
    let mut row: Option<SheetRow> = None;
    // Sends the row just read: the header when none is sent yet, else a row of the sheet.
    let mut hand_over = |done: SheetRow| -> bool {
        let share = len.saturating_mul(done.row) / last_row.max(done.row);
        progress.store(share, Ordering::Relaxed);
        if opened {
            return sender.send(Next::Row(done)).is_ok();
        }
        if done.cells.iter().all(|c| c.trim().is_empty()) {
            return true;
        }
        opened = true;
        sender
            .send(Next::Opened {
                sheet: sheet.clone(),
                header: done.cells,
                unread: unread.clone(),
            })
            .is_ok()
    };
    while let Some(cell) = cells.next_cell().context("a broken worksheet")? {
        let (r, c) = cell.get_position();
        let number = u64::from(r) + 1;
        if row.as_ref().is_some_and(|row| row.row != number) {
            if let Some(done) = row.take() {
                if !hand_over(done) {
                    return Ok(());
                }
            }
        }
        if c >= COLUMNS_MAX {
            bail!("a cell lies past Excel's last column (row {number})");
        }
        let row = row.get_or_insert_with(|| SheetRow {
            row: number,
            ..SheetRow::default()
        });
        let c = c as usize;
        if row.cells.len() <= c {
            row.cells.resize(c + 1, String::new());
        }
        row.cells[c] = cell_text(cell.get_value());
    }
    if let Some(done) = row.take() {
        if !hand_over(done) {
            return Ok(());
        }
    }
    if !opened {
        // An empty sheet: no header, no rows, as an empty CSV file.
        let _ = sender.send(Next::Opened {
            sheet,
            header: Vec::new(),
            unread,
        });
    }
    progress.store(len, Ordering::Relaxed);
    let _ = sender.send(Next::End);
    Ok(())
}

/// A cell's value as text, as Excel's General format writes it, not as the cell's own number format
/// shows it: whole numbers without a decimal point (a ZIP code or phone typed as a number), dates
/// as `YYYY-MM-DD` (with the time when there is one; a time alone as `HH:MM:SS`), `TRUE`/`FALSE`,
/// errors as `#N/A`.
fn cell_text(value: &DataRef<'_>) -> String {
    match value {
        DataRef::Empty => String::new(),
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.clone(),
        DataRef::SharedString(s) => (*s).to_owned(),
        DataRef::Int(i) => i.to_string(),
        DataRef::Float(f) => number_text(*f),
        DataRef::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_owned(),
        DataRef::Error(e) => e.to_string(),
        DataRef::DateTime(d) if d.is_datetime() => {
            let (y, mo, day, h, mi, s, _) = d.to_ymd_hms_milli();
            if (0.0..1.0).contains(&d.as_f64()) {
                format!("{h:02}:{mi:02}:{s:02}")
            } else if (h, mi, s) == (0, 0, 0) {
                format!("{y:04}-{mo:02}-{day:02}")
            } else {
                format!("{y:04}-{mo:02}-{day:02} {h:02}:{mi:02}:{s:02}")
            }
        }
        DataRef::DateTime(d) => number_text(d.as_f64()),
    }
}

/// A number in its shortest writing that reads back the same, never in exponent form.
fn number_text(f: f64) -> String {
    // Whole numbers below 2^53 are exact in an f64; written without ".0".
    if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
#[path = "workbook_tests.rs"]
mod tests;
