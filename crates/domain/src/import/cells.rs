//! Spreadsheet writings read into the API's values: `3.0` and `1,234` as numbers, `three` as 3, `cell` as the
//! phone type `mobile`, `condo` as the property type `residential`. Each reader returns None for a value it
//! cannot read; the row cleaning then drops that cell with a warning.
use std::borrow::Cow;

use crate::lead::work::LeadStatus;

/// Characters a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A cell as an import reads it: trimmed, without the apostrophe a formula guard puts before a formula
/// start (`'=1+1` -> `=1+1`, `'+15125550100` -> `+15125550100`), so an export or a report imports back as
/// it was. None when blank.
pub fn cell_text(raw: &str) -> Option<&str> {
    let text = raw.trim();
    let text = match text.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest.trim(),
        _ => text,
    };
    (!text.is_empty()).then_some(text)
}

/// Letters and digits only, lower case: how the word lists below compare.
fn word_key(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// A number as written in a spreadsheet: `3`, `3.0`, `-97.74`, `1,234`, `1,234.5`, `+5`, or a word from
/// `zero` to `twenty`. Thousands separators must group by three (`1,23` is not a number).
pub fn read_number(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Some(n) = NUMBER_WORDS.iter().position(|w| w.eq_ignore_ascii_case(s)) {
        return Some(n as f64);
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(fraction) {
        return None;
    }
    let whole: Cow<'_, str> = if whole.contains(',') {
        let mut groups = whole.split(',');
        let first = groups.next()?;
        let grouped = (1..=3).contains(&first.len())
            && digits(first)
            && groups.all(|g| g.len() == 3 && digits(g));
        if !grouped {
            return None;
        }
        Cow::Owned(whole.replace(',', ""))
    } else if digits(whole) {
        Cow::Borrowed(whole)
    } else {
        return None;
    };
    let text = format!(
        "{}{whole}.{}",
        if s.starts_with('-') { "-" } else { "" },
        if fraction.is_empty() { "0" } else { fraction }
    );
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// How a file writes a number's fraction. A file separated by semicolons is Excel's "CSV" where
/// the decimal mark is a comma (`42,3611`, `1.234,5`); every other file writes a point, and a
/// workbook's numbers are numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DecimalMark {
    #[default]
    Point,
    Comma,
}

impl DecimalMark {
    /// The decimal mark of a file whose cells `separator` separates (None: a workbook).
    pub fn of_separator(separator: Option<char>) -> DecimalMark {
        match separator {
            Some(';') => DecimalMark::Comma,
            _ => DecimalMark::Point,
        }
    }
}

/// A cell of a decimal-comma file with its numbers in the point form the readers take.
#[derive(Debug, Clone, PartialEq)]
pub struct PointForm<'a> {
    pub text: Cow<'a, str>,
    /// Each number that also reads with a point, to another value (`21.780`: 21780, or 21.78
    /// written with a point), as `(as written, as read)`: read the comma's way, for a warning.
    pub ambiguous: Vec<(String, String)>,
}

/// `text`, written with a decimal comma and a dot between thousands (`42,3611`, `1.234,5`, `0,5
/// acres`, `21.780 sqft`), with each number in the point form (`42.3611`, `1234.5`, `0.5 acres`,
/// `21780 sqft`). A number that reads only with a point (`-71.0601`, `1,234.5`: a program that
/// writes points though it separates cells by semicolons) or not at all stays as written.
pub fn comma_decimals_in_point_form(text: &str) -> PointForm<'_> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut ambiguous = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // A number: digits, with a comma or a dot only between two digits.
        let start = i;
        while i < bytes.len() {
            let between =
                matches!(bytes[i], b',' | b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if bytes[i].is_ascii_digit() || between {
                i += 1;
            } else {
                break;
            }
        }
        let number = &text[start..i];
        if !number.contains([',', '.']) {
            continue;
        }
        let swapped: String = number
            .chars()
            .map(|c| match c {
                ',' => '.',
                '.' => ',',
                c => c,
            })
            .collect();
        let Some(with_comma) = read_number(&swapped) else {
            continue;
        };
        let point_form = swapped.replace(',', "");
        if read_number(number).is_some_and(|with_point| with_point != with_comma) {
            ambiguous.push((number.to_owned(), point_form.clone()));
        }
        out.push_str(&text[copied..start]);
        out.push_str(&point_form);
        copied = i;
    }
    if copied == 0 {
        return PointForm {
            text: Cow::Borrowed(text),
            ambiguous,
        };
    }
    out.push_str(&text[copied..]);
    PointForm {
        text: Cow::Owned(out),
        ambiguous,
    }
}

