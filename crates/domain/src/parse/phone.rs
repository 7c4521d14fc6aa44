//! Phone numbers to E.164, valid by libphonenumber's rules (the `phonenumber` crate's metadata).
use phonenumber::country::Id;
use phonenumber::Mode;

use super::phone_nanp;

/// Longest extension we keep; anything longer is more likely two numbers run together than an extension.
const MAX_EXTENSION_DIGITS: usize = 8;

/// Normalises a phone number to E.164 (`+15125550100`), keeping an extension as `;ext=NN` (RFC 3966).
///
/// The number is digits with separators (spaces, `-`, `.`, `/`, parentheses, Unicode dashes), optionally after
/// `+` (then its own country code follows) or `tel:`; without `+` it is read as a US number (`1` first allowed).
/// An extension may follow as `x12`, `ext 12`, `ext. 12`, `ext: 12`, `extension 12`, `#12` or `;ext=12`,
/// optionally after a comma. The number must be valid by libphonenumber's metadata for its country: a US
/// number needs a real area code and exchange (`000-000-0000`, `555-123-4567` and the 7-digit `555-1234` are
/// refused). Letters (`1-800-FLOWERS`, `call me`) and anything else return `None`; the caller drops the value
/// and warns `invalid_phone`.
pub fn normalize_phone(s: &str) -> Option<String> {
    let mut rest = s.trim();
    if rest.len() >= 4
        && rest
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("tel:"))
    {
        rest = rest.get(4..)?.trim_start();
    }
    let plus = rest.starts_with('+');
    if plus {
        rest = rest.get(1..)?;
    }

    // The number runs up to the first character that cannot be part of it; what follows must be an extension.
    let split = rest
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || is_separator(c)))
        .map(|(i, _)| i);
    let (number, tail) = match split {
        Some(i) => (rest.get(..i)?, rest.get(i..)?),
        None => (rest, ""),
    };

    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    // E.164 allows 15 digits at most; a longer run is not one number.
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let e164 = if plus {
        match digits
            .strip_prefix('1')
            .filter(|national| national.len() == 10)
        {
            Some(national) => nanp_e164(national)?,
            None => valid_e164(&format!("+{digits}"), None)?,
        }
    } else {
        // A US number written without its country code; `1` before ten digits is the trunk prefix.
        let national = match digits.len() {
            10 => digits.as_str(),
            11 => digits.strip_prefix('1')?,
            _ => return None,
        };
        nanp_e164(national)?
    };

    let mut out = e164;
    if !tail.trim().is_empty() {
        let ext = parse_extension(tail)?;
        out.push_str(";ext=");
        out.push_str(ext);
    }
    Some(out)
}

/// `+1` and the ten digits `national` when libphonenumber's metadata says it is a valid number:
/// as `valid_e164` answers, only faster (`phone_nanp`).
fn nanp_e164(national: &str) -> Option<String> {
    match phone_nanp::is_valid(national) {
        Some(valid) => valid.then(|| format!("+1{national}")),
        None => valid_e164(&format!("+1{national}"), Some(Id::US)),
    }
}

/// `text` (`+` and digits) in E.164 when libphonenumber says it is a valid number.
fn valid_e164(text: &str, country: Option<Id>) -> Option<String> {
    let number = phonenumber::parse(country, text).ok()?;
    if !phonenumber::is_valid(&number) {
        return None;
    }
    Some(number.format().mode(Mode::E164).to_string())
}

/// A stored number (`normalize_phone`'s E.164) as people read it: a North American number in
/// its national form, `(512) 555-0100`, another country's in its international form (`+44 20 7946
/// 0958`), an extension after it as ` ext. 12`. Text that is no such number (a value stored
/// before numbers were checked) is shown as it is. libphonenumber formats each (about 6 µs a
/// number, release build: 0.3 ms for a page of 50 leads).
pub fn display_phone(stored: &str) -> String {
    let (number, extension) = match stored.split_once(";ext=") {
        Some((number, extension)) => (number, Some(extension)),
        None => (stored, None),
    };
    let parsed = match phonenumber::parse(None, number) {
        Ok(parsed) if number.starts_with('+') && phonenumber::is_valid(&parsed) => parsed,
        _ => return stored.to_owned(),
    };
    let mode = if parsed.code().value() == 1 {
        Mode::National
    } else {
        Mode::International
    };
    let mut shown = parsed.format().mode(mode).to_string();
    if let Some(extension) = extension {
        shown.push_str(" ext. ");
        shown.push_str(extension);
    }
    shown
}

