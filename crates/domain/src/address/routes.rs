//! Numbered roads ("HWY 71", "COUNTY ROAD 12", "FM 1960") and box addresses ("PO BOX 12",
//! "RR 2 BOX 15"). Pub 28 spells the road type out in full before its number, so every
//! written form of one road type becomes that one spelling.
use std::sync::OnceLock;

/// Each standard spelling with the written forms (words separated by spaces) that become it,
/// then the bare abbreviations that become it only before a number with a digit, or "123 US
/// Main" would be a road.
const ROUTES: &[(&str, &[&str], &[&str])] = &[
    (
        "COUNTY ROAD",
        &[
            "COUNTY ROAD",
            "COUNTY RD",
            "CO RD",
            "CO ROAD",
            "CNTY RD",
            "CTY RD",
            "CTY ROAD",
        ],
        &["CR"],
    ),
    (
        "COUNTY HIGHWAY",
        &["COUNTY HIGHWAY", "COUNTY HWY", "CO HWY", "CTY HWY"],
        &[],
    ),
    (
        "COUNTY ROUTE",
        &["COUNTY ROUTE", "COUNTY RTE", "CO RTE"],
        &[],
    ),
    (
        "STATE HIGHWAY",
        &["STATE HIGHWAY", "STATE HWY", "ST HWY", "ST HIGHWAY"],
        &["SH"],
    ),
    // Florida's "State Road 7" and Ohio's "State Route 7" are each a state's one name for it.
    (
        "STATE ROUTE",
        &[
            "STATE ROUTE",
            "STATE RTE",
            "STATE RT",
            "STATE ROAD",
            "STATE RD",
            "ST RTE",
            "ST RT",
        ],
        &["SR"],
    ),
    (
        "US HIGHWAY",
        &["US HIGHWAY", "US HWY", "US ROUTE", "US RTE", "US RT"],
        &["USHWY", "US"],
    ),
    (
        "FARM TO MARKET ROAD",
        &[
            "FARM TO MARKET ROAD",
            "FARM TO MARKET RD",
            "FARM TO MARKET",
            "FM ROAD",
            "FM RD",
        ],
        &["FM"],
    ),
    ("RANCH ROAD", &["RANCH ROAD", "RANCH RD"], &["RR"]),
    (
        "INTERSTATE",
        &["INTERSTATE HIGHWAY", "INTERSTATE HWY", "INTERSTATE"],
        &["IH", "I"],
    ),
    (
        "TOWNSHIP ROAD",
        &["TOWNSHIP ROAD", "TOWNSHIP RD", "TWP RD", "TWP ROAD"],
        &[],
    ),
    (
        "HIGHWAY",
        &["HIGHWAY", "HWY", "HIWAY", "HIGHWY", "HIWY", "HWAY"],
        &[],
    ),
    ("ROUTE", &["ROUTE", "RTE"], &["RT"]),
    ("LOOP", &[], &["LOOP"]),
];

/// A written road type.
struct RoadType {
    form: &'static str,
    /// The form cut into its words, once: every street line asks after every road type at
    /// every word.
    words: Vec<&'static str>,
    /// The standard spelling.
    name: &'static str,
    /// Whether the number must have a digit.
    needs_digit: bool,
}

/// Every written road type, in the order of `ROUTES`.
fn road_types() -> &'static [RoadType] {
    static ROAD_TYPES: OnceLock<Vec<RoadType>> = OnceLock::new();
    ROAD_TYPES.get_or_init(|| {
        ROUTES
            .iter()
            .flat_map(|(name, forms, bare)| {
                let forms = forms.iter().map(move |form| (*form, *name, false));
                forms.chain(bare.iter().map(move |form| (*form, *name, true)))
            })
            .map(|(form, name, needs_digit)| RoadType {
                form,
                words: form.split(' ').collect(),
                name,
                needs_digit,
            })
            .collect()
    })
}

/// Whether the words begin with these words.
fn starts_with_words(words: &[String], prefix: &[&str]) -> bool {
    words.len() >= prefix.len() && words.iter().zip(prefix).all(|(a, b)| a == b)
}

