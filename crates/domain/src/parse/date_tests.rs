//! Tests of `date.rs`, kept apart because the list of forms is long.

use super::*;
use crate::parse::test_cases::assert_refuses;
use proptest::prelude::*;

const THIS_YEAR: i32 = 2026;

fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, day)
}

fn p(s: &str) -> Option<NaiveDate> {
    parse_permit_date_as_of(s, THIS_YEAR)
}

/// Checks that each input is read as its date.
fn assert_dates(cases: &[(&str, Option<NaiveDate>)]) {
    for (input, want) in cases {
        assert_eq!(p(input), *want, "{input:?}");
    }
}

#[test]
fn every_listed_form() {
    let want = d(2025, 1, 5);
    for input in [
        "2025-01-05",
        "2025/01/05",
        "2025.01.05",
        "2025-1-5",
        "01/05/2025",
        "1/5/2025",
        "1/5/25",
        "01/05/25",
        "01-05-2025",
        "1-5-25",
        "2025-01-05T10:00:00Z",
        "2025-01-05t10:00:00z",
        "2025-01-05T10:00:00+05:30",
        "2025-01-05T23:59:59-07:00",
        "2025-01-05T10:00:00.123456Z",
        "2025-01-05T10:00:00+0530",
        "2025-01-05T10:00",
        "2025-01-05 10:00:00",
        "2025-01-05 10:00:00 UTC",
        "01/05/2025 10:00 AM",
        "1/5/2025 3:15:00 p.m.",
        "Jan 5, 2025",
        "January 5, 2025",
        "5 Jan 2025",
        "5 January 2025",
        "Jan. 5 2025",
        "Jan 5 2025",
        "JANUARY 5, 2025",
        "january 5th, 2025",
        "5th of January 2025",
        "05-JAN-25",
        "05-Jan-2025",
        "2025-Jan-05",
        "Sunday, January 5, 2025",
        "Sun Jan 5 2025",
        "20250105",
        "  2025-01-05\t",
        "Jan 5, 2025 10:00",
        "January 5, 2025, 10:00 AM",
        "Sun, 05 Jan 2025 10:00:00 +0000",
        "5 January 2025 23:59:59 GMT",
    ] {
        assert_eq!(p(input), want, "{input:?}");
    }
}

#[test]
fn month_abbreviations_us_order_and_the_two_digit_year_window() {
    assert_dates(&[
        // Month abbreviations.
        ("Sept 30, 2025", d(2025, 9, 30)),
        ("Sep 30, 2025", d(2025, 9, 30)),
        ("May 1, 2025", d(2025, 5, 1)),
        ("Dec. 31, 1999", d(1999, 12, 31)),
        ("1 Feb 2024", d(2024, 2, 1)),
        // Numeric forms are month first; day-first is not guessed, dotted day-first style is
        // refused.
        ("03/04/2025", d(2025, 3, 4)),
        ("12/31/2025", d(2025, 12, 31)),
        ("31/12/2025", None),
        ("03.04.2025", None),
        // Two-digit years fall in a window around this year.
        ("1/5/00", d(2000, 1, 5)),
        ("1/5/26", d(2026, 1, 5)),
        ("1/5/36", d(2036, 1, 5)),
        ("1/5/37", d(1937, 1, 5)),
        ("1/5/99", d(1999, 1, 5)),
    ]);
    // The window slides with the current year.
    assert_eq!(parse_permit_date_as_of("1/5/03", 2095), d(2103, 1, 5));
    assert_eq!(parse_permit_date_as_of("1/5/06", 2095), d(2006, 1, 5));
    assert_eq!(parse_permit_date_as_of("1/5/99", 1990), d(1999, 1, 5));
    assert_eq!(parse_permit_date_as_of("1/5/00", 1990), d(2000, 1, 5));
    assert_eq!(parse_permit_date_as_of("1/5/01", 1990), d(1901, 1, 5));
}

#[test]
fn absurd_current_year_does_not_panic() {
    for year in [i32::MIN, i32::MIN + 50, -1, 0, i32::MAX - 5, i32::MAX] {
        let _ = parse_permit_date_as_of("1/5/25", year);
        let _ = parse_permit_date_as_of("Jan 5, 99", year);
    }
    assert_eq!(
        parse_permit_date_as_of("2025-01-05", i32::MAX),
        d(2025, 1, 5)
    );
}

