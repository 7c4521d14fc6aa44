//! A CSV file as rows: decoded in the encoding `encoding::detect` found, its separator chosen by
//! `separator`, parsed by the `csv` crate with Windows or Unix line endings, rows of any width. A
//! UTF-8 file's cell that is not UTF-8 is read as windows-1252 (a row pasted from Excel on
//! Windows) and named for a warning; a row of another file that does not decode is handed on as
//! unreadable with its number and cells, and the rows after it are read, so one bad row costs
//! that row alone.
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::bail;
use anyhow::Context;
use csv::ByteRecord;
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};
use encoding_rs_io::DecodeReaderBytesBuilder;

use leadhub_domain::import::{ReadRow, SheetRow, SheetRows};

use crate::encoding::detect;
use crate::separator::{take_separator, Separator, SNIFF_BYTES};

type Source = Box<dyn Read + Send>;

/// Counts the bytes read from the file itself (before decoding), for progress.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened CSV file.
pub struct CsvSheet {
    reader: csv::Reader<Source>,
    encoding: &'static Encoding,
    separator: Separator,
    header: Vec<String>,
    record: ByteRecord,
    /// The spreadsheet row number of the last row read (the header is row 1).
    row: u64,
    /// The reader's line count after the last row read: where the next row's count starts.
    line: u64,
    read: Arc<AtomicU64>,
}

impl CsvSheet {
    /// Whether the text is UTF-16 (either byte order): the only encoding whose text holds NUL
    /// bytes, so a NUL in any other file means it is no text at all.
    pub fn is_utf16(&self) -> bool {
        self.encoding == UTF_16LE || self.encoding == UTF_16BE
    }

    /// Detects the encoding of `file` and the separator of its text, and reads its header row.
    pub fn open<R: Read + Seek + Send + 'static>(mut file: R) -> anyhow::Result<CsvSheet> {
        let (encoding, bom) = detect(&mut file).context("cannot read the file")?;
        let read = Arc::new(AtomicU64::new(0));
        let mut source: Source = if encoding == UTF_8 {
            // UTF-8 is checked row by row instead of transcoded, so a bad row is found and named.
            file.seek(SeekFrom::Start(bom as u64))?;
            read.store(bom as u64, Ordering::Relaxed);
            Box::new(Counted {
                inner: file,
                count: read.clone(),
            })
        } else {
            let counted = Counted {
                inner: file,
                count: read.clone(),
            };
            Box::new(
                DecodeReaderBytesBuilder::new()
                    .encoding(Some(encoding))
                    .strip_bom(true)
                    .build(counted),
            )
        };
        // The separator is chosen from the file's first text, which is then read again in front
        // of the rest (less a `sep=` line).
        let mut start = Vec::new();
        (&mut source)
            .take(SNIFF_BYTES)
            .read_to_end(&mut start)
            .context("cannot read the file")?;
        // Text holds no NUL character (UTF-16's NUL bytes are decoded by now): an image or a
        // program renamed `.csv` does, within its first bytes.
        if start.contains(&0) {
            bail!("neither a CSV file nor an Excel workbook (.xlsx): it holds binary data");
        }
        let cut = start.len() as u64 == SNIFF_BYTES;
        let separator = take_separator(&mut start, cut);
        let source: Source = Box::new(Cursor::new(start).chain(source));
        let mut reader = separator.rows(source);
        let mut record = ByteRecord::new();
        let header = if reader
            .read_byte_record(&mut record)
            .context("cannot read the header row")?
        {
            record
                .iter()
                .map(|cell| {
                    String::from_utf8_lossy(cell)
                        .trim_start_matches('\u{feff}')
                        .trim()
                        .to_owned()
                })
                .collect()
        } else {
            Vec::new()
        };
        let line = reader.position().line();
        Ok(CsvSheet {
            reader,
            encoding,
            separator,
            header,
            record,
            row: 1,
            line,
            read,
        })
    }

    /// How many spreadsheet rows the record just read moved on: one, and one more for each empty
    /// line before it, which the `csv` crate skips but a spreadsheet shows as an empty row.
    ///
    /// The reader counts the `\n` bytes it consumed. A record's read takes the empty lines before
    /// it, the line breaks inside its quoted cells and one line end: its own (`\n`), or with CRLF
    /// the `\n` of the record before (the `\r` ends a record, its `\n` is read with the next). So
    /// the count moved by rows + line breaks inside cells. Two files read one too few: a last row
    /// with no line end just after an empty line in an LF file, and CR-only (classic Mac) files,
    /// which have no `\n` to count: their empty lines are not counted.
    fn rows_taken(&mut self) -> u64 {
        let line = self.reader.position().line();
        let inside = self
            .record
            .as_slice()
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        let moved = line.saturating_sub(self.line).saturating_sub(inside as u64);
        self.line = line;
        moved.max(1)
    }

    /// The row just read as text, or as unreadable with its cells as far as they decode.
    fn decoded(&self) -> ReadRow {
        let mut cells = Vec::with_capacity(self.record.len());
        let mut recoded = Vec::new();
        let mut unreadable = false;
        for (column, cell) in self.record.iter().enumerate() {
            match std::str::from_utf8(cell) {
                Ok(text) => {
                    // A transcoded row holds U+FFFD where its bytes meant nothing in the file's
                    // encoding.
                    unreadable |= self.encoding != UTF_8 && text.contains('\u{fffd}');
                    cells.push(text.to_owned());
                }
                // Only a UTF-8 file is read undecoded. A cell of it that is not UTF-8 is nearly
                // always text pasted from Excel on Windows, windows-1252, where every byte is a
                // character: read so, it is the text its writer saw.
                Err(_) => {
                    let (text, _) = WINDOWS_1252.decode_without_bom_handling(cell);
                    cells.push(text.into_owned());
                    recoded.push((column, WINDOWS_1252.name()));
                }
            }
        }
        if unreadable {
            let reason = format!(
                "the row has bytes that are not {} text (shown as \u{fffd}); fix its characters and import it again",
                self.encoding.name()
            );
            return ReadRow::Unreadable {
                row: self.row,
                reason,
                cells,
            };
        }
        ReadRow::Row(SheetRow {
            row: self.row,
            cells,
            recoded,
        })
    }
}

