//! Logging a contact: its timeline entry, its note, the status a `new` lead moves to, the
//! follow-up day, and who may log one.
use chrono::NaiveDate;

use super::*;
use crate::lead::work::{BulkSet, ContactLog, ContactOutcome};

/// The first problem of a 422: its kind and where.
fn refusal(err: LeadWorkError) -> (String, String) {
    let LeadWorkError::Invalid(problems) = err else {
        panic!("{err:?}")
    };
    (problems[0].kind.clone(), format!("{:?}", problems[0].loc))
}

fn log(outcome: ContactOutcome) -> ContactLog {
    ContactLog {
        outcome,
        note: None,
        follow_up: None,
        phone: None,
    }
}

#[tokio::test]
async fn a_message_left_on_a_new_lead_makes_it_contacted_with_the_note_and_next_day() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let day = NaiveDate::from_ymd_opt(2026, 12, 8).unwrap();
    let logged = ContactLog {
        note: Some("  Call back after 5pm\r\n".into()),
        follow_up: Some(Some(day)),
        ..log(ContactOutcome::LeftMessage)
    };
    service
        .log_contact(&person(3, "m"), 10, &logged)
        .await
        .unwrap();
    assert_eq!(
        kinds(&saved),
        ["contact_logged", "status_changed", "follow_up_set"]
    );
    let saved = saved.lock().unwrap();
    let change = &saved[0];
    assert_eq!(
        change.activity[0].detail,
        serde_json::json!({"outcome": "left_message"})
    );
    assert_eq!(change.contact, Some(ContactOutcome::LeftMessage));
    assert_eq!(change.note.as_deref(), Some("Call back after 5pm"));
    assert_eq!(change.status, Some(LeadStatus::Contacted));
    assert_eq!(change.follow_up, Some(Some(day)));
    let mut changed: Vec<_> = change.changes.keys().collect();
    changed.sort();
    assert_eq!(changed, ["follow_up_on", "status"]);
}

#[tokio::test]
async fn no_answer_or_a_wrong_number_leaves_the_status_and_other_statuses_stay() {
    let mut qualified = lead(11, Some(TEAM));
    qualified.work.status = LeadStatus::Qualified;
    let (service, saved) = World::of(vec![lead(10, Some(TEAM)), qualified]).service();
    let member = person(3, "m");
    for outcome in [ContactOutcome::NoAnswer, ContactOutcome::WrongNumber] {
        service
            .log_contact(&member, 10, &log(outcome))
            .await
            .unwrap();
    }
    service
        .log_contact(&member, 11, &log(ContactOutcome::Reached))
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 3);
    for change in saved.iter() {
        assert_eq!(change.status, None, "{change:?}");
        assert_eq!(change.note, None);
        assert_eq!(change.follow_up, None, "no day given: the day stays");
        assert_eq!(change.activity.len(), 1);
        assert!(change.changes.is_empty());
    }
    let outcomes: Vec<_> = saved.iter().map(|c| c.contact).collect();
    assert_eq!(
        outcomes,
        [
            Some(ContactOutcome::NoAnswer),
            Some(ContactOutcome::WrongNumber),
            Some(ContactOutcome::Reached)
        ]
    );
}

/// Lead 10 of the team with three numbers, the first a mobile: a skip-traced lead.
fn phoned() -> Lead {
    let mut phoned = lead(10, Some(TEAM));
    phoned.fields.primary_phone = Some("+15125550100".into());
    phoned.fields.primary_phone_type = Some("mobile".into());
    phoned.fields.phone_2 = Some("+15125550102".into());
    phoned.fields.phone_3 = Some("+15125550103".into());
    phoned
}

