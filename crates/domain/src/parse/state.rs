//! US state, district and territory codes (USPS two-letter abbreviations).

use std::fmt;
use std::str::FromStr;

/// The codes the contract accepts for `state` / `mail_state`: the 50 states, DC, and the inhabited territories
/// plus the Minor Outlying Islands (AS, GU, MP, PR, VI, UM). Military "states" (AA, AE, AP) and the freely
/// associated states (FM, MH, PW) are deliberately absent: the contract's list does not name them.
const CODES: [&str; 57] = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
    "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY",
    "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV",
    "WI", "WY", "DC", "AS", "GU", "MP", "PR", "VI", "UM",
];

/// A valid US state, DC or territory code, always upper case. Only [`StateCode::parse`] (or `FromStr` /
/// `Deserialize`, which call it) can build one, so holding a `StateCode` proves the code is on the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateCode(&'static str);

impl StateCode {
    /// Parses a two-letter code, case-insensitively and ignoring surrounding whitespace. Full names ("Texas")
    /// are not accepted: the contract asks for a code and answers 422 otherwise.
    pub fn parse(s: &str) -> Option<StateCode> {
        let s = s.trim();
        // Compare case-insensitively against the table so the stored value is the table's `'static` string.
        CODES
            .iter()
            .find(|code| code.eq_ignore_ascii_case(s))
            .map(|code| StateCode(code))
    }

    /// The upper-case code, e.g. `"TX"`.
    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// Every accepted code, in the table's order (states alphabetical by name, then DC and the territories).
    pub fn all() -> impl Iterator<Item = StateCode> {
        CODES.iter().map(|code| StateCode(code))
    }
}

impl fmt::Display for StateCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl AsRef<str> for StateCode {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// Error of `"ZZ".parse::<StateCode>()`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a US state, DC or territory code")]
pub struct InvalidStateCode;

impl FromStr for StateCode {
    type Err = InvalidStateCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StateCode::parse(s).ok_or(InvalidStateCode)
    }
}

impl serde::Serialize for StateCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for StateCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        StateCode::parse(&s).ok_or_else(|| serde::de::Error::custom(InvalidStateCode))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_case_insensitively_and_trimmed() {
        assert_eq!(StateCode::parse("TX").map(|c| c.as_str()), Some("TX"));
        assert_eq!(StateCode::parse("tx").map(|c| c.as_str()), Some("TX"));
        assert_eq!(StateCode::parse(" Tx\t").map(|c| c.as_str()), Some("TX"));
        assert_eq!(
            StateCode::parse("dc").map(|c| c.to_string()),
            Some("DC".to_string())
        );
    }

    #[test]
    fn all_states_dc_and_territories() {
        assert_eq!(StateCode::all().count(), 57);
        for code in ["AS", "GU", "MP", "PR", "VI", "UM", "DC", "WY", "AK", "HI"] {
            assert_eq!(StateCode::parse(code).map(|c| c.as_str()), Some(code));
        }
        let mut seen: Vec<_> = StateCode::all().map(|c| c.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 57, "no duplicate codes");
    }

    #[test]
    fn rejects_everything_else() {
        for bad in [
            "", "  ", "T", "TXX", "ZZ", "AA", "AE", "AP", "FM", "MH", "PW", "Texas", "T X", "ＴＸ",
            "İN",
        ] {
            assert_eq!(StateCode::parse(bad), None, "{bad:?}");
        }
        assert_eq!(StateCode::parse(&"TX".repeat(10_000)), None);
    }

    #[test]
    fn from_str_and_serde() {
        assert_eq!("ca".parse::<StateCode>().map(|c| c.as_str()), Ok("CA"));
        assert_eq!("zz".parse::<StateCode>(), Err(InvalidStateCode));
        let code = StateCode::parse("ny");
        assert_eq!(serde_json::to_string(&code).ok().as_deref(), Some("\"NY\""));
        assert_eq!(
            serde_json::from_str::<StateCode>("\"pr\"").ok(),
            StateCode::parse("PR")
        );
        assert!(serde_json::from_str::<StateCode>("\"XX\"").is_err());
    }

    #[test]
    fn equality_and_hash_follow_the_code() {
        use std::collections::HashSet;
        let set: HashSet<_> = ["tx", "TX", " Tx "]
            .iter()
            .filter_map(|s| StateCode::parse(s))
            .collect();
        assert_eq!(set.len(), 1);
    }
}