#[test]
fn current_year_entry_point() {
    assert_eq!(parse_permit_date("2025-01-05"), d(2025, 1, 5));
    assert_eq!(parse_permit_date("garbage"), None);
}

#[test]
fn invalid_calendar_dates() {
    assert_refuses(
        p,
        &[
            "2025-02-30",
            "2/29/2025",
            "2025-13-01",
            "2025-00-10",
            "2025-01-00",
            "13/01/2025",
            "Feb 30, 2025",
            "31 April 2025",
            "20251301",
            "2025-01-32",
        ],
    );
    assert_eq!(p("2/29/2024"), d(2024, 2, 29));
}

#[test]
fn rejects_garbage() {
    assert_refuses(
        p,
        &[
            "TBD",
            "2025",
            "01/2025",
            "Jan 2025",
            "Jan 5",
            "5",
            "2025-01",
            "2025-01-05-06",
            "2025-01/05",
            "1/5/202",
            "1/5/20255",
            "001/05/2025",
            "025-01-05",
            "2025-001-05",
            "2025-01-05X",
            "2025-01-05T",
            "2025-01-05T25:00",
            "2025-01-05T10:60",
            "2025-01-05T10",
            "2025-01-05 10:00 XM",
            "2025-01-05T10:00:00+5",
            "2025-01-05T10:00:00+05:",
            "01/05/2025 13:00 PM",
            "Foo 5, 2025",
            "Jan 5, 2025 25:00",
            "Jan 5, 2025 at 10:00",
            "Jan 123, 2025",
            "5 Jan 025",
            "Jan 5 2025 Jan",
            "5 5 2025",
            "Jan Feb 2025",
            "2025 5 Jan",
            "1/5/2025!",
            "１/５/２０２５",
            "Jän 5, 2025",
            "01052025",
            "250105",
        ],
    );
    assert_eq!(p(&"2025-01-05 ".repeat(1000)), None);
    assert_eq!(p(&"a".repeat(100_000)), None);
}

/// Every supported rendering of a date that keeps all its information.
const FULL_FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%m/%d/%Y",
    "%-m/%-d/%Y",
    "%m-%d-%Y",
    "%-m-%-d-%Y",
    "%Y-%m-%dT10:00:00Z",
    "%Y-%m-%dT23:59:59+05:30",
    "%Y-%m-%dT00:00:00.250-11:00",
    "%Y-%m-%d 10:00:00",
    "%m/%d/%Y 9:30 PM",
    "%b %-d, %Y",
    "%B %-d, %Y",
    "%-d %b %Y",
    "%-d %B %Y",
    "%b. %-d %Y",
    "%d-%b-%Y",
    "%Y-%b-%d",
    "%A, %B %-d, %Y",
    "%a, %d %b %Y %H:%M:%S -0500",
    "%B %-d, %Y %-I:%M %p",
    "%Y%m%d",
];

proptest! {
    #[test]
    fn every_format_round_trips(days in 0i64..=73_049, fmt in 0usize..FULL_FORMATS.len()) {
        // 0..=73_049 days after 1900-01-01 covers every date up to 2099-12-31.
        let base = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or_default();
        let date = base + chrono::Duration::days(days);
        // Formatted with a time of day so the formats that show one can be rendered.
        let at = date.and_hms_opt(21, 7, 9).unwrap_or_default();
        let text = at.format(FULL_FORMATS[fmt]).to_string();
        prop_assert_eq!(p(&text), Some(date), "{}", text);
    }

    #[test]
    fn two_digit_years_round_trip_inside_the_window(days in 0i64..36_524, fmt in 0usize..3) {
        // THIS_YEAR 2026: the window is 1937-01-01 ..= 2036-12-31.
        let base = NaiveDate::from_ymd_opt(1937, 1, 1).unwrap_or_default();
        let date = base + chrono::Duration::days(days);
        let text = date.format(["%-m/%-d/%y", "%m-%d-%y", "%d-%b-%y"][fmt]).to_string();
        prop_assert_eq!(p(&text), Some(date), "{}", text);
    }

    #[test]
    fn never_panics(s in any::<String>()) {
        let _ = parse_permit_date(&s);
    }

    #[test]
    fn never_panics_on_date_like_text(s in "[0-9/.:TZ+ ,-]{0,30}|[A-Za-z0-9 ,.]{0,30}") {
        let _ = p(&s);
    }
}