fn is_separator(c: char) -> bool {
    // U+2010..U+2015 are the Unicode hyphens and dashes that word processors substitute for '-'.
    c.is_whitespace()
        || matches!(
            c,
            '-' | '.' | '/' | '(' | ')' | '\u{2010}'..='\u{2015}' | '\u{2212}'
        )
}

/// Parses the text after the number, e.g. `" ext. 12"`, and returns the extension's digits.
fn parse_extension(tail: &str) -> Option<&str> {
    let tail = tail.trim_start();
    let tail = tail.strip_prefix([',', ';']).unwrap_or(tail).trim_start();
    // Longest marker first so "extension" is not read as "ext" + "ension".
    let after_marker = ["extension", "ext", "x", "#"].iter().find_map(|marker| {
        let head = tail.get(..marker.len())?;
        head.eq_ignore_ascii_case(marker)
            .then(|| tail.get(marker.len()..))
            .flatten()
    })?;
    let after_marker = after_marker
        .strip_prefix('.')
        .unwrap_or(after_marker)
        .trim_start();
    let after_marker = after_marker
        .strip_prefix([':', '='])
        .unwrap_or(after_marker)
        .trim();
    let ok = !after_marker.is_empty()
        && after_marker.len() <= MAX_EXTENSION_DIGITS
        && after_marker.bytes().all(|b| b.is_ascii_digit());
    ok.then_some(after_marker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::test_cases::{assert_normalises, assert_refuses, check_idempotent};
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize_phone(s)
    }

    #[test]
    fn numbers_are_shown_as_people_write_them() {
        assert_eq!(display_phone("+15125550100"), "(512) 555-0100");
        assert_eq!(
            display_phone("+15125550100;ext=12"),
            "(512) 555-0100 ext. 12"
        );
        assert_eq!(display_phone("+442079460958"), "+44 20 7946 0958");
        assert_eq!(display_phone("512-555-0100 (cell)"), "512-555-0100 (cell)");
        assert_eq!(display_phone("+1512"), "+1512");
        // What `normalize_phone` stores reads back the same.
        for shown in ["(512) 555-0100 ext. 7", "+44 20 7946 0958"] {
            let stored = normalize_phone(shown).unwrap();
            assert_eq!(display_phone(&stored), shown);
        }
    }

    #[test]
    fn common_us_forms() {
        for input in [
            "5125550100",
            "(512) 555-0100",
            "(512)555-0100",
            "512-555-0100",
            "512.555.0100",
            "512 555 0100",
            "512/555-0100",
            "+1 512 555 0100",
            "+1 (512) 555-0100",
            "+15125550100",
            "1-512-555-0100",
            "1 (512) 555.0100",
            "15125550100",
            "  512-555-0100  ",
            "tel:+1-512-555-0100",
            "512\u{2013}555\u{2013}0100",
            "512\u{00A0}555\u{00A0}0100",
        ] {
            assert_eq!(norm(input).as_deref(), Some("+15125550100"), "{input:?}");
        }
    }

    #[test]
    fn extensions() {
        for input in [
            "512-555-0100 x12",
            "512-555-0100x12",
            "512-555-0100 X 12",
            "512-555-0100 ext 12",
            "512-555-0100 ext. 12",
            "512-555-0100 Ext.12",
            "512-555-0100 ext: 12",
            "512-555-0100 extension 12",
            "512-555-0100 #12",
            "512-555-0100 # 12",
            "(512) 555-0100, ext. 12",
            "+15125550100;ext=12",
        ] {
            assert_eq!(
                norm(input).as_deref(),
                Some("+15125550100;ext=12"),
                "{input:?}"
            );
        }
    }

    #[test]
    fn rejects_what_cannot_be_normalised() {
        assert_refuses(
            norm,
            &[
                "555-0100",
                "555-1234",
                "000-000-0000",
                "555-123-4567",
                "123-456-7890",
                "call me",
                "512-555-010",
                "512-555-01000",
                "2-512-555-0100",
                "+5255512345",
                "011 44 20 7946 0958",
                "1-800-FLOWERS",
                "512-555-0100 ext",
                "512-555-0100 ext abc",
                "512-555-0100 x123456789",
                "512-555-0100 call after 5",
                "512+555-0100",
                "512-555-0100 / 512-555-0101",
                "５１２５５５０１００",
                "tel:",
                "+",
            ],
        );
        assert_eq!(norm(&"5".repeat(100_000)), None);
        assert_eq!(norm(&format!("5125550100 x{}", "1".repeat(100_000))), None);
    }

    #[test]
    fn other_countries_with_their_code() {
        assert_normalises(
            norm,
            &[
                ("+44 20 7946 0958", "+442079460958"),
                ("+52 55 1234 5678", "+525512345678"),
                ("+1 416 555 0100", "+14165550100"),
            ],
        );
    }

    /// Renders a 10-digit number in one of the accepted layouts.
    fn render(area: &str, exchange: &str, line: &str, layout: usize) -> String {
        match layout {
            0 => format!("{area}{exchange}{line}"),
            1 => format!("({area}) {exchange}-{line}"),
            2 => format!("({area}){exchange}-{line}"),
            3 => format!("{area}-{exchange}-{line}"),
            4 => format!("{area}.{exchange}.{line}"),
            5 => format!("{area} {exchange} {line}"),
            6 => format!("+1 {area} {exchange} {line}"),
            7 => format!("+1{area}{exchange}{line}"),
            8 => format!("1-{area}-{exchange}-{line}"),
            9 => format!("1 ({area}) {exchange}-{line}"),
            10 => format!("+1 ({area}) {exchange}.{line}"),
            _ => format!(" 1{area}{exchange}{line} "),
        }
    }

    /// The crate's own answer for `+1` and ten digits, as `normalize_phone` asked it before
    /// `phone_nanp`, with and without the country given.
    fn crate_answer(national: &str) -> Option<String> {
        let us = valid_e164(&format!("+1{national}"), Some(Id::US));
        assert_eq!(us, valid_e164(&format!("+1{national}"), None), "{national}");
        us
    }

    #[test]
    fn nanp_numbers_are_judged_as_the_crate_judges_them() {
        // Every area code (the Caribbean's pick their region by it), with exchanges and lines
        // on either side of the rules' edges.
        let mut checked = 0;
        for area in 0..1000 {
            for exchange in [
                "000", "100", "211", "299", "555", "911", "958", "976", "999",
            ] {
                for line in ["0000", "0100", "1234", "5555", "9999"] {
                    let national = format!("{area:03}{exchange}{line}");
                    let fast = phone_nanp::is_valid(&national).expect("patterns compile");
                    assert_eq!(
                        fast.then(|| format!("+1{national}")),
                        crate_answer(&national)
                    );
                    checked += usize::from(fast);
                }
            }
        }
        assert!(
            checked > 10_000,
            "{checked} valid: the sample must hold valid numbers"
        );
    }

    proptest! {
        #[test]
        fn nanp_random_numbers_agree_with_the_crate(national in "[0-9]{10}") {
            let fast = phone_nanp::is_valid(&national).expect("patterns compile");
            prop_assert_eq!(fast.then(|| format!("+1{national}")), crate_answer(&national));
        }

        #[test]
        fn separator_layouts_round_trip(
            // Real area codes: libphonenumber refuses unassigned ones.
            area in proptest::sample::select(vec!["512", "212", "415", "617", "305", "713", "206"]),
            exchange in "[2-9][0-9]{2}",
            line in "[0-9]{4}",
            layout in 0usize..12,
            ext in proptest::option::of("[0-9]{1,6}"),
            ext_form in 0usize..5,
        ) {
            let mut input = render(area, &exchange, &line, layout);
            let mut want = format!("+1{area}{exchange}{line}");
            if let Some(ext) = &ext {
                let marker = ["x", " ext ", " ext. ", " extension ", " #"][ext_form];
                input.push_str(marker);
                input.push_str(ext);
                want.push_str(";ext=");
                want.push_str(ext);
            }
            prop_assert_eq!(normalize_phone(&input), Some(want));
        }

        #[test]
        fn idempotent(s in "[0-9 ()+.x#-]{0,24}|[0-9]{10,11}( ?(x|ext) ?[0-9]{1,4})?") {
            check_idempotent(normalize_phone, &s)?;
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            let _ = normalize_phone(&s);
        }
    }
}
