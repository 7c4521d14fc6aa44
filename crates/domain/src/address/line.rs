//! Reading a street line: house number, street, and secondary units, whether the unit follows
//! the street ("123 Main St Apt 4") or a comma ("123 Main St, Apt 4").

use super::locality;
use super::routes::{box_address, is_route_without_box};
use super::street::{is_complete, standard_street};
use super::tokens::{clean_id, has_digit, is_fraction, segments};
use super::units::{read_units, starts_unit, starts_with_lone_designator};
use super::words::{fold_ordinals, is_numeral_ordinal, spelled_house_number};

/// The parts of a street line.
pub(super) struct StreetLine {
    pub number: String,
    pub street: String,
    pub units: Vec<String>,
}

/// What the lead says besides the street line, used to drop a city, state and ZIP typed into
/// the line itself ("123 Main St Austin TX 78701").
pub(super) struct Given<'a> {
    pub city: Option<&'a str>,
    pub state: Option<&'a str>,
    pub zip5: Option<&'a str>,
}

/// The street line's parts, or None when no segment has a house number and a street.
pub(super) fn read_line(line: &str, given: &Given<'_>) -> Option<StreetLine> {
    // Spelled ordinals first, so "SECOND FLOOR" is a unit and "FIFTH AVE" a street.
    let all: Vec<Vec<String>> = segments(line).into_iter().map(fold_ordinals).collect();
    let all = join_route_and_box(strip_locality(all, given));
    let (at, alone) = all
        .iter()
        .enumerate()
        .find_map(|(i, segment)| read_street_segment(segment.clone()).map(|s| (i, s)))?;
    // Units after (or before) a comma join the street's segment as "# id", so the line reads
    // as its street key will: "123 Main St Apt, #4" is "123 MAIN ST #4" either way.
    let mut joined = Vec::new();
    for (i, segment) in all.iter().enumerate() {
        if i != at {
            for id in segment_units(segment) {
                joined.push("#".to_owned());
                joined.push(id);
            }
        }
    }
    // Most lines have no units elsewhere: the segment as read alone is the answer.
    let mut street = if joined.is_empty() {
        alone
    } else {
        let mut tokens = all.get(at)?.clone();
        // A dangling "#" ("123 A Fl#, 4") says nothing, as the tokeniser's "##4" is "#4":
        // kept, it would make "# # 4" here where the street key reads back "# 4".
        while tokens.last().is_some_and(|t| t == "#") {
            tokens.pop();
        }
        tokens.extend(joined);
        read_street_segment(tokens)?
    };
    let mut units: Vec<String> = Vec::with_capacity(street.units.len());
    for id in std::mem::take(&mut street.units) {
        if !units.contains(&id) {
            units.push(id);
        }
    }
    street.units = units;
    Some(street)
}

/// "RR 3, BOX 273" is one box address: a route segment is joined with the box segment after it.
fn join_route_and_box(mut segments: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let at = segments.windows(2).position(|pair| {
        is_route_without_box(&pair[0]) && pair[1].first().is_some_and(|t| t == "BOX" || t == "BX")
    });
    if let Some(i) = at {
        let boxed = segments.remove(i + 1);
        if let Some(route) = segments.get_mut(i) {
            route.extend(boxed);
        }
    }
    segments
}

