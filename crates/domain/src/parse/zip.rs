//! US ZIP codes, as `12345` or `12345-6789`.

/// Normalises a ZIP or ZIP+4 to `12345` / `12345-6789`.
///
/// Accepted: `12345`, `123456789`, `12345-6789`, `12345 6789` (also with a Unicode dash). A ZIP whose leading zero
/// a spreadsheet dropped (`2134` -> `02134`, and `21341234` / `2134-1234` -> `02134-1234`) is repaired: the
/// New England, New Jersey and Puerto Rico ZIPs start with 0, and number-typed spreadsheet columns lose it.
/// Three-digit values are not padded: only the 005xx-009xx ZIPs would need it, and a three-digit value is more
/// often junk. Anything else (letters, other lengths) returns `None`; the caller warns `invalid_zip`.
/// The value is not checked against the list of issued ZIPs.
pub fn normalize_zip(s: &str) -> Option<String> {
    let s = s.trim();
    // Split at the one optional separator between ZIP5 and the +4 part.
    let (head, plus4) = match s.find(|c: char| !c.is_ascii_digit()) {
        None => match s.len() {
            9 | 8 => {
                let cut = s.len() - 4;
                (s.get(..cut)?, Some(s.get(cut..)?))
            }
            _ => (s, None),
        },
        Some(i) => {
            let sep = s.get(i..)?.chars().next()?;
            if !(sep == '-' || sep == ' ' || ('\u{2010}'..='\u{2015}').contains(&sep)) {
                return None;
            }
            (s.get(..i)?, Some(s.get(i + sep.len_utf8()..)?))
        }
    };

    // `head` is all ASCII digits here: it ends at the first non-digit.
    let zip5 = match head.len() {
        5 => head.to_string(),
        4 => format!("0{head}"),
        _ => return None,
    };
    match plus4 {
        None => Some(zip5),
        Some(p) if p.len() == 4 && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(format!("{zip5}-{p}"))
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::test_cases::{assert_normalises, assert_refuses, check_idempotent};
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize_zip(s)
    }

    #[test]
    fn five_digit_forms() {
        assert_normalises(
            norm,
            &[
                ("78701", "78701"),
                ("  78701 ", "78701"),
                ("02134", "02134"),
            ],
        );
    }

    #[test]
    fn zip_plus_four_forms() {
        for input in [
            "78701-1234",
            "787011234",
            "78701 1234",
            "78701\u{2013}1234",
            " 78701-1234\t",
        ] {
            assert_eq!(norm(input).as_deref(), Some("78701-1234"), "{input:?}");
        }
    }

    #[test]
    fn lost_leading_zero() {
        assert_normalises(
            norm,
            &[
                ("2134", "02134"),
                ("21341234", "02134-1234"),
                ("2134-1234", "02134-1234"),
            ],
        );
    }

    #[test]
    fn rejects_the_rest() {
        assert_refuses(
            norm,
            &[
                "123",
                "601",
                "123456",
                "1234567",
                "1234567890",
                "78701-",
                "78701-123",
                "78701-12345",
                "78701--1234",
                "78701  1234",
                "78701_1234",
                "7870l",
                "TX 78701",
                "78701, TX",
                "-78701",
                "78701.0",
                "７８７０１",
                "78701-１２３４",
            ],
        );
        assert_eq!(norm(&"7".repeat(100_000)), None);
    }

    proptest! {
        #[test]
        fn idempotent(s in "[0-9]{3,10}|[0-9]{4,5}[ -][0-9]{3,5}") {
            if let Some(once) = check_idempotent(normalize_zip, &s)? {
                prop_assert!(once.len() == 5 || once.len() == 10);
            }
        }

        #[test]
        fn idempotent_on_any_input(s in any::<String>()) {
            check_idempotent(normalize_zip, &s)?;
        }
    }
}
