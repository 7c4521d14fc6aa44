//! An edit of a lead's fields: the values a PATCH names laid over the stored ones, normalised by
//! intake's own rules (`lead::normalize`), and what changed, field by field.
use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use crate::address::AddressKey;
use crate::error::{FieldError, LocPart};
use crate::lead::fields::{LeadFields, Warning, ADDRESS_FIELDS};
use crate::lead::normalize::{dropped_value, normalize};
use crate::parse::clean_text;

/// The lead fields a PATCH names, with their new raw values (`None` clears the field).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldPatch {
    pub values: LeadFields,
    pub given: BTreeSet<String>,
}

impl FieldPatch {
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }
}

/// The lead's fields after an edit.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldEdit {
    /// Every field, normalised.
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    /// Field -> {"old", "new"}, for the fields whose stored value changes.
    pub changes: Map<String, Value>,
    /// What normalising the given values could not use (for the given fields only).
    pub warnings: Vec<Warning>,
    /// Some when the address, city, state or ZIP changed: the new keys (`None` inside: the
    /// address no longer reads as one, so the lead leaves duplicate checks).
    pub keys: Option<Option<AddressKeys>>,
}

/// The stored forms of an address key.
#[derive(Debug, Clone, PartialEq)]
pub struct AddressKeys {
    pub key: AddressKey,
    /// `AddressKey::street_key`.
    pub street_key: String,
    /// `AddressKey::full_key`, None when the locality is unknown (as intake stores it).
    pub address_key: Option<String>,
}

impl AddressKeys {
    pub fn of(key: AddressKey) -> AddressKeys {
        let (street_key, address_key) = key.stored_keys();
        AddressKeys {
            key,
            street_key,
            address_key,
        }
    }
}

/// A 422 for each field the patch gives a value (not blank) that normalising would drop. Intake
/// may drop such a value with a warning because the submission keeps it verbatim; an edit has
/// no such copy, so storing nothing of it would lose what was typed, and clear what was stored
/// (contract 1: a change that does less than it asks is an error). `null` or blank still clears.
pub fn unusable_values(patch: &FieldPatch, current_year: i32) -> Vec<FieldError> {
    patch
        .given
        .iter()
        .filter_map(|field| {
            let value = clean_text(patch.values.string_field(field)?.as_deref()?)?;
            let why = dropped_value(field, &value, current_year)?;
            Some(FieldError::body(
                &[LocPart::from(field.as_str())],
                "value_error",
                format!("Value error, {why}"),
            ))
        })
        .collect()
}

/// Lays `patch` over `current` and normalises the result as intake normalises a submission.
/// Stored values are normalised already, so normalising them again keeps them.
pub fn edit_fields(current: &LeadFields, patch: &FieldPatch, current_year: i32) -> FieldEdit {
    let mut raw = current.clone();
    for name in &patch.given {
        match name.as_str() {
            "bedrooms" => raw.bedrooms = patch.values.bedrooms,
            "latitude" => raw.latitude = patch.values.latitude,
            "longitude" => raw.longitude = patch.values.longitude,
            other => {
                if let (Some(slot), Some(value)) = (
                    raw.string_field_mut(other),
                    patch.values.string_field(other),
                ) {
                    slot.clone_from(value);
                }
            }
        }
    }
    let normalized = normalize(&raw, current_year);
    let changes = changes(current, &normalized.fields);
    let touched = |field: &str| patch.given.contains(field);
    let warnings = normalized
        .warnings
        .into_iter()
        .filter(|w| {
            touched(&w.field) || (w.field == "address" && ADDRESS_FIELDS.iter().any(|f| touched(f)))
        })
        .collect();
    let keys = ADDRESS_FIELDS
        .iter()
        .any(|f| changes.contains_key(*f))
        .then(|| normalized.address_key.map(AddressKeys::of));
    FieldEdit {
        fields: normalized.fields,
        lot_size_acres: normalized.lot_size_acres,
        changes,
        warnings,
        keys,
    }
}

