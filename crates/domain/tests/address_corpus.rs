//! The labelled address corpus (tests/data/address_pairs.csv): no false merges at all, and
//! recall of at least 99.9% on pairs that are one property. `examples/dedupe_quality.rs`
//! includes this file to print the same figures per kind.

use leadhub_domain::address::AddressKey;
use std::collections::BTreeMap;

/// The corpus, compiled in so the test runs from any working directory.
pub const CORPUS: &str = include_str!("data/address_pairs.csv");

/// One side of a pair: address, city, state, ZIP (an empty field is absent).
pub type Side = [String; 4];

/// One labelled pair.
pub struct Pair {
    pub same: bool,
    pub kind: String,
    pub a: Side,
    pub b: Side,
}

/// Counts for one kind of pair (or all of them).
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub pairs: usize,
    /// `same` pairs judged the same property.
    pub found: usize,
    /// `same` pairs judged different.
    pub missed: usize,
    /// `different` pairs judged the same property.
    pub false_merges: usize,
    /// `different` pairs judged different.
    pub kept_apart: usize,
}

impl Tally {
    fn add(&mut self, same: bool, judged_same: bool) {
        self.pairs += 1;
        match (same, judged_same) {
            (true, true) => self.found += 1,
            (true, false) => self.missed += 1,
            (false, true) => self.false_merges += 1,
            (false, false) => self.kept_apart += 1,
        }
    }

    /// Share of merges that were right (1.0 when nothing was merged).
    pub fn precision(&self) -> f64 {
        ratio(self.found, self.found + self.false_merges)
    }

    /// Share of `same` pairs found (1.0 when there were none).
    pub fn recall(&self) -> f64 {
        ratio(self.found, self.found + self.missed)
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// The outcome over the corpus: per kind, in total, and the pairs judged wrongly.
pub struct Report {
    pub by_kind: BTreeMap<String, Tally>,
    pub total: Tally,
    pub wrong: Vec<String>,
}

/// Splits CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes).
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, '\r') => {}
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

/// The labelled pairs of the corpus; a malformed row is an error naming its line.
pub fn load() -> Result<Vec<Pair>, String> {
    let mut records = csv_records(CORPUS).into_iter();
    let header = records.next().ok_or("empty corpus")?;
    if header.join(",")
        != "label,kind,a_address,a_city,a_state,a_zip,b_address,b_city,b_state,b_zip"
    {
        return Err(format!("unexpected header {header:?}"));
    }
    records
        .enumerate()
        .map(|(i, r)| match <[String; 10]>::try_from(r) {
            Ok([label, kind, a0, a1, a2, a3, b0, b1, b2, b3]) => {
                let same = match label.as_str() {
                    "same" => true,
                    "different" => false,
                    other => return Err(format!("line {}: label {other:?}", i + 2)),
                };
                Ok(Pair {
                    same,
                    kind,
                    a: [a0, a1, a2, a3],
                    b: [b0, b1, b2, b3],
                })
            }
            Err(r) => Err(format!("line {}: {} fields", i + 2, r.len())),
        })
        .collect()
}

fn opt(field: &str) -> Option<&str> {
    (!field.trim().is_empty()).then_some(field)
}

fn key(side: &Side) -> Option<AddressKey> {
    AddressKey::parse(&side[0], opt(&side[1]), opt(&side[2]), opt(&side[3]))
}

/// Judges every pair with `AddressKey::same_property` (a side without a key never merges).
pub fn evaluate(pairs: &[Pair]) -> Report {
    let mut report = Report {
        by_kind: BTreeMap::new(),
        total: Tally::default(),
        wrong: Vec::new(),
    };
    for pair in pairs {
        let (a, b) = (key(&pair.a), key(&pair.b));
        let judged_same = matches!((&a, &b), (Some(a), Some(b)) if a.same_property(b));
        report
            .by_kind
            .entry(pair.kind.clone())
            .or_default()
            .add(pair.same, judged_same);
        report.total.add(pair.same, judged_same);
        if judged_same != pair.same {
            report.wrong.push(format!(
                "{} {}: {:?} -> {:?} / {:?} -> {:?}",
                if pair.same { "missed" } else { "FALSE MERGE" },
                pair.kind,
                pair.a,
                a.map(|k| k.full_key()),
                pair.b,
                b.map(|k| k.full_key()),
            ));
        }
    }
    report
}

#[test]
fn address_corpus_has_no_false_merges_and_high_recall() {
    let pairs = load().expect("corpus loads");
    assert!(pairs.len() >= 1200, "{} pairs", pairs.len());
    let report = evaluate(&pairs);
    for line in &report.wrong {
        println!("{line}");
    }
    let t = report.total;
    println!(
        "{} pairs: {} same found, {} same missed, {} false merges, {} different kept apart",
        t.pairs, t.found, t.missed, t.false_merges, t.kept_apart
    );
    println!("precision {:.4}, recall {:.4}", t.precision(), t.recall());
    assert_eq!(t.false_merges, 0, "false merges");
    assert!(t.recall() >= 0.999, "recall {:.4}", t.recall());
}

#[test]
fn address_corpus_is_balanced_and_covers_every_kind() {
    let pairs = load().expect("corpus loads");
    let same = pairs.iter().filter(|p| p.same).count();
    let share = same as f64 / pairs.len() as f64;
    assert!(
        (0.4..=0.6).contains(&share),
        "{same} of {} are same",
        pairs.len()
    );
    let kinds: Vec<&str> = pairs.iter().map(|p| p.kind.as_str()).collect();
    for kind in [
        "suffix_spelling",
        "directional_spelling",
        "unit_form",
        "case",
        "punctuation",
        "zip4",
        "missing_zip",
        "whitespace",
        "ordinal",
        "other_number",
        "other_unit",
        "unit_vs_none",
        "other_directional",
        "directional_vs_none",
        "other_suffix",
        "other_street",
        "other_zip",
    ] {
        assert!(kinds.contains(&kind), "no {kind} pairs");
    }
}
