//! A row as the file wrote it, before its cells are cleaned: a sheet's totals line (no lead), a
//! row a separator inside a cell has shifted (none of its cells is trusted), and the numbers of a
//! file whose decimal mark is the comma, put in the point form the cleaning reads.
use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::parse::{normalize_email, normalize_phone, normalize_zip, state_from_name};

use super::cells::{
    cell_text, comma_decimals_in_point_form, read_number, read_rating, DecimalMark,
};
use super::columns::{ColumnMap, EMAIL_SLOTS, PHONE_SLOTS};
use super::rows::CellIssue;

/// The first cell of a sheet's totals line, compared as lower-case letters only.
const TOTALS_WORDS: [&str; 7] = [
    "total",
    "totals",
    "grandtotal",
    "subtotal",
    "subtotals",
    "sum",
    "sums",
];

/// The fields whose cells hold numbers (`lot_size` a number and its unit).
const NUMBER_FIELDS: [&str; 7] = [
    "bedrooms",
    "latitude",
    "longitude",
    "team_id",
    "lot_size",
    "rating",
    "review_count",
];

/// How this import reads its file's rows: the file's decimal mark, and the widths of the rows
/// taken so far (for the shifted-row rule).
#[derive(Debug, Default)]
pub(super) struct RowReading {
    pub decimal_mark: DecimalMark,
    /// Whether a separator splits the file's cells (a text file): only then can a cell holding
    /// one shift a row. A workbook's cells are cells.
    separated: bool,
    /// How many rows taken so far had each number of cells.
    widths: BTreeMap<usize, u64>,
}

impl RowReading {
    /// The reading of a file whose cells `separator` separates (None: a workbook).
    pub fn new(separator: Option<char>) -> RowReading {
        RowReading {
            decimal_mark: DecimalMark::of_separator(separator),
            separated: separator.is_some(),
            widths: BTreeMap::new(),
        }
    }

    /// Why a row with more cells than the header's `header` columns, all of them empty beyond the
    /// header, is taken to be shifted (a separator inside a cell, `Smith, Mary` unquoted, made one
    /// cell two); None when its empty cells are padding, as some programs end every line with a
    /// separator. Rows before it that were this wide say padding, rows that were narrower say a
    /// shift; before any, its cells decide: a cell that does not fit its column (`misfits`, only
    /// then worked out) says a shift. Each row taken is counted, so call it for every row that is
    /// not rejected for cells beyond the header.
    pub fn shifted(
        &mut self,
        header: usize,
        width: usize,
        misfits: impl FnOnce() -> Vec<String>,
    ) -> Option<String> {
        if width <= header || !self.separated {
            self.count(width);
            return None;
        }
        // The width most rows so far had; of two as common, the narrower.
        let usual = self
            .widths
            .iter()
            .max_by_key(|(width, rows)| (**rows, std::cmp::Reverse(**width)))
            .map(|(width, _)| *width);
        let why = match usual {
            Some(usual) if width <= usual => None,
            Some(usual) => Some(format!(
                "{width} cells, more than the header's {header} and the {usual} of most rows before it"
            )),
            None => {
                let misfits = misfits();
                (!misfits.is_empty()).then(|| format!(
                    "{width} cells, more than the header's {header}, and cells that do not fit their columns ({})",
                    misfits.join(", ")
                ))
            }
        };
        match why {
            Some(why) => Some(format!(
                "{why}: a separator inside a cell may have shifted the columns, so nothing of the row is used (put the cell in quotes or delete the extra cell)"
            )),
            None => {
                self.count(width);
                None
            }
        }
    }

    fn count(&mut self, width: usize) {
        *self.widths.entry(width).or_default() += 1;
    }

