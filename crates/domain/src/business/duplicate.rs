//! When two businesses are the same: contract section 5.
//!
//! Same normalised name in the same city and state, or the same phone, or the same website domain,
//! always within one scope (a team, or the unassigned businesses). The scope is the caller's
//! business (the repository only compares within one); everything else is here.
use crate::parse::{normalize_phone, url_domain};

/// Legal-form words ignored at the end of a name ("Acme Plumbing, L.L.C." is "acme plumbing").
const LEGAL_SUFFIXES: [&str; 17] = [
    "llc",
    "inc",
    "incorporated",
    "co",
    "company",
    "corp",
    "corporation",
    "ltd",
    "limited",
    "llp",
    "lp",
    "pllc",
    "pc",
    "pa",
    "plc",
    "lc",
    "gmbh",
];

/// The name as compared: lower case, punctuation dropped (`.` and apostrophes join,
/// anything else separates), `&` read as "and", trailing legal suffixes removed.
/// "Joe's Plumbing & Heating, L.L.C." and "JOES PLUMBING AND HEATING" give the same key.
/// A name made only of suffix words ("Company Inc") keeps them, so it is not empty.
pub fn name_key(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if matches!(c, '.' | '\'' | '\u{2019}') {
            // "L.L.C." is "llc", "Joe's" is "joes".
        } else {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if c == '&' || c == '+' {
                words.push("and".to_owned());
            }
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut end = words.len();
    while end > 1 && LEGAL_SUFFIXES.contains(&words[end - 1].as_str()) {
        end -= 1;
    }
    // "Acme Plumbing and Co": a dangling "and" left by a removed suffix goes too.
    while end > 1 && end < words.len() && words[end - 1] == "and" {
        end -= 1;
    }
    words.truncate(end);
    words.join(" ")
}

/// What duplicate detection compares, for a business being imported or one already stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKeys {
    pub name_key: String,
    /// Lower case; None when unknown.
    pub city: Option<String>,
    /// Upper case; None when unknown.
    pub state: Option<String>,
    /// E.164, only when the phone could be normalised.
    pub phone: Option<String>,
    /// The website's host without `www.`, only when it is a usable URL.
    pub domain: Option<String>,
}

impl DuplicateKeys {
    pub fn new(
        name_key: &str,
        city: Option<&str>,
        state: Option<&str>,
        phone: Option<&str>,
        website: Option<&str>,
    ) -> DuplicateKeys {
        DuplicateKeys {
            name_key: name_key.to_owned(),
            city: city.map(str::to_lowercase),
            state: state.map(str::to_uppercase),
            phone: phone.and_then(normalize_phone),
            domain: website.and_then(url_domain),
        }
    }

    /// The same business: same name in the same (known) city and state, or same phone, or same
    /// domain. A name alone, without a place on both sides, is not enough: "Acme Plumbing" exists
    /// in many towns, and a false match drops a business from the import.
    pub fn same_business(&self, other: &DuplicateKeys) -> bool {
        let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
        (!self.name_key.is_empty()
            && self.name_key == other.name_key
            && same(&self.city, &other.city)
            && same(&self.state, &other.state))
            || same(&self.phone, &other.phone)
            || same(&self.domain, &other.domain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ignore_case_punctuation_and_legal_suffixes() {
        let key = name_key("Joe's Plumbing & Heating, L.L.C.");
        assert_eq!(key, "joes plumbing and heating");
        for same in [
            "JOES PLUMBING AND HEATING",
            "Joes Plumbing & Heating Inc.",
            "joe's plumbing and heating, co.",
            "Joe’s Plumbing & Heating Corp",
            "Joes  Plumbing-and Heating LLC, Inc",
            "Joe's Plumbing & Heating PLLC",
            "Joe's Plumbing & Heating Ltd.",
            "Joe's Plumbing & Heating LLP",
        ] {
            assert_eq!(name_key(same), key, "{same}");
        }
        assert_eq!(name_key("Acme Co Plumbing"), "acme co plumbing");
        assert_eq!(name_key("Acme Plumbing & Co."), "acme plumbing");
        assert_eq!(name_key("Company Inc"), "company");
        assert_eq!(name_key("..."), "");
    }

    fn keys(
        name: &str,
        city: Option<&str>,
        state: Option<&str>,
        phone: Option<&str>,
        web: Option<&str>,
    ) -> DuplicateKeys {
        DuplicateKeys::new(&name_key(name), city, state, phone, web)
    }

    #[test]
    fn the_duplicate_rule() {
        let a = keys(
            "Acme Plumbing LLC",
            Some("Austin"),
            Some("TX"),
            Some("(512) 555-0100"),
            Some("https://www.acme.com/"),
        );
        assert!(a.same_business(&keys(
            "ACME plumbing",
            Some("AUSTIN"),
            Some("tx"),
            None,
            None
        )));
        assert!(!a.same_business(&keys(
            "Acme Plumbing",
            Some("Dallas"),
            Some("TX"),
            None,
            None
        )));
        assert!(!a.same_business(&keys("Acme Plumbing", None, None, None, None)));
        assert!(a.same_business(&keys("Other", None, None, Some("512.555.0100"), None)));
        assert!(a.same_business(&keys("Other", None, None, None, Some("acme.com"))));
        assert!(!a.same_business(&keys(
            "Other",
            None,
            None,
            Some("512-555-0199"),
            Some("shop.acme.com")
        )));
        // Unusable values never match each other.
        let junk = keys("x", None, None, Some("call us"), Some("not a url"));
        assert!(!junk.same_business(&keys("y", None, None, Some("call us"), Some("not a url"))));
    }
}
