//! Normalisation of a validated submission (contract 3.2): what can be read is rewritten to its
//! canonical form, what cannot becomes a warning (contract 3.1) instead of a rejection.
use chrono::{Datelike, NaiveDate};

use crate::address::AddressKey;
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::search::source_slug;
use crate::parse::{
    clean_text, normalize_email, normalize_phone, normalize_url, normalize_zip,
    parse_lot_size_acres, parse_permit_date_as_of, zip_in_state, zip_states, StateCode,
};

/// The phone slots, in the order they are filled (shared with `merge`).
pub(super) const PHONE_FIELDS: [&str; 5] =
    ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"];
/// The e-mail slots, in the order they are filled (shared with `merge`).
pub(super) const EMAIL_FIELDS: [&str; 3] = ["email_1", "email_2", "email_3"];

/// A submission after normalisation, with what was derived from it and what could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct NormalizedLead {
    /// The normalised values.
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    pub address_key: Option<AddressKey>,
    pub warnings: Vec<Warning>,
}

/// Normalises a submission that passed the request rules. `current_year` is for two-digit
/// permit years (see `parse_permit_date_as_of`), so callers holding a clock get a stable answer.
pub fn normalize(raw: &LeadFields, current_year: i32) -> NormalizedLead {
    // Cleaning first means every later rule sees trimmed text, and a blank value is absent.
    let mut f = raw.map_strings(clean_text);
    let mut warnings = Vec::new();

    upper_state(&mut f.state);
    upper_state(&mut f.mail_state);
    zip(
        &mut f.zip_code,
        "zip_code",
        f.state.as_deref(),
        &mut warnings,
    );
    zip(
        &mut f.mail_zip,
        "mail_zip",
        f.mail_state.as_deref(),
        &mut warnings,
    );

    let phones = [
        &mut f.primary_phone,
        &mut f.phone_2,
        &mut f.phone_3,
        &mut f.phone_4,
        &mut f.phone_5,
    ];
    // An invalid number is dropped from the lead (contract 3.1): a dialer or CRM fed
    // `call me` or `000-000-0000` gets nothing useful. The verbatim submission keeps it.
    normalize_slots(
        PHONE_FIELDS.into_iter().zip(phones),
        &mut warnings,
        &PHONE_RULE,
    );
    let emails = [&mut f.email_1, &mut f.email_2, &mut f.email_3];
    // An unusable address is dropped (contract 3.1); the raw submission still holds it.
    normalize_slots(
        EMAIL_FIELDS.into_iter().zip(emails),
        &mut warnings,
        &EMAIL_RULE,
    );

    // A date that is not one (`13/45/2025`) is dropped rather than stored: a filter or sort by
    // permit date could not use it (contract 3.1); the verbatim submission keeps it.
    if let Some(date) = f.permit_date.take() {
        match parse_permit_date_as_of(&date, current_year) {
            Some(d) => f.permit_date = Some(iso_date(d)),
            None => warnings.push(Warning::new(
                "permit_date",
                "unparsed_date",
                format!("'{date}' could not be read as a date; dropped"),
            )),
        }
    }

    // lot_size itself stays as written: the acres are derived, and the text may say more.
    let lot_size_acres = f.lot_size.as_deref().and_then(parse_lot_size_acres);
    if let (Some(size), None) = (&f.lot_size, lot_size_acres) {
        warnings.push(Warning::new(
            "lot_size",
            "unparsed_lot_size",
            format!("'{size}' could not be read as a size with a unit (acres, sq ft, ...)"),
        ));
    }

    // One channel, one value to filter and count by, however it was written.
    f.source = f.source.as_deref().and_then(source_slug);

    // Validation already checked these against their lists case-insensitively.
    for slot in [&mut f.property_type, &mut f.primary_phone_type] {
        *slot = slot.as_deref().map(str::to_lowercase);
    }

    if let Some(url) = f.related_url.take() {
        f.related_url = normalize_url(&url);
        if f.related_url.is_none() {
            warnings.push(Warning::new(
                "related_url",
                "invalid_url",
                format!("'{url}' is not an http(s) URL; dropped"),
            ));
        }
    }

    let address_key = f.address.as_deref().and_then(|address| {
        AddressKey::parse(
            address,
            f.city.as_deref(),
            f.state.as_deref(),
            f.zip_code.as_deref(),
        )
    });
    if address_key.is_none() {
        let why = match &f.address {
            None => "no address given".to_owned(),
            Some(a) => format!("'{a}' has no readable house number and street"),
        };
        warnings.push(Warning::new(
            "address",
            "no_address",
            format!("{why}; no duplicate check possible"),
        ));
    }

    NormalizedLead {
        fields: f,
        lot_size_acres,
        address_key,
        warnings,
    }
}

