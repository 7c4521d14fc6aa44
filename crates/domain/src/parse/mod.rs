//! Parsers and normalisers for the free-form values of leads and businesses (contract 3.2).
//!
//! Each returns `Option`: `Some(normalised)` or `None` when the value cannot be used, so the submission
//! pipeline decides what becomes a 422 (a bad `state`) and what a validation warning (`invalid_phone`,
//! `unparsed_date`, ...). None of them panics, whatever the input.

mod date;
mod email;
mod lot_size;
mod person_name;
mod phone;
mod phone_nanp;
mod state;
mod state_names;
mod text;
mod url;
mod zip;
mod zip_state;

pub use date::{parse_permit_date, parse_permit_date_as_of};
pub use email::normalize_email;
pub use lot_size::parse_lot_size_acres;
pub use person_name::{split_person_name, PersonName};
pub use phone::{display_phone, normalize_phone};
pub use state::{InvalidStateCode, StateCode};
pub use state_names::state_from_name;
pub use text::{clean_note, clean_text};
pub use url::{normalize_url, url_domain};
pub use zip::normalize_zip;
pub use zip_state::{zip_in_state, zip_states};

/// Checks of a parser against a list of cases, shared by the parsers' tests.
#[cfg(test)]
pub(crate) mod test_cases {
    use std::fmt::Debug;

    use proptest::prelude::*;

    /// Checks that `norm` turns each input into its expected output.
    pub fn assert_normalises(norm: impl Fn(&str) -> Option<String>, cases: &[(&str, &str)]) {
        for (input, want) in cases {
            assert_eq!(norm(input).as_deref(), Some(*want), "{input:?}");
        }
    }

    /// What no parser takes for a value: blanks and placeholders.
    const PLACEHOLDERS: [&str; 5] = ["", "  ", "\t\n", "n/a", "none"];

    /// Checks that `parse` refuses each input, and every placeholder.
    pub fn assert_refuses<T: Debug>(parse: impl Fn(&str) -> Option<T>, inputs: &[&str]) {
        for input in PLACEHOLDERS.iter().chain(inputs) {
            let got = parse(input);
            assert!(got.is_none(), "{input:?} became {got:?}");
        }
    }

    /// Checks that `norm` leaves its own output as it is; returns that output.
    pub fn check_idempotent(
        norm: impl Fn(&str) -> Option<String>,
        input: &str,
    ) -> Result<Option<String>, TestCaseError> {
        let once = norm(input);
        if let Some(once) = &once {
            prop_assert_eq!(norm(once), Some(once.clone()));
        }
        Ok(once)
    }
}
