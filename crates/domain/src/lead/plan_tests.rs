//! Same-property planning: create, merge, skip, in element order, against stored leads and
//! leads created earlier in the batch; the address rules that decide a match; enrichment.
#![allow(clippy::unwrap_used)]
use super::*;
use crate::lead::normalize::normalize;

const ADA: i64 = 7;

/// A lead of no team, as submitted by Ada (coordinates given, so no enrichment by default).
fn at(address: &str, city: Option<&str>, state: Option<&str>, zip: Option<&str>) -> LeadFields {
    LeadFields {
        address: Some(address.into()),
        city: city.map(Into::into),
        state: state.map(Into::into),
        zip_code: zip.map(Into::into),
        latitude: Some(30.26),
        longitude: Some(-97.74),
        ..LeadFields::default()
    }
}

fn austin(address: &str) -> LeadFields {
    at(address, Some("Austin"), Some("TX"), Some("78701"))
}

fn write(fields: LeadFields) -> LeadWrite {
    LeadWrite {
        team_id: None,
        user_id: ADA,
        lead: normalize(&fields, 2026),
        submission_id: None,
        enrich_later: false,
        owner_chosen: false,
    }
}

fn in_team(team: i64, fields: LeadFields) -> LeadWrite {
    LeadWrite {
        team_id: Some(team),
        ..write(fields)
    }
}

/// A stored lead with these (normalised) fields, as the store loads it for its street.
fn stored(id: i64, fields: LeadFields) -> Candidate {
    let w = write(fields);
    Candidate {
        id,
        street: Street::of(&w).unwrap(),
        fields: w.lead.fields,
        lot_size_acres: None,
        has_appraisal: false,
        enrichment_status: EnrichmentStatus::Skipped,
        submission_count: 1,
        barred: BarredNumbers::default(),
    }
}

/// Each element's (lead, action).
fn decisions(plan: &LeadPlan) -> Vec<(PlannedLead, LeadAction)> {
    plan.elements.iter().map(|e| (e.lead, e.action)).collect()
}

use LeadAction::{Created, Skipped, Updated};
use PlannedLead::{New, Stored};

#[test]
fn a_new_property_creates_a_lead_with_its_keys() {
    let writes = [write(austin("123 North Main Street"))];
    let plan = plan(&writes, Vec::new());
    assert_eq!(decisions(&plan), [(New(0), Created)]);
    let new = &plan.new_leads[0];
    assert_eq!(new.street_key.as_deref(), Some("123 N MAIN ST"));
    assert_eq!(new.address_key.as_deref(), Some("123 N MAIN ST|78701"));
    assert_eq!(
        (new.team_id, new.created_by, new.submission_count),
        (None, ADA, 1)
    );
    assert_eq!(new.fields, writes[0].lead.fields);
    assert!(plan.merged.is_empty());
}

#[test]
fn the_same_property_merges_into_the_stored_lead() {
    let mut update = austin("123 Main St");
    update.first_name = Some("Ada".into());
    let plan = plan(
        &[write(update)],
        vec![stored(40, austin("123 Main Street"))],
    );
    assert_eq!(decisions(&plan), [(Stored(40), Updated)]);
    assert!(plan.new_leads.is_empty());
    let [merged] = plan.merged.as_slice() else {
        panic!("{plan:?}")
    };
    assert_eq!(merged.id, 40);
    assert_eq!(merged.fields.first_name.as_deref(), Some("Ada"));
    // The stored address text is the latest spelling; the keys never change.
    assert_eq!(merged.fields.address.as_deref(), Some("123 Main St"));
    assert_eq!(merged.submission_count, 2);
}

#[test]
fn nothing_new_is_a_skip_that_still_counts_the_submission() {
    let plan = plan(
        &[write(austin("123 Main St"))],
        vec![stored(40, austin("123 Main St"))],
    );
    assert_eq!(decisions(&plan), [(Stored(40), Skipped)]);
    assert_eq!(plan.merged[0].submission_count, 2);
    assert!(plan.elements[0].warnings.is_empty());
}

