//! State names as spreadsheets write them (`Texas`, `Tex.`, `N. Carolina`): read into codes by imports only.
//! The API keeps asking for a code (contract 3.1: `Texas` in an API call is a 422).
use super::StateCode;

/// (code, written forms), each form lower-case letters only: spaces, periods and other punctuation are
/// dropped before comparing, so `N.Y.`, `New York` and `new-york` all read as `NY`.
const NAMES: [(&str, &[&str]); 57] = [
    ("AL", &["alabama", "ala"]),
    ("AK", &["alaska", "alas"]),
    ("AZ", &["arizona", "ariz"]),
    ("AR", &["arkansas", "ark"]),
    ("CA", &["california", "calif", "cal"]),
    ("CO", &["colorado", "colo", "col"]),
    ("CT", &["connecticut", "conn"]),
    ("DE", &["delaware", "del"]),
    ("FL", &["florida", "fla", "flor"]),
    ("GA", &["georgia"]),
    ("HI", &["hawaii"]),
    ("ID", &["idaho", "ida"]),
    ("IL", &["illinois", "ill", "ills"]),
    ("IN", &["indiana", "ind"]),
    ("IA", &["iowa"]),
    ("KS", &["kansas", "kan", "kans"]),
    ("KY", &["kentucky", "ken", "kent"]),
    ("LA", &["louisiana"]),
    ("ME", &["maine"]),
    ("MD", &["maryland"]),
    ("MA", &["massachusetts", "mass"]),
    ("MI", &["michigan", "mich"]),
    ("MN", &["minnesota", "minn"]),
    ("MS", &["mississippi", "miss"]),
    ("MO", &["missouri"]),
    ("MT", &["montana", "mont"]),
    ("NE", &["nebraska", "neb", "nebr"]),
    ("NV", &["nevada", "nev"]),
    ("NH", &["newhampshire"]),
    ("NJ", &["newjersey"]),
    ("NM", &["newmexico", "nmex"]),
    ("NY", &["newyork"]),
    ("NC", &["northcarolina", "ncarolina"]),
    ("ND", &["northdakota", "ndak", "ndakota"]),
    ("OH", &["ohio"]),
    ("OK", &["oklahoma", "okla"]),
    ("OR", &["oregon", "ore", "oreg"]),
    ("PA", &["pennsylvania", "penn", "penna"]),
    ("RI", &["rhodeisland"]),
    ("SC", &["southcarolina", "scarolina"]),
    ("SD", &["southdakota", "sdak", "sdakota"]),
    ("TN", &["tennessee", "tenn"]),
    ("TX", &["texas", "tex"]),
    ("UT", &["utah"]),
    ("VT", &["vermont"]),
    ("VA", &["virginia", "virg"]),
    ("WA", &["washington", "wash"]),
    ("WV", &["westvirginia", "wva", "wvirg"]),
    ("WI", &["wisconsin", "wis", "wisc"]),
    ("WY", &["wyoming", "wyo"]),
    ("DC", &["districtofcolumbia", "washingtondc"]),
    ("AS", &["americansamoa"]),
    ("GU", &["guam"]),
    ("MP", &["northernmarianaislands", "northernmarianas"]),
    ("PR", &["puertorico"]),
    ("VI", &["virginislands", "usvirginislands", "usvi"]),
    ("UM", &["usminoroutlyingislands", "minoroutlyingislands"]),
];

/// A state code from a code, a full name or a usual abbreviation, any case, punctuation and spacing ignored.
pub fn state_from_name(s: &str) -> Option<StateCode> {
    if let Some(code) = StateCode::parse(s) {
        return Some(code);
    }
    let key: String = s
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    // A letter-free or overlong value names no state; the names are at most 26 letters.
    if key.is_empty() || key.len() > 30 {
        return None;
    }
    if let Some(code) = StateCode::parse(&key) {
        return Some(code);
    }
    NAMES
        .iter()
        .find(|(_, forms)| forms.contains(&key.as_str()))
        .and_then(|(code, _)| StateCode::parse(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> Option<&'static str> {
        state_from_name(s).map(|c| c.as_str())
    }

    #[test]
    fn names_and_abbreviations_become_codes() {
        for (written, want) in [
            ("Texas", "TX"),
            ("texas", "TX"),
            ("TEXAS", "TX"),
            ("Tex.", "TX"),
            ("tx", "TX"),
            (" New York ", "NY"),
            ("N.Y.", "NY"),
            ("new-york", "NY"),
            ("Calif.", "CA"),
            ("W. Va.", "WV"),
            ("West Virginia", "WV"),
            ("District of Columbia", "DC"),
            ("D.C.", "DC"),
            ("Puerto Rico", "PR"),
            ("Penn.", "PA"),
        ] {
            assert_eq!(code(written), Some(want), "{written:?}");
        }
    }

    #[test]
    fn other_words_are_not_states() {
        for written in [
            "",
            "Texass",
            "Tx Tx",
            "Lone Star",
            "ZZ",
            "Ontario",
            "12",
            "Virginia Beach",
        ] {
            assert_eq!(code(written), None, "{written:?}");
        }
    }
}
