//! City, state and ZIP as the address key holds them.

use super::tokens::segments;

/// City names written short or long ("St. Louis", "Saint Louis"), made one.
const CITY_WORDS: &[(&str, &str)] = &[("SAINT", "ST"), ("MOUNT", "MT"), ("FORT", "FT")];

/// Upper case, punctuation dropped, whitespace collapsed: "Winston-Salem" -> "WINSTON SALEM",
/// "St. Louis" and "Saint Louis" -> "ST LOUIS". None when nothing is left.
pub(super) fn city(raw: &str) -> Option<String> {
    let mut words: Vec<String> = segments(raw)
        .into_iter()
        .flatten()
        .flat_map(|t| t.split('-').map(str::to_owned).collect::<Vec<_>>())
        .filter(|w| !w.is_empty() && w != "#")
        .collect();
    if words.len() >= 2 {
        if let Some(first) = words.first_mut() {
            if let Some((_, short)) = CITY_WORDS.iter().find(|(long, _)| long == first) {
                (*short).clone_into(first);
            }
        }
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// The state code as given, upper case, punctuation dropped ("tx." -> "TX"). Whether it is a
/// real state is checked where leads are validated.
pub(super) fn state(raw: &str) -> Option<String> {
    // Upper-case first: some letters upper-case to a letter plus a combining mark ("ǰ" -> "J̌"),
    // which the filter then drops, so the code reads back as itself (found by cargo fuzz).
    let code: String = raw
        .chars()
        .flat_map(char::to_uppercase)
        .filter(|c| c.is_alphanumeric())
        .collect();
    (!code.is_empty()).then_some(code)
}

/// The ZIP5 of a valid ZIP or ZIP+4 ("78701", "78701-1234", "78701 1234", "787011234").
/// Anything else (four digits, "00000", letters) is no ZIP: the key then falls back to
/// city and state rather than trust a guess.
pub(super) fn zip5(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let digits: String = raw.chars().filter(char::is_ascii_digit).collect();
    let shape_ok = raw
        .chars()
        .all(|c| c.is_ascii_digit() || c == '-' || c == ' ')
        && raw.chars().filter(|c| *c == '-' || *c == ' ').count() <= 1
        && match raw.find(['-', ' ']) {
            Some(at) => at == 5,
            None => true,
        };
    let zip5 = digits.get(..5)?;
    (shape_ok && matches!(digits.len(), 5 | 9) && zip5 != "00000").then(|| zip5.to_owned())
}

/// Whether a street-line token is a ZIP or ZIP+4 with this ZIP5.
pub(super) fn is_zip_token(token: &str, zip5_given: &str) -> bool {
    zip5(token).is_some_and(|z| z == zip5_given)
}

#[cfg(test)]
mod tests {
    use super::state;

    #[test]
    fn a_state_code_reads_back_as_itself() {
        assert_eq!(state(" tx. ").as_deref(), Some("TX"));
        // "ǰ" upper-cases to "J" and a combining caron (the input cargo fuzz found).
        let once = state("ǰ").unwrap();
        assert_eq!(state(&once), Some(once.clone()));
    }
}