/// A file listing one property in two spellings, imported again: each merge overwrites the
/// address (`updated`, contract 3.3), and the lead ends the batch as it began it, so no element
/// changed it in the end. A merge whose change stays changed its lead; so did a creation.
#[test]
fn merges_that_undo_each_other_leave_their_lead_unchanged() {
    let spellings = [
        austin("123 N Main St Apt 4"),
        austin("123 North Main Street #4"),
        austin("123 N Main St Apt 4"),
    ];
    let writes = spellings.clone().map(write);
    let plan = plan(&writes, vec![stored(40, spellings[0].clone())]);
    assert_eq!(
        decisions(&plan),
        [
            (Stored(40), Skipped),
            (Stored(40), Updated),
            (Stored(40), Updated)
        ]
    );
    let changed: Vec<bool> = plan.elements.iter().map(|e| e.lead_changed).collect();
    assert_eq!(changed, [false, false, false]);
    assert_eq!(plan.merged[0].fields, writes[0].lead.fields);

    // The same file into an empty store: one lead created, two merges that undo each other.
    let plan = super::plan(&writes, Vec::new());
    assert_eq!(
        decisions(&plan),
        [(New(0), Created), (New(0), Updated), (New(0), Updated)]
    );
    let changed: Vec<bool> = plan.elements.iter().map(|e| e.lead_changed).collect();
    assert_eq!(changed, [true, false, false]);

    // The second spelling alone stays: the lead changed.
    let plan = super::plan(&writes[..2], vec![stored(40, spellings[0].clone())]);
    let changed: Vec<bool> = plan.elements.iter().map(|e| e.lead_changed).collect();
    assert_eq!(changed, [false, true]);
}

#[test]
fn a_full_contact_slot_is_a_merge_warning() {
    let mut full = austin("5 Elm St");
    full.email_1 = Some("a@example.com".into());
    full.email_2 = Some("b@example.com".into());
    full.email_3 = Some("c@example.com".into());
    let mut more = austin("5 Elm St");
    more.email_1 = Some("d@example.com".into());
    let plan = plan(&[write(more)], vec![stored(3, full)]);
    assert_eq!(decisions(&plan), [(Stored(3), Skipped)]);
    let codes: Vec<&str> = plan.elements[0]
        .warnings
        .iter()
        .map(|w| w.code.as_str())
        .collect();
    assert_eq!(codes, ["contact_slots_full"]);
}

#[test]
fn a_stored_leads_wrong_number_does_not_come_back() {
    let mut called = stored(3, austin("5 Elm St"));
    called.barred.wrong = vec!["+15125550100".into()];
    let mut again = austin("5 Elm St");
    again.primary_phone = Some("512-555-0100".into());
    let mut another = austin("5 Elm St");
    another.primary_phone = Some("512-555-0102".into());
    let plan = plan(&[write(again), write(another)], vec![called]);
    assert_eq!(
        decisions(&plan),
        [(Stored(3), Skipped), (Stored(3), Updated)]
    );
    let codes: Vec<&str> = plan.elements[0]
        .warnings
        .iter()
        .map(|w| w.code.as_str())
        .collect();
    assert_eq!(codes, ["wrong_number"]);
    assert_eq!(
        plan.merged[0].fields.primary_phone.as_deref(),
        Some("+15125550102")
    );
}

#[test]
fn elements_of_one_batch_merge_into_a_lead_created_earlier_in_it() {
    let mut phone = austin("10 Oak Rd");
    phone.primary_phone = Some("512-555-0150".into());
    let mut email = at("10 oak road", None, None, Some("78701-1111"));
    email.email_1 = Some("Ten@Example.com".into());
    let writes = [
        write(austin("10 Oak Rd")),
        write(austin("11 Oak Rd")),
        write(phone),
        write(email),
        write(austin("10 Oak Road")),
    ];
    let plan = plan(&writes, Vec::new());
    assert_eq!(
        decisions(&plan),
        [
            (New(0), Created),
            (New(1), Created),
            (New(0), Updated),
            (New(0), Updated),
            (New(0), Updated)
        ]
    );
    // Created once, with every later merge in it.
    assert_eq!(plan.new_leads.len(), 2);
    let ten = &plan.new_leads[0];
    assert_eq!(ten.submission_count, 4);
    assert_eq!(ten.fields.primary_phone.as_deref(), Some("+15125550150"));
    assert_eq!(ten.fields.email_1.as_deref(), Some("ten@example.com"));
    // The latest values given win; the keys are the first element's.
    assert_eq!(ten.fields.address.as_deref(), Some("10 Oak Road"));
    assert_eq!(ten.fields.zip_code.as_deref(), Some("78701"));
    assert_eq!(ten.address_key.as_deref(), Some("10 OAK RD|78701"));
}