/// How many words a written form has.
fn word_count(form: &str) -> usize {
    form.split(' ').count()
}

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
        road_types()
            .iter()
            .filter(|road| starts_with_words(rest, &road.words))
            .max_by_key(|road| road.words.len())
            .and_then(|road| {
                let length = road.words.len();
                let number = rest.get(length)?;
                // "RR 2 BOX 15" is a rural route box, not Ranch Road 2.
                if road.form == "RR" && rest.get(length + 1).is_some_and(|w| w == "BOX") {
                    return None;
                }
                is_route_number(number, road.needs_digit).then(|| Route {
                    start,
                    end: start + length + 1,
                    name: format!("{} {}", road.name, number.replace('-', "")),
                })
            })
    })
}

/// Whether a single word is a road type ("I", "HWY", "FM"), as in "I-35".
pub(super) fn is_road_type(word: &str) -> bool {
    road_types().iter().any(|road| road.form == word)
}

/// Whether the words end in a road type, so a number after them is the road's, not a unit's.
pub(super) fn ends_with_route_type(words: &[String]) -> bool {
    road_types().iter().any(|road| {
        words.len() >= road.words.len()
            && words
                .iter()
                .rev()
                .zip(road.words.iter().rev())
                .all(|(a, b)| a == b)
    })
}

/// Whether the words begin with the written form's words. Every street line asks this of every
/// written road type at every word, so it stops at the first word that differs.
fn starts_with(words: &[String], form: &str) -> bool {
    let mut words = words.iter();
    form.split(' ')
        .all(|part| words.next().is_some_and(|w| w == part))
}

/// A rural route or highway contract route without its box ("RR 3", "RURAL ROUTE 3", "HC 1"):
/// the first part of "RR 3, BOX 273", whose box a comma put in the next segment.
pub(super) fn is_route_without_box(tokens: &[String]) -> bool {
    ROUTE_FORMS.iter().any(|(forms, _)| {
        forms
            .iter()
            .any(|form| starts_with(tokens, form) && tokens.len() == word_count(form) + 1)
    })
}

/// The written forms of rural routes and highway contract routes, with their standard.
const ROUTE_FORMS: &[(&[&str], &str)] = &[
    (
        &[
            "RURAL ROUTE",
            "RURAL RTE",
            "RURAL RT",
            "RR",
            "RT",
            "RTE",
            "ROUTE",
        ],
        "RR",
    ),
    (&["HIGHWAY CONTRACT", "HCR", "HC"], "HC"),
];

/// Whether `street` is a box's ("PO BOX", "RR 2 BOX", "HC 1 BOX", as `box_address` gives them):
/// Pub 28 writes the box's number after it ("PO BOX 12"), a house number before the street.
pub(super) fn is_box_street(street: &str) -> bool {
    let words: Vec<&str> = street.split(' ').collect();
    matches!(words.as_slice(), ["PO", "BOX"] | ["RR" | "HC", _, "BOX"])
}

/// A box address: "PO BOX 12", "P.O. BOX 12", "POST OFFICE BOX 12", "BOX 12" give
/// ("12", "PO BOX"); "RR 2 BOX 15", "RURAL ROUTE 2 BOX 15" give ("15", "RR 2 BOX"); "HC 1 BOX 9"
/// gives ("9", "HC 1 BOX"). The box number is the house number, so such leads still merge.
pub(super) fn box_address(tokens: &[String]) -> Option<(String, String)> {
    const PO: &[&str] = &[
        "PO BOX",
        "P O BOX",
        "POST OFFICE BOX",
        "POBOX",
        "POB",
        "BOX",
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
    for form in PO {
        if starts_with(tokens, form) {
            let number = box_number(tokens.get(word_count(form)..)?)?;
            return Some((number, "PO BOX".to_owned()));
        }
    }
    let route_forms = ROUTE_FORMS
        .iter()
        .flat_map(|(forms, kind)| forms.iter().map(move |form| (*form, *kind)));
    for (form, kind) in route_forms {
        if starts_with(tokens, form) {
            let rest = tokens.get(word_count(form)..)?;
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