/// A whole number (`3`, `3.0`, `1,234`, `three`); None for `2.5`.
pub fn read_whole(s: &str) -> Option<i64> {
    let n = read_number(s)?;
    // Beyond 2^53 a double no longer holds every integer; no field of ours needs more.
    (n.fract() == 0.0 && n.abs() < 9.0e15).then_some(n as i64)
}

/// A phone type as written (`cell`, `Cellular`, `land line`, `internet`) to `mobile`, `landline` or `voip`.
pub fn read_phone_type(s: &str) -> Option<&'static str> {
    const TYPES: [(&str, &[&str]); 3] = [
        (
            "mobile",
            &[
                "mobile",
                "cell",
                "cellular",
                "cellphone",
                "wireless",
                "mobilephone",
                "mob",
            ],
        ),
        (
            "landline",
            &[
                "landline",
                "land",
                "home",
                "homephone",
                "work",
                "office",
                "business",
                "fixed",
                "fixedline",
                "wireline",
            ],
        ),
        (
            "voip",
            &["voip", "internet", "virtual", "voiceoverip", "ip"],
        ),
    ];
    let key = word_key(s);
    TYPES
        .iter()
        .find(|(_, forms)| forms.contains(&key.as_str()))
        .map(|(t, _)| *t)
}

/// A sales sheet's or CRM's word for where a lead stands to one of ours: our own five, and the
/// stage names of common CRMs where their meaning is plain (`Closed Won`, `Attempted to contact`,
/// `Unqualified`). A stage of a sales process of its own (`Proposal Sent`) is no status: the
/// caller keeps it as a line of the lead's note, with `invalid_status`.
pub fn read_lead_status(s: &str) -> Option<LeadStatus> {
    const STAGES: [(LeadStatus, &[&str]); 5] = [
        (
            LeadStatus::New,
            &["newlead", "open", "notcontacted", "uncontacted"],
        ),
        (
            LeadStatus::Contacted,
            &[
                "attemptedtocontact",
                "attemptedcontact",
                "connected",
                "inprogress",
                "working",
                "leftmessage",
                "called",
            ],
        ),
        (
            LeadStatus::Qualified,
            &["appointmentset", "appointmentscheduled"],
        ),
        (LeadStatus::Won, &["closedwon", "sold", "customer"]),
        (
            LeadStatus::Lost,
            &[
                "closedlost",
                "dead",
                "unqualified",
                "disqualified",
                "notinterested",
            ],
        ),
    ];
    if let Some(status) = LeadStatus::parse(s) {
        return Some(status);
    }
    let key = word_key(s);
    STAGES
        .iter()
        .find(|(_, forms)| forms.contains(&key.as_str()))
        .map(|(status, _)| *status)
}

