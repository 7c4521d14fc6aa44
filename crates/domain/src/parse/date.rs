//! Permit dates as they arrive from county portals, spreadsheets and scrapers.

use chrono::{Datelike, NaiveDate, Utc};

/// Longer input is not a date; the cap keeps the work per value small.
const MAX_LEN: usize = 100;

/// Parses a permit date in any of the forms below, using today's year (UTC) for two-digit years.
/// See [`parse_permit_date_as_of`] for the forms and rules.
pub fn parse_permit_date(s: &str) -> Option<NaiveDate> {
    parse_permit_date_as_of(s, Utc::now().year())
}

/// Parses a permit date, reading two-digit years relative to `current_year` (so tests and services holding a
/// `Clock` get a deterministic answer).
///
/// Numeric forms: `2025-01-05`, `2025/01/05`, `2025.01.05`, `20250105`, and month first (US order) `01/05/2025`,
/// `1/5/2025`, `1/5/25`, `01-05-2025`, `1-5-25`. Dotted month-first dates (`01.05.2025`) are refused: that is the
/// European day-first style, so guessing would silently swap day and month. Any numeric form may be followed by a
/// time (`T10:00:00Z`, ` 10:00:00`, ` 10:00 AM`, `T10:00:00.123-07:00`, ...): the date is taken as written, never
/// shifted by the offset, because a permit is filed on the local date the county printed.
///
/// Month-name forms: `Jan 5, 2025`, `January 5, 2025`, `Jan. 5 2025`, `Sept 5 2025`, `January 5th, 2025`,
/// `5 Jan 2025`, `5 January 2025`, `05-JAN-25`, `5th of January 2025`, `2025-Jan-05`, optionally after a weekday
/// (`Sunday, January 5, 2025`, not checked against the date) and followed by a time (`Jan 5, 2025 10:00 AM`,
/// `Sun, 05 Jan 2025 10:00:00 +0000`).
///
/// Two-digit years fall in the 100-year window ending ten years after `current_year`: in 2026, `00`-`36` are
/// 2000-2036 and `37`-`99` are 1937-1999. Impossible calendar dates (`2/30/2025`) return `None`, as does
/// anything unrecognised; the caller keeps the raw value and warns `unparsed_date`.
pub fn parse_permit_date_as_of(s: &str, current_year: i32) -> Option<NaiveDate> {
    let s = s.trim();
    if s.is_empty() || s.len() > MAX_LEN {
        return None;
    }
    numeric_date(s, current_year).or_else(|| month_name_date(s, current_year))
}

fn numeric_date(s: &str, current_year: i32) -> Option<NaiveDate> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '.')))
        .unwrap_or(s.len());
    let (date, rest) = (s.get(..end)?, s.get(end..)?);
    if !rest.is_empty() && !is_time_suffix(rest) {
        return None;
    }
    if date.bytes().all(|b| b.is_ascii_digit()) {
        // Only the compact ISO form YYYYMMDD; an 8-digit month-first form would be ambiguous with it.
        return if date.len() == 8 {
            ymd(date.get(..4)?, date.get(4..6)?, date.get(6..)?)
        } else {
            None
        };
    }
    let sep = date.chars().find(|c| !c.is_ascii_digit())?;
    let mut parts = date.split(sep);
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some()
        || ![a, b, c]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let short = |p: &str| (1..=2).contains(&p.len());
    if a.len() == 4 && short(b) && short(c) {
        ymd(a, b, c)
    } else if sep != '.' && short(a) && short(b) && (c.len() == 4 || c.len() == 2) {
        NaiveDate::from_ymd_opt(year(c, current_year)?, a.parse().ok()?, b.parse().ok()?)
    } else {
        None
    }
}

fn ymd(y: &str, m: &str, d: &str) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
}

