//! Word-level rules of Publication 28: directionals, ordinals, spelled house numbers.

/// One-word directionals and their standard forms (Pub 28 section 233 / Appendix B).
const DIRECTIONALS: &[(&str, &str)] = &[
    ("E", "E"),
    ("EAST", "E"),
    ("N", "N"),
    ("NE", "NE"),
    ("NORTH", "N"),
    ("NORTHEAST", "NE"),
    ("NORTHWEST", "NW"),
    ("NW", "NW"),
    ("S", "S"),
    ("SE", "SE"),
    ("SOUTH", "S"),
    ("SOUTHEAST", "SE"),
    ("SOUTHWEST", "SW"),
    ("SW", "SW"),
    ("W", "W"),
    ("WEST", "W"),
];

/// The standard form of a one-word directional ("NORTH" -> "N", "NE" -> "NE").
pub(super) fn directional(word: &str) -> Option<&'static str> {
    DIRECTIONALS
        .iter()
        .find(|(written, _)| *written == word)
        .map(|(_, std)| *std)
}

/// A directional written as two words ("NORTH EAST", from "North-East" too) or two letters
/// ("S W", as in "Hayne Ave S W") -> "NE", "SW". The caller takes it only where a street
/// name is left over, so "N E ST" stays North E Street.
pub(super) fn two_word_directional(first: &str, second: &str) -> Option<&'static str> {
    match (first, second) {
        ("NORTH", "EAST") | ("N", "E") => Some("NE"),
        ("NORTH", "WEST") | ("N", "W") => Some("NW"),
        ("SOUTH", "EAST") | ("S", "E") => Some("SE"),
        ("SOUTH", "WEST") | ("S", "W") => Some("SW"),
        _ => None,
    }
}

const UNITS: &[&str] = &[
    "FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH", "EIGHTH", "NINTH",
];
const TEENS: &[&str] = &[
    "TENTH",
    "ELEVENTH",
    "TWELFTH",
    "THIRTEENTH",
    "FOURTEENTH",
    "FIFTEENTH",
    "SIXTEENTH",
    "SEVENTEENTH",
    "EIGHTEENTH",
    "NINETEENTH",
];
/// Tens as cardinals ("TWENTY FIRST") and as ordinals ("TWENTIETH"), from twenty on.
const TENS: &[(&str, &str)] = &[
    ("TWENTY", "TWENTIETH"),
    ("THIRTY", "THIRTIETH"),
    ("FORTY", "FORTIETH"),
    ("FIFTY", "FIFTIETH"),
    ("SIXTY", "SIXTIETH"),
    ("SEVENTY", "SEVENTIETH"),
    ("EIGHTY", "EIGHTIETH"),
    ("NINETY", "NINETIETH"),
];

/// The value of a one-word spelled ordinal below a hundred ("FIFTH" -> 5, "NINETIETH" -> 90).
fn simple_ordinal(word: &str) -> Option<u32> {
    let position = |list: &[&str]| list.iter().position(|w| *w == word);
    if let Some(i) = position(UNITS) {
        return u32::try_from(i + 1).ok();
    }
    if let Some(i) = position(TEENS) {
        return u32::try_from(i + 10).ok();
    }
    TENS.iter()
        .position(|(_, ordinal)| *ordinal == word)
        .and_then(|i| u32::try_from(20 + 10 * i).ok())
}

/// The value of a tens cardinal ("TWENTY" -> 20).
fn tens(word: &str) -> Option<u32> {
    TENS.iter()
        .position(|(cardinal, _)| *cardinal == word)
        .and_then(|i| u32::try_from(20 + 10 * i).ok())
}

/// A spelled ordinal glued together ("TWENTYFIRST"), as people type it without the hyphen.
fn glued_ordinal(word: &str) -> Option<u32> {
    TENS.iter().enumerate().find_map(|(i, (cardinal, _))| {
        let rest = word.strip_prefix(cardinal)?;
        let unit = UNITS.iter().position(|w| *w == rest)?;
        u32::try_from(20 + 10 * i + unit + 1).ok()
    })
}

/// An ordinal number in its numeral form: 1 -> "1ST", 12 -> "12TH", 22 -> "22ND".
pub(super) fn numeral_ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "TH",
        (1, _) => "ST",
        (2, _) => "ND",
        (3, _) => "RD",
        _ => "TH",
    };
    format!("{n}{suffix}")
}

/// A numeral ordinal with any suffix ("1ST", "21TH", "2D", "3D") in its correct form, else None.
/// Only for street names: in a unit, "4D" is an apartment, not the fourth.
pub(super) fn fix_numeral_ordinal(word: &str) -> Option<String> {
    let digits_end = word.find(|c: char| !c.is_ascii_digit())?;
    let (digits, suffix) = word.split_at(digits_end);
    if digits.is_empty() || !matches!(suffix, "ST" | "ND" | "RD" | "TH" | "D") {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    if suffix == "D" && !matches!(n % 10, 2 | 3) {
        return None;
    }
    Some(numeral_ordinal(n))
}

/// Whether a word is a numeral ordinal already in standard form ("2ND", "21ST").
pub(super) fn is_numeral_ordinal(word: &str) -> bool {
    fix_numeral_ordinal(word).is_some_and(|fixed| fixed == word)
}

/// Replaces spelled ordinals with numerals: "FIFTH" -> "5TH", "TWENTY FIRST" -> "21ST",
/// "ONE HUNDRED TWELFTH" -> "112TH". Other words pass through unchanged.
pub(super) fn fold_ordinals(words: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let (value, used) = ordinal_at(&words, i);
        match value {
            Some(n) => {
                out.push(numeral_ordinal(u64::from(n)));
                i += used;
            }
            None => {
                out.push(word.clone());
                i += 1;
            }
        }
    }
    out
}

/// The spelled ordinal starting at `i`, if any, and how many words it takes.
fn ordinal_at(words: &[String], i: usize) -> (Option<u32>, usize) {
    let word = |k: usize| words.get(i + k).map(String::as_str).unwrap_or("");
    // "ONE HUNDREDTH", "ONE HUNDRED FIRST", "ONE HUNDRED AND FIRST"
    if word(0) == "ONE" && word(1) == "HUNDREDTH" {
        return (Some(100), 2);
    }
    if word(0) == "ONE" && word(1) == "HUNDRED" {
        let skip = if word(2) == "AND" { 3 } else { 2 };
        if let (Some(n), used) = ordinal_at(words, i + skip) {
            return (Some(100 + n), skip + used);
        }
        return (None, 1);
    }
    if let Some(n) = simple_ordinal(word(0)).or_else(|| glued_ordinal(word(0))) {
        return (Some(n), 1);
    }
    if let Some(t) = tens(word(0)) {
        if let Some(u) = UNITS.iter().position(|w| *w == word(1)) {
            if let Ok(u) = u32::try_from(u + 1) {
                return (Some(t + u), 2);
            }
        }
    }
    (None, 1)
}

/// A house number spelled out ("ONE Main St"), as in "One Infinite Loop".
pub(super) fn spelled_house_number(word: &str) -> Option<&'static str> {
    const NUMBERS: &[(&str, &str)] = &[
        ("ONE", "1"),
        ("TWO", "2"),
        ("THREE", "3"),
        ("FOUR", "4"),
        ("FIVE", "5"),
        ("SIX", "6"),
        ("SEVEN", "7"),
        ("EIGHT", "8"),
        ("NINE", "9"),
        ("TEN", "10"),
    ];
    NUMBERS.iter().find(|(w, _)| *w == word).map(|(_, n)| *n)
}