    /// Whether `cells` are a sheet's totals line: the first non-empty cell `Total`, `Totals`,
    /// `Grand Total`, `Subtotal` or `Sum` (any case, a colon after it), every other one a number
    /// (an amount with its currency sign, a percentage). Not a lead: a sheet's sums under its rows.
    pub fn is_totals_line(&self, map: &ColumnMap, cells: &[String]) -> bool {
        let mut filled = cells
            .iter()
            .enumerate()
            .filter(|(i, _)| !map.is_report_column(*i))
            .filter_map(|(_, cell)| cell_text(cell));
        let Some(first) = filled.next() else {
            return false;
        };
        let key: String = first
            .chars()
            .filter(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let word = first
            .trim_end_matches(':')
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
        word && TOTALS_WORDS.contains(&key.as_str()) && filled.all(|cell| self.is_amount(cell))
    }

    /// A number, as this file writes numbers, perhaps after a currency sign or before a `%`.
    fn is_amount(&self, cell: &str) -> bool {
        let bare = cell
            .trim_start_matches(['$', '€', '£', '(', '-', '+'])
            .trim_end_matches(['%', ')'])
            .trim();
        match self.decimal_mark {
            DecimalMark::Point => read_number(bare).is_some(),
            DecimalMark::Comma => read_number(&comma_decimals_in_point_form(bare).text).is_some(),
        }
    }

    /// `cells` with the numbers of the number columns in the point form, for a file whose decimal
    /// mark is the comma (`cells::comma_decimals_in_point_form`); as they are otherwise. A number
    /// that reads both ways (`21.780`) is read the file's way and gets an `ambiguous_number`
    /// warning in `issues`: the value is kept.
    pub fn in_point_form<'a>(
        &self,
        map: &ColumnMap,
        cells: &'a [String],
        issues: &mut Vec<CellIssue>,
    ) -> Cow<'a, [String]> {
        if self.decimal_mark == DecimalMark::Point {
            return Cow::Borrowed(cells);
        }
        let mut rewritten: Option<Vec<String>> = None;
        for (i, field) in map.fields.iter().enumerate() {
            let Some(field) = field.filter(|f| NUMBER_FIELDS.contains(f)) else {
                continue;
            };
            let Some(cell) = cells.get(i) else {
                continue;
            };
            let read = comma_decimals_in_point_form(cell);
            for (written, read) in &read.ambiguous {
                let message = format!(
                    "'{written}' read as {read}: in a file separated by semicolons a dot groups thousands and a comma marks the decimals; check it"
                );
                issues.push(CellIssue::new(
                    field,
                    cell.trim(),
                    "ambiguous_number",
                    message,
                ));
            }
            if let Cow::Owned(text) = read.text {
                let all = rewritten.get_or_insert_with(|| cells.to_vec());
                if let Some(slot) = all.get_mut(i) {
                    *slot = text;
                }
            }
        }
        rewritten.map_or(Cow::Borrowed(cells), Cow::Owned)
    }
}