/// A four-digit year as written, or a two-digit one placed in the window described on
/// [`parse_permit_date_as_of`].
fn year(digits: &str, current_year: i32) -> Option<i32> {
    let n: i32 = digits.parse().ok()?;
    match digits.len() {
        4 => Some(n),
        2 => {
            // Checked: `current_year` comes from the caller and could be absurd; that must not panic.
            let last = current_year.checked_add(10)?;
            let y = current_year
                .checked_sub(current_year.rem_euclid(100))?
                .checked_add(n)?;
            if y > last {
                y.checked_sub(100)
            } else if y <= last.checked_sub(100)? {
                y.checked_add(100)
            } else {
                Some(y)
            }
        }
        _ => None,
    }
}

/// `T10:00:00Z`, ` 10:00`, ` 10:00:00.5 PM -05:00` and the like after a numeric date.
fn is_time_suffix(rest: &str) -> bool {
    let time = if let Some(t) = rest.strip_prefix(['T', 't']) {
        t
    } else if rest.starts_with(char::is_whitespace) {
        rest.trim_start()
    } else {
        return false;
    };
    is_time(time.as_bytes())
}

fn is_time(t: &[u8]) -> bool {
    let mut c = Cursor { s: t, i: 0 };
    let Some(hour) = c.number(1, 2) else {
        return false;
    };
    if !(c.eat(b':') && c.number(2, 2).is_some_and(|m| m < 60)) {
        return false;
    }
    if c.eat(b':') {
        if c.number(2, 2).is_none_or(|s| s > 60) {
            return false;
        }
        if (c.eat(b'.') || c.eat(b',')) && c.number(1, 9).is_none() {
            return false;
        }
    }
    c.spaces();
    let meridiem = ["am", "pm", "a.m.", "p.m."].iter().any(|w| c.eat_word(w));
    if (meridiem && !(1..=12).contains(&hour)) || hour > 24 {
        return false;
    }
    c.spaces();
    if !(c.eat_word("z") || c.eat_word("utc") || c.eat_word("gmt")) && (c.eat(b'+') || c.eat(b'-'))
    {
        // Numeric offset: +05, +0530 or +05:30.
        if c.number(2, 2).is_none_or(|h| h > 23) {
            return false;
        }
        let colon = c.eat(b':');
        let minutes = c.number(2, 2);
        if (colon && minutes.is_none()) || minutes.is_some_and(|m| m >= 60) {
            return false;
        }
    }
    c.i == t.len()
}