/// Why normalising drops `value` (cleaned, not blank) of `field`, so that the lead would hold
/// nothing of it: a phone, an e-mail, a permit date or a related URL that cannot be read, or a
/// source without a letter or digit. None: something of it is kept (every other field keeps
/// what it is given, warned or not). Intake drops such a value with a warning, since the
/// submission keeps it verbatim; an edit, which has no verbatim copy, refuses it instead.
pub fn dropped_value(field: &str, value: &str, current_year: i32) -> Option<String> {
    let (kept, why) = match field {
        f if PHONE_FIELDS.contains(&f) => (
            normalize_phone(value).is_some(),
            "is not a valid phone number",
        ),
        f if EMAIL_FIELDS.contains(&f) => (
            normalize_email(value).is_some(),
            "is not a valid e-mail address",
        ),
        "permit_date" => (
            parse_permit_date_as_of(value, current_year).is_some(),
            "could not be read as a date",
        ),
        "related_url" => (normalize_url(value).is_some(), "is not an http(s) URL"),
        "source" => (
            source_slug(value).is_some(),
            "has no letter or digit to name a source by",
        ),
        _ => return None,
    };
    (!kept).then(|| format!("'{value}' {why}"))
}

/// Upper-cases a state code. Validation guarantees a listed code; the plain upper-casing fallback
/// only keeps this function total should it ever be called on unvalidated input.
/// `YYYY-MM-DD`, as chrono's `%Y-%m-%d` writes a date of years 0 to 9999 (all a permit date can
/// have), without parsing a format string for every lead.
fn iso_date(d: NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
}

fn upper_state(slot: &mut Option<String>) {
    if let Some(s) = slot {
        *s = StateCode::parse(s).map_or_else(|| s.to_uppercase(), |c| c.as_str().to_owned());
    }
}

/// A ZIP to `12345` / `12345-6789`; anything else is kept (it is still information) and warned.
/// A 4-digit ZIP gets its lost leading zero only when the padded ZIP belongs to `state` (or no
/// state is given): `7520` for Dallas, TX is a typo, not the New Jersey ZIP `07520`. A ZIP of
/// another state than `state` is kept with `zip_state_mismatch` (one of them is wrong).
fn zip(slot: &mut Option<String>, field: &str, state: Option<&str>, warnings: &mut Vec<Warning>) {
    let Some(value) = slot else {
        return;
    };
    let Some(z) = normalize_zip(value) else {
        warnings.push(Warning::new(
            field,
            "invalid_zip",
            format!("'{value}' is not a ZIP code (12345 or 12345-6789); kept as given"),
        ));
        return;
    };
    let state = state.and_then(StateCode::parse);
    let padded = z.starts_with('0') && !value.trim_start().starts_with('0');
    let belongs = |code: StateCode| zip_in_state(&z, code.as_str());
    if padded && state.is_some_and(|code| belongs(code) != Some(true)) {
        warnings.push(Warning::new(
            field,
            "invalid_zip",
            format!(
                "'{value}' is not a ZIP code of the lead's state (a digit missing?); kept as given"
            ),
        ));
        return;
    }
    if let Some(code) = state {
        if belongs(code) == Some(false) {
            let owners = zip_states(&z).unwrap_or_default().replace(' ', "/");
            warnings.push(Warning::new(
                field,
                "zip_state_mismatch",
                format!("ZIP {z} belongs to {owners}, not {code}; kept"),
            ));
        }
    }
    *value = z;
}

/// What a group of contact slots holds: `normalize` reads a value (None: dropped, with a warning
/// of `code` saying the value is not `what`).
struct SlotRule {
    normalize: fn(&str) -> Option<String>,
    code: &'static str,
    what: &'static str,
}

const PHONE_RULE: SlotRule = SlotRule {
    normalize: normalize_phone,
    code: "invalid_phone",
    what: "a valid phone number",
};

const EMAIL_RULE: SlotRule = SlotRule {
    normalize: normalize_email,
    code: "invalid_email",
    what: "a valid e-mail address",
};

