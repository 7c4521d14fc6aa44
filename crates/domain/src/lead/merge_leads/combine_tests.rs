use super::*;
use crate::lead::fields::LeadFields;
use crate::lead::record::{EnrichmentStatus, GeocodeInfo};
use crate::test_support::{field_codes, fresh_lead, phones, s};

fn survivor() -> Lead {
    fresh_lead(
        1,
        Some(3),
        LeadFields {
            address: s("123 Main St"),
            city: s("Austin"),
            state: s("TX"),
            zip_code: s("78701"),
            first_name: s("Ann"),
            primary_phone: s("+15125550100"),
            primary_phone_type: s("mobile"),
            email_1: s("ann@example.com"),
            ..LeadFields::default()
        },
        None,
    )
}

fn merged() -> Lead {
    let mut lead = fresh_lead(
        2,
        Some(3),
        LeadFields {
            address: s("123 Mian St"),
            city: s("Austin"),
            state: s("TX"),
            zip_code: s("78701"),
            first_name: s("Anne"),
            last_name: s("Smith"),
            primary_phone: s("+15125550199"),
            primary_phone_type: s("landline"),
            phone_2: s("+15125550100"),
            email_1: s("smith@example.com"),
            lot_size: s("1/4 acre"),
            bedrooms: Some(3),
            latitude: Some(30.27),
            longitude: Some(-97.74),
            ..LeadFields::default()
        },
        Some(0.25),
    );
    lead.geocode = Some(GeocodeInfo {
        source: "census".into(),
        match_type: "exact".into(),
        matched_address: s("123 MIAN ST"),
    });
    lead.appraisal = Some(serde_json::json!({"market_value": 1}));
    lead.enrichment_status = EnrichmentStatus::Complete;
    lead
}

#[test]
fn the_survivor_wins_where_both_have_a_value_and_gaps_are_filled() {
    let up = combine(&survivor(), &merged());
    assert_eq!(up.fields.address.as_deref(), Some("123 Main St"));
    assert_eq!(up.fields.first_name.as_deref(), Some("Ann"));
    assert_eq!(up.fields.last_name.as_deref(), Some("Smith"));
    assert_eq!(up.fields.bedrooms, Some(3));
    assert_eq!(
        (up.fields.latitude, up.fields.longitude),
        (Some(30.27), Some(-97.74))
    );
    // What comes in pairs comes with its partner.
    assert_eq!(up.geocode, merged().geocode);
    assert_eq!(up.fields.lot_size.as_deref(), Some("1/4 acre"));
    assert_eq!(up.lot_size_acres, Some(0.25));
    assert_eq!(up.appraisal, merged().appraisal);
    // The survivor's address is unchanged: its keys stay as stored.
    assert_eq!(up.keys, None);
}

#[test]
fn phones_and_emails_merge_as_sets_the_survivors_first() {
    let up = combine(&survivor(), &merged());
    assert_eq!(
        phones(&up.fields),
        [Some("+15125550100"), Some("+15125550199"), None, None, None]
    );
    // The survivor's primary keeps its own type.
    assert_eq!(up.fields.primary_phone_type.as_deref(), Some("mobile"));
    assert_eq!(
        (up.fields.email_1.as_deref(), up.fields.email_2.as_deref()),
        (Some("ann@example.com"), Some("smith@example.com"))
    );
    assert!(up.warnings.is_empty());
}

#[test]
fn wrong_numbers_of_either_lead_stay_off_the_survivor() {
    let mut survivor = survivor();
    survivor.work.barred.wrong = vec!["+15125550199".into()];
    let mut merged = merged();
    merged.work.barred.wrong = vec!["+15125550111".into(), "+15125550199".into()];
    merged.work.barred.not_to_call = vec!["+15125550122".into()];
    let up = combine(&survivor, &merged);
    assert_eq!(
        phones(&up.fields),
        [Some("+15125550100"), None, None, None, None]
    );
    assert_eq!(up.barred.wrong, ["+15125550199", "+15125550111"]);
    assert_eq!(up.barred.not_to_call, ["+15125550122"]);
    assert!(up.changes.contains_key("wrong_phones"));
    assert!(up.changes.contains_key("do_not_call_phones"));
    assert_eq!(
        field_codes(&up.warnings),
        [("primary_phone", "wrong_number")]
    );
}