/// A tiny byte cursor for the time grammar (ASCII only; any other byte simply fails to match).
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&b);
        self.i += usize::from(hit);
        hit
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let hit = self
            .s
            .get(self.i..self.i + w.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(w.as_bytes()));
        if hit {
            self.i += w.len();
        }
        hit
    }

    fn spaces(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    /// Between `min` and `max` digits as a number; on too few digits nothing is consumed.
    fn number(&mut self, min: usize, max: usize) -> Option<u32> {
        let start = self.i;
        let mut n: u32 = 0;
        while self.i - start < max {
            match self.s.get(self.i) {
                Some(b) if b.is_ascii_digit() => n = n * 10 + u32::from(b - b'0'),
                _ => break,
            }
            self.i += 1;
        }
        if self.i - start < min {
            self.i = start;
            return None;
        }
        Some(n)
    }
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Num(&'a str),
    Word(String),
}

fn month_name_date(s: &str, current_year: i32) -> Option<NaiveDate> {
    if let Some(date) = month_name_only(s, current_year) {
        return Some(date);
    }
    // "Jan 5, 2025 10:00 AM", "Sun, 05 Jan 2025 10:00:00 +0000": split at the space where a time begins.
    let (date, _) = s
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .filter_map(|(i, _)| Some((s.get(..i)?, s.get(i..)?)))
        .find(|(_, time)| is_time_suffix(time))?;
    month_name_only(date, current_year)
}

fn month_name_only(s: &str, current_year: i32) -> Option<NaiveDate> {
    let mut tokens = tokenize(s)?;
    if tokens
        .first()
        .is_some_and(|t| matches!(t, Token::Word(w) if is_weekday(w)))
    {
        tokens.remove(0);
    }
    // Drop ordinal suffixes ("5th") and the "of" in "5th of January".
    let mut kept: Vec<Token> = Vec::with_capacity(tokens.len());
    for t in tokens {
        let filler = match &t {
            Token::Word(w) if w == "of" => true,
            Token::Word(w) => {
                matches!(kept.last(), Some(Token::Num(_)))
                    && matches!(w.as_str(), "st" | "nd" | "rd" | "th")
            }
            Token::Num(_) => false,
        };
        if !filler {
            kept.push(t);
        }
    }
    let day_ok = |d: &str| (1..=2).contains(&d.len());
    let (y, m, d) = match kept.as_slice() {
        [Token::Word(m), Token::Num(d), Token::Num(y)]
        | [Token::Num(d), Token::Word(m), Token::Num(y)]
            if day_ok(d) =>
        {
            (year(y, current_year)?, month(m)?, d)
        }
        [Token::Num(y), Token::Word(m), Token::Num(d)] if y.len() == 4 && day_ok(d) => {
            (year(y, current_year)?, month(m)?, d)
        }
        _ => return None,
    };
    NaiveDate::from_ymd_opt(y, m, d.parse().ok()?)
}

/// Splits into digit runs and lower-cased ASCII letter runs; spaces, commas, dots, dashes and slashes only
/// separate. Any other character means this is not a date.
fn tokenize(s: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut start: Option<usize> = None;
    let class = |c: char| {
        if c.is_ascii_digit() {
            Some(1)
        } else if c.is_ascii_alphabetic() {
            Some(2)
        } else {
            None
        }
    };
    let mut prev_class = None;
    for (i, c) in s.char_indices() {
        let cls = class(c);
        if cls.is_none() && !(c.is_whitespace() || matches!(c, ',' | '.' | '-' | '/')) {
            return None;
        }
        if cls != prev_class {
            if let Some(from) = start.take() {
                push_run(s, from, i, &mut tokens)?;
            }
            if cls.is_some() {
                start = Some(i);
            }
        }
        prev_class = cls;
    }
    if let Some(from) = start {
        push_run(s, from, s.len(), &mut tokens)?;
    }
    Some(tokens)
}

/// Appends the run `s[from..to]`; more than a handful of tokens cannot be a date.
fn push_run<'a>(s: &'a str, from: usize, to: usize, tokens: &mut Vec<Token<'a>>) -> Option<()> {
    let run = s.get(from..to)?;
    if tokens.len() >= 8 {
        return None;
    }
    let token = if run.starts_with(|c: char| c.is_ascii_digit()) {
        Token::Num(run)
    } else {
        Token::Word(run.to_ascii_lowercase())
    };
    tokens.push(token);
    Some(())
}

fn month(w: &str) -> Option<u32> {
    Some(match w {
        "jan" | "january" => 1,
        "feb" | "february" => 2,
        "mar" | "march" => 3,
        "apr" | "april" => 4,
        "may" => 5,
        "jun" | "june" => 6,
        "jul" | "july" => 7,
        "aug" | "august" => 8,
        "sep" | "sept" | "september" => 9,
        "oct" | "october" => 10,
        "nov" | "november" => 11,
        "dec" | "december" => 12,
        _ => return None,
    })
}

fn is_weekday(w: &str) -> bool {
    matches!(
        w,
        "mon"
            | "monday"
            | "tue"
            | "tues"
            | "tuesday"
            | "wed"
            | "wednesday"
            | "thu"
            | "thur"
            | "thurs"
            | "thursday"
            | "fri"
            | "friday"
            | "sat"
            | "saturday"
            | "sun"
            | "sunday"
    )
}

#[cfg(test)]
#[path = "date_tests.rs"]
mod tests;
