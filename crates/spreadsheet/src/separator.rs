//! Which character separates a text file's cells. Excel saves "CSV" with semicolons where the
//! decimal mark is a comma, and "Text (Tab delimited)" and "Unicode Text" with tabs, as do
//! Google Sheets' TSV download and many CRM exports; read with commas, such a file is one column
//! whose header names nothing. No byte says which it is, so the first rows decide. Of the
//! separators that split the header, the one whose rows after it have the header's width most
//! often wins (a cell may hold a comma, as `Smith, John` does, but a separator it is not keeps no
//! width from row to row), then the one that splits the header into more cells. A tie goes to the
//! first of `SEPARATORS`: a tab is rarely inside a cell, a comma often is. A header that none
//! splits is read with commas. A first line `sep=;`, Excel's own setting, names it outright.
use csv::ByteRecord;

/// How much of the file's text the choice looks at: the header and the rows after it.
pub const SNIFF_BYTES: u64 = 64 * 1024;
/// Rows looked at after the header.
const ROWS_LOOKED_AT: usize = 20;

/// A separator of cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    Tab,
    Comma,
    Semicolon,
    VerticalBar,
}

/// The separators, in the order a tie is settled.
const SEPARATORS: [Separator; 4] = [
    Separator::Tab,
    Separator::Comma,
    Separator::Semicolon,
    Separator::VerticalBar,
];

impl Separator {
    pub fn byte(self) -> u8 {
        match self {
            Separator::Tab => b'\t',
            Separator::Comma => b',',
            Separator::Semicolon => b';',
            Separator::VerticalBar => b'|',
        }
    }

    /// How the import's summary says it (`UTF-8, columns separated by tabs`); None for commas,
    /// which a CSV file has unless it says otherwise.
    pub fn words(self) -> Option<&'static str> {
        match self {
            Separator::Comma => None,
            Separator::Tab => Some("columns separated by tabs"),
            Separator::Semicolon => Some("columns separated by semicolons"),
            Separator::VerticalBar => Some("columns separated by vertical bars"),
        }
    }

    /// A reader of `text`'s rows with this separator: rows of any width, the header a row like
    /// the others.
    pub fn rows<R: std::io::Read>(self, text: R) -> csv::Reader<R> {
        csv::ReaderBuilder::new()
            .flexible(true)
            .has_headers(false)
            .delimiter(self.byte())
            .from_reader(text)
    }
}

/// The separator of the text that starts with `start` (`cut` as for `choose_separator`): the one
/// a first line `sep=;` names, a setting Excel reads and some programs write for it, taken off
/// the text (Excel shows the header after it as row 1); else the one `choose_separator` finds.
pub fn take_separator(start: &mut Vec<u8>, cut: bool) -> Separator {
    if let Some((separator, line)) = named_by_first_line(start) {
        start.drain(..line);
        return separator;
    }
    choose_separator(start, cut)
}

/// The separator a first line `sep=X` names (any case), and the line's length with its end.
fn named_by_first_line(start: &[u8]) -> Option<(Separator, usize)> {
    const SEP: &[u8] = b"sep=";
    if !start.get(..SEP.len())?.eq_ignore_ascii_case(SEP) {
        return None;
    }
    let (&byte, after) = start[SEP.len()..].split_first()?;
    let separator = SEPARATORS.into_iter().find(|s| s.byte() == byte)?;
    let end = match after {
        [b'\r', b'\n', ..] => 2,
        [b'\n' | b'\r', ..] => 1,
        _ => return None,
    };
    Some((separator, SEP.len() + 1 + end))
}

/// The separator of the text that starts with `start`; `cut` when `start` is not the whole file
/// (its last row may be cut short, so it is not looked at).
fn choose_separator(start: &[u8], cut: bool) -> Separator {
    let mut best: Option<(Separator, (usize, usize))> = None;
    for separator in SEPARATORS {
        let widths = widths(start, separator, cut);
        let Some((&header, rows)) = widths.split_first() else {
            continue;
        };
        if header < 2 {
            continue;
        }
        let score = (rows.iter().filter(|&&w| w == header).count(), header);
        if best.is_none_or(|(_, best)| score > best) {
            best = Some((separator, score));
        }
    }
    best.map_or(Separator::Comma, |(separator, _)| separator)
}

