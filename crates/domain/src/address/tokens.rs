//! Tokenising: upper case, punctuation dropped, but what tells two properties apart is kept
//! (the hyphen of "12-34" and "123-1/2", the slash of a fraction, `#` as a unit marker).

/// A street line cut at its commas, each part as upper-case tokens.
pub(super) fn segments(line: &str) -> Vec<Vec<String>> {
    let chars = expand(line);
    let mut segments = Vec::new();
    let mut segment: Vec<String> = Vec::new();
    let mut token = String::new();
    let at = |i: usize| chars.get(i).copied();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(at);
        let next = at(i + 1);
        if c.is_alphanumeric() {
            token.push(c);
            continue;
        }
        match c {
            // Apostrophes join: "O'Farrell" is "OFARRELL".
            '\'' | '\u{2019}' | '\u{2018}' | '`' => continue,
            // "N.E." and "P.O." join their letters; "St.James" or "12.5" split.
            '.' if letter_run_before(&chars, i) == 1 && letter_run_after(&chars, i) == 1 => {
                continue
            }
            '-' if !token.is_empty() && next.is_some_and(char::is_alphanumeric) => {
                token.push(c);
                continue;
            }
            '/' if prev.is_some_and(|p| p.is_ascii_digit())
                && next.is_some_and(|n| n.is_ascii_digit())
                && !token.is_empty() =>
            {
                token.push(c);
                continue;
            }
            _ => {}
        }
        flush(&mut token, &mut segment);
        match c {
            // "##4" says no more than "#4".
            '#' if segment.last().is_some_and(|t| t == "#") => {}
            '#' => segment.push("#".to_owned()),
            ',' | ';' | '\n' | '\r' if !segment.is_empty() => {
                segments.push(std::mem::take(&mut segment));
            }
            _ => {}
        }
    }
    flush(&mut token, &mut segment);
    if !segment.is_empty() {
        segments.push(segment);
    }
    segments
}

/// Upper case, with vulgar fractions spelled as "1/2" so "123½" reads like "123 1/2".
fn expand(line: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(line.len());
    for c in line.chars() {
        let fraction = match c {
            '\u{bd}' => Some("1/2"),
            '\u{bc}' => Some("1/4"),
            '\u{be}' => Some("3/4"),
            '\u{2153}' => Some("1/3"),
            '\u{2154}' => Some("2/3"),
            _ => None,
        };
        match fraction {
            Some(f) => {
                out.push(' ');
                out.extend(f.chars());
                out.push(' ');
            }
            None => out.extend(c.to_uppercase()),
        }
    }
    out
}

fn letter_run_before(chars: &[char], i: usize) -> usize {
    chars.get(..i).map_or(0, |s| {
        s.iter().rev().take_while(|c| c.is_alphabetic()).count()
    })
}

fn letter_run_after(chars: &[char], i: usize) -> usize {
    chars
        .get(i + 1..)
        .map_or(0, |s| s.iter().take_while(|c| c.is_alphabetic()).count())
}

/// Ends a token. A hyphenated run of letters ("TWENTY-FIRST", "NORTH-EAST") becomes words;
/// one with digits ("12-34", "I-35", "B-2") stays whole for its role to decide.
fn flush(token: &mut String, segment: &mut Vec<String>) {
    let t = std::mem::take(token);
    let t = t.trim_matches('-');
    if t.is_empty() {
        return;
    }
    if t.contains('-') && !t.chars().any(|c| c.is_ascii_digit()) {
        segment.extend(t.split('-').filter(|w| !w.is_empty()).map(str::to_owned));
    } else {
        segment.push(t.to_owned());
    }
}

/// An identifier (house number, unit, box) without cosmetic hyphens: "123-A" -> "123A",
/// "B-2" -> "B2", but "12-34" and "123-1/2" keep theirs, for they tell numbers apart.
pub(super) fn clean_id(token: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    let mut out = String::with_capacity(token.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '-' {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p));
            let next = chars.get(i + 1);
            if !(prev.is_some_and(char::is_ascii_digit) && next.is_some_and(char::is_ascii_digit)) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Whether a token has a digit in it.
pub(super) fn has_digit(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit())
}

/// A fraction token such as "1/2".
pub(super) fn is_fraction(token: &str) -> bool {
    match token.split_once('/') {
        Some((a, b)) => {
            !a.is_empty()
                && !b.is_empty()
                && a.chars().all(|c| c.is_ascii_digit())
                && b.chars().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}