/// The units of a segment after a comma: "Apt 4", "#4", "4B", "2nd Floor"; a city, state or
/// ZIP there gives none.
fn segment_units(segment: &[String]) -> Vec<String> {
    let zip_like = |t: &str| locality::zip5(t).is_some();
    let bare_id = matches!(segment, [only] if has_digit(only) && !zip_like(only));
    // "FL 33101" after a comma is Florida and a ZIP, not floor 33101.
    let state_and_zip = matches!(segment, [st, zip] if st.len() == 2 && zip_like(zip));
    if (bare_id || starts_unit(segment)) && !state_and_zip {
        read_units(segment).unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// One comma-free segment as number, street and units; the unit starts at the first token
/// from which everything left reads as units.
fn read_street_segment(mut tokens: Vec<String>) -> Option<StreetLine> {
    while tokens.first().is_some_and(|t| t == "#") {
        tokens.remove(0);
    }
    if let Some((number, street)) = box_address(&tokens) {
        return Some(StreetLine {
            number,
            street,
            units: Vec::new(),
        });
    }
    let (number, rest) = house_number(&tokens)?;
    let unit_start = (1..rest.len()).find(|&i| {
        let (core, tail) = rest.split_at(i);
        let Some(first) = tail.first() else {
            return false;
        };
        let unit_here = starts_unit(tail);
        if !unit_here && !has_digit(first) {
            return false;
        }
        let needs_complete_street = !unit_here || starts_with_lone_designator(tail);
        (!needs_complete_street || is_complete(core)) && read_units(tail).is_some()
    });
    let (core, tail) = rest.split_at(unit_start.unwrap_or(rest.len()));
    let street = standard_street(core)?;
    let units = read_units(tail).unwrap_or_default();
    Some(StreetLine {
        number,
        street,
        units,
    })
}

/// The house number and the tokens after it: "123", "123A" (from "123-A"), "12-34" as Queens
/// writes it, "123-1/2" (from "123 1/2", "123-1/2" or "123½").
fn house_number(tokens: &[String]) -> Option<(String, &[String])> {
    let first = tokens.first()?;
    let mut number = if has_digit(first) && !is_numeral_ordinal(first) && !is_fraction(first) {
        clean_id(first)
    } else {
        spelled_house_number(first)?.to_owned()
    };
    let mut used = 1;
    if let Some(fraction) = tokens.get(1).filter(|t| is_fraction(t)) {
        // Only a plain number takes a fraction: "123 1/2", not "123A 1/2".
        if number.chars().all(|c| c.is_ascii_digit()) && tokens.len() > 2 {
            number = format!("{number}-{fraction}");
            used = 2;
        }
    }
    let rest = tokens.get(used..)?;
    (!rest.is_empty()).then_some((number, rest))
}

/// Drops a trailing city, state and ZIP that repeat the lead's own fields, across commas
/// ("123 Main St Apt 4 Austin, TX 78701"). A state goes only together with the city before
/// it, or alone in the ZIP's own segment, so a postdirectional "NE" in Nebraska or "CT" (court)
/// in Connecticut is never taken for a state. Words cut from inside the street's own segment
/// need the ZIP as evidence, or else a complete street before them.
fn strip_locality(segments: Vec<Vec<String>>, given: &Given<'_>) -> Vec<Vec<String>> {
    let flat: Vec<(usize, usize, &String)> = segments
        .iter()
        .enumerate()
        .flat_map(|(s, seg)| seg.iter().enumerate().map(move |(i, t)| (s, i, t)))
        .collect();
    let token = |k: usize| flat.get(k).map(|(_, _, t)| t.as_str());
    let starts_segment = |k: usize| flat.get(k).is_some_and(|(_, i, _)| *i == 0);
    let mut end = flat.len();
    let had_zip = match (given.zip5, end.checked_sub(1).and_then(token)) {
        (Some(zip), Some(last)) if locality::is_zip_token(last, zip) => {
            end -= 1;
            true
        }
        _ => false,
    };
    let state = given.state.and_then(locality::state);
    let mut city_state: Vec<String> = given
        .city
        .and_then(locality::city)
        .map(|c| c.split(' ').map(str::to_owned).collect())
        .unwrap_or_default();
    city_state.extend(state.clone());
    let n = city_state.len();
    let ends_with = end >= n
        && n >= 2
        && state.is_some()
        && (0..n).all(|k| token(end - n + k) == city_state.get(k).map(String::as_str));
    if ends_with {
        end -= n;
    } else if had_zip
        && state
            .as_deref()
            .is_some_and(|st| end.checked_sub(1).and_then(token) == Some(st))
        && starts_segment(end - 1)
    {
        end -= 1;
    }
    if end == flat.len() {
        return segments;
    }
    let own_segment = starts_segment(end);
    let street_tokens = flat.get(..end).unwrap_or_default();
    let in_segment: Vec<String> = street_tokens
        .iter()
        .filter(|(s, _, _)| Some(*s) == street_tokens.last().map(|(s, _, _)| *s))
        .map(|(_, _, t)| (*t).clone())
        .collect();
    let looks_complete = in_segment.len() >= 3
        && in_segment
            .last()
            .is_some_and(|t| has_digit(t) || is_complete(in_segment.get(1..).unwrap_or_default()));
    if !(had_zip || own_segment || looks_complete) || street_tokens.is_empty() {
        return segments;
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut last_segment = None;
    for (s, _, t) in street_tokens {
        if last_segment != Some(*s) {
            out.push(Vec::new());
            last_segment = Some(*s);
        }
        if let Some(seg) = out.last_mut() {
            seg.push((*t).clone());
        }
    }
    out
}