/// A property type as written (`single family`, `SFR`, `condo`, `office`, `ranch`, `lot`) to `residential`,
/// `commercial`, `agricultural` or `vacant_land`.
pub fn read_property_type(s: &str) -> Option<&'static str> {
    const TYPES: [(&str, &[&str]); 4] = [
        (
            "residential",
            &[
                "residential",
                "res",
                "singlefamily",
                "singlefamilyresidence",
                "singlefamilyhome",
                "sfr",
                "sfh",
                "sfd",
                "condo",
                "condominium",
                "townhouse",
                "townhome",
                "duplex",
                "triplex",
                "fourplex",
                "quadplex",
                "multifamily",
                "apartment",
                "apartments",
                "mobilehome",
                "manufacturedhome",
                "house",
                "residence",
            ],
        ),
        (
            "commercial",
            &[
                "commercial",
                "comm",
                "office",
                "retail",
                "industrial",
                "warehouse",
                "mixeduse",
                "business",
                "restaurant",
                "hotel",
            ],
        ),
        (
            "agricultural",
            &[
                "agricultural",
                "agriculture",
                "ag",
                "farm",
                "ranch",
                "farmland",
                "orchard",
                "timber",
            ],
        ),
        (
            "vacant_land",
            &[
                "vacantland",
                "vacant",
                "land",
                "lot",
                "vacantlot",
                "unimproved",
                "unimprovedland",
                "acreage",
            ],
        ),
    ];
    let key = word_key(s);
    TYPES
        .iter()
        .find(|(_, forms)| forms.contains(&key.as_str()))
        .map(|(t, _)| *t)
}

