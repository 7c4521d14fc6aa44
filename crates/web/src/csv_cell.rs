//! Cells of the CSV files leadhub writes, made safe to open in a spreadsheet.
use std::borrow::Cow;

/// `cell` as a spreadsheet will show it, as text. A cell starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return is read as a formula (`=HYPERLINK(...)` can send the sheet's data
/// elsewhere), so it gets a leading `'` (OWASP's CSV injection rule). A plain negative number
/// (`-97.74`) stays as it is: it cannot be a formula, and nearly every US longitude is one.
pub fn defuse_formula(cell: &str) -> Cow<'_, str> {
    let formula_start = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula_start && !is_plain_negative_number(cell) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// `-` then digits, with at most one `.` among them after the first digit.
fn is_plain_negative_number(cell: &str) -> bool {
    let Some(number) = cell.strip_prefix('-') else {
        return false;
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::defuse_formula;

    #[test]
    fn formula_starts_are_defused() {
        for (cell, defused) in [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "'=HYPERLINK(\"http://x\",\"y\")",
            ),
            ("+1 512 555 0100", "'+1 512 555 0100"),
            ("-2+3", "'-2+3"),
            ("-1e3", "'-1e3"),
            ("-", "'-"),
            ("-.5", "'-.5"),
            ("-1.2.3", "'-1.2.3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(defuse_formula(cell), defused, "{cell:?}");
        }
    }

    #[test]
    fn other_cells_are_unchanged() {
        for cell in [
            "",
            "1 Main St",
            "TX",
            "78701",
            "3.5",
            "-97.74",
            "-5",
            "-1.",
            "a=b",
            " =1",
            "'=1",
        ] {
            assert_eq!(defuse_formula(cell), cell, "{cell:?}");
        }
    }
}
