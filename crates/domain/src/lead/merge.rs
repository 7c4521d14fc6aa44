//! Merging a submission into the stored lead of the same property (contract 3.3).
use std::borrow::Cow;

use crate::lead::barred::BarredNumbers;
use crate::lead::fields::{LeadFields, Warning, STRING_FIELDS};
use crate::lead::normalize::{EMAIL_FIELDS, PHONE_FIELDS};

/// What a merge did: whether any stored value changed (`updated` versus `skipped`) and what could
/// not be kept.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeOutcome {
    pub changed: bool,
    pub warnings: Vec<Warning>,
}

/// Merges a normalised submission into a stored lead's fields (contract 3.3).
///
/// Every value the submission supplies overwrites a differing stored one; `None` never erases.
/// Phones and e-mails merge as sets instead, since a second number is extra contact information,
/// not a correction: a new one fills the first empty slot, and one that does not fit is dropped
/// with `contact_slots_full` (the raw submission still holds it).
///
/// `barred` are the lead's numbers a contact found wrong or a do-not-call list flagged
/// (`lead::barred`): each is left out of `incoming` with the warning `wrong_number` or
/// `number_not_to_call`, so it never comes back with a list that still has it.
pub fn merge_into(
    stored: &mut LeadFields,
    incoming: &LeadFields,
    barred: &BarredNumbers,
) -> MergeOutcome {
    let (incoming, mut warnings) = without_barred_numbers(incoming, barred);
    let incoming = incoming.as_ref();
    let mut changed = false;

    for name in STRING_FIELDS {
        // Contact slots and the phone type follow their own rules below.
        if PHONE_FIELDS.contains(&name)
            || EMAIL_FIELDS.contains(&name)
            || name == "primary_phone_type"
        {
            continue;
        }
        if let (Some(Some(new)), Some(slot)) =
            (incoming.string_field(name), stored.string_field_mut(name))
        {
            changed |= overwrite(slot, new);
        }
    }

    if let Some(n) = incoming.bedrooms {
        if stored.bedrooms != Some(n) {
            stored.bedrooms = Some(n);
            changed = true;
        }
    }
    changed |= overwrite_number(&mut stored.latitude, incoming.latitude);
    changed |= overwrite_number(&mut stored.longitude, incoming.longitude);

    changed |= merge_slots(stored, incoming, &PHONE_FIELDS, &mut warnings);
    changed |= merge_slots(stored, incoming, &EMAIL_FIELDS, &mut warnings);

    // The type describes one particular number. It is taken only when the submitted primary
    // number is the stored primary (already, or because it filled the empty primary slot);
    // otherwise it would be pinned on a different number, which is false data. A type sent
    // without a primary number is therefore not taken either.
    if let (Some(kind), Some(phone)) = (&incoming.primary_phone_type, &incoming.primary_phone) {
        if stored.primary_phone.as_ref() == Some(phone) {
            changed |= overwrite(&mut stored.primary_phone_type, kind);
        }
    }

    MergeOutcome { changed, warnings }
}

/// `incoming` without the lead's barred numbers, each left out with its warning. Borrowed as it
/// is when the lead has none (the usual case).
fn without_barred_numbers<'a>(
    incoming: &'a LeadFields,
    barred: &BarredNumbers,
) -> (Cow<'a, LeadFields>, Vec<Warning>) {
    let mut kept = Cow::Borrowed(incoming);
    let mut warnings = Vec::new();
    if barred.is_empty() {
        return (kept, warnings);
    }
    for name in PHONE_FIELDS {
        let Some(Some(number)) = incoming.string_field(name) else {
            continue;
        };
        if let Some(warning) = barred.warning(name, number) {
            warnings.push(warning);
            if let Some(slot) = kept.to_mut().string_field_mut(name) {
                *slot = None;
            }
        }
    }
    (kept, warnings)
}

/// Sets `slot` to `new`; true when that changed it.
fn overwrite(slot: &mut Option<String>, new: &str) -> bool {
    if slot.as_deref() == Some(new) {
        return false;
    }
    *slot = Some(new.to_owned());
    true
}

