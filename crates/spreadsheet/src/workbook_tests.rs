//! Workbooks written by `rust_xlsxwriter` (files Excel opens), read back as the import reads them.
use std::io::{Cursor, Read, Write};

use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook};

use super::*;
use crate::open::{open_sheet, Sheet};

fn open(bytes: Vec<u8>) -> anyhow::Result<WorkbookSheet> {
    match open_sheet(Cursor::new(bytes))? {
        Sheet::Workbook(sheet) => Ok(sheet),
        Sheet::Csv(_) => panic!("a workbook opens as one"),
    }
}

fn rows(sheet: &mut WorkbookSheet) -> Vec<SheetRow> {
    let mut rows = Vec::new();
    while let Some(row) = sheet.next_row().unwrap() {
        match row {
            ReadRow::Row(row) => rows.push(row),
            ReadRow::Unreadable { .. } => panic!("a workbook row is always readable"),
        }
    }
    rows
}

fn row(n: u64, cells: &[&str]) -> SheetRow {
    SheetRow {
        row: n,
        cells: cells.iter().map(|c| (*c).to_owned()).collect(),
        recoded: Vec::new(),
    }
}

#[test]
fn cells_read_as_excel_saves_them_as_csv() {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("Permits").unwrap();
    let header = [
        "address",
        "zip",
        "phone",
        "latitude",
        "permit_date",
        "issued",
        "ok",
        "sum",
        "at",
    ];
    for (c, h) in header.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("m/d/yyyy h:mm");
    sheet.write_string(1, 0, "1 Main St").unwrap();
    // A ZIP typed as a number has lost its leading zero, as in Excel's own CSV.
    sheet.write_number(1, 1, 2134).unwrap();
    sheet.write_number(1, 2, 5_125_550_100_f64).unwrap();
    sheet.write_number(1, 3, 30.2672).unwrap();
    let day = ExcelDateTime::from_ymd(2025, 3, 4).unwrap();
    sheet.write_datetime_with_format(1, 4, &day, &date).unwrap();
    let at = ExcelDateTime::from_ymd(2025, 3, 4)
        .unwrap()
        .and_hms(14, 30, 5)
        .unwrap();
    sheet.write_datetime_with_format(1, 5, &at, &stamp).unwrap();
    sheet.write_boolean(1, 6, true).unwrap();
    sheet
        .write_formula(1, 7, Formula::new("=1+1").set_result("2"))
        .unwrap();
    let clock = Format::new().set_num_format("h:mm");
    let noon = ExcelDateTime::from_hms(12, 30, 0).unwrap();
    sheet
        .write_datetime_with_format(1, 8, &noon, &clock)
        .unwrap();
    let bytes = book.save_to_buffer().unwrap();
    let len = bytes.len() as u64;

    let mut sheet = open(bytes).unwrap();
    assert_eq!(sheet.header(), header);
    assert_eq!(
        sheet.encoding(),
        "Excel workbook (.xlsx), sheet \"Permits\""
    );
    assert_eq!(
        rows(&mut sheet),
        [row(
            2,
            &[
                "1 Main St",
                "2134",
                "5125550100",
                "30.2672",
                "2025-03-04",
                "2025-03-04 14:30:05",
                "TRUE",
                "2",
                "12:30:00"
            ]
        )]
    );
    assert_eq!(sheet.bytes_read(), len, "a finished sheet is wholly read");
}

#[test]
fn the_header_is_the_first_row_with_a_cell_and_row_numbers_are_the_sheets() {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    // Rows 1 and 2 empty (row 2 only formatted), the header in B3, a gap at row 5.
    sheet.write_blank(1, 1, &Format::new().set_bold()).unwrap();
    sheet.write_string(2, 1, "address").unwrap();
    sheet.write_string(2, 2, "city").unwrap();
    sheet.write_string(3, 1, "1 Main St").unwrap();
    sheet.write_string(5, 2, "Austin").unwrap();
    let mut sheet = open(book.save_to_buffer().unwrap()).unwrap();
    assert_eq!(sheet.header(), ["", "address", "city"]);
    assert_eq!(
        rows(&mut sheet),
        [row(4, &["", "1 Main St"]), row(6, &["", "", "Austin"])]
    );
}

#[test]
fn the_first_visible_worksheet_is_read() {
    let mut book = Workbook::new();
    let notes = book.add_worksheet();
    notes.set_name("Notes").unwrap().set_hidden(true);
    notes.write_string(0, 0, "colour").unwrap();
    let leads = book.add_worksheet();
    // The sheet Excel shows first; the one before it is hidden.
    leads.set_name("Leads").unwrap().set_active(true);
    leads.write_string(0, 0, "address").unwrap();
    leads.write_string(1, 0, "1 Main St").unwrap();
    book.add_worksheet().write_string(0, 0, "other").unwrap();
    let mut sheet = open(book.save_to_buffer().unwrap()).unwrap();
    assert_eq!(sheet.sheet, "Leads");
    // The hidden sheet is no sheet to name; the one after is.
    assert_eq!(sheet.unread_sheets(), ["Sheet3"]);
    assert_eq!(sheet.header(), ["address"]);
    assert_eq!(rows(&mut sheet), [row(2, &["1 Main St"])]);
}

