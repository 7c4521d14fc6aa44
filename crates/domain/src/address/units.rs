//! Secondary units, USPS Publication 28 Appendix C2. A unit compares by its identifier
//! alone (contract 3.3: "APT 4", "#4", "UNIT 4", "STE 4" name the same unit); a designator
//! that takes no identifier (REAR, BSMT) is its own identifier.

use super::tokens::{clean_id, has_digit};
use super::words::is_numeral_ordinal;

/// Whether a designator is followed by an identifier (Pub 28 C2 marks those "requires range").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Range {
    Required,
    /// Stands alone; the designator itself is the identifier.
    None,
    /// PH stands alone or names one of several penthouses ("PH 2", kept as "PH2").
    Optional,
}

/// (written form, C2 standard, range). FLR, BLD and SP are common non-C2 spellings.
const DESIGNATORS: &[(&str, &str, Range)] = &[
    ("APARTMENT", "APT", Range::Required),
    ("APT", "APT", Range::Required),
    ("BASEMENT", "BSMT", Range::None),
    ("BLD", "BLDG", Range::Required),
    ("BLDG", "BLDG", Range::Required),
    ("BSMT", "BSMT", Range::None),
    ("BUILDING", "BLDG", Range::Required),
    ("DEPARTMENT", "DEPT", Range::Required),
    ("DEPT", "DEPT", Range::Required),
    ("FL", "FL", Range::Required),
    ("FLOOR", "FL", Range::Required),
    ("FLR", "FL", Range::Required),
    ("FRNT", "FRNT", Range::None),
    ("FRONT", "FRNT", Range::None),
    ("HANGAR", "HNGR", Range::Required),
    ("HANGER", "HNGR", Range::Required),
    ("HNGR", "HNGR", Range::Required),
    ("KEY", "KEY", Range::Required),
    ("LBBY", "LBBY", Range::None),
    ("LOBBY", "LBBY", Range::None),
    ("LOT", "LOT", Range::Required),
    ("LOWER", "LOWR", Range::None),
    ("LOWR", "LOWR", Range::None),
    ("OFC", "OFC", Range::None),
    ("OFFICE", "OFC", Range::None),
    ("PENTHOUSE", "PH", Range::Optional),
    ("PH", "PH", Range::Optional),
    ("PIER", "PIER", Range::Required),
    ("REAR", "REAR", Range::None),
    ("RM", "RM", Range::Required),
    ("ROOM", "RM", Range::Required),
    ("SIDE", "SIDE", Range::None),
    ("SLIP", "SLIP", Range::Required),
    ("SP", "SPC", Range::Required),
    ("SPACE", "SPC", Range::Required),
    ("SPC", "SPC", Range::Required),
    ("STE", "STE", Range::Required),
    ("STOP", "STOP", Range::Required),
    ("SUITE", "STE", Range::Required),
    ("TRAILER", "TRLR", Range::Required),
    ("TRLR", "TRLR", Range::Required),
    ("UNIT", "UNIT", Range::Required),
    ("UPPER", "UPPR", Range::None),
    ("UPPR", "UPPR", Range::None),
];

fn designator(word: &str) -> Option<(&'static str, Range)> {
    DESIGNATORS
        .iter()
        .find(|(written, _, _)| *written == word)
        .map(|(_, std, range)| (*std, *range))
}

/// Designators that may be glued to a one-letter identifier ("SUITEC", "UNITA"): the common
/// ones whose gluing makes no word of its own. A trailing S is a plural ("UNITS", "SUITES"),
/// never read as unit S.
const GLUED_LETTER: &[&str] = &[
    "APT",
    "APARTMENT",
    "BLDG",
    "BUILDING",
    "ROOM",
    "STE",
    "SUITE",
    "UNIT",
];

/// "APT4B", "STE200", "SUITEC": a designator glued to its identifier.
fn glued(token: &str) -> Option<String> {
    glued_identifier(token).map(clean_id)
}

/// The identifier part of a glued unit token, not yet cleaned.
fn glued_identifier(token: &str) -> Option<&str> {
    // Most tokens (house numbers, street words) start with a digit or hold none: no designator
    // table scan for them.
    let letter_first = token
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic());
    if !letter_first {
        return None;
    }
    if !token.bytes().any(|b| b.is_ascii_digit()) {
        return GLUED_LETTER.iter().find_map(|written| {
            let rest = token.strip_prefix(written)?;
            let one_letter =
                rest.len() == 1 && rest != "S" && rest.bytes().all(|b| b.is_ascii_alphabetic());
            one_letter.then_some(rest)
        });
    }
    DESIGNATORS.iter().find_map(|(written, _, range)| {
        let rest = token.strip_prefix(written)?;
        let starts_with_digit = rest.chars().next().is_some_and(|c| c.is_ascii_digit());
        (*range == Range::Required && starts_with_digit).then_some(rest)
    })
}