/// Field -> {"old", "new"} for each field whose value differs.
pub fn changes(old: &LeadFields, new: &LeadFields) -> Map<String, Value> {
    let as_map = |f: &LeadFields| match serde_json::to_value(f) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let (old, new) = (as_map(old), as_map(new));
    new.into_iter()
        .filter_map(|(field, value)| {
            let before = old.get(&field).cloned().unwrap_or(Value::Null);
            (before != value).then(|| (field, json!({"old": before, "new": value})))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> LeadFields {
        normalize(
            &LeadFields {
                address: Some("12 Oak St".into()),
                city: Some("Austin".into()),
                state: Some("TX".into()),
                zip_code: Some("78701".into()),
                primary_phone: Some("(512) 555-0100".into()),
                ..LeadFields::default()
            },
            2026,
        )
        .fields
    }

    fn patch(pairs: &[(&str, Option<&str>)]) -> FieldPatch {
        let mut p = FieldPatch::default();
        for (name, value) in pairs {
            *p.values.string_field_mut(name).unwrap() = value.map(str::to_owned);
            p.given.insert((*name).to_owned());
        }
        p
    }

    #[test]
    fn given_values_are_normalised_like_intake_and_only_changes_are_listed() {
        let edit = edit_fields(
            &stored(),
            &patch(&[("state", Some("tx")), ("email_1", Some(" A@B.COM "))]),
            2026,
        );
        assert_eq!(edit.fields.email_1.as_deref(), Some("a@b.com"));
        assert_eq!(edit.fields.primary_phone.as_deref(), Some("+15125550100"));
        assert_eq!(edit.changes.keys().collect::<Vec<_>>(), ["email_1"]);
        assert_eq!(
            edit.changes["email_1"],
            json!({"old": null, "new": "a@b.com"})
        );
        assert_eq!(edit.keys, None, "the address did not change");
    }

    #[test]
    fn a_new_address_gives_new_keys_and_a_cleared_field_is_a_change() {
        let edit = edit_fields(
            &stored(),
            &patch(&[("address", Some("14 oak street")), ("primary_phone", None)]),
            2026,
        );
        let keys = edit.keys.clone().flatten().unwrap();
        assert_eq!(keys.street_key, "14 OAK ST");
        assert_eq!(keys.address_key.as_deref(), Some("14 OAK ST|78701"));
        assert_eq!(
            edit.changes["primary_phone"],
            json!({"old": "+15125550100", "new": null})
        );
    }

    #[test]
    fn warnings_name_only_the_given_fields() {
        let edit = edit_fields(
            &stored(),
            &patch(&[("phone_2", Some("call me")), ("address", Some("Oak"))]),
            2026,
        );
        let codes: Vec<&str> = edit.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["invalid_phone", "no_address"]);
        assert_eq!(edit.keys, Some(None));
    }

    #[test]
    fn a_given_value_normalising_would_drop_is_refused_by_name() {
        let refused = unusable_values(
            &patch(&[
                ("primary_phone", Some("555-1234")),
                ("email_1", Some("dup@example")),
                ("permit_date", Some("next tuesday")),
                ("phone_2", Some("(512) 555-0199")),
                ("zip_code", Some("ABC")),
                ("phone_3", Some("   ")),
                ("email_2", None),
            ]),
            2026,
        );
        let named: Vec<Vec<LocPart>> = refused.iter().map(|p| p.loc.clone()).collect();
        let at = |field: &str| vec![LocPart::from("body"), LocPart::from(field)];
        assert_eq!(
            named,
            [at("email_1"), at("permit_date"), at("primary_phone")],
            "a kept value, a blank and a null clear or change; only dropped values are named"
        );
        assert_eq!(
            refused[2].msg,
            "Value error, '555-1234' is not a valid phone number"
        );
    }
}
