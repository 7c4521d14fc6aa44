//! Lot sizes from free text to acres.

const SQFT_PER_ACRE: f64 = 43_560.0;
/// International acre: 66 ft x 660 ft with the 1959 foot (0.3048 m).
const SQM_PER_ACRE: f64 = 4_046.856_422_4;
const SQM_PER_HECTARE: f64 = 10_000.0;
/// Longer input is prose, not a size; the cap keeps the work per value small.
const MAX_LEN: usize = 200;

/// Words and marks that qualify a size without changing it ("approx 3 acres", "2 acres +/-", "0.25 acre lot").
const QUALIFIERS: &[&str] = &[
    "approx",
    "approx.",
    "approximately",
    "apx",
    "apx.",
    "appx",
    "appx.",
    "about",
    "around",
    "roughly",
    "circa",
    "ca.",
    "est",
    "est.",
    "estimated",
    "m/l",
    "lot",
    "total",
];

/// Converts a lot size to acres.
///
/// A number (`0.25`, `.25`, `10,890`, `1/4`, `1 1/2`, `1-1/2`, `1½`) followed by a unit: acres (`acre`, `acres`,
/// `ac`, `ac.`), square feet (`sqft`, `sq ft`, `sq. ft.`, `square feet`, `sf`, `ft2`, `ft²`), square metres (`m2`,
/// `m²`, `sq m`, `sqm`, `square meters`) or hectares (`ha`, `hectare(s)`), with or without a space, upper or lower
/// case, optionally qualified (`approx`, `about`, `~`, `+/-`, `±`, `more or less`, `(approx.)`).
///
/// The same size restated in a second unit is accepted when the two agree within 5% ("0.25 acres (10,890 sq ft)",
/// "0.25 ac / 10,890 sf"); the first is returned. Disagreeing or unrelated trailing text returns `None`.
///
/// A bare number returns `None`: county data uses bare numbers for acres and for square feet alike, so `9000`
/// and `0.2` cannot be told apart safely; the caller keeps the raw value and warns `unparsed_lot_size`. Ranges
/// (`1-2 acres`), comma decimals (`0,25`), negative, non-finite and overflowing values are `None` too; zero is
/// returned as `0.0` (the value as written).
pub fn parse_lot_size_acres(s: &str) -> Option<f64> {
    if s.len() > MAX_LEN {
        return None;
    }
    let mut text = s.to_lowercase();
    for (from, to) in [
        ("¼", " 1/4"),
        ("½", " 1/2"),
        ("¾", " 3/4"),
        ("more or less", " "),
    ] {
        // Most sizes hold none of these: look before copying the text.
        if text.contains(from) {
            text = text.replace(from, to);
        }
    }
    for mark in ["+/-", "+-", "±", "(", ")", "~"] {
        if text.contains(mark) {
            text = text.replace(mark, " ");
        }
    }
    let text = space_after_number(&text);
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !QUALIFIERS.contains(w))
        .collect();

    acres_from_words(&words).filter(|acres| acres.is_finite() && *acres >= 0.0)
}

/// How far two statements of one size ("0.25 acres (10,890 sq ft)") may differ: listings round.
const RESTATED_TOLERANCE: f64 = 0.05;

/// A quantity, its unit and optionally the same size restated in another unit.
fn acres_from_words(words: &[&str]) -> Option<f64> {
    let (quantity, used) = quantity(words)?;
    let rest = words.get(used..)?;
    // Longest unit first, so "acre(s)" (now "acre s") reads as "acres" rather than "acre" + junk.
    for n in (1..=rest.len().min(3)).rev() {
        let (unit_words, tail) = rest.split_at_checked(n)?;
        let unit: String = unit_words
            .concat()
            .chars()
            .filter(|&c| c != '.' && c != ',')
            .collect();
        let Some(per_acre) = units_per_acre(&unit) else {
            continue;
        };
        // Divide by the exact constant (not multiply by its reciprocal): "43,560 sq ft" is exactly 1.0.
        let acres = quantity / per_acre;
        let tail = tail
            .strip_prefix(&["/"])
            .or_else(|| tail.strip_prefix(&["="]))
            .unwrap_or(tail);
        if tail.is_empty() {
            return Some(acres);
        }
        // Anything after the unit must be the same size again; "2 acres 3 sqft" is refused.
        let again = acres_from_words(tail)?;
        let agree = (acres - again).abs() <= RESTATED_TOLERANCE * acres.max(again);
        return agree.then_some(acres);
    }
    None
}