impl SheetRows for CsvSheet {
    fn header(&self) -> Vec<String> {
        self.header.clone()
    }

    fn encoding(&self) -> String {
        match self.separator.words() {
            Some(words) => format!("{}, {words}", self.encoding.name()),
            None => self.encoding.name().to_owned(),
        }
    }

    fn next_row(&mut self) -> anyhow::Result<Option<ReadRow>> {
        if !self
            .reader
            .read_byte_record(&mut self.record)
            .context("cannot read the file")?
        {
            return Ok(None);
        }
        self.row += self.rows_taken();
        Ok(Some(self.decoded()))
    }

    fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    fn separator(&self) -> Option<char> {
        Some(char::from(self.separator.byte()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn read(bytes: &[u8]) -> (String, Vec<String>, Vec<ReadRow>) {
        let mut sheet = CsvSheet::open(Cursor::new(bytes.to_vec())).unwrap();
        let mut rows = Vec::new();
        while let Some(row) = sheet.next_row().unwrap() {
            rows.push(row);
        }
        (sheet.encoding(), sheet.header(), rows)
    }

    fn row(n: u64, cells: &[&str]) -> ReadRow {
        ReadRow::Row(SheetRow {
            row: n,
            cells: cells.iter().map(|c| (*c).to_owned()).collect(),
            recoded: Vec::new(),
        })
    }

    #[test]
    fn utf8_with_bom_and_crlf() {
        let (encoding, header, rows) =
            read(b"\xEF\xBB\xBFcity,zip\r\nS\xC3\xA3o Paulo,01000\r\n\"a,b\",\r\n");
        assert_eq!(encoding, "UTF-8");
        assert_eq!(header, ["city", "zip"]);
        assert_eq!(
            rows,
            [row(2, &["São Paulo", "01000"]), row(3, &["a,b", ""])]
        );
    }

    #[test]
    fn a_windows_1252_cell_in_a_utf8_file_is_read_as_such_and_named() {
        let (encoding, _, rows) =
            read(b"name,city\nJo\xC3\xABl,S\xC3\xA3o Paulo\nRen\xE9e,M\xFCnchen\nAl,Austin\n");
        assert_eq!(encoding, "UTF-8");
        assert_eq!(
            rows,
            [
                row(2, &["Joël", "São Paulo"]),
                ReadRow::Row(SheetRow {
                    row: 3,
                    cells: vec!["Renée".into(), "München".into()],
                    recoded: vec![(0, "windows-1252"), (1, "windows-1252")],
                }),
                row(4, &["Al", "Austin"]),
            ]
        );
        // A cell of UTF-8 text beside it stays UTF-8.
        let (_, _, rows) = read(b"name,city\nRen\xE9e,S\xC3\xA3o Paulo\n");
        let ReadRow::Row(read) = &rows[0] else {
            panic!("{rows:?}")
        };
        assert_eq!(read.cells, ["Renée", "São Paulo"]);
        assert_eq!(read.recoded, [(0, "windows-1252")]);
    }

    #[test]
    fn an_undecodable_row_of_a_transcoded_file_is_unreadable_with_its_cells() {
        // UTF-16LE with a lone surrogate in the second row's first cell.
        let mut utf16 = vec![0xFF, 0xFE];
        let mut units: Vec<u16> = "city,zip\r\n".encode_utf16().collect();
        units.push(0xD800);
        units.extend("x,78701\r\nAustin,78702\r\n".encode_utf16());
        for unit in units {
            utf16.extend(unit.to_le_bytes());
        }
        let (_, _, rows) = read(&utf16);
        assert!(
            matches!(&rows[0], ReadRow::Unreadable { row: 2, reason, cells }
                if reason.contains("UTF-16LE") && cells == &["\u{fffd}x", "78701"]),
            "{rows:?}"
        );
        assert_eq!(rows[1], row(3, &["Austin", "78702"]));
    }

    #[test]
    fn a_binary_file_is_no_csv_file() {
        for bytes in [
            &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..],
            &b"\0\x01\x02\x03\x04\x05\xfe\xff"[..],
            &b"name,city\nAl\0,Austin\n"[..],
        ] {
            let Err(e) = CsvSheet::open(Cursor::new(bytes.to_vec())) else {
                panic!("{bytes:?} opened")
            };
            assert!(e.to_string().contains("it holds binary data"), "{e}");
        }
        // UTF-16's NUL bytes are text.
        let mut utf16 = vec![0xFF, 0xFE];
        for unit in "city\r\nAustin\r\n".encode_utf16() {
            utf16.extend(unit.to_le_bytes());
        }
        assert!(CsvSheet::open(Cursor::new(utf16)).is_ok());
    }

    #[test]
    fn windows_1252_and_utf16() {
        let (encoding, _, rows) =
            read(b"name,city\nJos\xE9 Pe\xF1a,M\xFCnchen\nFran\xE7ois,Qu\xE9bec\n");
        assert_eq!(encoding, "windows-1252");
        assert_eq!(rows[0], row(2, &["José Peña", "München"]));

        let mut utf16 = vec![0xFF, 0xFE];
        for unit in "city,zip\r\nSão Paulo,01000\r\n".encode_utf16() {
            utf16.extend(unit.to_le_bytes());
        }
        let (encoding, header, rows) = read(&utf16);
        assert_eq!(encoding, "UTF-16LE");
        assert_eq!(header, ["city", "zip"]);
        assert_eq!(rows, [row(2, &["São Paulo", "01000"])]);
        let is_utf16 = |bytes: &[u8]| {
            CsvSheet::open(Cursor::new(bytes.to_vec()))
                .unwrap()
                .is_utf16()
        };
        assert!(is_utf16(&utf16));
        assert!(!is_utf16(b"city,zip\nAustin,78701\n"));
    }

    #[test]
    fn tabs_and_semicolons_separate_cells_where_the_file_uses_them() {
        // Excel's "Unicode Text": UTF-16LE with a BOM, cells separated by tabs.
        let mut utf16 = vec![0xFF, 0xFE];
        for unit in "Address\tCity\tOwner\r\n12 Oak St\tSão Paulo\tSmith, John\r\n".encode_utf16()
        {
            utf16.extend(unit.to_le_bytes());
        }
        let (encoding, header, rows) = read(&utf16);
        assert_eq!(encoding, "UTF-16LE, columns separated by tabs");
        assert_eq!(header, ["Address", "City", "Owner"]);
        assert_eq!(rows, [row(2, &["12 Oak St", "São Paulo", "Smith, John"])]);

        // Excel's "CSV" where the decimal mark is a comma, in windows-1252.
        let (encoding, header, rows) =
            read(b"Name;Street;Note\r\nJos\xE9 Pe\xF1a;1 Elm St;\"call; later\"\r\n\r\nRoe, A;2 Elm St;3,5\r\n");
        assert_eq!(encoding, "windows-1252, columns separated by semicolons");
        assert_eq!(header, ["Name", "Street", "Note"]);
        assert_eq!(
            rows,
            [
                row(2, &["José Peña", "1 Elm St", "call; later"]),
                row(4, &["Roe, A", "2 Elm St", "3,5"])
            ]
        );

        // A `sep=` line names the separator and is no row: the header is row 1.
        let (encoding, header, rows) = read(b"sep=;\r\nName;Street\r\nRoe, A;2 Elm St\r\n");
        assert_eq!(encoding, "UTF-8, columns separated by semicolons");
        assert_eq!(header, ["Name", "Street"]);
        assert_eq!(rows, [row(2, &["Roe, A", "2 Elm St"])]);

        // Past the part looked at, the rows are read with the same separator.
        let mut file = "address|zip\n".to_owned();
        while file.len() < 70_000 {
            file.push_str("1 Main St|78701\n");
        }
        let (encoding, _, rows) = read(file.as_bytes());
        assert_eq!(encoding, "UTF-8, columns separated by vertical bars");
        assert!(rows
            .iter()
            .all(|r| matches!(r, ReadRow::Row(r) if r.cells.len() == 2)));
        assert_eq!(rows.len(), (file.len() - 12) / 16);
    }

    #[test]
    fn empty_lines_count_as_the_rows_a_spreadsheet_shows() {
        let cells = |n: u64| row(n, &[&n.to_string(), "x"]);
        for (ends, file) in [
            ("LF", "n,c\n2,x\n\n4,x\n\n\n7,x\n8,x\n"),
            ("CRLF", "n,c\r\n2,x\r\n\r\n4,x\r\n\r\n\r\n7,x\r\n8,x\r\n"),
            (
                "CRLF, no end",
                "n,c\r\n2,x\r\n\r\n4,x\r\n\r\n\r\n7,x\r\n8,x",
            ),
            ("LF, no end", "n,c\n2,x\n\n4,x\n\n\n7,x\n8,x"),
        ] {
            let (_, _, rows) = read(file.as_bytes());
            assert_eq!(rows, [cells(2), cells(4), cells(7), cells(8)], "{ends}");
        }
        // Line breaks inside a quoted cell are one row, in either line end.
        for file in [
            "n,c\n2,\"a\nb\"\n\n4,x\n",
            "n,c\r\n2,\"a\r\nb\"\r\n\r\n4,x\r\n",
        ] {
            let (_, _, rows) = read(file.as_bytes());
            let two = if file.contains('\r') {
                "a\r\nb"
            } else {
                "a\nb"
            };
            assert_eq!(rows, [row(2, &["2", two]), cells(4)], "{file:?}");
        }
        // A header holding a line break in quotes is still row 1.
        let (_, _, rows) = read(b"\"n\nnumber\",c\n\n3,x\n");
        assert_eq!(rows, [cells(3)]);
    }

    #[test]
    fn an_empty_file_has_no_header() {
        let (_, header, rows) = read(b"");
        assert!(header.is_empty() && rows.is_empty());
    }
}