#[tokio::test]
async fn a_wrong_number_called_is_taken_off_the_lead_and_kept_as_wrong() {
    let mut phoned = phoned();
    phoned.work.barred.wrong = vec!["+15125550199".into()];
    let (service, saved) = World::of(vec![phoned]).service();
    let member = person(3, "m");
    let called = |outcome, phone: &str| ContactLog {
        phone: Some(phone.to_owned()),
        ..log(outcome)
    };
    // Any writing of one of its numbers; another number is refused, nothing saved.
    let err = service
        .log_contact(
            &member,
            10,
            &called(ContactOutcome::WrongNumber, "512-555-0111"),
        )
        .await
        .unwrap_err();
    let at = "[Field(\"body\"), Field(\"phone\")]";
    assert_eq!(refusal(err), ("value_error".into(), at.into()));
    let wrong = called(ContactOutcome::WrongNumber, "(512) 555-0100");
    service.log_contact(&member, 10, &wrong).await.unwrap();
    // An e-mail names no number; a message left names it and takes nothing off.
    let emailed = called(ContactOutcome::Emailed, "512 555 0102");
    service.log_contact(&member, 10, &emailed).await.unwrap();
    let left = called(ContactOutcome::LeftMessage, "+15125550102");
    service.log_contact(&member, 10, &left).await.unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 3);
    let change = &saved[0];
    assert_eq!(
        change.activity[0].detail,
        serde_json::json!({"outcome": "wrong_number", "phone": "+15125550100"})
    );
    let fields = &change.fields.as_ref().unwrap().fields;
    assert_eq!(
        [&fields.primary_phone, &fields.phone_2, &fields.phone_3],
        [
            &Some("+15125550102".into()),
            &Some("+15125550103".into()),
            &None
        ],
        "the later numbers move up a slot"
    );
    assert_eq!(
        fields.primary_phone_type, None,
        "the type went with its number"
    );
    assert_eq!(
        change.barred.as_ref().map(|b| &b.wrong[..]),
        Some(&["+15125550199".to_owned(), "+15125550100".to_owned()][..])
    );
    let mut changed: Vec<_> = change.changes.keys().collect();
    changed.sort();
    assert_eq!(
        changed,
        [
            "phone_2",
            "phone_3",
            "primary_phone",
            "primary_phone_type",
            "wrong_phones"
        ]
    );
    assert_eq!(
        saved[1].activity[0].detail,
        serde_json::json!({"outcome": "emailed"})
    );
    assert_eq!(
        saved[2].activity[0].detail,
        serde_json::json!({"outcome": "left_message", "phone": "+15125550102"})
    );
    assert!(saved[1].fields.is_none() && saved[2].fields.is_none());
    assert!(saved[2].barred.is_none());
}

#[tokio::test]
async fn the_number_that_reached_the_owner_becomes_the_leads_first() {
    let (service, saved) = World::of(vec![phoned()]).service();
    let member = person(3, "m");
    let reached = |phone: &str| ContactLog {
        phone: Some(phone.to_owned()),
        ..log(ContactOutcome::Reached)
    };
    service
        .log_contact(&member, 10, &reached("512-555-0103"))
        .await
        .unwrap();
    service
        .log_contact(&member, 10, &reached("+15125550100"))
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    let fields = &saved[0].fields.as_ref().unwrap().fields;
    assert_eq!(
        [&fields.primary_phone, &fields.phone_2, &fields.phone_3],
        [
            &Some("+15125550103".into()),
            &Some("+15125550100".into()),
            &Some("+15125550102".into())
        ]
    );
    assert_eq!(
        fields.primary_phone_type, None,
        "the type went with its number"
    );
    assert!(saved[0].barred.is_none());
    // The first number already: nothing moves.
    assert!(saved[1].fields.is_none());
    assert_eq!(
        saved[1].activity[0].detail,
        serde_json::json!({"outcome": "reached", "phone": "+15125550100"})
    );
}

#[tokio::test]
async fn a_contact_is_logged_by_whoever_may_edit_the_lead_and_its_note_is_checked_first() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM)), lead(12, None)]).service();
    let outsider = person(4, "o");
    let err = service
        .log_contact(&outsider, 10, &log(ContactOutcome::Reached))
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::NotFound("Lead")), "{err:?}");
    service
        .log_contact(&outsider, 12, &log(ContactOutcome::Emailed))
        .await
        .unwrap();
    let long = ContactLog {
        note: Some("x".repeat(10_001)),
        ..log(ContactOutcome::Reached)
    };
    let err = service
        .log_contact(&person(3, "m"), 10, &long)
        .await
        .unwrap_err();
    let at = "[Field(\"body\"), Field(\"note\")]";
    assert_eq!(refusal(err), ("too_long".into(), at.into()));
    assert_eq!(saved.lock().unwrap().len(), 1, "only the unassigned lead's");
}

