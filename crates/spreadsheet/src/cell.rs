//! Cells of the CSV files leadhub writes, made safe to open in a spreadsheet without breaking data.
use std::borrow::Cow;

/// `cell` as a spreadsheet will show it, as text. Following OWASP's CSV injection advice, a cell starting
/// with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a formula (`=HYPERLINK(...)` can send the
/// sheet's data elsewhere), so it gets a leading `'`. A plain number (`-97.74`, `+5`) or a phone number
/// (`+15125550100`, `+1 512 555 0100`, `+15125550100;ext=12`) stays as it is: it calls no function, and an
/// apostrophe would break it for a dialer or a CRM fed the file. Imports strip the apostrophe again.
pub fn defuse_formula(cell: &str) -> Cow<'_, str> {
    let formula_start = cell.starts_with(FORMULA_STARTS);
    if formula_start && !is_plain_number(cell) && !is_phone_number(cell) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// The characters a spreadsheet reads as the start of a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `cell` as it was before `defuse_formula`: without the apostrophe it put before a formula
/// start. For a file leadhub wrote, turned into a workbook, whose text cells need no guard.
pub fn undo_defuse(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => cell,
    }
}

/// A sign, then digits with at most one `.` among them after the first digit.
fn is_plain_number(cell: &str) -> bool {
    let Some(number) = cell.strip_prefix(['-', '+']) else {
        return false;
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// `+`, then 7 to 15 digits with spaces, dashes, dots or parentheses between them, and an optional `;ext=`
/// extension: an international phone number as E.164 or as people space it. Nothing in it can call a
/// function, which is what the guard is for.
fn is_phone_number(cell: &str) -> bool {
    let Some(rest) = cell.strip_prefix('+') else {
        return false;
    };
    let (number, ext) = match rest.split_once(";ext=") {
        Some((n, e)) => (n, Some(e)),
        None => (rest, None),
    };
    if ext.is_some_and(|e| e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let bytes = number.as_bytes();
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    (7..=15).contains(&digits)
        && bytes.first().is_some_and(|b| b.is_ascii_digit())
        && bytes.last().is_some_and(|b| b.is_ascii_digit())
        && bytes
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'-' | b'.' | b'(' | b')'))
}

#[cfg(test)]
mod tests {
    use super::{defuse_formula, undo_defuse};

    #[test]
    fn formula_starts_are_defused() {
        for (cell, defused) in [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "'=HYPERLINK(\"http://x\",\"y\")",
            ),
            ("=1+1", "'=1+1"),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("-1e3", "'-1e3"),
            ("-", "'-"),
            ("-.5", "'-.5"),
            ("-1.2.3", "'-1.2.3"),
            ("+SUM(A1)", "'+SUM(A1)"),
            ("+1  512", "'+1  512"),
            ("+1 (512) x", "'+1 (512) x"),
            ("+15125550100;ext=", "'+15125550100;ext="),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(defuse_formula(cell), defused, "{cell:?}");
            assert_eq!(undo_defuse(defused), cell, "{defused:?}");
        }
    }

    #[test]
    fn data_is_unchanged() {
        for cell in [
            "",
            "1 Main St",
            "TX",
            "78701",
            "3.5",
            "-97.74",
            "-3.5",
            "-5",
            "-1.",
            "+5",
            "+15125550100",
            "+15125550100;ext=12",
            "+1 512 555 0100",
            "+1 (512) 555-0100",
            "+442079460958",
            "(512) 555-0100",
            "a=b",
            " =1",
            "'=1",
        ] {
            assert_eq!(defuse_formula(cell), cell, "{cell:?}");
            // An apostrophe before a formula start is taken for the guard, as an import takes it.
            if cell != "'=1" {
                assert_eq!(undo_defuse(cell), cell, "{cell:?}");
            }
        }
    }
}