/// Normalises one group of contact slots by its `rule`, drops a value repeating an earlier one of
/// the group, and moves the rest into the first slots in order, so the slots read as a set
/// without holes (merge fills the first empty slot).
fn normalize_slots<'a>(
    slots: impl Iterator<Item = (&'static str, &'a mut Option<String>)>,
    warnings: &mut Vec<Warning>,
    rule: &SlotRule,
) {
    let mut slots: Vec<_> = slots.collect();
    let mut kept: Vec<String> = Vec::new();
    for (name, slot) in &mut slots {
        let Some(value) = slot.take() else { continue };
        match (rule.normalize)(&value) {
            Some(v) if !kept.contains(&v) => kept.push(v),
            Some(_) => {}
            None => warnings.push(Warning::new(
                name,
                rule.code,
                format!("'{value}' is not {}; dropped", rule.what),
            )),
        }
    }
    let mut kept = kept.into_iter();
    for (_, slot) in slots {
        *slot = kept.next();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{field_codes, phones, s, with_strings};

    const YEAR: i32 = 2026;

    #[test]
    fn iso_date_writes_as_chrono_does() {
        for (y, m, d) in [
            (2025, 1, 5),
            (1999, 12, 31),
            (5, 3, 9),
            (9999, 12, 31),
            (0, 1, 1),
        ] {
            let date = NaiveDate::from_ymd_opt(y, m, d).unwrap();
            assert_eq!(iso_date(date), date.format("%Y-%m-%d").to_string());
        }
    }

    /// A lead that normalises without any warning.
    fn good() -> LeadFields {
        LeadFields {
            address: s("123 Main Street"),
            city: s("Austin"),
            state: s("tx"),
            zip_code: s("78701"),
            ..LeadFields::default()
        }
    }

    /// `good()` with these string fields, by name.
    fn good_with(fields: &[(&str, &str)]) -> LeadFields {
        with_strings(good(), fields)
    }

    /// `good_with(fields)`, normalised.
    fn normalized_with(fields: &[(&str, &str)]) -> NormalizedLead {
        normalize(&good_with(fields), YEAR)
    }

    #[test]
    fn a_clean_lead_has_no_warnings_and_an_address_key() {
        let n = normalize(&good(), YEAR);
        assert!(n.warnings.is_empty(), "{:?}", n.warnings);
        let key = n.address_key.expect("key");
        assert_eq!(key.number, "123");
        assert_eq!(key.street, "MAIN ST");
        assert_eq!(key.zip5.as_deref(), Some("78701"));
    }

    #[test]
    fn every_string_is_trimmed_collapsed_and_blank_is_absent() {
        let n = normalized_with(&[
            ("first_name", "  Ann \t  Lee \n"),
            ("county", "   "),
            ("project_description", "new\n\nroof"),
            ("source", ""),
        ]);
        assert_eq!(n.fields.first_name, s("Ann Lee"));
        assert_eq!(n.fields.county, None);
        assert_eq!(n.fields.project_description, s("new roof"));
        assert_eq!(n.fields.source, None);
        assert_eq!(n.fields.city, s("Austin"));
    }

    #[test]
    fn states_are_upper_case() {
        let n = normalized_with(&[("state", " tx "), ("mail_state", "Ca")]);
        assert_eq!(n.fields.state, s("TX"));
        assert_eq!(n.fields.mail_state, s("CA"));
    }

    #[test]
    fn zips_are_normalised_or_kept_with_invalid_zip() {
        let n = normalized_with(&[("zip_code", "787011234"), ("mail_zip", " ABC12 ")]);
        assert_eq!(n.fields.zip_code, s("78701-1234"));
        assert_eq!(n.fields.mail_zip, s("ABC12"));
        assert_eq!(field_codes(&n.warnings), [("mail_zip", "invalid_zip")]);

        // good() is in TX: 07870 would be a New Jersey ZIP, so no zero is added.
        let n = normalized_with(&[("zip_code", "7870")]);
        assert_eq!(n.fields.zip_code, s("7870"));
        assert_eq!(field_codes(&n.warnings), [("zip_code", "invalid_zip")]);
        let n = normalized_with(&[("zip_code", "2134"), ("state", "ma")]);
        assert_eq!(n.fields.zip_code, s("02134"));
        assert!(n.warnings.is_empty(), "{:?}", n.warnings);
        let n = normalize(
            &LeadFields {
                zip_code: s("7520"),
                state: None,
                ..good()
            },
            YEAR,
        );
        assert_eq!(n.fields.zip_code, s("07520"));
        let n = normalized_with(&[("zip_code", "12")]);
        assert_eq!(n.fields.zip_code, s("12"));
        assert_eq!(field_codes(&n.warnings), [("zip_code", "invalid_zip")]);
    }

    #[test]
    fn a_zip_of_another_state_is_kept_with_zip_state_mismatch() {
        let n = normalized_with(&[("zip_code", "07520")]);
        assert_eq!(n.fields.zip_code, s("07520"));
        assert_eq!(
            field_codes(&n.warnings),
            [("zip_code", "zip_state_mismatch")]
        );
        assert!(n.warnings[0].message.contains("NJ"), "{:?}", n.warnings);
        let n = normalized_with(&[("mail_zip", "10001"), ("mail_state", "NY")]);
        assert!(n.warnings.is_empty(), "{:?}", n.warnings);
        let n = normalized_with(&[("mail_zip", "10001"), ("mail_state", "CA")]);
        assert_eq!(
            field_codes(&n.warnings),
            [("mail_zip", "zip_state_mismatch")]
        );
        // A prefix shared by two states fits both; one nobody uses says nothing.
        let n = normalized_with(&[("zip_code", "72643"), ("state", "MO")]);
        assert!(n.warnings.is_empty(), "{:?}", n.warnings);
        let n = normalized_with(&[("zip_code", "00001")]);
        assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    }

    #[test]
    fn phones_become_e164_and_are_deduplicated_and_compacted() {
        // (the phones given, the five slots after normalising, the warnings)
        type Case<'a> = (
            &'a [(&'a str, &'a str)],
            [Option<&'a str>; 5],
            &'a [(&'a str, &'a str)],
        );
        let cases: [Case; 3] = [
            // A phone that is not valid is dropped with invalid_phone, the rest compacted.
            (
                &[
                    ("primary_phone", "(512) 555-0100"),
                    ("phone_2", "1-800-FLOWERS"),
                    ("phone_3", "512.555.0101 x12"),
                    ("phone_4", "000-000-0000"),
                    ("phone_5", "call me"),
                ],
                [
                    Some("+15125550100"),
                    Some("+15125550101;ext=12"),
                    None,
                    None,
                    None,
                ],
                &[
                    ("phone_2", "invalid_phone"),
                    ("phone_4", "invalid_phone"),
                    ("phone_5", "invalid_phone"),
                ],
            ),
            // Repeated phones are dropped and the rest compacted.
            (
                &[
                    ("primary_phone", "(512) 555-0100"),
                    ("phone_2", "512.555.0100"),
                    ("phone_4", "+1 512 555 0199"),
                    ("phone_5", "5125550100"),
                ],
                [Some("+15125550100"), Some("+15125550199"), None, None, None],
                &[],
            ),
            // A gap is closed too, so the first slot always holds the first number given.
            (
                &[("phone_3", "5125550100")],
                [Some("+15125550100"), None, None, None, None],
                &[],
            ),
        ];
        for (given, slots, warnings) in cases {
            let n = normalized_with(given);
            assert_eq!(phones(&n.fields), slots, "{given:?}");
            assert_eq!(field_codes(&n.warnings), warnings, "{given:?}");
        }
    }

    #[test]
    fn emails_are_lower_cased_invalid_dropped_and_repeats_removed() {
        let n = normalized_with(&[
            ("email_1", "n/a"),
            ("email_2", " Ann@Example.COM "),
            ("email_3", "ann@example.com"),
        ]);
        assert_eq!(n.fields.email_1, s("ann@example.com"));
        assert_eq!(n.fields.email_2, None);
        assert_eq!(n.fields.email_3, None);
        assert_eq!(field_codes(&n.warnings), [("email_1", "invalid_email")]);
    }

    #[test]
    fn permit_dates_become_iso_or_are_dropped_with_unparsed_date() {
        let date = |v: &str, year| {
            normalize(
                &LeadFields {
                    permit_date: s(v),
                    ..good()
                },
                year,
            )
            .fields
            .permit_date
        };
        assert_eq!(date("Jan 5, 2025", YEAR), s("2025-01-05"));
        assert_eq!(date("01/05/2025", YEAR), s("2025-01-05"));
        // Two-digit years follow the year passed in, not the clock.
        assert_eq!(date("1/5/40", YEAR), s("1940-01-05"));
        assert_eq!(date("1/5/40", 2035), s("2040-01-05"));

        let n = normalized_with(&[("permit_date", " soon  ish ")]);
        assert_eq!(n.fields.permit_date, None);
        assert_eq!(field_codes(&n.warnings), [("permit_date", "unparsed_date")]);
        let n = normalized_with(&[("permit_date", "13/45/2025")]);
        assert_eq!(n.fields.permit_date, None);
        assert_eq!(field_codes(&n.warnings), [("permit_date", "unparsed_date")]);
    }

    #[test]
    fn lot_size_is_kept_and_read_as_acres_or_warned() {
        let n = normalized_with(&[("lot_size", " 10,890  sqft ")]);
        assert_eq!(n.fields.lot_size, s("10,890 sqft"));
        assert_eq!(n.lot_size_acres, Some(0.25));
        assert!(n.warnings.is_empty());

        let n = normalized_with(&[("lot_size", "9000")]);
        assert_eq!(n.fields.lot_size, s("9000"));
        assert_eq!(n.lot_size_acres, None);
        assert_eq!(
            field_codes(&n.warnings),
            [("lot_size", "unparsed_lot_size")]
        );
    }

    #[test]
    fn enumerations_are_lower_case() {
        let n = normalized_with(&[
            ("property_type", "Vacant_Land"),
            ("primary_phone_type", "MOBILE"),
        ]);
        assert_eq!(n.fields.property_type, s("vacant_land"));
        assert_eq!(n.fields.primary_phone_type, s("mobile"));
    }

    #[test]
    fn urls_are_normalised_or_dropped_with_invalid_url() {
        let n = normalize(
            &good_with(&[("related_url", "HTTPS://Example.COM:443/Permit")]),
            YEAR,
        );
        assert_eq!(n.fields.related_url, s("https://example.com/Permit"));
        assert!(n.warnings.is_empty());

        let n = normalized_with(&[("related_url", "javascript:alert(1)")]);
        assert_eq!(n.fields.related_url, None);
        assert_eq!(field_codes(&n.warnings), [("related_url", "invalid_url")]);
    }

    #[test]
    fn a_missing_or_unreadable_address_warns_no_address() {
        let n = normalize(
            &LeadFields {
                address: None,
                ..good()
            },
            YEAR,
        );
        assert_eq!(n.address_key, None);
        assert_eq!(field_codes(&n.warnings), [("address", "no_address")]);

        let n = normalized_with(&[("address", "  ")]);
        assert_eq!(field_codes(&n.warnings), [("address", "no_address")]);

        let n = normalized_with(&[("address", "Main Street")]);
        assert_eq!(n.address_key, None);
        assert_eq!(n.fields.address, s("Main Street"));
        assert_eq!(field_codes(&n.warnings), [("address", "no_address")]);
    }

    #[test]
    fn numbers_pass_through() {
        let raw = LeadFields {
            bedrooms: Some(3),
            latitude: Some(30.25),
            longitude: Some(-97.75),
            ..good()
        };
        let n = normalize(&raw, YEAR);
        assert_eq!(n.fields.bedrooms, Some(3));
        assert_eq!(n.fields.latitude, Some(30.25));
        assert_eq!(n.fields.longitude, Some(-97.75));
    }

    #[test]
    fn normalising_twice_changes_nothing_more() {
        let once = normalized_with(&[
            ("primary_phone", "512 555 0100"),
            ("email_2", "A@B.CO"),
            ("permit_date", "1/5/25"),
            ("related_url", "example.com"),
            ("property_type", "Commercial"),
        ]);
        let twice = normalize(&once.fields, YEAR);
        assert_eq!(once.fields, twice.fields);
        assert_eq!(once.address_key, twice.address_key);
    }

    #[test]
    fn dropped_value_says_what_normalising_leaves_nothing_of() {
        let cases = [
            ("primary_phone", "555-1234"),
            ("phone_3", "(512) 555-0100"),
            ("email_2", "dup@example"),
            ("email_1", "A@B.CO"),
            ("permit_date", "next tuesday"),
            ("permit_date", "1/5/25"),
            ("related_url", "not a url"),
            ("related_url", "example.com"),
            ("source", "---"),
            ("source", "Permit Scrape"),
            ("zip_code", "ABC12"),
            ("lot_size", "big"),
        ];
        for (field, value) in cases {
            let n = normalized_with(&[(field, value)]);
            // A contact value may move to an earlier slot: any slot of its group holds it.
            let group: &[&str] = if PHONE_FIELDS.contains(&field) {
                &PHONE_FIELDS
            } else if EMAIL_FIELDS.contains(&field) {
                &EMAIL_FIELDS
            } else {
                std::slice::from_ref(&field)
            };
            let held = group
                .iter()
                .any(|f| n.fields.string_field(f).cloned().flatten().is_some());
            let dropped = dropped_value(field, value, YEAR);
            assert_eq!(dropped.is_some(), !held, "{field}: {value} ({dropped:?})");
        }
        assert_eq!(
            dropped_value("primary_phone", "555-1234", YEAR).as_deref(),
            Some("'555-1234' is not a valid phone number")
        );
    }
}