#[test]
fn contacts_beyond_the_slots_are_left_on_the_merged_lead() {
    let mut full = survivor();
    full.fields.email_2 = s("b@example.com");
    full.fields.email_3 = s("c@example.com");
    let up = combine(&full, &merged());
    assert_eq!(up.fields.email_3.as_deref(), Some("c@example.com"));
    assert_eq!(
        field_codes(&up.warnings),
        [("email_1", "contact_slots_full")]
    );
}

#[test]
fn a_type_without_a_number_gives_way_to_the_merged_number_and_its_type() {
    let mut lead = survivor();
    lead.fields.primary_phone = None;
    let up = combine(&lead, &merged());
    assert_eq!(up.fields.primary_phone.as_deref(), Some("+15125550199"));
    assert_eq!(up.fields.primary_phone_type.as_deref(), Some("landline"));
}

#[test]
fn changes_name_each_changed_field_with_old_and_new() {
    let up = combine(&survivor(), &merged());
    let names: Vec<&str> = up.changes.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "bedrooms",
            "email_2",
            "last_name",
            "latitude",
            "longitude",
            "lot_size",
            "phone_2"
        ]
    );
    let last = &up.changes["last_name"];
    assert_eq!(
        (last.old.clone(), last.new.clone()),
        (serde_json::Value::Null, serde_json::json!("Smith"))
    );
}

#[test]
fn a_survivor_without_an_address_takes_the_merged_address_and_its_keys() {
    let mut lead = survivor();
    lead.fields.address = None;
    lead.fields.zip_code = None;
    lead.enrichment_status = EnrichmentStatus::Skipped;
    let up = combine(&lead, &merged());
    assert_eq!(up.fields.address.as_deref(), Some("123 Mian St"));
    let keys = up.keys.expect("the address changed");
    assert_eq!(keys.street_key.as_deref(), Some("123 MIAN ST"));
    assert_eq!(keys.address_key.as_deref(), Some("123 MIAN ST|78701"));
    assert_eq!(up.enrichment_status, EnrichmentStatus::Complete);
}

#[test]
fn merging_an_empty_lead_changes_nothing() {
    let empty = fresh_lead(2, Some(3), LeadFields::default(), None);
    let up = combine(&survivor(), &empty);
    assert_eq!(up.fields, survivor().fields);
    assert!(up.changes.is_empty());
    assert_eq!(up.keys, None);
}

#[test]
fn the_survivor_takes_both_leads_tags_and_either_leads_do_not_call_mark() {
    let mut kept = survivor();
    kept.work.tags = vec!["hot".into(), "roof".into()];
    let mut gone = merged();
    gone.work.tags = vec!["mailer 12".into(), "roof".into()];
    gone.work.do_not_call = true;
    let up = combine(&kept, &gone);
    assert_eq!(up.tags, ["hot", "mailer 12", "roof"]);
    assert!(up.do_not_call);
    assert_eq!(
        up.changes["tags"].new,
        serde_json::json!(["hot", "mailer 12", "roof"])
    );
    assert_eq!(up.changes["do_not_call"].old, serde_json::json!(false));
    // The other way round the survivor was marked already: no change of its mark.
    let up = combine(&gone, &kept);
    assert!(up.do_not_call);
    assert!(!up.changes.contains_key("do_not_call"));
}

#[test]
fn the_pair_rules() {
    let side = |id, team, merged_into_id| MergeSide {
        lead: fresh_lead(id, team, LeadFields::default(), None),
        merged_into_id,
    };
    assert_eq!(
        check_pair(&side(1, Some(3), None), &side(1, Some(3), None)),
        Err(MergeRefusal::SameLead)
    );
    assert_eq!(
        check_pair(&side(1, Some(3), None), &side(2, Some(4), None)),
        Err(MergeRefusal::TeamsDiffer)
    );
    assert_eq!(
        check_pair(&side(1, None, None), &side(2, Some(3), None)),
        Err(MergeRefusal::TeamsDiffer)
    );
    assert_eq!(
        check_pair(&side(1, Some(3), None), &side(2, Some(3), Some(9))),
        Err(MergeRefusal::AlreadyMerged { id: 2, into: 9 })
    );
    assert_eq!(
        check_pair(&side(1, Some(3), Some(9)), &side(2, Some(3), None)),
        Err(MergeRefusal::AlreadyMerged { id: 1, into: 9 })
    );
    assert_eq!(
        check_pair(&side(1, None, None), &side(2, None, None)),
        Ok(())
    );
}