/// Sets `slot` to `new` when given, comparing by value; true when that changed it.
fn overwrite_number(slot: &mut Option<f64>, new: Option<f64>) -> bool {
    match (new, *slot) {
        // NaN never equals itself; treating two NaNs as the same keeps a self-merge a no-op.
        (Some(n), Some(old)) if n == old || (n.is_nan() && old.is_nan()) => false,
        (Some(n), _) => {
            *slot = Some(n);
            true
        }
        (None, _) => false,
    }
}

/// Set-merge of one group of contact slots: each incoming value (in slot order) that the stored
/// lead lacks goes into the first empty stored slot, or is warned `contact_slots_full`. Values
/// compare exactly, as both sides went through the same normalisation. True when a slot was filled.
fn merge_slots(
    stored: &mut LeadFields,
    incoming: &LeadFields,
    names: &[&str],
    warnings: &mut Vec<Warning>,
) -> bool {
    let mut changed = false;
    for name in names {
        let Some(Some(value)) = incoming.string_field(name) else {
            continue;
        };
        let present = names.iter().any(|n| {
            stored
                .string_field(n)
                .is_some_and(|v| v.as_ref() == Some(value))
        });
        if present {
            continue;
        }
        let empty = names
            .iter()
            .find(|n| stored.string_field(n).is_some_and(Option::is_none))
            .and_then(|n| stored.string_field_mut(n));
        match empty {
            Some(slot) => {
                *slot = Some(value.clone());
                changed = true;
            }
            None => warnings.push(Warning::new(
                name,
                "contact_slots_full",
                format!(
                    "'{value}' was not added: all {} slots are taken",
                    names.len()
                ),
            )),
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{field_codes, phones, s, with_strings};
    use proptest::prelude::*;

    fn stored() -> LeadFields {
        LeadFields {
            address: s("123 Main St"),
            city: s("Austin"),
            first_name: s("Ann"),
            primary_phone: s("+15125550100"),
            primary_phone_type: s("mobile"),
            email_1: s("ann@example.com"),
            bedrooms: Some(3),
            latitude: Some(30.25),
            longitude: Some(-97.75),
            ..LeadFields::default()
        }
    }

    /// Merges an incoming lead with these string fields, by name, into `lead`.
    fn merge_strings(lead: &mut LeadFields, fields: &[(&str, &str)]) -> MergeOutcome {
        merge_into(
            lead,
            &with_strings(LeadFields::default(), fields),
            &BarredNumbers::default(),
        )
    }

    /// One merge: the incoming string fields, whether the lead changes, string fields as they
    /// read after it, the warnings.
    type Step<'a> = (
        &'a [(&'a str, &'a str)],
        bool,
        &'a [(&'a str, Option<&'a str>)],
        &'a [(&'a str, &'a str)],
    );

    /// Merges each step into `lead` in turn, checking what it says.
    fn merge_in_turn(mut lead: LeadFields, steps: &[Step]) {
        for (incoming, changed, after, warnings) in steps {
            let out = merge_strings(&mut lead, incoming);
            assert_eq!(out.changed, *changed, "{incoming:?}");
            for (name, want) in *after {
                let got = lead.string_field(name).and_then(|v| v.as_deref());
                assert_eq!(got, *want, "{name} after {incoming:?}");
            }
            assert_eq!(field_codes(&out.warnings), *warnings, "{incoming:?}");
        }
    }

    #[test]
    fn a_differing_value_overwrites() {
        merge_in_turn(
            stored(),
            &[(
                &[("first_name", "Anne"), ("county", "Travis")],
                true,
                &[
                    ("first_name", Some("Anne")),
                    ("county", Some("Travis")),
                    ("city", Some("Austin")),
                ],
                &[],
            )],
        );
    }

    #[test]
    fn the_same_values_change_nothing() {
        let mut lead = stored();
        // Some of the stored values, the rest absent.
        let incoming = LeadFields {
            address: None,
            city: None,
            longitude: None,
            ..stored()
        };
        let out = merge_into(&mut lead, &incoming, &BarredNumbers::default());
        assert!(!out.changed);
        assert_eq!(lead, stored());
    }

    #[test]
    fn none_never_erases() {
        let mut lead = stored();
        let out = merge_into(&mut lead, &LeadFields::default(), &BarredNumbers::default());
        assert!(!out.changed);
        assert!(out.warnings.is_empty());
        assert_eq!(lead, stored());
    }

    #[test]
    fn numbers_compare_by_value() {
        let mut lead = stored();
        let out = merge_into(
            &mut lead,
            &LeadFields {
                bedrooms: Some(4),
                latitude: Some(30.5),
                longitude: Some(-97.75),
                ..LeadFields::default()
            },
            &BarredNumbers::default(),
        );
        assert!(out.changed);
        assert_eq!(
            (lead.bedrooms, lead.latitude, lead.longitude),
            (Some(4), Some(30.5), Some(-97.75))
        );
    }

    #[test]
    fn a_leads_barred_numbers_are_left_out_of_what_merges_into_it() {
        let incoming = LeadFields {
            primary_phone: Some("+15125550100".into()),
            phone_2: Some("+15125550102".into()),
            city: Some("Austin".into()),
            ..LeadFields::default()
        };
        let mut lead = LeadFields::default();
        assert!(merge_into(&mut lead, &incoming, &BarredNumbers::default())
            .warnings
            .is_empty());
        assert_eq!(lead.primary_phone.as_deref(), Some("+15125550100"));

        let mut lead = LeadFields::default();
        let barred = BarredNumbers {
            wrong: vec!["+15125550100".to_owned()],
            not_to_call: vec!["+15125550102".to_owned()],
        };
        let out = merge_into(&mut lead, &incoming, &barred);
        assert!(out.changed);
        assert_eq!(phones(&lead), [None, None, None, None, None]);
        assert_eq!(lead.city.as_deref(), Some("Austin"));
        assert_eq!(
            field_codes(&out.warnings),
            [
                ("primary_phone", "wrong_number"),
                ("phone_2", "number_not_to_call")
            ]
        );
    }

    #[test]
    fn phones_merge_as_a_set_into_five_slots() {
        // (phones stored besides the primary, phones coming in, whether the lead changes, the
        // five slots after, the warnings)
        type Case<'a> = (
            &'a [(&'a str, &'a str)],
            &'a [(&'a str, &'a str)],
            bool,
            [Option<&'a str>; 5],
            &'a [(&'a str, &'a str)],
        );
        let cases: [Case; 3] = [
            // A new phone fills the first empty slot.
            (
                &[("phone_3", "+15125550103")],
                &[
                    ("primary_phone", "+15125550199"),
                    ("phone_2", "+15125550198"),
                ],
                true,
                [
                    Some("+15125550100"),
                    Some("+15125550199"),
                    Some("+15125550103"),
                    Some("+15125550198"),
                    None,
                ],
                &[],
            ),
            // A known phone is ignored wherever it is stored.
            (
                &[("phone_4", "+15125550104")],
                &[
                    ("primary_phone", "+15125550104"),
                    ("phone_3", "+15125550100"),
                ],
                false,
                [Some("+15125550100"), None, None, Some("+15125550104"), None],
                &[],
            ),
            // A phone beyond five is dropped, with contact_slots_full.
            (
                &[
                    ("phone_2", "+15125550102"),
                    ("phone_3", "+15125550103"),
                    ("phone_4", "+15125550104"),
                    ("phone_5", "+15125550105"),
                ],
                &[
                    ("primary_phone", "+15125550102"),
                    ("phone_2", "+15125550199"),
                ],
                false,
                [
                    Some("+15125550100"),
                    Some("+15125550102"),
                    Some("+15125550103"),
                    Some("+15125550104"),
                    Some("+15125550105"),
                ],
                &[("phone_2", "contact_slots_full")],
            ),
        ];
        for (stored_phones, incoming, changed, slots, warnings) in cases {
            let before = with_strings(stored(), stored_phones);
            let mut lead = before.clone();
            let out = merge_strings(&mut lead, incoming);
            assert_eq!(out.changed, changed, "{incoming:?}");
            assert_eq!(phones(&lead), slots, "{incoming:?}");
            assert_eq!(field_codes(&out.warnings), warnings, "{incoming:?}");
            if !changed {
                assert_eq!(lead, before, "{incoming:?}");
            }
        }
    }

    #[test]
    fn emails_merge_as_a_set_too() {
        merge_in_turn(
            stored(),
            &[
                (
                    &[
                        ("email_1", "bob@example.com"),
                        ("email_2", "ann@example.com"),
                    ],
                    true,
                    &[
                        ("email_1", Some("ann@example.com")),
                        ("email_2", Some("bob@example.com")),
                        ("email_3", None),
                    ],
                    &[],
                ),
                (
                    &[
                        ("email_1", "cy@example.com"),
                        ("email_2", "dee@example.com"),
                        ("email_3", "bob@example.com"),
                    ],
                    true,
                    &[
                        ("email_1", Some("ann@example.com")),
                        ("email_2", Some("bob@example.com")),
                        ("email_3", Some("cy@example.com")),
                    ],
                    &[("email_2", "contact_slots_full")],
                ),
            ],
        );
    }

    #[test]
    fn the_phone_type_follows_the_primary_number() {
        let new_primary = [
            ("primary_phone", "+15125550199"),
            ("primary_phone_type", "voip"),
        ];
        merge_in_turn(
            stored(),
            &[
                // Same primary number: its type is updated.
                (
                    &[
                        ("primary_phone", "+15125550100"),
                        ("primary_phone_type", "landline"),
                    ],
                    true,
                    &[("primary_phone_type", Some("landline"))],
                    &[],
                ),
                // A different primary lands in phone_2: the stored number keeps its type.
                (
                    &new_primary,
                    true,
                    &[
                        ("phone_2", Some("+15125550199")),
                        ("primary_phone_type", Some("landline")),
                    ],
                    &[],
                ),
                // A type without a number is not taken.
                (
                    &[("primary_phone_type", "voip")],
                    false,
                    &[("primary_phone_type", Some("landline"))],
                    &[],
                ),
            ],
        );
        // The type comes with a primary that fills an empty primary slot.
        let no_primary = LeadFields {
            primary_phone: None,
            primary_phone_type: None,
            ..stored()
        };
        merge_in_turn(
            no_primary,
            &[(
                &new_primary,
                true,
                &[
                    ("primary_phone", Some("+15125550199")),
                    ("primary_phone_type", Some("voip")),
                ],
                &[],
            )],
        );
    }

    /// Any lead: each string field absent or one of a few values (so phones and e-mails repeat),
    /// numbers absent or in their valid ranges.
    fn any_lead() -> impl Strategy<Value = LeadFields> {
        let string = proptest::option::of(prop_oneof![
            Just("+15125550100".to_owned()),
            Just("a@b.co".to_owned()),
            "[a-z ]{0,6}",
        ]);
        (
            proptest::collection::vec(string, STRING_FIELDS.len()),
            proptest::option::of(0i64..=100),
            proptest::option::of(-90.0f64..=90.0),
            proptest::option::of(-180.0f64..=180.0),
        )
            .prop_map(|(strings, bedrooms, latitude, longitude)| {
                let mut lead = LeadFields {
                    bedrooms,
                    latitude,
                    longitude,
                    ..LeadFields::default()
                };
                for (name, value) in STRING_FIELDS.iter().zip(strings) {
                    if let Some(slot) = lead.string_field_mut(name) {
                        *slot = value;
                    }
                }
                lead
            })
    }

    proptest! {
        #[test]
        fn merging_a_lead_into_itself_changes_nothing(lead in any_lead()) {
            let mut merged = lead.clone();
            let out = merge_into(&mut merged, &lead, &BarredNumbers::default());
            prop_assert!(!out.changed);
            prop_assert!(out.warnings.is_empty());
            prop_assert_eq!(merged, lead);
        }

        #[test]
        fn merging_twice_changes_nothing_the_second_time(a in any_lead(), b in any_lead()) {
            let mut merged = a;
            merge_into(&mut merged, &b, &BarredNumbers::default());
            let once = merged.clone();
            let out = merge_into(&mut merged, &b, &BarredNumbers::default());
            prop_assert!(!out.changed);
            prop_assert_eq!(merged, once);
        }
    }
}
