//! One number barred at the owner's request, and taken off the list by whoever may take the
//! lead's mark off.
use super::*;
use crate::lead::work::model::kind;

fn phoned() -> Lead {
    let mut lead = lead(10, Some(TEAM));
    lead.fields.primary_phone = Some("+15125550191".into());
    lead.fields.phone_2 = Some("+15125550192".into());
    lead.work.barred.not_to_call = vec!["+15125550199".into()];
    lead
}

#[tokio::test]
async fn a_member_bars_one_of_the_leads_numbers_written_any_way() {
    let (service, saved) = World::of(vec![phoned()]).service();
    let member = person(3, "m");
    service
        .bar_number(&member, 10, "(512) 555-0191")
        .await
        .unwrap();
    let refused = service.bar_number(&member, 10, "512-555-0100").await;
    assert!(
        matches!(refused, Err(LeadWorkError::Invalid(_))),
        "{refused:?}"
    );
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 1, "the refused number saved nothing");
    let fields = &saved[0].fields.as_ref().unwrap().fields;
    assert_eq!(fields.primary_phone.as_deref(), Some("+15125550192"));
    let barred = saved[0].barred.as_ref().unwrap();
    assert_eq!(barred.not_to_call, ["+15125550199", "+15125550191"]);
    assert_eq!(saved[0].activity[0].kind, kind::NUMBERS_NOT_TO_CALL);
}

#[tokio::test]
async fn only_who_may_take_the_mark_off_lifts_a_number_and_it_stays_off_the_phones() {
    let (service, saved) = World::of(vec![phoned()]).service();
    let refused = service
        .unbar_number(&person(3, "m"), 10, "+15125550199")
        .await;
    assert!(
        matches!(refused, Err(LeadWorkError::Forbidden(_))),
        "{refused:?}"
    );
    let admin = person(2, "a");
    let missing = service.unbar_number(&admin, 10, "+15125550191").await;
    assert!(
        matches!(missing, Err(LeadWorkError::Invalid(_))),
        "{missing:?}"
    );
    service
        .unbar_number(&admin, 10, "512 555 0199")
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].fields.is_none(), "the phones stay as they are");
    assert!(saved[0].barred.as_ref().unwrap().not_to_call.is_empty());
    assert_eq!(saved[0].activity[0].kind, kind::NUMBER_CALLABLE);
    assert!(saved[0].changes.contains_key("do_not_call_phones"));
}

/// The owner's other properties of the team bar the number too; another team's lead with the
/// same number, and a lead of the team without it, stay as they are.
#[tokio::test]
async fn the_teams_other_leads_with_the_number_bar_it_too() {
    let with_number = |id: i64, team: i64| {
        let mut lead = lead(id, Some(team));
        lead.fields.phone_3 = Some("+15125550191".into());
        lead
    };
    let leads = vec![
        phoned(),
        with_number(11, TEAM),
        with_number(12, OTHER_TEAM),
        lead(13, Some(TEAM)),
    ];
    let (service, saved) = World::of(leads).service();
    service
        .bar_number(&person(3, "m"), 10, "+15125550191")
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    let barred: Vec<(i64, Vec<String>)> = saved
        .iter()
        .map(|c| (c.lead_id, c.barred.clone().unwrap().not_to_call))
        .collect();
    assert_eq!(
        barred,
        [
            (
                10,
                vec!["+15125550199".to_owned(), "+15125550191".to_owned()]
            ),
            (11, vec!["+15125550191".to_owned()]),
        ]
    );
    let other = &saved[1].fields.as_ref().unwrap().fields;
    assert_eq!(other.phone_3, None);
}

/// An edit that types `phone` into the lead's third slot.
fn typing(phone: &str) -> LeadPatch {
    let mut fields = crate::lead::work::edit::FieldPatch::default();
    fields.values.phone_3 = Some(phone.into());
    fields.given.insert("phone_3".into());
    LeadPatch {
        fields,
        ..LeadPatch::default()
    }
}

#[tokio::test]
async fn an_edit_types_a_wrong_number_back_but_never_one_not_to_call() {
    let mut lead = phoned();
    lead.work.barred.wrong = vec!["+15125550198".into()];
    let (service, saved) = World::of(vec![lead]).service();
    let member = person(3, "m");
    let refused = service
        .edit(&member, 10, typing("(512) 555-0199"), None)
        .await;
    assert!(
        matches!(&refused, Err(LeadWorkError::Invalid(e)) if e[0].kind == "number_not_to_call"),
        "{refused:?}"
    );
    service
        .edit(&member, 10, typing("512-555-0198"), None)
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 1, "the refused edit saved nothing");
    let fields = &saved[0].fields.as_ref().unwrap().fields;
    assert_eq!(fields.phone_3.as_deref(), Some("+15125550198"));
    let barred = saved[0].barred.as_ref().unwrap();
    assert!(barred.wrong.is_empty(), "{barred:?}");
    assert_eq!(barred.not_to_call, ["+15125550199"]);
}
