//! Properties that must hold for any input, not just the examples in `tests.rs`.

use super::AddressKey;
use proptest::prelude::*;
use proptest::sample::select;

/// Ways of writing one directional; each inner list is one meaning.
const DIRECTIONALS: &[&[&str]] = &[
    &["N", "N.", "North"],
    &["S", "South"],
    &["E", "East"],
    &["W", "West"],
    &["NE", "N.E.", "Northeast", "North East"],
    &["SW", "S.W.", "Southwest", "South-West"],
];
const SUFFIXES: &[&[&str]] = &[
    &["St", "Street", "Str", "Strt", "St."],
    &["Ave", "Avenue", "Av", "Avn", "Ave."],
    &["Blvd", "Boulevard", "Boul"],
    &["Ct", "Court"],
    &["Dr", "Drive", "Drv"],
    &["Ln", "Lane"],
    &["Pkwy", "Parkway", "Pky"],
    &["Cir", "Circle", "Crcl"],
    &["Rd", "Road"],
    &["Ter", "Terrace", "Terr"],
];
const NAMES: &[&[&str]] = &[
    &["Main"],
    &["Oak"],
    &["Park"],
    &["Court"],
    &["Martin Luther King Jr"],
    &["Fifth", "5th"],
    &["Twenty-First", "21st", "Twenty First"],
    &["St. James", "Saint James"],
    &["O'Farrell", "OFarrell"],
    &["Lake Shore"],
    &["North"],
];
const UNITS: &[&[&str]] = &[&["Apt", "Apartment", "Unit", "#", "Ste", "Suite", "Apt #"]];

/// One address as meanings, each written later in one of its forms.
#[derive(Debug, Clone)]
struct Parts {
    number: u32,
    pre: Option<usize>,
    name: usize,
    suffix: usize,
    post: Option<usize>,
    unit: Option<String>,
}

fn parts() -> impl Strategy<Value = Parts> {
    (
        1u32..99_999,
        proptest::option::of(0..DIRECTIONALS.len()),
        0..NAMES.len(),
        0..SUFFIXES.len(),
        proptest::option::of(0..DIRECTIONALS.len()),
        proptest::option::of("[1-9][0-9]{0,2}[A-D]?"),
    )
        .prop_map(|(number, pre, name, suffix, post, unit)| Parts {
            number,
            pre,
            name,
            suffix,
            post,
            unit,
        })
}