/// A token that can be a unit identifier after a designator: "4", "12C", "B", "B-2".
fn is_identifier(token: &str) -> bool {
    token != "#" && (has_digit(token) || token.chars().count() == 1)
}

/// Whether a unit starts at this token: a designator, `#`, "APT4", or "2ND" before FLOOR.
pub(super) fn starts_unit(tokens: &[String]) -> bool {
    let Some(first) = tokens.first() else {
        return false;
    };
    first == "#"
        || designator(first).is_some()
        || glued_identifier(first).is_some()
        || floor_at(tokens)
}

/// Whether the unit starting here stands without an identifier (REAR, UPPR), which needs a
/// complete street before it: "123 Front St" is a street, "123 Main St Front" a unit.
pub(super) fn starts_with_lone_designator(tokens: &[String]) -> bool {
    tokens
        .first()
        .and_then(|t| designator(t))
        .is_some_and(|(_, range)| range != Range::Required)
}

/// "2ND FLOOR", "3RD FL": the floor's number.
fn floor_at(tokens: &[String]) -> bool {
    match (tokens.first(), tokens.get(1)) {
        (Some(ordinal), Some(word)) => {
            is_numeral_ordinal(ordinal) && matches!(word.as_str(), "FL" | "FLR" | "FLOOR")
        }
        _ => false,
    }
}

/// Reads every token as part of one or more secondary units and gives their identifiers,
/// or None when a token is something else (then these tokens are not a unit).
pub(super) fn read_units(tokens: &[String]) -> Option<Vec<String>> {
    let mut ids = Vec::new();
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        let next = tokens.get(i + 1);
        if token == "#" {
            // "# 4"; a lone trailing "#" says nothing.
            match next {
                // "# APT 4": the designator follows, let it speak.
                Some(id) if id != "#" && designator(id).is_none() => {
                    ids.push(clean_id(id));
                    i += 2;
                }
                _ => i += 1,
            }
        } else if floor_at(tokens.get(i..).unwrap_or_default()) {
            ids.push(token.trim_end_matches(char::is_alphabetic).to_owned());
            i += 2;
        } else if let Some((std, range)) = designator(token) {
            let (id, used) = identifier_after(tokens.get(i + 1..).unwrap_or_default(), range);
            match (range, id) {
                (Range::Required, Some(id)) => {
                    ids.push(id);
                    i += 1 + used;
                }
                // "PH 2" stays "PH2": a penthouse is not apartment 2.
                (Range::Optional, Some(id)) => {
                    ids.push(format!("{std}{id}"));
                    i += 1 + used;
                }
                // "UPPER UNIT", "UNIT UPPER": the bare word names no unit of its own.
                (Range::Required, None)
                    if !ids.is_empty()
                        || tokens.get(i + 1).is_some_and(|t| designator(t).is_some()) =>
                {
                    i += 1;
                }
                (Range::Required, None) => return None,
                (Range::None | Range::Optional, _) => {
                    ids.push(std.to_owned());
                    i += 1;
                }
            }
        } else if let Some(id) = glued(token) {
            ids.push(id);
            i += 1;
        } else if has_digit(token) {
            // A bare identifier: "123 Main St 4B" or a second one, "BLDG 2 4".
            ids.push(clean_id(token));
            i += 1;
        } else {
            return None;
        }
    }
    ids.dedup();
    (!ids.is_empty()).then_some(ids)
}

/// The identifier after a designator, and how many tokens it took. A designator that needs
/// one may have a "#" or "NO" before it ("APT #4", "APT NO 4"); PH takes only one written
/// right after it, so "PH, #4" stays two units as its street key writes them.
fn identifier_after(tokens: &[String], range: Range) -> (Option<String>, usize) {
    let skip = match tokens.first().map(String::as_str) {
        Some("#") | Some("NO") if range == Range::Required => 1,
        _ => 0,
    };
    match tokens.get(skip) {
        Some(id) if is_identifier(id) || (skip == 1 && id != "#" && designator(id).is_none()) => {
            (Some(clean_id(id)), skip + 1)
        }
        _ => (None, 0),
    }
}
