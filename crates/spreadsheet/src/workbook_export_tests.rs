//! Exports read back by calamine, cell by cell with their types, as Excel would open them.
use std::io::{Cursor, Read, Write};

use calamine::{open_workbook_from_rs, Data, Reader, Xlsx};

use super::*;

/// A writer that cannot seek, as a response body's channel cannot.
struct Stream(Vec<u8>);

impl Write for Stream {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The finished workbook's bytes.
fn finished(export: WorkbookExport) -> Vec<u8> {
    let mut out = Stream(Vec::new());
    export.finish(&mut out).unwrap();
    out.0
}

/// Each sheet's name and cells, as calamine reads them.
fn sheets(bytes: Vec<u8>) -> Vec<(String, Vec<Vec<Data>>)> {
    let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes)).unwrap();
    book.sheet_names()
        .into_iter()
        .map(|name| {
            let range = book.worksheet_range(&name).unwrap();
            (name, range.rows().map(<[Data]>::to_vec).collect())
        })
        .collect()
}

/// The cells under sheet `n`'s filter buttons (`A1:E3`), as the sheet's XML names them.
fn auto_filter(bytes: &[u8], n: usize) -> String {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut xml = String::new();
    let part = format!("xl/worksheets/sheet{n}.xml");
    archive
        .by_name(&part)
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    let (_, after) = xml.split_once("<autoFilter ref=\"").unwrap();
    after.split('"').next().unwrap().to_owned()
}

fn text(s: &str) -> Data {
    Data::String(s.to_owned())
}

#[test]
fn text_stays_text_and_numbers_are_numbers() {
    let mut export =
        WorkbookExport::new("Leads", &["id", "zip_code", "phone", "city", "lat"]).unwrap();
    export.number(7.0).unwrap();
    export.text("02134").unwrap();
    export.text("+15125550100").unwrap();
    // Text that Excel would run as a formula in a CSV file is a string cell here.
    export.text("=1+1").unwrap();
    export.number(30.2672).unwrap();
    export.end_row().unwrap();
    export.number(8.0).unwrap();
    export.empty();
    export.text("").unwrap();
    export.text("Austin").unwrap();
    export.number(f64::NAN).unwrap();
    export.end_row().unwrap();

    let sheets = sheets(finished(export));
    assert_eq!(sheets.len(), 1);
    let (name, rows) = &sheets[0];
    assert_eq!(name, "Leads");
    assert_eq!(
        rows,
        &[
            vec![
                text("id"),
                text("zip_code"),
                text("phone"),
                text("city"),
                text("lat")
            ],
            vec![
                Data::Float(7.0),
                text("02134"),
                text("+15125550100"),
                text("=1+1"),
                Data::Float(30.2672)
            ],
            vec![
                Data::Float(8.0),
                Data::Empty,
                Data::Empty,
                text("Austin"),
                text("NaN")
            ],
        ]
    );
}

#[test]
fn a_full_sheet_continues_on_a_new_one_with_the_header() {
    let bytes = |rows: u32| {
        let mut export = WorkbookExport::with_rows_per_sheet("Leads", &["n", "m"], 3).unwrap();
        for n in 1..=rows {
            export.number(f64::from(n)).unwrap();
            export.end_row().unwrap();
        }
        finished(export)
    };
    let write = |rows: u32| sheets(bytes(rows));
    // Each sheet's filter buttons cover its header and its rows.
    let five = bytes(5);
    let filters: Vec<String> = (1..=3).map(|n| auto_filter(&five, n)).collect();
    assert_eq!(filters, ["A1:B3", "A1:B3", "A1:B2"]);
    let five = write(5);
    let names: Vec<&str> = five.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["Leads", "Leads (2)", "Leads (3)"]);
    let header = || vec![text("n"), text("m")];
    let n = |v: f64| vec![Data::Float(v), Data::Empty];
    assert_eq!(five[0].1, [header(), n(1.0), n(2.0)]);
    assert_eq!(five[1].1, [header(), n(3.0), n(4.0)]);
    assert_eq!(five[2].1, [header(), n(5.0)]);
    // Rows that fill their last sheet exactly leave no empty sheet after it.
    assert_eq!(write(4).len(), 2);
    // No rows at all: the header alone.
    assert_eq!(write(0), [("Leads".to_owned(), vec![header()])]);
    assert_eq!(auto_filter(&bytes(0), 1), "A1:B1");
}

#[test]
fn text_over_excels_cell_limit_is_cut_to_it_and_counted() {
    // 32,766 units, then a character of two UTF-16 units that would cross the limit.
    let long = format!("{}\u{1F600}tail", "a".repeat(EXCEL_CELL_CHARS - 1));
    let fits = "é".repeat(EXCEL_CELL_CHARS);
    let mut export = WorkbookExport::new("Leads", &["note", "other"]).unwrap();
    export.text(&long).unwrap();
    export.text(&fits).unwrap();
    export.end_row().unwrap();
    assert_eq!(export.cut_cells(), 1);

    let sheets = sheets(finished(export));
    assert_eq!(sheets[0].1[1][0], text(&"a".repeat(EXCEL_CELL_CHARS - 1)));
    // Two bytes a character but one UTF-16 unit: 32,767 of them fit whole.
    assert_eq!(sheets[0].1[1][1], text(&fits));
}

#[test]
fn a_report_becomes_text_cells_without_the_formula_guard() {
    let report = "row,column,value,code,message,zip_code,phone,note\n\
                  5,,,shifted_row,\"a row, shifted\",02134,+15125550100,'=HYPERLINK(\"x\")\n\
                  6,state,XX,invalid_state,dropped,78701,,,extra\n";
    let mut out = Stream(Vec::new());
    csv_as_workbook(report.as_bytes(), "Report", &mut out).unwrap();
    let sheets = sheets(out.0);
    let (name, rows) = &sheets[0];
    assert_eq!(name, "Report");
    assert_eq!(rows[0][5], text("zip_code"));
    assert_eq!(
        rows[1],
        [
            "5",
            "",
            "",
            "shifted_row",
            "a row, shifted",
            "02134",
            "+15125550100",
            "=HYPERLINK(\"x\")",
            ""
        ]
        .map(|c| if c.is_empty() { Data::Empty } else { text(c) })
    );
    assert_eq!(rows[2][8], text("extra"));
}

#[test]
fn cells_past_excels_last_column_are_dropped_and_counted() {
    let titles: Vec<String> = (0..20_000).map(|c| format!("c{c}")).collect();
    let header: Vec<&str> = titles.iter().map(String::as_str).collect();
    let mut export = WorkbookExport::new("Wide", &header).unwrap();
    for c in 0..16_390_u32 {
        export.number(f64::from(c)).unwrap();
    }
    export.text("past").unwrap();
    export.empty();
    export.end_row().unwrap();
    assert_eq!(export.cut_cells(), 7);
    let bytes = finished(export);
    assert_eq!(auto_filter(&bytes, 1), "A1:XFD2");
    let rows = &sheets(bytes)[0].1;
    assert_eq!(rows[1].len(), usize::from(EXCEL_COLUMNS));
    assert_eq!(rows[1][16_383], Data::Float(16_383.0));
}
