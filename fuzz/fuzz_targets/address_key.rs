//! Address normalisation: `AddressKey::parse` and the lead normaliser's address fields on arbitrary
//! text. The input is split at `|` into street line, city, state and ZIP (a part that is not there
//! is `None`), so `123 N Main St Apt 4|Springfield|IL|62701` is a whole address.
//!
//! Checked, beyond "no panic":
//! - a key's parts have their documented shapes (number and street present, ZIP5 five digits and
//!   not 00000, state unchanged by upper-casing);
//! - for street lines of the shape the proptest `any_key_reads_back_as_itself` covers
//!   (`[0-9][0-9A-Za-z #,./'-]*`, at most 41 characters), `street_key()` with the same city, state
//!   and ZIP parses back to the same key;
//! - for address fields that a submission may carry (the API's rules, `read_body`), normalising
//!   twice changes nothing more.
#![no_main]

use leadhub_api::lead_body::SubmittedLead;
use leadhub_domain::address::AddressKey;
use leadhub_domain::lead::{normalize, LeadFields};
use leadhub_http::extract::read_body;
use libfuzzer_sys::fuzz_target;

/// The year `normalize` reads two-digit permit years against; fixed so runs are repeatable.
const YEAR: i32 = 2026;

/// The street lines the proptest claims the read-back property for.
fn proptest_shaped(line: &str) -> bool {
    let mut chars = line.chars();
    chars.next().is_some_and(|c| c.is_ascii_digit())
        && line.chars().count() <= 41
        && chars.all(|c| c.is_ascii_alphanumeric() || " #,./'-".contains(c))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(4, '|');
    let line = parts.next().unwrap_or("");
    let (city, state, zip) = (parts.next(), parts.next(), parts.next());

    if let Some(key) = AddressKey::parse(line, city, state, zip) {
        assert!(!key.number.is_empty() && !key.street.is_empty(), "{key:?}");
        if let Some(zip5) = &key.zip5 {
            assert!(
                zip5.len() == 5 && zip5.bytes().all(|b| b.is_ascii_digit()) && zip5 != "00000",
                "{key:?}"
            );
        }
        if let Some(state) = &key.state {
            // Upper case as far as Unicode has one ('ɾ' has no capital), alphanumeric, and read
            // back as itself ('ǰ' once gave 'J' + U+030C; docs/fuzzing.md).
            assert!(
                !state.is_empty()
                    && state.to_uppercase() == *state
                    && state.chars().all(char::is_alphanumeric),
                "{key:?}"
            );
            let again = AddressKey::parse(line, city, Some(state), zip);
            assert_eq!(again.and_then(|k| k.state).as_ref(), Some(state), "{key:?}");
        }
        let _ = (
            key.street_key(),
            key.locality_key(),
            key.full_key(),
            key.same_property(&key),
        );

        if proptest_shaped(line) {
            // The same city, state and ZIP as given: the property is about the street line.
            let again = AddressKey::parse(&key.street_key(), city, state, zip);
            assert_eq!(
                Some(&key),
                again.as_ref(),
                "street key {:?} of {line:?}",
                key.street_key()
            );
        }
    }

    let raw = LeadFields {
        address: Some(line.to_owned()),
        city: city.map(str::to_owned),
        state: state.map(str::to_owned),
        zip_code: zip.map(str::to_owned),
        ..LeadFields::default()
    };
    let once = normalize(&raw, YEAR);
    let submitted =
        serde_json::json!({"address": line, "city": city, "state": state, "zip_code": zip});
    if read_body::<SubmittedLead>(submitted.to_string().as_bytes()).is_ok() {
        let twice = normalize(&once.fields, YEAR);
        assert_eq!(once.fields, twice.fields);
        assert_eq!(once.address_key, twice.address_key);
    }
});
