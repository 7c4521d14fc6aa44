//! A whole address in one spreadsheet cell ("123 Main St, Austin, TX 78701"), read into the
//! street line, city, state and ZIP. Only the import uses it, and only for a row that has no city,
//! state or ZIP of its own: the API takes the fields as its caller holds them.

use crate::parse::{normalize_zip, state_from_name, StateCode};

use super::tokens::segments;
use super::units::starts_unit;

/// The parts of a whole address, each as written (the ZIP is normalised later, like any ZIP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneLine {
    pub street: String,
    pub city: Option<String>,
    pub state: StateCode,
    pub zip: Option<String>,
}

/// State names run to four words ("US Minor Outlying Islands").
const LONGEST_STATE_NAME: usize = 4;

/// Reads "street, city, ST ZIP" (also "street, city ST ZIP", "street, Apt 4, city, State", or
/// without the ZIP). The line must name a state after its last comma, and a city or a ZIP beside
/// it; the street before that comma must have a digit (its house number). None otherwise: a line
/// without commas ("123 Main St Austin TX") cannot be cut between street and city with any
/// confidence, and stays whole as the street line, as before.
pub fn split_one_line(line: &str) -> Option<OneLine> {
    // Each non-blank piece between commas, trimmed, with where it ends in the line.
    let mut parts: Vec<(&str, usize)> = Vec::new();
    let mut start = 0;
    for piece in line.split(',') {
        let end = start + piece.len();
        if !piece.trim().is_empty() {
            parts.push((piece.trim(), end));
        }
        start = end + 1;
    }
    // "..., TX 78701, USA", as maps and contact exports write it: the country says nothing here.
    if parts.last().is_some_and(|(part, _)| is_country(part)) {
        parts.pop();
    }
    let ((last, _), mut before) = parts.split_last()?;
    let mut words: Vec<&str> = last.split_whitespace().collect();
    let zip = words.last().filter(|w| is_zip(w)).map(|w| (*w).to_owned());
    if zip.is_some() {
        words.pop();
        // A ZIP after a comma of its own ("Austin, TX, 78701"): the state is before that comma.
        if words.is_empty() {
            let ((state_piece, _), rest) = before.split_last()?;
            before = rest;
            words = state_piece.split_whitespace().collect();
        }
    }
    let (state, state_words) = (1..=words.len().min(LONGEST_STATE_NAME))
        .rev()
        .find_map(|n| {
            let run = words.get(words.len() - n..)?.join(" ");
            state_from_name(&run).map(|state| (state, n))
        })?;
    words.truncate(words.len() - state_words);
    let city = if words.is_empty() {
        match before.split_last() {
            Some(((city, _), rest)) if reads_as_city(city) && !rest.is_empty() => {
                before = rest;
                Some((*city).to_owned())
            }
            _ => None,
        }
    } else {
        // Words left before the state are the city, or else the line is not one we can read.
        let city = words.join(" ");
        if !reads_as_city(&city) {
            return None;
        }
        Some(city)
    };
    // The street as written, up to the end of its last piece (a comma before its unit kept).
    let street = before
        .last()
        .and_then(|(_, end)| line.get(..*end))
        .unwrap_or_default()
        .trim()
        .to_owned();
    let numbered = street.chars().any(|c| c.is_ascii_digit());
    (numbered && (city.is_some() || zip.is_some())).then_some(OneLine {
        street,
        city,
        state,
        zip,
    })
}

/// The United States as an address's last line names it.
fn is_country(part: &str) -> bool {
    let letters: String = part
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        letters.as_str(),
        "us" | "usa" | "unitedstates" | "unitedstatesofamerica"
    )
}

/// A ZIP or ZIP+4 as written ("78701", "78701-1234", a spreadsheet's "2134" for 02134).
fn is_zip(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_digit()) && normalize_zip(word).is_some()
}

