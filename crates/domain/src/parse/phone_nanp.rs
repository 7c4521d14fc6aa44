//! Whether a North American number (`+1` and ten digits, the numbers leads carry) is valid, by the
//! `phonenumber` crate's own metadata and rule, without its per-call costs.
//!
//! `phonenumber::is_valid` looks every pattern up in a shared regex cache keyed by the pattern's
//! text: each look-up locks it and hashes and compares a pattern of up to 655 characters, about
//! 20 of them per number, and `phonenumber::parse` reads the text once more. Here the same
//! patterns, taken from the crate's database, are compiled once, and its rule (`source_for`, then
//! `number_type` is not `Unknown`) is applied to them; a test holds the answers equal to the
//! crate's for every area code.
use std::sync::OnceLock;

use phonenumber::metadata::{Descriptor, Metadata, DATABASE};
use regex::{Regex, RegexBuilder};

/// The country calling code of the North American Numbering Plan.
const NANP: u16 = 1;

/// A pattern of the metadata, compiled as the crate compiles it (whitespace in it ignored).
fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .ignore_whitespace(true)
        .build()
        .ok()
}

/// Whether `regex` matches `text` from its start, as the crate asks of its patterns.
fn matches_at_start(regex: &Regex, text: &str) -> bool {
    regex.find(text).is_some_and(|m| m.start() == 0)
}

/// One number type's description (`phonenumber::metadata::Descriptor`).
struct Pattern {
    lengths: Vec<u16>,
    national: Regex,
}

impl Pattern {
    fn of(descriptor: &Descriptor) -> Option<Pattern> {
        Some(Pattern {
            lengths: descriptor.possible_length().to_vec(),
            national: compile(descriptor.national_number().as_str())?,
        })
    }

    /// `Descriptor::is_match`.
    fn is_match(&self, national: &str) -> bool {
        let length = u16::try_from(national.len()).unwrap_or(u16::MAX);
        (self.lengths.is_empty() || self.lengths.contains(&length))
            && matches_at_start(&self.national, national)
    }
}

/// One region sharing the calling code (US, CA, the Caribbean ...).
struct Region {
    leading_digits: Option<Regex>,
    general: Pattern,
    /// Every type `number_type` can answer besides `Unknown`.
    types: Vec<Pattern>,
}

impl Region {
    fn of(meta: &Metadata) -> Option<Region> {
        let d = meta.descriptors();
        let kinds = [
            d.premium_rate(),
            d.toll_free(),
            d.shared_cost(),
            d.voip(),
            d.personal_number(),
            d.pager(),
            d.uan(),
            d.voicemail(),
            d.fixed_line(),
            d.mobile(),
        ];
        Some(Region {
            leading_digits: match meta.leading_digits() {
                Some(pattern) => Some(compile(pattern.as_str())?),
                None => None,
            },
            general: Pattern::of(d.general())?,
            types: kinds
                .into_iter()
                .flatten()
                .map(Pattern::of)
                .collect::<Option<_>>()?,
        })
    }

    /// `number_type(..) != Type::Unknown`: the general pattern and one type's pattern match.
    fn has_type(&self, national: &str) -> bool {
        self.general.is_match(national) && self.types.iter().any(|t| t.is_match(national))
    }
}

/// The calling code's regions in the database's order; `None` if a pattern did not compile
/// (never with the crate's metadata), and the caller then asks the crate itself.
fn regions() -> Option<&'static [Region]> {
    static REGIONS: OnceLock<Option<Vec<Region>>> = OnceLock::new();
    REGIONS
        .get_or_init(|| {
            DATABASE
                .region(&NANP)?
                .into_iter()
                .map(|id| Region::of(DATABASE.by_id(id)?))
                .collect()
        })
        .as_deref()
}

/// `phonenumber::is_valid` of `+1` and `national`: the region is the first whose leading digits
/// start the number or, for one without them, that has a type for it (`source_for`); the number
/// is valid when that region has a type for it. `None` when the compiled patterns are missing.
pub(super) fn is_valid(national: &str) -> Option<bool> {
    for region in regions()? {
        match &region.leading_digits {
            Some(leading) if matches_at_start(leading, national) => {
                return Some(region.has_type(national))
            }
            Some(_) => {}
            None if region.has_type(national) => return Some(true),
            None => {}
        }
    }
    Some(false)
}