/// The cells of a row that do not fit their columns, as `'cell' as Header`: a state that is no
/// state, a ZIP code, phone number, e-mail address or number that is none. A row shifted by a
/// separator inside a cell has its cells under their neighbours' headers (`'Austin' as State`).
pub(super) fn misfits(map: &ColumnMap, cells: &[String]) -> Vec<String> {
    map.fields
        .iter()
        .zip(cells)
        .enumerate()
        .filter_map(|(i, (field, cell))| {
            let field = (*field)?;
            let text = cell_text(cell)?;
            let fits = match field {
                "state" | "mail_state" => state_from_name(text).is_some(),
                "zip_code" | "mail_zip" => normalize_zip(text).is_some(),
                f if EMAIL_SLOTS.contains(&f) => normalize_email(text).is_some(),
                "rating" => read_rating(text).is_some(),
                // A lead's phone slots, and a business's one phone.
                f if f == "phone" || PHONE_SLOTS.contains(&f) => normalize_phone(text).is_some(),
                f if NUMBER_FIELDS.contains(&f) && f != "lot_size" => read_number(text).is_some(),
                _ => true,
            };
            let header = map.headers.get(i).map_or(field, String::as_str);
            (!fits).then(|| format!("'{text}' as {header}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::ImportKind;

    fn map(headers: &[&str]) -> ColumnMap {
        let headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
        ColumnMap::new(&ImportKind::Leads, &headers).unwrap()
    }

    fn cells(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| (*c).to_owned()).collect()
    }

    const HEADER: [&str; 7] = ["Owner", "Address", "City", "State", "Zip", "Phone", "Notes"];

    #[test]
    fn a_row_one_cell_too_wide_whose_cells_misfit_is_shifted() {
        let map = map(&HEADER);
        let shifted = cells(&[
            "Smith",
            " Mary",
            "1301 Robin Rd",
            "Austin",
            "TX",
            "78703",
            "512-555-1301",
            "",
        ]);
        let misfit = misfits(&map, &shifted);
        assert_eq!(
            misfit,
            ["'Austin' as State", "'TX' as Zip", "'78703' as Phone"]
        );
        let mut reading = RowReading::new(Some(','));
        let why = reading.shifted(7, 8, || misfit.clone()).expect("shifted");
        assert!(why.contains("'Austin' as State"), "{why}");
        // A row of the header's width after it is read; one wider than it then is shifted
        // however well its cells fit.
        assert_eq!(reading.shifted(7, 7, Vec::new), None);
        let why = reading.shifted(7, 8, Vec::new).expect("shifted");
        assert!(why.contains("the 7 of most rows before it"), "{why}");
    }

    #[test]
    fn rows_that_all_end_with_a_separator_are_padded_not_shifted() {
        let map = map(&HEADER);
        let padded = cells(&[
            "Mary Smith",
            "1301 Robin Rd",
            "Austin",
            "TX",
            "78703",
            "512-555-1301",
            "",
            "",
        ]);
        assert!(misfits(&map, &padded).is_empty());
        let mut reading = RowReading::new(Some(','));
        assert_eq!(reading.shifted(7, 8, Vec::new), None);
        // Once the file's rows are this wide, a bad cell is the cleaning's (dropped, row kept).
        let dirty = vec!["'Lone Star' as State".to_owned()];
        assert_eq!(reading.shifted(7, 8, || dirty.clone()), None);
        assert_eq!(reading.shifted(7, 7, Vec::new), None);
        // One cell wider than the file's rows: shifted.
        assert!(reading.shifted(7, 9, Vec::new).is_some());
        // A workbook's cells are no text split by separators: never shifted this way.
        let mut workbook = RowReading::new(None);
        assert_eq!(workbook.shifted(7, 7, Vec::new), None);
        assert_eq!(workbook.shifted(7, 9, || dirty.clone()), None);
    }

    #[test]
    fn a_sheets_totals_line_is_no_lead() {
        let map = map(&HEADER);
        let reading = RowReading::new(Some(','));
        for line in [
            &["Total", "", "", "", "", "3", ""][..],
            &["", "Grand Total:", "", "", "", "$1,234.50", "12%"],
            &["TOTALS", "", "", "", "", "", ""],
            &["Sum", "1", "2", "", "", "", ""],
        ] {
            assert!(reading.is_totals_line(&map, &cells(line)), "{line:?}");
        }
        for line in [
            &["Total Roofing LLC", "1 Main St", "", "", "", "", ""][..],
            &["Total", "1 Main St", "", "", "", "", ""],
            &["Mary Smith", "", "", "", "", "3", ""],
            &["", "", "", "", "", "", ""],
        ] {
            assert!(!reading.is_totals_line(&map, &cells(line)), "{line:?}");
        }
        let semicolons = RowReading::new(Some(';'));
        let line = cells(&["Total", "", "", "", "", "1.234,5", ""]);
        assert!(semicolons.is_totals_line(&map, &line));
    }

    #[test]
    fn a_decimal_comma_files_number_columns_are_read_in_the_point_form() {
        let map = map(&["Name", "Lot Size", "Latitude", "Longitude", "Notes"]);
        let row = cells(&["Ana", "21.780 sqft", "42,3611", "-71,0601", "2,5 hours"]);
        let reading = RowReading::new(Some(';'));
        let mut issues = Vec::new();
        let read = reading.in_point_form(&map, &row, &mut issues);
        assert_eq!(
            read[..],
            cells(&["Ana", "21780 sqft", "42.3611", "-71.0601", "2,5 hours"])[..]
        );
        let codes: Vec<_> = issues
            .iter()
            .map(|i| (i.field, i.code, i.value.as_str()))
            .collect();
        assert_eq!(codes, [("lot_size", "ambiguous_number", "21.780 sqft")]);
        assert!(issues[0].message.starts_with("'21.780' read as 21780"));
        // A comma or tab file's numbers are as written.
        let mut issues = Vec::new();
        let commas = RowReading::new(Some(','));
        assert!(matches!(
            commas.in_point_form(&map, &row, &mut issues),
            Cow::Borrowed(_)
        ));
        assert!(issues.is_empty());
    }
}