/// A city has no digits and is not a unit ("Apt B", "Rear").
fn reads_as_city(text: &str) -> bool {
    !text.chars().any(|c| c.is_ascii_digit())
        && !segments(text)
            .first()
            .is_some_and(|tokens| starts_unit(tokens))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A line and the street, city, state and ZIP it must give.
    type Case<'a> = (&'a str, &'a str, Option<&'a str>, &'a str, Option<&'a str>);

    fn check(cases: &[Case]) {
        for (line, street, city, state, zip) in cases {
            let got = split_one_line(line);
            let got = got.as_ref().map(|l| {
                (
                    l.street.as_str(),
                    l.city.as_deref(),
                    l.state.as_str(),
                    l.zip.as_deref(),
                )
            });
            assert_eq!(got, Some((*street, *city, *state, *zip)), "{line:?}");
        }
    }

    #[test]
    fn whole_addresses_as_people_write_them() {
        check(&[
            (
                "123 Main St, Austin, TX 78701",
                "123 Main St",
                Some("Austin"),
                "TX",
                Some("78701"),
            ),
            (
                "123 Main St, Austin TX 78701",
                "123 Main St",
                Some("Austin"),
                "TX",
                Some("78701"),
            ),
            (
                "123 Main St,Austin,TX,78701-1234",
                "123 Main St",
                Some("Austin"),
                "TX",
                Some("78701-1234"),
            ),
            (
                "123 Main St, Austin, Texas",
                "123 Main St",
                Some("Austin"),
                "TX",
                None,
            ),
            (
                "9 Elm Rd, Apt 4, New York, NY 10001",
                "9 Elm Rd, Apt 4",
                Some("New York"),
                "NY",
                Some("10001"),
            ),
            (
                "9 Elm Rd, Kansas City MO 64105",
                "9 Elm Rd",
                Some("Kansas City"),
                "MO",
                Some("64105"),
            ),
            (
                "9 Elm Rd, Charleston, West Virginia 25301",
                "9 Elm Rd",
                Some("Charleston"),
                "WV",
                Some("25301"),
            ),
            (
                "9 Elm Rd, Charleston West Virginia",
                "9 Elm Rd",
                Some("Charleston"),
                "WV",
                None,
            ),
            ("9 Elm Rd, TX 78701", "9 Elm Rd", None, "TX", Some("78701")),
            (
                "9 Elm Rd, Apt B, TX 78701",
                "9 Elm Rd, Apt B",
                None,
                "TX",
                Some("78701"),
            ),
            (
                "PO Box 12, Marfa, TX 79843",
                "PO Box 12",
                Some("Marfa"),
                "TX",
                Some("79843"),
            ),
            (
                "350 5th Ave, New York, NY 10118, USA",
                "350 5th Ave",
                Some("New York"),
                "NY",
                Some("10118"),
            ),
            (
                "1 Elm St, Boise, Idaho, United States",
                "1 Elm St",
                Some("Boise"),
                "ID",
                None,
            ),
            (
                "1600 Pennsylvania Ave NW, Washington, D.C. 20500",
                "1600 Pennsylvania Ave NW",
                Some("Washington"),
                "DC",
                Some("20500"),
            ),
        ]);
    }

    #[test]
    fn lines_that_stay_whole() {
        for line in [
            "123 Main St",
            "123 Main St Austin TX 78701",
            "123 Main St, Apt 4",
            "123 Main St, Suite 200",
            "123 Main St, Austin",
            "Main St, Austin, TX 78701",
            "123 Main St, Austin 78701",
            "123 Main St, Unit ME",
            "123 Main St, 4B Austin, TX",
            "123 Main St, USA",
            "",
            ",",
        ] {
            assert_eq!(split_one_line(line), None, "{line:?}");
        }
    }

    proptest! {
        /// A line is cut, never rewritten: the street and city are pieces of it, in order.
        #[test]
        fn the_parts_are_pieces_of_the_line(line in "[0-9A-Za-z ,#-]{0,50}|\\PC{0,50}") {
            if let Some(l) = split_one_line(&line) {
                let at = line.find(&l.street);
                prop_assert!(at.is_some(), "{:?}", l);
                if let (Some(at), Some(city)) = (at, &l.city) {
                    let rest = line.get(at + l.street.len()..).unwrap_or_default();
                    prop_assert!(rest.contains(city.as_str()), "{:?}", l);
                }
            }
        }
    }
}
