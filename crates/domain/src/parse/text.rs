//! Free-text clean-up shared by every string field of a lead or business, and by notes.

/// Trims `s` and collapses every run of inner whitespace (any Unicode `White_Space`, so tabs, line breaks and
/// no-break spaces too) to one ASCII space. Answers `None` when nothing is left, because the contract treats an
/// empty or all-blank optional string as absent.
///
/// Control characters (NUL, escape, ...) and the invisible U+200B/U+2060/U+FEFF (zero-width space, word joiner,
/// byte-order mark) are dropped: they arrive from spreadsheets and copy-paste, cannot be seen in the UI, would
/// defeat duplicate detection, and PostgreSQL rejects NUL in `text` columns. The zero-width joiners U+200C/U+200D
/// are kept because they are part of some scripts and of emoji sequences.
pub fn clean_text(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    // A separator is only written once a later visible character arrives, so no leading, trailing or double
    // spaces can occur.
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else if is_dropped(c) {
            continue;
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// A character neither `clean_text` nor `clean_note` keeps: a control character or one of the
/// invisibles (see `clean_text`).
fn is_dropped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}')
}

/// A note as people write it: several lines kept, each line's ends trimmed, the note's blank lines at
/// the start and end dropped. Line ends become `\n` (Windows' `\r\n` and a lone `\r` too) and a tab stays;
/// every other control character (escape sequences that would recolour a terminal showing the note, the bell,
/// ...) and the invisibles `clean_text` drops are dropped. Empty when nothing is left.
pub fn clean_note(s: &str) -> String {
    let unified = s.replace("\r\n", "\n").replace('\r', "\n");
    let kept: String = unified
        .chars()
        .filter(|c| matches!(c, '\n' | '\t') || !is_dropped(*c))
        .collect();
    let lines: Vec<&str> = kept.lines().map(str::trim).collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::test_cases::assert_normalises;
    use proptest::prelude::*;

    #[test]
    fn trims_and_collapses() {
        assert_normalises(
            clean_text,
            &[
                ("  hello   world  ", "hello world"),
                ("a\tb\r\n\nc", "a b c"),
                ("one", "one"),
            ],
        );
    }

    #[test]
    fn unicode_whitespace_collapses() {
        // no-break space, em space, ideographic space, line separator
        assert_eq!(
            clean_text("\u{00A0}a\u{2003}\u{3000}b\u{2028}").as_deref(),
            Some("a b")
        );
    }

    #[test]
    fn blank_is_none() {
        assert_eq!(clean_text(""), None);
        assert_eq!(clean_text("   "), None);
        assert_eq!(clean_text("\t\n\u{00A0}"), None);
        assert_eq!(clean_text("\u{FEFF}\u{200B}"), None);
    }

    #[test]
    fn drops_controls_and_invisibles_keeps_joiners() {
        assert_normalises(
            clean_text,
            &[
                ("a\u{0}b\u{1B}c", "abc"),
                ("\u{FEFF}Main St", "Main St"),
                ("a \u{200B} b", "a b"),
            ],
        );
        let family = "\u{1F468}\u{200D}\u{1F469}";
        assert_eq!(clean_text(family).as_deref(), Some(family));
    }

    #[test]
    fn a_note_keeps_its_lines_and_drops_controls() {
        let pasted = "\r\n  Called Tuesday \r\n\u{1B}[31mNo answer\u{7}\rTry\tagain  \n\n";
        assert_eq!(
            clean_note(pasted),
            "Called Tuesday\n[31mNo answer\nTry\tagain"
        );
        assert_eq!(clean_note("one\n\n\ntwo"), "one\n\n\ntwo");
        assert_eq!(clean_note("\u{FEFF} \u{0}\n\r\n"), "");
        let family = "\u{1F468}\u{200D}\u{1F469}";
        assert_eq!(clean_note(family), family);
    }

    #[test]
    fn non_ascii_text_is_kept() {
        assert_normalises(
            clean_text,
            &[("  Peña   Blvd  ", "Peña Blvd"), ("東京  都", "東京 都")],
        );
    }

    #[test]
    fn very_long_input() {
        let s = "word   ".repeat(100_000);
        let out = clean_text(&s).unwrap_or_default();
        assert_eq!(out.len(), "word ".len() * 100_000 - 1);
    }

    proptest! {
        #[test]
        fn idempotent_and_tidy(s in any::<String>()) {
            if let Some(once) = clean_text(&s) {
                prop_assert!(!once.contains("  "));
                prop_assert_eq!(once.trim(), once.as_str());
                prop_assert!(!once.chars().any(|c| c.is_whitespace() && c != ' '));
                prop_assert_eq!(clean_text(&once), Some(once.clone()));
            }
        }

        #[test]
        fn whitespace_mix_is_tidy(s in "[ \t\n\u{A0}a-c\u{3000}]{0,40}") {
            match clean_text(&s) {
                Some(out) => {
                    prop_assert!(!out.contains("  "));
                    prop_assert_eq!(out.trim(), out.as_str());
                    prop_assert_eq!(clean_text(&out), Some(out.clone()));
                }
                None => prop_assert!(s.trim().is_empty()),
            }
        }
    }
}