#[test]
fn elements_apply_in_order_and_see_earlier_merges() {
    // The stored lead has no ZIP; the first element matches it by city and state and adds one,
    // so the second, which has only the ZIP, matches it too.
    let zipless = at("7 Pine St", Some("Austin"), Some("TX"), None);
    let writes = [
        write(austin("7 Pine St")),
        write(at("7 Pine St", None, None, Some("78701"))),
    ];
    let plan = plan(&writes, vec![stored(9, zipless)]);
    assert_eq!(
        decisions(&plan),
        [(Stored(9), Updated), (Stored(9), Skipped)]
    );
    assert_eq!(plan.merged.len(), 1, "written back once");
    assert_eq!(plan.merged[0].submission_count, 3);
}

#[test]
fn zip_less_leads_match_by_city_and_state() {
    let candidates = || vec![stored(1, austin("8 Elm St"))];
    let zipless =
        |city: Option<&str>, state: Option<&str>| write(at("8 Elm St", city, state, None));
    let decided = |w: LeadWrite| decisions(&plan(&[w], candidates()))[0];
    assert_eq!(
        decided(zipless(Some("Austin"), Some("TX"))),
        (Stored(1), Skipped)
    );
    assert_eq!(decided(zipless(Some("AUSTIN"), Some("tx"))).0, Stored(1));
    assert_eq!(decided(zipless(Some("Dallas"), Some("TX"))).1, Created);
    assert_eq!(decided(zipless(Some("Austin"), None)).1, Created);
    // Two ZIPs that differ are two properties, whatever the city.
    assert_eq!(
        decided(write(at(
            "8 Elm St",
            Some("Austin"),
            Some("TX"),
            Some("78702")
        )))
        .1,
        Created
    );
}

#[test]
fn leads_without_a_locality_match_nothing_and_claim_no_key() {
    let writes = [
        write(at("9 Birch St", None, None, None)),
        write(at("9 Birch St", None, None, None)),
    ];
    let plan = plan(&writes, Vec::new());
    assert_eq!(decisions(&plan), [(New(0), Created), (New(1), Created)]);
    assert_eq!(plan.new_leads[0].address_key, None);
    assert_eq!(plan.new_leads[0].street_key.as_deref(), Some("9 BIRCH ST"));
}

#[test]
fn units_and_directionals_compare_by_their_standard_form() {
    // (the stored lead's address, an element's address, what the element plans for)
    for (stored_at, address, want) in [
        ("12 Main St Apt 4", "12 Main St #4", Stored(1)),
        ("12 Main St Apt 4", "12 Main Street, Unit 4", Stored(1)),
        ("12 Main St Apt 4", "12 Main St Apt 5", New(0)),
        ("12 Main St Apt 4", "12 Main St", New(0)),
        ("300 North Lamar Boulevard", "300 N Lamar Blvd", Stored(1)),
        ("300 North Lamar Boulevard", "300 N. Lamar Blvd.", Stored(1)),
        ("300 North Lamar Boulevard", "300 Lamar Blvd North", New(0)),
        ("300 North Lamar Boulevard", "300 S Lamar Blvd", New(0)),
        ("300 North Lamar Boulevard", "300 Lamar Blvd", New(0)),
    ] {
        let planned = plan(
            &[write(austin(address))],
            vec![stored(1, austin(stored_at))],
        );
        assert_eq!(
            planned.elements[0].lead, want,
            "{address:?} against {stored_at:?}"
        );
    }
}

#[test]
fn each_team_has_its_own_leads() {
    let mut theirs = stored(1, austin("4 Oak St"));
    theirs.street.team_id = Some(2);
    let writes = [
        in_team(3, austin("4 Oak St")),
        in_team(2, austin("4 Oak St")),
    ];
    let plan = plan(&writes, vec![theirs]);
    assert_eq!(decisions(&plan), [(New(0), Created), (Stored(1), Skipped)]);
    assert_eq!(plan.new_leads[0].team_id, Some(3));
}