#[test]
fn an_empty_sheet_has_no_header() {
    let mut book = Workbook::new();
    book.add_worksheet();
    let mut sheet = open(book.save_to_buffer().unwrap()).unwrap();
    assert!(sheet.header().is_empty());
    assert!(rows(&mut sheet).is_empty());
}

/// A workbook with one part of it rewritten by `edit`.
fn with_part(bytes: Vec<u8>, part: &str, edit: impl Fn(String) -> String) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        let mut text = Vec::new();
        entry.read_to_end(&mut text).unwrap();
        if name == part {
            text = edit(String::from_utf8(text).unwrap()).into_bytes();
        }
        out.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(&text).unwrap();
    }
    out.finish().unwrap().into_inner()
}

fn one_lead() -> Vec<u8> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.write_string(0, 0, "address").unwrap();
    sheet.write_string(1, 0, "1 Main St").unwrap();
    sheet.write_string(2, 0, "2 Oak Ave").unwrap();
    book.save_to_buffer().unwrap()
}

#[test]
fn a_cell_past_excels_last_column_breaks_the_file_after_the_rows_before_it() {
    // XFD is the last column; XFE would make every row 16,385 cells and more.
    let bytes = with_part(one_lead(), "xl/worksheets/sheet1.xml", |xml| {
        xml.replace("r=\"A3\"", "r=\"XFE3\"")
    });
    let mut sheet = open(bytes).unwrap();
    assert_eq!(
        sheet.next_row().unwrap(),
        Some(ReadRow::Row(row(2, &["1 Main St"])))
    );
    let err = sheet.next_row().unwrap_err();
    assert!(
        format!("{err:#}").contains("past Excel's last column"),
        "{err:#}"
    );
    // Once broken, the sheet says so again rather than ending quietly.
    assert!(sheet.next_row().is_err());
}

/// Sets the uncompressed size the archive's directory declares for `part`.
fn declare_size(mut bytes: Vec<u8>, part: &str, size: u32) -> Vec<u8> {
    // A central directory header: signature, then the uncompressed size at 24, the name's
    // length at 28 and the name at 46.
    let at = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x01\x02")
        .map(|(i, _)| i)
        .find(|&i| {
            let n = u16::from_le_bytes([bytes[i + 28], bytes[i + 29]]) as usize;
            &bytes[i + 46..i + 46 + n] == part.as_bytes()
        })
        .unwrap();
    bytes[at + 24..at + 28].copy_from_slice(&size.to_le_bytes());
    bytes
}

#[test]
fn parts_declared_larger_than_the_bounds_are_refused_before_reading() {
    let strings = declare_size(
        one_lead(),
        "xl/sharedStrings.xml",
        (SHARED_STRINGS_MAX + 1) as u32,
    );
    let err = open(strings).err().unwrap();
    assert!(
        format!("{err:#}").contains("shared strings hold 256 MiB"),
        "{err:#}"
    );

    let sheet = declare_size(one_lead(), "xl/worksheets/sheet1.xml", u32::MAX);
    let err = open(sheet).err().unwrap();
    assert!(
        format!("{err:#}").contains("MiB decompressed, more than the 1024 MiB"),
        "{err:#}"
    );
    // Within the bounds, the same workbook opens.
    assert!(open(one_lead()).is_ok());
}

#[test]
fn other_files_are_named_for_what_they_are() {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("mimetype", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    let ods = zip.finish().unwrap().into_inner();
    let err = open_sheet(Cursor::new(ods)).err().unwrap();
    assert!(
        format!("{err:#}").contains("not an Excel workbook (.xlsx)"),
        "{err:#}"
    );

    let err = open_sheet(Cursor::new(b"PK\x03\x04 torn".to_vec()))
        .err()
        .unwrap();
    assert!(
        format!("{err:#}").contains("not a readable zip archive"),
        "{err:#}"
    );

    let xls = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0\0\0".to_vec();
    let err = open_sheet(Cursor::new(xls)).err().unwrap();
    assert!(format!("{err:#}").contains("Excel 97-2003"), "{err:#}");

    // A CSV file is still a CSV file.
    assert!(matches!(
        open_sheet(Cursor::new(b"address\n1 Main St\n".to_vec())).unwrap(),
        Sheet::Csv(_)
    ));
}

#[test]
fn numbers_are_written_short_and_never_in_exponent_form() {
    let cases = [
        (2134.0, "2134"),
        (-97.7431, "-97.7431"),
        (0.1, "0.1"),
        (1e20, "100000000000000000000"),
        (5125550100.0, "5125550100"),
        (-0.0, "0"),
    ];
    for (number, text) in cases {
        assert_eq!(cell_text(&DataRef::Float(number)), text, "{number}");
    }
}
