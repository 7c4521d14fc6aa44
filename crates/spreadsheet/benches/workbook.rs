//! How fast the import's file adapter reads a lead list: the same rows as an Excel workbook and
//! as CSV, opened (up to the first row, what an upload waits for before its file is accepted) and
//! read to the end; and how fast the pages' Excel export writes them (`WorkbookExport`, text as
//! text and numbers as numbers, zipped to the end). `cargo bench -p leadhub-spreadsheet --bench workbook` (`WORKBOOK_BENCH_ROWS`,
//! default 150,000: about 8 MiB of workbook, the upload cap).
use std::io::Cursor;
use std::time::{Duration, Instant};

use leadhub_domain::import::SheetRows;
use leadhub_spreadsheet::open_sheet;
use leadhub_spreadsheet::workbook_export::WorkbookExport;
use rust_xlsxwriter::Workbook;

const HEADER: [&str; 11] = [
    "first_name",
    "last_name",
    "address",
    "city",
    "state",
    "zip_code",
    "primary_phone",
    "project_number",
    "bedrooms",
    "latitude",
    "email_1",
];

/// One lead list in both formats, numbers typed as numbers in the workbook.
fn files(rows: u32) -> (Vec<u8>, Vec<u8>) {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let mut csv = HEADER.join(",") + "\n";
    for (c, h) in HEADER.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).expect("a header cell");
    }
    for r in 1..=rows {
        let texts = [
            format!("Owner{r}"),
            "Lee".into(),
            format!("{r} Main St"),
            "Austin".into(),
            "TX".into(),
        ];
        for (c, t) in texts.iter().enumerate() {
            sheet.write_string(r, c as u16, t).expect("a cell");
        }
        let phone = 5_125_550_000.0 + f64::from(r);
        sheet.write_number(r, 5, 78701).expect("a cell");
        sheet.write_number(r, 6, phone).expect("a cell");
        sheet.write_string(r, 7, format!("P-{r}")).expect("a cell");
        sheet.write_number(r, 8, 3).expect("a cell");
        sheet.write_number(r, 9, 30.2672).expect("a cell");
        sheet
            .write_string(r, 10, format!("owner{r}@example.com"))
            .expect("a cell");
        csv += &format!(
            "{},78701,{phone},P-{r},3,30.2672,owner{r}@example.com\n",
            texts.join(",")
        );
    }
    (book.save_to_buffer().expect("a workbook"), csv.into_bytes())
}

/// Time to the first row, and to the last; the rows read.
fn read(bytes: &[u8]) -> (Duration, Duration, u64) {
    let start = Instant::now();
    let mut sheet = open_sheet(Cursor::new(bytes.to_vec())).expect("the file opens");
    let mut rows = u64::from(sheet.next_row().expect("a row").is_some());
    let first = start.elapsed();
    while sheet.next_row().expect("a row").is_some() {
        rows += 1;
    }
    (first, start.elapsed(), rows)
}

/// A writer that only counts what it is given, as a download would.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the rows as the Excel export does, zipped to the end; the time and the bytes written.
fn export(rows: u32) -> (Duration, usize) {
    let start = Instant::now();
    let mut book = WorkbookExport::new("Leads", &HEADER).expect("a workbook");
    for r in 1..=rows {
        let (owner, address) = (format!("Owner{r}"), format!("{r} Main St"));
        for text in [owner.as_str(), "Lee", &address, "Austin", "TX"] {
            book.text(text).expect("a cell");
        }
        book.text("78701").expect("a cell");
        book.text(&format!("+1512555{:04}", r % 10_000))
            .expect("a cell");
        book.text(&format!("P-{r}")).expect("a cell");
        book.number(3.0).expect("a cell");
        book.number(30.2672).expect("a cell");
        book.text(&format!("owner{r}@example.com")).expect("a cell");
        book.end_row().expect("a row");
    }
    let mut out = Counter(0);
    book.finish(&mut out).expect("the workbook is written");
    (start.elapsed(), out.0)
}

fn main() {
    let rows: u32 = std::env::var("WORKBOOK_BENCH_ROWS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(150_000);
    let (xlsx, csv) = files(rows);
    println!("| file | bytes | first row (median of 5) | all rows, rows/s (median of 5) |");
    println!("|---|---:|---:|---:|");
    for (name, bytes) in [("xlsx", &xlsx), ("csv", &csv)] {
        let mut runs: Vec<(Duration, Duration, u64)> = (0..5).map(|_| read(bytes)).collect();
        runs.sort_by_key(|r| r.1);
        let (first, all, read) = runs[2];
        assert_eq!(read, u64::from(rows), "every row read");
        println!(
            "| {name} | {} | {:.0} ms | {:.0} |",
            bytes.len(),
            first.as_secs_f64() * 1000.0,
            read as f64 / all.as_secs_f64()
        );
    }
    let mut runs: Vec<(Duration, usize)> = (0..5).map(|_| export(rows)).collect();
    runs.sort_by_key(|r| r.0);
    let (all, bytes) = runs[2];
    println!(
        "| xlsx export, written | {bytes} | - | {:.0} |",
        f64::from(rows) / all.as_secs_f64()
    );
}
