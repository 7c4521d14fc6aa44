//! A person's whole name, as one spreadsheet cell holds it ("John A. Smith", "Smith, John",
//! "SMITH JOHN A", "Acme Holdings LLC"), read into a lead's first and last name. Only the import
//! uses it: the API takes `first_name` and `last_name` as its caller holds them.

/// A whole name read into its parts; either may be missing ("Madonna" has no last name, a
/// company no first name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonName {
    pub first: Option<String>,
    pub last: Option<String>,
}

/// Words that make a name an organisation's (an owner of record is often a company, a trust or an
/// estate): such a name is kept whole as the last name, since splitting it means nothing.
const ORGANISATION_WORDS: [&str; 32] = [
    "llc",
    "inc",
    "corp",
    "corporation",
    "company",
    "co",
    "ltd",
    "lp",
    "llp",
    "pllc",
    "trust",
    "trustee",
    "trustees",
    "estate",
    "holdings",
    "properties",
    "property",
    "investments",
    "partners",
    "partnership",
    "group",
    "bank",
    "church",
    "association",
    "assn",
    "hoa",
    "foundation",
    "ministries",
    "realty",
    "homes",
    "builders",
    "enterprises",
];

/// Words after a surname that belong to it ("Smith Jr.").
const SUFFIXES: [&str; 9] = ["jr", "sr", "ii", "iii", "iv", "md", "phd", "dds", "esq"];

/// Words before a surname that belong to it ("de la Cruz", "Van Buren").
const PARTICLES: [&str; 13] = [
    "van", "von", "de", "del", "della", "der", "den", "da", "di", "du", "la", "le", "st",
];