/// A rating out of five as written: `4.5`, `four`, `4/5`, `4.5 stars`.
pub fn read_rating(s: &str) -> Option<f64> {
    let s = s.trim();
    let s = s
        .strip_suffix("/5")
        .or_else(|| s.strip_suffix(" out of 5"))
        .unwrap_or(s);
    let lower = s.to_ascii_lowercase();
    let s = lower
        .strip_suffix("stars")
        .or_else(|| lower.strip_suffix("star"))
        .unwrap_or(&lower);
    read_number(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crms_stage_names_read_as_our_statuses() {
        for (written, status) in [
            ("Won", LeadStatus::Won),
            ("Closed Won", LeadStatus::Won),
            ("closed-lost", LeadStatus::Lost),
            ("Unqualified", LeadStatus::Lost),
            ("Attempted to Contact", LeadStatus::Contacted),
            ("In progress", LeadStatus::Contacted),
            ("Appointment Set", LeadStatus::Qualified),
            ("New Lead", LeadStatus::New),
        ] {
            assert_eq!(read_lead_status(written), Some(status), "{written}");
        }
        for stage in ["Proposal Sent", "Hot", "maybe"] {
            assert_eq!(read_lead_status(stage), None, "{stage}");
        }
    }

    #[test]
    fn cells_lose_blanks_and_the_formula_guard() {
        assert_eq!(cell_text("  x "), Some("x"));
        assert_eq!(cell_text("   "), None);
        assert_eq!(cell_text("'+15125550100"), Some("+15125550100"));
        assert_eq!(cell_text("'=1+1"), Some("=1+1"));
        assert_eq!(cell_text("'-3.5"), Some("-3.5"));
        assert_eq!(cell_text("'@x"), Some("@x"));
        // An apostrophe before anything else is the value's own (O'Brien, 'Ol Barn).
        assert_eq!(cell_text("'Ol Barn"), Some("'Ol Barn"));
        assert_eq!(cell_text("O'Brien"), Some("O'Brien"));
    }

    #[test]
    fn numbers_as_spreadsheets_write_them() {
        for (s, n) in [
            ("3", 3.0),
            ("3.0", 3.0),
            (" 3.50 ", 3.5),
            ("-97.74", -97.74),
            ("+5", 5.0),
            ("1,234", 1234.0),
            ("12,345,678.5", 12_345_678.5),
            ("three", 3.0),
            ("Four", 4.0),
            ("zero", 0.0),
        ] {
            assert_eq!(read_number(s), Some(n), "{s:?}");
        }
        for s in [
            "",
            "1,23",
            "1,2345",
            ",123",
            "1.2.3",
            "1e3",
            "abc",
            "3 beds",
            "NaN",
            "inf",
            "twenty-one",
            "-",
        ] {
            assert_eq!(read_number(s), None, "{s:?}");
        }
        assert_eq!(read_whole("3.0"), Some(3));
        assert_eq!(read_whole("1,234"), Some(1234));
        assert_eq!(read_whole("2.5"), None);
    }

    #[test]
    fn a_decimal_comma_files_numbers_in_the_point_form() {
        let point = |s| comma_decimals_in_point_form(s).text.into_owned();
        for (written, read) in [
            ("42,3611", "42.3611"),
            ("-71,0601", "-71.0601"),
            ("0,5 acres", "0.5 acres"),
            ("1.234,5", "1234.5"),
            ("1.234.567", "1234567"),
            ("4,5 stars", "4.5 stars"),
            ("0,25 ac / 10.890,5 sf", "0.25 ac / 10890.5 sf"),
            // Only a point reads: a program that writes points though it separates by semicolons.
            ("-71.0601", "-71.0601"),
            ("30.25", "30.25"),
            ("1,234.5", "1,234.5"),
            // No number, or none either way: as written (the cleaning judges it).
            ("3", "3"),
            ("1/2 acre", "1/2 acre"),
            ("Lot 5, 0,5 acres", "Lot 5, 0.5 acres"),
            ("1.2.3", "1.2.3"),
            ("call me", "call me"),
        ] {
            assert_eq!(point(written), read, "{written}");
            assert!(comma_decimals_in_point_form(written).ambiguous.is_empty());
        }
        // A dot before three digits: thousands here, a decimal point elsewhere.
        let read = comma_decimals_in_point_form("21.780 sqft");
        assert_eq!(read.text, "21780 sqft");
        assert_eq!(read.ambiguous, [("21.780".to_owned(), "21780".to_owned())]);
        let read = comma_decimals_in_point_form("1,234");
        assert_eq!(read.text, "1.234");
        assert_eq!(read.ambiguous, [("1,234".to_owned(), "1.234".to_owned())]);
        assert!(matches!(
            comma_decimals_in_point_form("3 beds").text,
            Cow::Borrowed(_)
        ));
        assert_eq!(DecimalMark::of_separator(Some(';')), DecimalMark::Comma);
        for other in [Some(','), Some('\t'), Some('|'), None] {
            assert_eq!(DecimalMark::of_separator(other), DecimalMark::Point);
        }
    }

    #[test]
    fn phone_types() {
        for (s, t) in [
            ("cell", "mobile"),
            ("Cellular", "mobile"),
            ("wireless", "mobile"),
            ("MOBILE", "mobile"),
            ("home", "landline"),
            ("land line", "landline"),
            ("Land-line", "landline"),
            ("internet", "voip"),
            ("VoIP", "voip"),
        ] {
            assert_eq!(read_phone_type(s), Some(t), "{s:?}");
        }
        for s in ["fax", "pager", "", "cell phone 2"] {
            assert_eq!(read_phone_type(s), None, "{s:?}");
        }
    }

    #[test]
    fn property_types() {
        for (s, t) in [
            ("single family", "residential"),
            ("Single-Family", "residential"),
            ("SFR", "residential"),
            ("condo", "residential"),
            ("Townhouse", "residential"),
            ("duplex", "residential"),
            ("office", "commercial"),
            ("Retail", "commercial"),
            ("industrial", "commercial"),
            ("farm", "agricultural"),
            ("ranch", "agricultural"),
            ("land", "vacant_land"),
            ("lot", "vacant_land"),
            ("Vacant Land", "vacant_land"),
            ("vacant_land", "vacant_land"),
        ] {
            assert_eq!(read_property_type(s), Some(t), "{s:?}");
        }
        for s in ["castle", "", "church"] {
            assert_eq!(read_property_type(s), None, "{s:?}");
        }
    }

    #[test]
    fn ratings() {
        assert_eq!(read_rating("4.5"), Some(4.5));
        assert_eq!(read_rating("four"), Some(4.0));
        assert_eq!(read_rating("4/5"), Some(4.0));
        assert_eq!(read_rating("4.5 stars"), Some(4.5));
        assert_eq!(read_rating("great"), None);
    }
}
