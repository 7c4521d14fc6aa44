//! A file people give us to import, opened by what it holds rather than by its name: a zip
//! archive is an Excel workbook (`.xlsx`), the old binary Excel format is refused with what to do,
//! and anything else is read as CSV text in the encoding it was saved in.
use std::io::{Read, Seek, SeekFrom};

use anyhow::{bail, Context};

use leadhub_domain::import::{ReadRow, SheetRows};

use crate::sheet::CsvSheet;
use crate::workbook::{is_zip, WorkbookSheet};

/// The first bytes of an OLE compound file: Excel 97-2003 (`.xls`) and other old Office files.
const OLE_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// An opened spreadsheet file.
pub enum Sheet {
    Csv(CsvSheet),
    Workbook(WorkbookSheet),
}

/// Opens `file` as the kind of spreadsheet its first bytes say it is.
pub fn open_sheet<R: Read + Seek + Send + 'static>(mut file: R) -> anyhow::Result<Sheet> {
    let mut start = Vec::with_capacity(OLE_MAGIC.len());
    (&mut file)
        .take(OLE_MAGIC.len() as u64)
        .read_to_end(&mut start)
        .context("cannot read the file")?;
    let len = file.seek(SeekFrom::End(0))?;
    file.seek(SeekFrom::Start(0))?;
    if is_zip(&start) {
        return Ok(Sheet::Workbook(WorkbookSheet::open(file, len)?));
    }
    if start.starts_with(OLE_MAGIC) {
        bail!("an Excel 97-2003 workbook (.xls): open it and save it as .xlsx or CSV");
    }
    Ok(Sheet::Csv(CsvSheet::open(file)?))
}

impl Sheet {
    fn rows(&self) -> &dyn SheetRows {
        match self {
            Sheet::Csv(sheet) => sheet,
            Sheet::Workbook(sheet) => sheet,
        }
    }
}

impl SheetRows for Sheet {
    fn header(&self) -> Vec<String> {
        self.rows().header()
    }

    fn encoding(&self) -> String {
        self.rows().encoding()
    }

    fn next_row(&mut self) -> anyhow::Result<Option<ReadRow>> {
        match self {
            Sheet::Csv(sheet) => sheet.next_row(),
            Sheet::Workbook(sheet) => sheet.next_row(),
        }
    }

    fn bytes_read(&self) -> u64 {
        self.rows().bytes_read()
    }

    fn unread_sheets(&self) -> Vec<String> {
        self.rows().unread_sheets()
    }

    fn separator(&self) -> Option<char> {
        self.rows().separator()
    }
}