#[test]
fn a_leads_contacts_sum_up_to_their_count_and_the_latest() {
    use crate::lead::work::ContactSummary;
    let at = |h: i64| chrono::DateTime::from_timestamp(1_764_000_000 + h * 3600, 0).unwrap();
    let summary = ContactSummary::of([
        (at(2), 7, Some(ContactOutcome::Reached)),
        (at(5), 3, Some(ContactOutcome::NoAnswer)),
        (at(5), 9, Some(ContactOutcome::LeftMessage)),
        (at(9), 12, None),
        (at(1), 2, Some(ContactOutcome::Emailed)),
    ])
    .unwrap();
    assert_eq!(summary.count, 5, "an unreadable entry still counts");
    assert_eq!(summary.last_at, at(5));
    assert_eq!(
        summary.last_outcome,
        ContactOutcome::LeftMessage,
        "the later row of the same second"
    );
    assert_eq!(ContactSummary::of([]), None);
    assert_eq!(ContactSummary::of([(at(1), 1, None)]), None);
}

#[tokio::test]
async fn a_bulk_contact_is_logged_on_every_lead_with_its_note_and_status_rule() {
    let mut qualified = lead(11, Some(TEAM));
    qualified.work.status = LeadStatus::Qualified;
    let (service, saved) = World::of(vec![lead(10, Some(TEAM)), qualified]).service();
    let set = BulkSet {
        contact: Some(ContactOutcome::Emailed),
        note: Some("  Sent the spring offer\r\n".into()),
        ..BulkSet::default()
    };
    let leads = service
        .bulk(&person(3, "m"), &[10, 11], &set)
        .await
        .unwrap();
    assert_eq!(leads.len(), 2);
    let saved = saved.lock().unwrap();
    let kinds: Vec<Vec<_>> = saved
        .iter()
        .map(|c| c.activity.iter().map(|a| a.kind).collect())
        .collect();
    assert_eq!(
        kinds,
        [
            vec!["contact_logged", "status_changed"],
            vec!["contact_logged"]
        ],
        "the new lead becomes contacted, the qualified one stays"
    );
    for change in saved.iter() {
        assert_eq!(change.contact, Some(ContactOutcome::Emailed));
        assert_eq!(change.note.as_deref(), Some("Sent the spring offer"));
        assert_eq!(
            change.activity[0].detail,
            serde_json::json!({"outcome": "emailed"})
        );
    }
    assert_eq!(saved[0].status, Some(LeadStatus::Contacted));
    assert_eq!(saved[1].status, None);
}

#[tokio::test]
async fn a_status_set_beside_a_bulk_contact_is_the_status_the_leads_get() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let set = BulkSet {
        contact: Some(ContactOutcome::Reached),
        status: Some(LeadStatus::Lost),
        ..BulkSet::default()
    };
    service.bulk(&person(3, "m"), &[10], &set).await.unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].status, Some(LeadStatus::Lost));
    let kinds: Vec<_> = saved[0].activity.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, ["contact_logged", "status_changed"]);
    assert_eq!(saved[0].changes["status"]["new"], "lost");
}

#[tokio::test]
async fn a_bulk_note_is_checked_first_and_a_blank_one_sets_nothing() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let member = person(3, "m");
    let note = |text: String| BulkSet {
        note: Some(text),
        ..BulkSet::default()
    };
    let err = service
        .bulk(&member, &[10], &note("x".repeat(10_001)))
        .await
        .unwrap_err();
    let at = "[Field(\"body\"), Field(\"set\"), Field(\"note\")]";
    assert_eq!(refusal(err), ("too_long".into(), at.into()));
    let err = service
        .bulk(&member, &[10], &note(" \n ".into()))
        .await
        .unwrap_err();
    let (kind, _) = refusal(err);
    assert_eq!(kind, "missing", "a blank note alone is nothing to set");
    assert!(saved.lock().unwrap().is_empty());
    service
        .bulk(&member, &[10], &note("Owner moved to Dallas".into()))
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].note.as_deref(), Some("Owner moved to Dallas"));
    assert_eq!(saved[0].contact, None);
}