/// Picks of written forms: one index per part, taken modulo the choices.
fn write(p: &Parts, picks: &[usize; 5]) -> String {
    fn form(list: &[&'static str], k: usize) -> &'static str {
        list.get(k % list.len().max(1)).copied().unwrap_or("")
    }
    let mut out = vec![p.number.to_string()];
    if let Some(d) = p.pre.and_then(|d| DIRECTIONALS.get(d)) {
        out.push(form(d, picks[0]).to_owned());
    }
    out.push(form(NAMES.get(p.name).copied().unwrap_or(&[]), picks[1]).to_owned());
    out.push(form(SUFFIXES.get(p.suffix).copied().unwrap_or(&[]), picks[2]).to_owned());
    if let Some(d) = p.post.and_then(|d| DIRECTIONALS.get(d)) {
        out.push(form(d, picks[3]).to_owned());
    }
    if let Some(id) = &p.unit {
        out.push(format!("{} {id}", form(UNITS[0], picks[4])));
    }
    out.join(" ")
}

/// Random case, doubled spaces and a comma before the unit: what people type.
fn scramble(text: &str, seed: u64) -> String {
    let mut state = seed | 1;
    let mut bit = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state & 1 == 1
    };
    let mut out = String::new();
    for c in text.chars() {
        if c == ' ' {
            out.push_str(if bit() { "  " } else { " " });
        } else if bit() {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
    }
    format!(
        "{}{out}{}",
        if bit() { " " } else { "" },
        if bit() { "\t" } else { "" }
    )
}

fn parse(line: &str) -> Option<AddressKey> {
    AddressKey::parse(line, Some("Springfield"), Some("IL"), Some("62701-1234"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_never_panics(
        line in any::<String>(),
        city in proptest::option::of(any::<String>()),
        state in proptest::option::of(".{0,4}"),
        zip in proptest::option::of("[0-9 -]{0,12}|.{0,12}"),
    ) {
        let key = AddressKey::parse(&line, city.as_deref(), state.as_deref(), zip.as_deref());
        if let Some(key) = key {
            let _ = (key.street_key(), key.full_key(), key.same_property(&key));
        }
    }

    #[test]
    fn parse_never_panics_on_address_like_text(line in "[0-9A-Za-z #,./'½-]{0,40}") {
        let _ = parse(&line);
    }

    #[test]
    fn street_key_reads_back_as_the_same_key(p in parts(), picks in any::<[usize; 5]>()) {
        let key = parse(&write(&p, &picks)).expect("a key");
        let again = AddressKey::parse(
            &key.street_key(), key.city.as_deref(), key.state.as_deref(), key.zip5.as_deref());
        prop_assert_eq!(Some(key), again);
    }

    #[test]
    fn any_key_reads_back_as_itself(line in "[0-9][0-9A-Za-z #,./'-]{0,40}") {
        if let Some(key) = parse(&line) {
            let again = AddressKey::parse(
                &key.street_key(), key.city.as_deref(), key.state.as_deref(), key.zip5.as_deref());
            prop_assert_eq!(Some(key), again, "from {:?}", line);
        }
    }

    #[test]
    fn case_whitespace_and_spelling_do_not_matter(
        p in parts(),
        a in any::<[usize; 5]>(),
        b in any::<[usize; 5]>(),
        seed in any::<u64>(),
    ) {
        let plain = parse(&write(&p, &a)).expect("a key");
        let other = parse(&scramble(&write(&p, &b), seed)).expect("a key");
        prop_assert!(plain.same_property(&other), "{:?} vs {:?}", plain, other);
        prop_assert_eq!(plain, other);
    }

    #[test]
    fn another_house_number_is_another_property(
        p in parts(),
        picks in any::<[usize; 5]>(),
        other_number in 1u32..99_999,
    ) {
        prop_assume!(other_number != p.number);
        let mut q = p.clone();
        q.number = other_number;
        let a = parse(&write(&p, &picks)).expect("a key");
        let b = parse(&write(&q, &picks)).expect("a key");
        prop_assert!(!a.same_property(&b));
        prop_assert_ne!(a.full_key(), b.full_key());
    }

    #[test]
    fn another_unit_or_none_is_another_property(
        p in parts(),
        picks in any::<[usize; 5]>(),
        unit in proptest::option::of("[1-9][0-9]{0,2}[A-D]?"),
    ) {
        let mut q = p.clone();
        q.unit = if unit == p.unit { p.unit.is_none().then(|| "1".to_owned()) } else { unit };
        let a = parse(&write(&p, &picks)).expect("a key");
        let b = parse(&write(&q, &picks)).expect("a key");
        prop_assert!(!a.same_property(&b), "{:?} vs {:?}", a, b);
    }

    #[test]
    fn another_directional_or_none_is_another_property(
        p in parts(),
        picks in any::<[usize; 5]>(),
        pre in proptest::option::of(0..DIRECTIONALS.len()),
    ) {
        let mut q = p.clone();
        q.pre = if pre == p.pre { p.pre.map_or(Some(0), |d| (d + 1 < DIRECTIONALS.len()).then_some(d + 1)) } else { pre };
        let a = parse(&write(&p, &picks)).expect("a key");
        let b = parse(&write(&q, &picks)).expect("a key");
        prop_assert!(!a.same_property(&b), "{:?} vs {:?}", a, b);
    }

    #[test]
    fn zip_plus_four_is_its_zip5(zip in "[0-9]{5}", plus in "[0-9]{4}", sep in select(vec!["-", " ", ""])) {
        let full = format!("{zip}{sep}{plus}");
        let key = AddressKey::parse("1 Main St", None, None, Some(&full));
        let expected = (zip != "00000").then_some(zip);
        prop_assert_eq!(key.and_then(|k| k.zip5), expected);
    }
}
