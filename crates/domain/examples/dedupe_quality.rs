//! Prints the duplicate-detection quality of `AddressKey` over the labelled corpus
//! (tests/data/address_pairs.csv), per kind of pair, as a Markdown table for
//! docs/performance.md: `cargo run -p leadhub-domain --example dedupe_quality`.
//! Add `-- --wrong` to list the pairs judged wrongly.

// The corpus test's loader and judge, so the figures printed here are the ones it asserts.
#[path = "../tests/address_corpus.rs"]
mod corpus;

use std::process::ExitCode;

fn main() -> ExitCode {
    let pairs = match corpus::load() {
        Ok(pairs) => pairs,
        Err(e) => {
            eprintln!("corpus: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = corpus::evaluate(&pairs);
    println!("| kind | label | pairs | judged same | judged different | false merges | precision | recall |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for (kind, t) in &report.by_kind {
        let label = if t.found + t.missed > 0 {
            "same"
        } else {
            "different"
        };
        print_row(kind, label, t);
    }
    let t = &report.total;
    print_row("**all**", "", t);
    println!();
    println!(
        "{} pairs ({} same, {} different): {} false merges, {} same pairs missed; \
         precision {:.2}%, recall {:.2}%.",
        t.pairs,
        t.found + t.missed,
        t.false_merges + t.kept_apart,
        t.false_merges,
        t.missed,
        100.0 * t.precision(),
        100.0 * t.recall(),
    );
    if std::env::args().any(|a| a == "--wrong") {
        for line in &report.wrong {
            println!("{line}");
        }
    }
    ExitCode::SUCCESS
}

/// A ratio as a percentage, or a dash when nothing was counted.
fn percent(value: f64, count: usize) -> String {
    if count == 0 {
        "-".to_owned()
    } else {
        format!("{:.2}%", 100.0 * value)
    }
}

/// One row of the table: a kind of pair (or all of them) and how it was judged.
fn print_row(kind: &str, label: &str, t: &corpus::Tally) {
    println!(
        "| {kind} | {label} | {} | {} | {} | {} | {} | {} |",
        t.pairs,
        t.found + t.false_merges,
        t.missed + t.kept_apart,
        t.false_merges,
        percent(t.precision(), t.found + t.false_merges),
        percent(t.recall(), t.found + t.missed),
    );
}