/// How many of `unit` make one acre.
fn units_per_acre(unit: &str) -> Option<f64> {
    Some(match unit {
        "acre" | "acres" | "ac" | "acs" => 1.0,
        "sqft" | "sqfeet" | "sqfoot" | "squarefeet" | "squarefoot" | "squareft" | "sf" | "ft2"
        | "ft²" => SQFT_PER_ACRE,
        "m2" | "m²" | "sqm" | "sqmeter" | "sqmeters" | "sqmetre" | "sqmetres" | "squaremeter"
        | "squaremeters" | "squaremetre" | "squaremetres" => SQM_PER_ACRE,
        "ha" | "hectare" | "hectares" => SQM_PER_ACRE / SQM_PER_HECTARE,
        _ => return None,
    })
}

/// Puts a space between a number and a unit written against it ("2.5ac", "10890sqft", "1,000m2").
fn space_after_number(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut prev_digit = false;
    for c in text.chars() {
        if prev_digit && (c.is_alphabetic() || c == '²') {
            out.push(' ');
        }
        prev_digit = c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// The number at the start of `words` and how many words it took: a decimal, a fraction, or a whole number
/// followed by a proper fraction ("1 1/2").
fn quantity(words: &[&str]) -> Option<(f64, usize)> {
    let first = words.first()?;
    if first.contains('/') {
        return match first.split_once('-') {
            Some((whole, frac)) => Some((whole_plus_fraction(whole, frac)?, 1)),
            None => Some((fraction(first)?, 1)),
        };
    }
    if let Some(frac) = words.get(1).filter(|w| w.contains('/')) {
        return Some((whole_plus_fraction(first, frac)?, 2));
    }
    Some((decimal(first)?, 1))
}

fn whole_plus_fraction(whole: &str, frac: &str) -> Option<f64> {
    let whole = integer(whole)?;
    let frac = fraction(frac)?;
    (frac < 1.0).then_some(whole + frac)
}

fn fraction(s: &str) -> Option<f64> {
    let (num, den) = s.split_once('/')?;
    let (num, den) = (integer(num)?, integer(den)?);
    (den > 0.0).then_some(num / den)
}

fn integer(s: &str) -> Option<f64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `10890`, `10,890`, `0.25`, `.25`, `1,234.5`. Thousands separators must group by three, so a comma decimal
/// (`0,25`) is refused rather than misread as 25.
fn decimal(s: &str) -> Option<f64> {
    let (int, frac) = match s.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (s, None),
    };
    let mut groups = int.split(',');
    let lead = groups.next()?;
    let mut digits: String = lead.to_string();
    for group in groups {
        if lead.is_empty() || lead.len() > 3 || group.len() != 3 {
            return None;
        }
        digits.push_str(group);
    }
    if let Some(frac) = frac {
        if frac.is_empty() {
            return None;
        }
        digits.push('.');
        digits.push_str(frac);
    }
    let numeric = digits.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    // At least one digit; the sign, exponent, "inf" and "nan" forms of `f64::from_str` never get through.
    (numeric && digits.bytes().any(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1e-12))
    }

    #[test]
    fn acres() {
        for (input, want) in [
            ("0.25 acres", 0.25),
            ("0.25 acre", 0.25),
            ("1 acre", 1.0),
            ("2.5 ac", 2.5),
            ("2.5 ac.", 2.5),
            ("2.5ac", 2.5),
            (".25 ac", 0.25),
            ("1/4 acre", 0.25),
            ("1 1/2 acres", 1.5),
            ("1-1/2 acres", 1.5),
            ("1½ acres", 1.5),
            ("¾ acre", 0.75),
            ("2 acres +/-", 2.0),
            ("2+/- acres", 2.0),
            ("2.5± ac", 2.5),
            ("approx 3 acres", 3.0),
            ("Approx. 3 Acres", 3.0),
            ("approximately 3 acres", 3.0),
            ("~3 acres", 3.0),
            ("3 acres (approx.)", 3.0),
            ("3 acres more or less", 3.0),
            ("0.25 acre lot", 0.25),
            ("1,234.5 acres", 1234.5),
            ("  0.25   ACRES ", 0.25),
            ("0 acres", 0.0),
            ("0.5 acre(s)", 0.5),
            ("0.25 acres (10,890 sq ft)", 0.25),
            ("0.25 Acres, 10,890 SF", 0.25),
            ("0.25 ac / 10,890 sf", 0.25),
            ("0.23 acres (10,000 sq ft)", 0.23),
        ] {
            assert!(
                close(parse_lot_size_acres(input), want),
                "{input:?} -> {:?}",
                parse_lot_size_acres(input)
            );
        }
    }

    #[test]
    fn square_feet() {
        for input in [
            "10,890 sqft",
            "10890 sq ft",
            "10,890 sq. ft.",
            "10890 sq.ft.",
            "10890 square feet",
            "10890 sf",
            "10890sf",
            "10890 SF",
            "10890 ft2",
            "10890 ft²",
            "10890sqft",
            "approx 10,890 sq ft",
        ] {
            assert!(
                close(parse_lot_size_acres(input), 0.25),
                "{input:?} -> {:?}",
                parse_lot_size_acres(input)
            );
        }
        assert!(close(parse_lot_size_acres("43,560 sq ft"), 1.0));
    }

    #[test]
    fn metric() {
        let acre_m2 = 4046.8564224;
        assert!(close(parse_lot_size_acres("1,000 m2"), 1000.0 / acre_m2));
        assert!(close(parse_lot_size_acres("1000 sq m"), 1000.0 / acre_m2));
        assert!(close(parse_lot_size_acres("1000m²"), 1000.0 / acre_m2));
        assert!(close(
            parse_lot_size_acres("1000 square metres"),
            1000.0 / acre_m2
        ));
        assert!(close(parse_lot_size_acres("4046.8564224 sqm"), 1.0));
        assert!(close(parse_lot_size_acres("1 ha"), 10_000.0 / acre_m2));
        assert!(close(
            parse_lot_size_acres("2.5 hectares"),
            25_000.0 / acre_m2
        ));
    }

    #[test]
    fn unusable() {
        for input in [
            "",
            "  ",
            "0.25",
            "10890",
            ".25",
            "acres",
            "n/a",
            "-0.25 acres",
            "- 1 acre",
            "1-2 acres",
            "0,25 acres",
            "1,0890 sqft",
            ",890 sqft",
            "1/0 acre",
            "3/2/1 acre",
            "1 3/2 acres",
            "1.2.3 acres",
            "2. acres",
            "inf acres",
            "NaN acres",
            "1e3 sqft",
            "2 acres 3 sqft",
            "0.2 acres (10,000 sq ft)",
            "0.25 acres (10,890)",
            "0.25 acres 10,890 sq ft extra",
            "2 furlongs",
            "2 acres or so",
            "０.２５ acres",
        ] {
            assert_eq!(parse_lot_size_acres(input), None, "{input:?}");
        }
        // Inside the length cap every number is finite; past it the value is refused unread.
        assert!(
            parse_lot_size_acres(&format!("{} acres", "9".repeat(190))).is_some_and(f64::is_finite)
        );
        assert_eq!(
            parse_lot_size_acres(&format!("1{} sqft", "0".repeat(400))),
            None
        );
        assert_eq!(parse_lot_size_acres(&"1 acre ".repeat(10_000)), None);
    }

    proptest! {
        #[test]
        fn square_feet_and_acres_agree(n in 1u64..10_000_000_000) {
            let sqft = parse_lot_size_acres(&format!("{n} sqft"));
            let acres_text = format!("{} acres", n as f64 / 43_560.0);
            let acres = parse_lot_size_acres(&acres_text);
            prop_assert!(sqft.is_some() && acres.is_some(), "{} / {}", n, acres_text);
            prop_assert!(close(sqft, acres.unwrap_or(f64::NAN)), "{:?} vs {:?}", sqft, acres);
        }

        #[test]
        fn decimal_square_feet_and_acres_agree(n in 0.001f64..1e9) {
            let sqft = parse_lot_size_acres(&format!("{n} sq. ft."));
            let acres = parse_lot_size_acres(&format!("{}ac", n / 43_560.0));
            prop_assert!(close(sqft, acres.unwrap_or(f64::NAN)), "{} {:?} vs {:?}", n, sqft, acres);
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            if let Some(a) = parse_lot_size_acres(&s) {
                prop_assert!(a.is_finite() && a >= 0.0);
            }
        }

        #[test]
        fn never_panics_on_size_like_text(s in "[0-9 ,./+~±½-]{0,12}(acres|ac|sq ft|sf|m2|ha|)") {
            if let Some(a) = parse_lot_size_acres(&s) {
                prop_assert!(a.is_finite() && a >= 0.0);
            }
        }
    }
}
