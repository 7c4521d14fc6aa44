//! What the survivor of a merge holds: the contract's merge rules (3.3, `lead::merge_into`)
//! applied with the survivor's values winning wherever both leads have one.
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::lead::barred::BarredNumbers;
use crate::lead::fields::{LeadFields, Warning, ADDRESS_FIELDS, STRING_FIELDS};
use crate::lead::merge::merge_into;
use crate::lead::normalize::{EMAIL_FIELDS, PHONE_FIELDS};
use crate::lead::record::{EnrichmentStatus, GeocodeInfo, Lead};

/// One field's value before and after, as the API writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    pub old: Value,
    pub new: Value,
}

/// The duplicate-check keys of an address (as intake stores them, `lead::plan`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PropertyKeys {
    /// `AddressKey::street_key`; None without a readable address.
    pub street_key: Option<String>,
    /// `AddressKey::full_key`; None without a locality (no ZIP, and not both city and state).
    pub address_key: Option<String>,
}

impl PropertyKeys {
    /// The keys of these fields' address.
    pub fn of(fields: &LeadFields) -> PropertyKeys {
        let Some(key) = fields.address_key() else {
            return PropertyKeys::default();
        };
        let (street, address_key) = key.stored_keys();
        PropertyKeys {
            street_key: Some(street),
            address_key,
        }
    }
}

/// The survivor after the merge: every value to write, and what changed.
#[derive(Debug, Clone, PartialEq)]
pub struct SurvivorUpdate {
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    pub geocode: Option<GeocodeInfo>,
    pub county_fips: Option<String>,
    pub appraisal: Option<Value>,
    pub enrichment_status: EnrichmentStatus,
    /// Some when an address field changed: the keys to store (they may be None).
    pub keys: Option<PropertyKeys>,
    /// Field -> old and new value, for every field of the lead that changed.
    pub changes: BTreeMap<String, FieldChange>,
    /// Marked when either lead was: a "don't call me" holds whichever lead heard it.
    pub do_not_call: bool,
    /// Both leads' tags, sorted, each once.
    pub tags: Vec<String>,
    /// Both leads' barred numbers, the survivor's first, each once: the merged lead's numbers
    /// among them are not taken.
    pub barred: BarredNumbers,
    /// The merged lead's phones or e-mails that found no free slot (`contact_slots_full`);
    /// they stay readable on the merged lead.
    pub warnings: Vec<Warning>,
}

/// Records the list `name` going from `old` to `new`, when they differ.
fn list_change(
    changes: &mut BTreeMap<String, FieldChange>,
    name: &str,
    old: &[String],
    new: &[String],
) {
    if old != new {
        let change = FieldChange {
            old: Value::from(old.to_vec()),
            new: Value::from(new.to_vec()),
        };
        changes.insert(name.to_owned(), change);
    }
}

/// Merges `merged` into `survivor`: a field only the merged lead has fills the survivor's gap,
/// a field both have keeps the survivor's value; phones and e-mails merge as sets into the
/// survivor's slots (5 phones, 3 e-mails), the survivor's own numbers first.
///
/// Values that come in pairs travel together: coordinates with their geocode, `lot_size` with
/// its acres, the primary phone's type with the number it describes.
pub fn combine(survivor: &Lead, merged: &Lead) -> SurvivorUpdate {
    let mut fields = survivor.fields.clone();
    let barred = survivor.work.barred.joined(&merged.work.barred);
    let taken = gaps(&survivor.fields, &merged.fields);
    let outcome = merge_into(&mut fields, &taken, &barred);

    let coordinates_taken = survivor.fields.latitude.is_none() && fields.latitude.is_some();
    let lot_size_taken = survivor.fields.lot_size.is_none() && fields.lot_size.is_some();
    let keys = ADDRESS_FIELDS
        .iter()
        .any(|name| survivor.fields.string_field(name) != fields.string_field(name))
        .then(|| PropertyKeys::of(&fields));

    let do_not_call = survivor.work.do_not_call || merged.work.do_not_call;
    let tags: Vec<String> = survivor
        .work
        .tags
        .iter()
        .chain(&merged.work.tags)
        .cloned()
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    let mut changes = changes(&survivor.fields, &fields);
    if do_not_call != survivor.work.do_not_call {
        changes.insert(
            "do_not_call".into(),
            FieldChange {
                old: Value::Bool(false),
                new: Value::Bool(true),
            },
        );
    }
    for (name, old, new) in barred.changes_from(&survivor.work.barred) {
        changes.insert(name.to_owned(), FieldChange { old, new });
    }
    list_change(&mut changes, "tags", &survivor.work.tags, &tags);
    SurvivorUpdate {
        do_not_call,
        tags,
        barred,
        lot_size_acres: if lot_size_taken {
            merged.lot_size_acres
        } else {
            survivor.lot_size_acres
        },
        geocode: if coordinates_taken {
            merged.geocode.clone()
        } else {
            survivor.geocode.clone()
        },
        county_fips: survivor
            .county_fips
            .clone()
            .or_else(|| merged.county_fips.clone()),
        appraisal: survivor
            .appraisal
            .clone()
            .or_else(|| merged.appraisal.clone()),
        // `skipped` says no stage applied to the survivor; the merged lead's word is the
        // truer one for what it brings (its coordinates, its appraisal).
        enrichment_status: match survivor.enrichment_status {
            EnrichmentStatus::Skipped => merged.enrichment_status,
            other => other,
        },
        keys,
        changes,
        warnings: outcome.warnings,
        fields,
    }
}

/// What `merge_into` is to add to the survivor: the merged lead's values where the survivor has
/// none, and all of its phones and e-mails (merged as sets). `merge_into` overwrites with what
/// it is given, so giving it only the gaps is what makes the survivor win.
fn gaps(survivor: &LeadFields, merged: &LeadFields) -> LeadFields {
    let contact = |name: &str| PHONE_FIELDS.contains(&name) || EMAIL_FIELDS.contains(&name);
    let mut gaps = merged.clone();
    for name in STRING_FIELDS {
        let survivor_has = survivor.string_field(name).is_some_and(Option::is_some);
        // The type describes the survivor's primary number when it has one; without a number
        // of its own, a type it holds describes nothing and the merged number's type may come.
        let keep_type = name == "primary_phone_type"
            && (survivor.primary_phone.is_none() || survivor.primary_phone_type.is_none());
        if contact(name) || keep_type || !survivor_has {
            continue;
        }
        if let Some(slot) = gaps.string_field_mut(name) {
            *slot = None;
        }
    }
    if survivor.bedrooms.is_some() {
        gaps.bedrooms = None;
    }
    // Latitude and longitude are one position: taken together or not at all.
    if survivor.latitude.is_some() || survivor.longitude.is_some() {
        gaps.latitude = None;
        gaps.longitude = None;
    }
    gaps
}

/// Field -> {old, new} for each field whose value differs, by its API name.
fn changes(before: &LeadFields, after: &LeadFields) -> BTreeMap<String, FieldChange> {
    let (Ok(Value::Object(old)), Ok(Value::Object(new))) =
        (serde_json::to_value(before), serde_json::to_value(after))
    else {
        return BTreeMap::new();
    };
    new.into_iter()
        .filter_map(|(name, new)| {
            let old = old.get(&name).cloned().unwrap_or(Value::Null);
            (old != new).then_some((name, FieldChange { old, new }))
        })
        .collect()
}