#[test]
fn the_oldest_stored_lead_of_a_property_is_the_one_merged_into() {
    let plan = plan(
        &[write(austin("6 Ash St"))],
        vec![
            stored(12, austin("6 Ash St")),
            stored(5, austin("6 Ash St")),
        ],
    );
    assert_eq!(decisions(&plan), [(Stored(5), Skipped)]);
}

#[test]
fn streets_are_what_candidates_are_loaded_for() {
    let writes = [
        write(austin("1 Main St")),
        write(austin("1 Main Street")),
        in_team(2, austin("1 Main St")),
        write(LeadFields::default()),
    ];
    let streets: Vec<Street> = streets(&writes).into_iter().collect();
    let key = |team_id| Street {
        team_id,
        key: "1 MAIN ST".into(),
    };
    assert_eq!(streets, [key(None), key(Some(2))]);
}

// ---- Enrichment ----

fn to_enrich(fields: LeadFields) -> LeadWrite {
    LeadWrite {
        enrich_later: true,
        ..write(fields)
    }
}

fn without_coordinates(address: &str) -> LeadFields {
    LeadFields {
        latitude: None,
        longitude: None,
        ..austin(address)
    }
}

#[test]
fn a_new_lead_to_enrich_is_pending_retry_with_a_retry_queued() {
    let writes = [
        to_enrich(without_coordinates("1 Main St")),
        to_enrich(austin("2 Main St")),
        to_enrich(without_coordinates("1 Main St")),
    ];
    let plan = plan(&writes, Vec::new());
    let needs: Vec<bool> = plan.elements.iter().map(|e| e.to_enrich).collect();
    // No coordinates; coordinates but no appraisal; a merge that changed nothing.
    assert_eq!(needs, [true, true, false]);
    assert_eq!(
        plan.new_leads[0].enrichment_status,
        EnrichmentStatus::PendingRetry
    );
    assert_eq!(plan.enrichment_retry, [New(0), New(1)]);
}

#[test]
fn without_enrichment_configured_nothing_is_queued() {
    let plan = plan(&[write(without_coordinates("1 Main St"))], Vec::new());
    assert!(plan.elements[0].to_enrich);
    assert_eq!(
        plan.new_leads[0].enrichment_status,
        EnrichmentStatus::Skipped
    );
    assert!(plan.enrichment_retry.is_empty());
}

#[test]
fn a_merge_queues_a_retry_only_when_it_changed_a_lead_that_needs_one() {
    let mut appraised = stored(1, austin("3 Main St"));
    appraised.has_appraisal = true;
    appraised.enrichment_status = EnrichmentStatus::Complete;
    let mut with_parcel = austin("3 Main St");
    with_parcel.parcel_number = Some("0123".into());
    // Nothing changed; then a change to a lead that has coordinates and an appraisal.
    let plan_of = |c: Candidate| {
        plan(
            &[
                to_enrich(austin("3 Main St")),
                to_enrich(with_parcel.clone()),
            ],
            vec![c],
        )
    };
    let done = plan_of(appraised.clone());
    assert_eq!(
        decisions(&done),
        [(Stored(1), Skipped), (Stored(1), Updated)]
    );
    assert!(done.elements.iter().all(|e| !e.to_enrich));
    assert!(done.enrichment_retry.is_empty());
    assert_eq!(done.merged[0].enrichment_status, EnrichmentStatus::Complete);
    // The same change to a lead without an appraisal: the parcel is something to look it up by.
    appraised.has_appraisal = false;
    let retried = plan_of(appraised);
    assert!(retried.elements[1].to_enrich);
    assert_eq!(retried.enrichment_retry, [Stored(1)]);
    assert_eq!(
        retried.merged[0].enrichment_status,
        EnrichmentStatus::PendingRetry
    );
}

#[test]
fn needs_enrichment_rule() {
    let none = LeadFields::default();
    assert!(!needs_enrichment(&none, false));
    assert!(needs_enrichment(&without_coordinates("1 Main St"), true));
    assert!(needs_enrichment(&austin("1 Main St"), false));
    assert!(!needs_enrichment(&austin("1 Main St"), true));
    let parcel_only = LeadFields {
        parcel_number: Some("0123".into()),
        ..LeadFields::default()
    };
    assert!(needs_enrichment(&parcel_only, false));
}
