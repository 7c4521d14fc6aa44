//! A row as submitted, kept verbatim: `{header: cell}` of its non-blank cells outside the report's
//! own columns, as JSON. The text is the one a `serde_json::Map` of those cells would print (keys
//! sorted, a repeated header holding its last non-blank cell), written straight from the cells: a
//! map would copy every header and cell of every row first.
use std::collections::BTreeMap;

use super::columns::ColumnMap;

/// How the rows of one file are written verbatim.
pub(super) struct Verbatim {
    /// Each header once, in key order, as a JSON string, with the columns headed by it.
    keys: Vec<(String, Vec<usize>)>,
}

impl Verbatim {
    pub(super) fn new(map: &ColumnMap) -> Verbatim {
        let mut columns: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, header) in map.headers.iter().enumerate() {
            if !map.is_report_column(i) {
                columns.entry(header).or_default().push(i);
            }
        }
        let keys = columns
            .into_iter()
            .map(|(header, columns)| (json_string(header), columns))
            .collect();
        Verbatim { keys }
    }

    /// The row's text.
    pub(super) fn row(&self, cells: &[String]) -> String {
        let mut out = String::with_capacity(2 + cells.iter().map(|c| c.len() + 16).sum::<usize>());
        out.push('{');
        for (key, columns) in &self.keys {
            let cell = columns
                .iter()
                .rev()
                .filter_map(|&i| cells.get(i))
                .find(|cell| !cell.trim().is_empty());
            if let Some(cell) = cell {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(key);
                out.push(':');
                out.push_str(&json_string(cell));
            }
        }
        out.push('}');
        out
    }
}

/// `text` as a JSON string, quoted and escaped as serde_json writes it.
fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::ImportKind;
    use serde_json::{Map, Value};

    /// What the rows were kept as before: a map of the cells, printed.
    fn as_map(map: &ColumnMap, cells: &[String]) -> String {
        let mut object = Map::new();
        for (i, (header, cell)) in map.headers.iter().zip(cells).enumerate() {
            if !cell.trim().is_empty() && !map.is_report_column(i) {
                object.insert(header.clone(), Value::String(cell.clone()));
            }
        }
        Value::Object(object).to_string()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn rows_read_as_a_map_of_their_cells_prints() {
        let headers = strings(&[
            "Zip", "address", "Notes", "reason", "Notes", "é \"q\"", "city", "", "Address",
        ]);
        let map = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        let verbatim = Verbatim::new(&map);
        for cells in [
            &[
                "78701",
                "1 Main St",
                "a",
                "bad",
                "b",
                "x\ny\t\u{1}",
                "Austin",
                "?",
                "2 Elm",
            ][..],
            &["", " ", "a", "", "  ", "", "", "", ""],
            &["", "", "", "", "", "", "", "", ""],
            &["1", "2"],
            &["1", "2", "3", "4", "5", "6", "7", "8", "9", "beyond"],
        ] {
            let cells = strings(cells);
            assert_eq!(verbatim.row(&cells), as_map(&map, &cells), "{cells:?}");
        }
    }
}