/// A word as compared with the lists above: lower-case letters only ("Jr." -> "jr", "L.L.C." ->
/// "llc").
fn bare(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_suffix(word: &str) -> bool {
    SUFFIXES.contains(&bare(word).as_str())
}

/// A middle initial: one letter, with or without its period.
fn is_initial(word: &str) -> bool {
    let letters = word.trim_end_matches('.');
    letters.chars().count() == 1 && letters.chars().all(char::is_alphabetic)
}

fn joined(words: &[&str]) -> Option<String> {
    (!words.is_empty()).then(|| words.join(" "))
}

/// Reads a whole name (already cleaned: trimmed, one space between words), keeping each word as
/// written. In order:
/// - An organisation ("Acme Holdings LLC", "Smith Family Trust"): whole, as the last name.
/// - "Smith, John A": the last name before the comma (unless what follows is only a suffix:
///   "John Smith, Jr.").
/// - One word: the first name.
/// - A last word that is an initial ("SMITH JOHN A"), or "SMITH JOHN & MARY": a county roll's
///   order, last name first.
/// - Otherwise the last word is the last name, with a suffix after it and particles before it.
///
/// A roll's "SMITH JOHN" cannot be told from "John Smith" and reads as the latter; the import keeps
/// the row as written in the submission, so nothing is lost.
pub fn split_person_name(name: &str) -> Option<PersonName> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    if is_organisation(name) {
        return Some(PersonName {
            first: None,
            last: Some(name.to_owned()),
        });
    }
    if let Some((before, after)) = name.split_once(',') {
        let (before, after) = (before.trim(), after.trim());
        if before.is_empty() {
            return split_person_name(after);
        }
        let after_words: Vec<&str> = after.split_whitespace().collect();
        if !after_words.is_empty() && after_words.iter().all(|w| is_suffix(w)) {
            return split_person_name(&format!("{before} {after}"));
        }
        return Some(PersonName {
            first: joined(&after_words),
            last: Some(before.to_owned()),
        });
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    Some(split_words(&words))
}

fn is_organisation(name: &str) -> bool {
    name.split(|c: char| c.is_whitespace() || c == ',')
        .any(|w| ORGANISATION_WORDS.contains(&bare(w).as_str()))
}

fn split_words(words: &[&str]) -> PersonName {
    let [first_word, rest @ ..] = words else {
        return PersonName {
            first: None,
            last: None,
        };
    };
    if rest.is_empty() {
        return PersonName {
            first: Some((*first_word).to_owned()),
            last: None,
        };
    }
    let before_last = words.len().checked_sub(2).and_then(|i| words.get(i));
    let last_first = words.last().is_some_and(|w| is_initial(w))
        || (words.len() >= 4 && before_last.is_some_and(|w| *w == "&" || bare(w) == "and"));
    if last_first {
        return PersonName {
            first: joined(rest),
            last: Some((*first_word).to_owned()),
        };
    }
    // The surname starts at the last word that is not a suffix, and takes the particles before it,
    // as long as a first name is left.
    let mut start = words.len() - 1;
    while start > 1 && words.get(start).is_some_and(|w| is_suffix(w)) {
        start -= 1;
    }
    while start > 1
        && words
            .get(start - 1)
            .is_some_and(|w| PARTICLES.contains(&bare(w).as_str()))
    {
        start -= 1;
    }
    PersonName {
        first: joined(words.get(..start).unwrap_or_default()),
        last: joined(words.get(start..).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Checks each `(name, first, last)`.
    fn check(cases: &[(&str, Option<&str>, Option<&str>)]) {
        for (name, first, last) in cases {
            let got = split_person_name(name);
            let got = got
                .as_ref()
                .map(|n| (n.first.as_deref(), n.last.as_deref()));
            assert_eq!(got.unwrap_or_default(), (*first, *last), "{name:?}");
        }
    }

    #[test]
    fn names_as_people_write_them() {
        check(&[
            ("John Smith", Some("John"), Some("Smith")),
            ("John A. Smith", Some("John A."), Some("Smith")),
            ("Mary Ann Smith", Some("Mary Ann"), Some("Smith")),
            ("John Smith Jr.", Some("John"), Some("Smith Jr.")),
            ("John Smith III", Some("John"), Some("Smith III")),
            ("Maria de la Cruz", Some("Maria"), Some("de la Cruz")),
            ("Martin Van Buren", Some("Martin"), Some("Van Buren")),
            ("John & Mary Smith", Some("John & Mary"), Some("Smith")),
            ("JOSÉ GARCÍA", Some("JOSÉ"), Some("GARCÍA")),
            // Last name first, after a comma.
            ("Smith, John", Some("John"), Some("Smith")),
            ("Smith, John A.", Some("John A."), Some("Smith")),
            ("de la Cruz, Maria", Some("Maria"), Some("de la Cruz")),
            ("Smith,", None, Some("Smith")),
            (", John", Some("John"), None),
            ("John Smith, Jr.", Some("John"), Some("Smith Jr.")),
            // A county roll without a comma: told by the initial at the end, or by a second owner.
            ("SMITH JOHN A", Some("JOHN A"), Some("SMITH")),
            ("SMITH J.", Some("J."), Some("SMITH")),
            ("SMITH JOHN & MARY", Some("JOHN & MARY"), Some("SMITH")),
            ("SMITH JOHN AND MARY", Some("JOHN AND MARY"), Some("SMITH")),
        ]);
    }

    #[test]
    fn organisations_stay_whole() {
        let names = [
            "Acme Holdings LLC",
            "ACME HOLDINGS, L.L.C.",
            "Smith Family Trust",
            "Estate of John Smith",
            "First Baptist Church",
            "Oak Hill HOA",
            "Lone Star Properties Inc.",
        ];
        for name in names {
            check(&[(name, None, Some(name))]);
        }
    }

    #[test]
    fn one_word_is_a_first_name() {
        check(&[
            ("Maria", Some("Maria"), None),
            ("  ", None, None),
            ("", None, None),
        ]);
    }

    proptest! {
        /// Whatever the cell holds, the parts are its own words, each once, nothing added.
        #[test]
        fn the_parts_are_the_names_own_words(name in "[A-Za-z.,& ]{0,40}|\\PC{0,40}") {
            let cleaned = crate::parse::clean_text(&name).unwrap_or_default();
            if let Some(n) = split_person_name(&cleaned) {
                let mut got: Vec<String> = [n.first, n.last]
                    .into_iter()
                    .flatten()
                    .flat_map(|p| p.split([' ', ',']).map(str::to_owned).collect::<Vec<_>>())
                    .filter(|w| !w.is_empty())
                    .collect();
                let mut want: Vec<String> = cleaned
                    .split([' ', ','])
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect();
                got.sort();
                want.sort();
                prop_assert_eq!(got, want);
            }
        }
    }
}
