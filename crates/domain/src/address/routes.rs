//! Numbered roads ("HWY 71", "COUNTY ROAD 12", "FM 1960") and box addresses ("PO BOX 12",
//! "RR 2 BOX 15"). Pub 28 spells the road type out in full before its number, so every
//! written form of one road type becomes that one spelling.

/// (written words, standard spelling, whether the number must have a digit). Bare
/// abbreviations ("CR", "I", "US") need a digit after them, or "123 US Main" would be a road.
const ROUTES: &[(&[&str], &str, bool)] = &[
    (&["COUNTY", "ROAD"], "COUNTY ROAD", false),
    (&["COUNTY", "RD"], "COUNTY ROAD", false),
    (&["CO", "RD"], "COUNTY ROAD", false),
    (&["CO", "ROAD"], "COUNTY ROAD", false),
    (&["CNTY", "RD"], "COUNTY ROAD", false),
    (&["CTY", "RD"], "COUNTY ROAD", false),
    (&["CTY", "ROAD"], "COUNTY ROAD", false),
    (&["CR"], "COUNTY ROAD", true),
    (&["COUNTY", "HIGHWAY"], "COUNTY HIGHWAY", false),
    (&["COUNTY", "HWY"], "COUNTY HIGHWAY", false),
    (&["CO", "HWY"], "COUNTY HIGHWAY", false),
    (&["CTY", "HWY"], "COUNTY HIGHWAY", false),
    (&["COUNTY", "ROUTE"], "COUNTY ROUTE", false),
    (&["COUNTY", "RTE"], "COUNTY ROUTE", false),
    (&["CO", "RTE"], "COUNTY ROUTE", false),
    (&["STATE", "HIGHWAY"], "STATE HIGHWAY", false),
    (&["STATE", "HWY"], "STATE HIGHWAY", false),
    (&["ST", "HWY"], "STATE HIGHWAY", false),
    (&["ST", "HIGHWAY"], "STATE HIGHWAY", false),
    (&["SH"], "STATE HIGHWAY", true),
    // Florida's "State Road 7" and Ohio's "State Route 7" are each a state's one name for it.
    (&["STATE", "ROUTE"], "STATE ROUTE", false),
    (&["STATE", "RTE"], "STATE ROUTE", false),
    (&["STATE", "RT"], "STATE ROUTE", false),
    (&["STATE", "ROAD"], "STATE ROUTE", false),
    (&["STATE", "RD"], "STATE ROUTE", false),
    (&["ST", "RTE"], "STATE ROUTE", false),
    (&["ST", "RT"], "STATE ROUTE", false),
    (&["SR"], "STATE ROUTE", true),
    (&["US", "HIGHWAY"], "US HIGHWAY", false),
    (&["US", "HWY"], "US HIGHWAY", false),
    (&["US", "ROUTE"], "US HIGHWAY", false),
    (&["US", "RTE"], "US HIGHWAY", false),
    (&["US", "RT"], "US HIGHWAY", false),
    (&["USHWY"], "US HIGHWAY", true),
    (&["US"], "US HIGHWAY", true),
    (
        &["FARM", "TO", "MARKET", "ROAD"],
        "FARM TO MARKET ROAD",
        false,
    ),
    (
        &["FARM", "TO", "MARKET", "RD"],
        "FARM TO MARKET ROAD",
        false,
    ),
    (&["FARM", "TO", "MARKET"], "FARM TO MARKET ROAD", false),
    (&["FM", "ROAD"], "FARM TO MARKET ROAD", false),
    (&["FM", "RD"], "FARM TO MARKET ROAD", false),
    (&["FM"], "FARM TO MARKET ROAD", true),
    (&["RANCH", "ROAD"], "RANCH ROAD", false),
    (&["RANCH", "RD"], "RANCH ROAD", false),
    (&["RR"], "RANCH ROAD", true),
    (&["INTERSTATE", "HIGHWAY"], "INTERSTATE", false),
    (&["INTERSTATE", "HWY"], "INTERSTATE", false),
    (&["INTERSTATE"], "INTERSTATE", false),
    (&["IH"], "INTERSTATE", true),
    (&["I"], "INTERSTATE", true),
    (&["TOWNSHIP", "ROAD"], "TOWNSHIP ROAD", false),
    (&["TOWNSHIP", "RD"], "TOWNSHIP ROAD", false),
    (&["TWP", "RD"], "TOWNSHIP ROAD", false),
    (&["TWP", "ROAD"], "TOWNSHIP ROAD", false),
    (&["HIGHWAY"], "HIGHWAY", false),
    (&["HWY"], "HIGHWAY", false),
    (&["HIWAY"], "HIGHWAY", false),
    (&["HIGHWY"], "HIGHWAY", false),
    (&["HIWY"], "HIGHWAY", false),
    (&["HWAY"], "HIGHWAY", false),
    (&["ROUTE"], "ROUTE", false),
    (&["RTE"], "ROUTE", false),
    (&["RT"], "ROUTE", true),
    (&["LOOP"], "LOOP", true),
];