/// The number of cells of the first rows of `start` read with `separator`.
fn widths(start: &[u8], separator: Separator, cut: bool) -> Vec<usize> {
    let mut reader = separator.rows(start);
    let mut record = ByteRecord::new();
    let mut widths = Vec::new();
    while widths.len() <= ROWS_LOOKED_AT {
        match reader.read_byte_record(&mut record) {
            Ok(true) => widths.push(record.len()),
            // Not valid text in a row: the rows read so far decide.
            Ok(false) | Err(_) => break,
        }
    }
    if cut && widths.len() <= ROWS_LOOKED_AT {
        widths.pop();
    }
    widths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(text: &str) -> Separator {
        choose_separator(text.as_bytes(), false)
    }

    #[test]
    fn each_separator_is_found_by_its_header() {
        assert_eq!(
            chosen("address,city,zip\n1 Main St,Austin,78701\n"),
            Separator::Comma
        );
        assert_eq!(
            chosen("address\tcity\tzip\n1 Main St\tAustin\t78701\n"),
            Separator::Tab
        );
        assert_eq!(
            chosen("address;city;zip\n1 Main St;Austin;78701\n"),
            Separator::Semicolon
        );
        assert_eq!(
            chosen("address|city|zip\n1 Main St|Austin|78701\n"),
            Separator::VerticalBar
        );
        // A header alone decides by itself.
        assert_eq!(chosen("address\tcity"), Separator::Tab);
    }

    #[test]
    fn a_separator_inside_cells_does_not_win() {
        // Commas in the cells of a file separated by semicolons, and in its header.
        let file = "Owner, Name;Street;City;Zip\nSmith, John;12 Oak St;Austin;78701\n\
                    Doe;1 Elm St;Austin;78702\nRoe;3 Ash St;Austin;78703\n";
        assert_eq!(chosen(file), Separator::Semicolon);
        // Semicolons in a comma file's header and notes.
        let file = "Name,Address,Notes (a;b;c;d)\nJo,1 Elm St,call;later\nAl,2 Elm St,\n";
        assert_eq!(chosen(file), Separator::Comma);
        // A comma in a cell of a tab file's header: the tabs split it into more cells.
        let file = "Owner, Name\tAddress\tCity\nSmith, John\t12 Oak St\tAustin\n";
        assert_eq!(chosen(file), Separator::Tab);
        // Quoted cells hold the others.
        let file = "\"a;b\",\"c\td\"\n\"x;y\",z\n";
        assert_eq!(chosen(file), Separator::Comma);
    }

    #[test]
    fn a_tie_goes_to_the_tab_then_the_comma() {
        assert_eq!(
            chosen("Owner, Name\tAddress\nSmith, John\t12 Oak St\n"),
            Separator::Tab
        );
        assert_eq!(chosen("a,b;c\n1,2;3\n"), Separator::Comma);
    }

    #[test]
    fn a_header_no_separator_splits_is_read_with_commas() {
        assert_eq!(chosen("address\n1 Main St; Apt 4\n"), Separator::Comma);
        assert_eq!(chosen(""), Separator::Comma);
    }

    #[test]
    fn a_sep_line_names_the_separator_and_is_no_row() {
        let mut text = b"sep=;\r\nname,owner;address\r\n".to_vec();
        assert_eq!(take_separator(&mut text, false), Separator::Semicolon);
        assert_eq!(text, b"name,owner;address\r\n");
        let mut text = b"SEP=|\na|b\n".to_vec();
        assert_eq!(take_separator(&mut text, false), Separator::VerticalBar);
        assert_eq!(text, b"a|b\n");
        // Not such a line: a separator we do not read, or more than one character, or no row
        // after it; the text stays whole and its header decides.
        for text in ["sep=:\na:b\n", "sep=;;\na;b\n", "sep=;", "sep=\t"] {
            let mut bytes = text.as_bytes().to_vec();
            take_separator(&mut bytes, false);
            assert_eq!(bytes, text.as_bytes(), "{text:?}");
        }
    }

    #[test]
    fn a_row_cut_short_by_the_look_is_not_counted() {
        // Two whole rows of three cells by semicolons; the last, cut, has one.
        let text = "a;b;c\n1;2;3\n4;5;6\n7,8";
        assert_eq!(
            widths(text.as_bytes(), Separator::Semicolon, true),
            [3, 3, 3]
        );
        assert_eq!(
            widths(text.as_bytes(), Separator::Semicolon, false),
            [3, 3, 3, 1]
        );
    }
}
