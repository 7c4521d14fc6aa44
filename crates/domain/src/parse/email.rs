//! E-mail addresses: a plausibility check, not full RFC 5322.
//!
//! The goal is to drop what is clearly not a deliverable address (typos, "n/a", two addresses in one field)
//! while keeping every ordinary one. Quoted local parts, comments, IP-literal domains and display names
//! ("Ann <ann@example.com>") are rejected: they do not occur in lead data except as mistakes.

/// RFC 5321 limits: 64 octets for the local part, 255 for the domain in practice 253, 254 for the whole path.
const MAX_LOCAL: usize = 64;
const MAX_DOMAIN: usize = 253;
const MAX_LABEL: usize = 63;

/// Trims and lower-cases `s` and returns it when it is a plausible address: exactly one `@`, a local part of
/// dot-atom characters (no leading, trailing or doubled dot), and a domain of at least two dot-separated labels
/// (letters, digits and inner hyphens; a top-level label of at least two characters, not all digits). A leading
/// `mailto:` is dropped. Non-ASCII letters are allowed (internationalised addresses). `None` means the caller
/// drops the value and warns `invalid_email`.
///
/// The local part is lower-cased too: strictly it is case-sensitive, but no real mail system treats it so, and
/// the service compares addresses case-insensitively.
pub fn normalize_email(s: &str) -> Option<String> {
    let trimmed = s.trim();
    let trimmed = match trimmed.get(..7) {
        Some(head) if head.eq_ignore_ascii_case("mailto:") => trimmed.get(7..)?,
        _ => trimmed,
    };
    let lower = trimmed.to_lowercase();
    let (local, domain) = lower.split_once('@')?;
    (is_local_part(local) && is_domain(domain)).then_some(lower)
}

fn is_local_part(local: &str) -> bool {
    !local.is_empty()
        && local.len() <= MAX_LOCAL
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c))
}

fn is_domain(domain: &str) -> bool {
    if domain.is_empty() || domain.len() > MAX_DOMAIN {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    let Some(tld) = labels.last() else {
        return false;
    };
    labels.len() >= 2
        && labels.iter().all(|label| is_label(label))
        // A numeric last label means an IP address or a typo ("ann@gmail.c0m" stays allowed, "ann@10.0.0.1" not).
        && tld.chars().count() >= 2
        && !tld.chars().all(|c| c.is_ascii_digit())
}

fn is_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= MAX_LABEL
        && !label.starts_with('-')
        && !label.ends_with('-')
        && label.chars().all(|c| c.is_alphanumeric() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::test_cases::{assert_normalises, assert_refuses, check_idempotent};
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize_email(s)
    }

    #[test]
    fn trims_and_lower_cases() {
        assert_normalises(
            norm,
            &[
                ("  Ann.Smith@Example.COM ", "ann.smith@example.com"),
                ("mailto:Bob@example.org", "bob@example.org"),
                ("MAILTO:bob@example.org", "bob@example.org"),
            ],
        );
    }

    #[test]
    fn ordinary_addresses() {
        for ok in [
            "a@b.co",
            "first.last@sub.domain.example.com",
            "user+tag@gmail.com",
            "o'brien@example.ie",
            "x_y-z@my-company.io",
            "123@456.net",
            "jose@españa.es",
            "müller@example.de",
            "user@xn--80ak6aa92e.com",
        ] {
            assert_eq!(norm(ok).as_deref(), Some(ok), "{ok:?}");
        }
    }

    #[test]
    fn implausible_addresses() {
        assert_refuses(
            norm,
            &[
                "ann",
                "@example.com",
                "ann@",
                "ann@example",
                "ann@@example.com",
                "ann@bob@example.com",
                "ann smith@example.com",
                "ann@exa mple.com",
                "ann@example..com",
                "ann@.example.com",
                "ann@example.com.",
                "ann@-example.com",
                "ann@example-.com",
                "ann@example.c",
                "ann@10.0.0.1",
                "ann@[10.0.0.1]",
                ".ann@example.com",
                "ann.@example.com",
                "an..n@example.com",
                "\"ann\"@example.com",
                "Ann <ann@example.com>",
                "ann@example.com, bob@example.com",
                "ann@example.com;bob@example.com",
                "ann@exam_ple.com",
                "ann\u{0}@example.com",
            ],
        );
    }

    #[test]
    fn length_limits() {
        let local64 = "a".repeat(64);
        assert!(norm(&format!("{local64}@example.com")).is_some());
        assert_eq!(norm(&format!("a{local64}@example.com")), None);
        let label63 = "b".repeat(63);
        assert!(norm(&format!("ann@{label63}.com")).is_some());
        assert_eq!(norm(&format!("ann@b{label63}.com")), None);
        assert_eq!(norm(&format!("ann@{}com", "abc.".repeat(100))), None);
        assert_eq!(norm(&"x@".repeat(100_000)), None);
    }

    proptest! {
        #[test]
        fn idempotent(s in "[A-Za-z0-9.+_-]{1,12}@[A-Za-z0-9-]{1,10}(\\.[A-Za-z]{2,5}){1,2}") {
            check_idempotent(normalize_email, &s)?;
        }

        #[test]
        fn idempotent_on_any_input(s in any::<String>()) {
            if let Some(once) = check_idempotent(normalize_email, &s)? {
                prop_assert!(!once.chars().any(char::is_whitespace));
                prop_assert_eq!(once.matches('@').count(), 1);
            }
        }
    }
}