/// A numbered road found in street words.
pub(super) struct Route {
    /// Index of the first word of the road type.
    pub start: usize,
    /// Index just past the road's number.
    pub end: usize,
    /// "COUNTY ROAD 12".
    pub name: String,
}

/// The road number after a road type: digits ("71", "71A") or a letter code as Wisconsin
/// and Missouri use ("HWY KK", "COUNTY ROAD N").
fn is_route_number(word: &str, needs_digit: bool) -> bool {
    let digit = word.chars().any(|c| c.is_ascii_digit());
    digit
        || (!needs_digit && (1..=2).contains(&word.len()) && word.chars().all(char::is_alphabetic))
}

/// The first numbered road in the words, longest road type first.
pub(super) fn find(words: &[String]) -> Option<Route> {
    (0..words.len()).find_map(|start| {
        let rest = words.get(start..)?;
        ROUTES
            .iter()
            .filter(|(pattern, _, _)| starts_with(rest, pattern))
            .max_by_key(|(pattern, _, _)| pattern.len())
            .and_then(|(pattern, name, needs_digit)| {
                let number = rest.get(pattern.len())?;
                // "RR 2 BOX 15" is a rural route box, not Ranch Road 2.
                if *pattern == ["RR"] && rest.get(pattern.len() + 1).is_some_and(|w| w == "BOX") {
                    return None;
                }
                is_route_number(number, *needs_digit).then(|| Route {
                    start,
                    end: start + pattern.len() + 1,
                    name: format!("{name} {}", number.replace('-', "")),
                })
            })
    })
}

/// Whether a single word is a road type ("I", "HWY", "FM"), as in "I-35".
pub(super) fn is_road_type(word: &str) -> bool {
    ROUTES.iter().any(|(pattern, _, _)| *pattern == [word])
}

/// Whether the words end in a road type, so a number after them is the road's, not a unit's.
pub(super) fn ends_with_route_type(words: &[String]) -> bool {
    ROUTES.iter().any(|(pattern, _, _)| {
        words.len() >= pattern.len()
            && words
                .get(words.len() - pattern.len()..)
                .is_some_and(|tail| tail.iter().zip(pattern.iter()).all(|(a, b)| a == b))
    })
}

fn starts_with(words: &[String], pattern: &[&str]) -> bool {
    words.len() >= pattern.len() && words.iter().zip(pattern).all(|(a, b)| a == b)
}

/// A box address: "PO BOX 12", "P.O. BOX 12", "POST OFFICE BOX 12", "BOX 12" give
/// ("12", "PO BOX"); "RR 2 BOX 15", "RURAL ROUTE 2 BOX 15" give ("15", "RR 2 BOX"); "HC 1 BOX 9"
/// gives ("9", "HC 1 BOX"). The box number is the house number, so such leads still merge.
pub(super) fn box_address(tokens: &[String]) -> Option<(String, String)> {
    const PO: &[&[&str]] = &[
        &["PO", "BOX"],
        &["P", "O", "BOX"],
        &["POST", "OFFICE", "BOX"],
        &["POBOX"],
        &["POB"],
        &["BOX"],
    ];
    const ROUTE: &[(&[&str], &str)] = &[
        (&["RURAL", "ROUTE"], "RR"),
        (&["RURAL", "RTE"], "RR"),
        (&["RURAL", "RT"], "RR"),
        (&["RR"], "RR"),
        (&["RT"], "RR"),
        (&["RTE"], "RR"),
        (&["ROUTE"], "RR"),
        (&["HIGHWAY", "CONTRACT"], "HC"),
        (&["HCR"], "HC"),
        (&["HC"], "HC"),
    ];
    let box_number = |rest: &[String]| -> Option<String> {
        let rest = match rest.first().map(String::as_str) {
            Some("#") | Some("NO") => rest.get(1..)?,
            _ => rest,
        };
        match rest {
            [number] if number.chars().any(char::is_alphanumeric) => {
                Some(super::tokens::clean_id(number))
            }
            _ => None,
        }
    };
    for pattern in PO {
        if starts_with(tokens, pattern) {
            let number = box_number(tokens.get(pattern.len()..)?)?;
            return Some((number, "PO BOX".to_owned()));
        }
    }
    for (pattern, kind) in ROUTE {
        if starts_with(tokens, pattern) {
            let rest = tokens.get(pattern.len()..)?;
            let route = rest.first()?;
            let after = match rest.get(1).map(String::as_str) {
                Some("BOX") | Some("BX") => rest.get(2..)?,
                _ => return None,
            };
            let number = box_number(after)?;
            return Some((
                number,
                format!("{kind} {} BOX", super::tokens::clean_id(route)),
            ));
        }
    }
    None
}
