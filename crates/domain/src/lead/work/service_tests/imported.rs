//! The working state an import gives the leads it created: set as the page sets it, an owner
//! a rule refuses left out with the status still set.
use super::*;
use crate::lead::work::model::kind;
use crate::lead::work::{ImportedWork, WorkSet};

fn work(lead_id: i64, status: LeadStatus, owner: &str) -> (i64, ImportedWork) {
    let work = ImportedWork {
        status: Some(status),
        assignee_email: Some(owner.to_owned()),
        ..ImportedWork::default()
    };
    (lead_id, work)
}

#[tokio::test]
async fn statuses_are_set_and_an_owner_who_cannot_work_the_lead_is_left_out() {
    let leads = vec![
        lead(10, Some(TEAM)),
        lead(11, Some(TEAM)),
        lead(12, Some(TEAM)),
    ];
    let (service, saved) = World::of(leads).service();
    let mut items = [
        work(10, LeadStatus::Won, "p3@example.com"),
        // p4 is a member of the other team only.
        work(11, LeadStatus::Lost, "p4@example.com"),
        work(12, LeadStatus::Contacted, "ghost@example.com"),
    ];
    let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 8);
    items[1].1.follow_up = day;
    let sets = service
        .apply_imported_work(&person(2, "p2@example.com"), &items)
        .await
        .unwrap();
    assert_eq!(sets[0], WorkSet::All);
    for set in &sets[1..] {
        assert!(matches!(set, WorkSet::OwnerLeftOut(_)), "{sets:?}");
    }
    assert_eq!(
        sets[2],
        WorkSet::OwnerLeftOut("no account has the address ghost@example.com".into())
    );
    let saved = saved.lock().unwrap();
    assert_eq!(saved[1].follow_up, Some(day), "the day set with the status");
    let done: Vec<(i64, Option<LeadStatus>, Option<Option<i64>>)> = saved
        .iter()
        .map(|c| (c.lead_id, c.status, c.assignee))
        .collect();
    assert_eq!(
        done,
        [
            (10, Some(LeadStatus::Won), Some(Some(3))),
            (11, Some(LeadStatus::Lost), None),
            (12, Some(LeadStatus::Contacted), None),
        ]
    );
}

#[tokio::test]
async fn an_importer_who_may_not_work_the_leads_sets_nothing() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let items = [work(10, LeadStatus::Won, "p3@example.com")];
    let outsider = person(4, "p4@example.com");
    let sets = service
        .apply_imported_work(&outsider, &items)
        .await
        .unwrap();
    assert!(matches!(&sets[0], WorkSet::Not(_)), "{sets:?}");
    assert!(saved.lock().unwrap().is_empty());
}

/// Two rows of one property in a chunk: the first created the lead (its status, an owner nobody
/// is, a tag), the next merged into it (a do-not-call mark, another tag). One change carries
/// both; neither row's part is refused as stale.
#[tokio::test]
async fn two_rows_of_one_lead_are_one_change() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let mut created = work(10, LeadStatus::Contacted, "ghost@example.com");
    created.1.tags = ["mailer 12".to_owned()].into();
    let merged = ImportedWork {
        do_not_call: Some(true),
        tags: ["storm 2026".to_owned()].into(),
        ..ImportedWork::default()
    };
    let items = [created, (10, merged)];
    let sets = service
        .apply_imported_work(&person(2, "p2@example.com"), &items)
        .await
        .unwrap();
    assert!(matches!(&sets[0], WorkSet::OwnerLeftOut(_)), "{sets:?}");
    assert_eq!(sets[1], WorkSet::All, "the merged row named no owner");
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0].lead_id, 10);
    assert_eq!(saved[0].status, Some(LeadStatus::Contacted));
    assert_eq!(saved[0].assignee, None);
    assert_eq!(saved[0].do_not_call, Some(true));
    assert_eq!(
        saved[0].tags.as_deref(),
        Some(&["mailer 12".to_owned(), "storm 2026".to_owned()][..])
    );
}

/// A file's per-number flags: the lead loses the flagged number (the next moves up), keeps it
/// among its numbers not to call, and its timeline names it; a number it had barred already
/// changes nothing.
#[tokio::test]
async fn a_flagged_number_is_taken_off_the_lead_and_barred() {
    let mut phoned = lead(10, Some(TEAM));
    phoned.fields.primary_phone = Some("+15125550181".into());
    phoned.fields.phone_2 = Some("+15125550182".into());
    let mut barred = lead(11, Some(TEAM));
    barred.work.barred.not_to_call = vec!["+15125550183".into()];
    let (service, saved) = World::of(vec![phoned, barred]).service();
    let flag = |id: i64, number: &str| {
        let work = ImportedWork {
            numbers_not_to_call: [number.to_owned()].into(),
            ..ImportedWork::default()
        };
        (id, work)
    };
    let items = [flag(10, "+15125550181"), flag(11, "+15125550183")];
    let sets = service
        .apply_imported_work(&person(2, "p2@example.com"), &items)
        .await
        .unwrap();
    assert_eq!(sets, [WorkSet::All, WorkSet::All]);
    let saved = saved.lock().unwrap();
    let fields = saved[0].fields.as_ref().map(|f| &f.fields).unwrap();
    assert_eq!(
        (fields.primary_phone.as_deref(), fields.phone_2.as_deref()),
        (Some("+15125550182"), None)
    );
    let barred = saved[0].barred.as_ref().unwrap();
    assert_eq!(barred.not_to_call, ["+15125550181"]);
    assert!(barred.wrong.is_empty());
    let kinds: Vec<&str> = saved[0].activity.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [kind::NUMBERS_NOT_TO_CALL]);
    assert!(saved[0].changes.contains_key("do_not_call_phones"));
    assert!(saved[0].changes.contains_key("primary_phone"));
    // Lead 11 had barred it already: nothing of it is saved (its version stays).
    assert_eq!(saved.len(), 1, "{saved:?}");
}

/// A file's tags that leads carry already (the same file imported again): nothing is saved, so
/// each lead keeps its version (its ETag) and gets no timeline row nor `lead.updated`; a lead
/// without them is tagged.
#[tokio::test]
async fn tags_a_lead_carries_already_change_nothing() {
    let mut tagged = lead(10, Some(TEAM));
    tagged.work.tags = vec!["hail".into(), "storm".into()];
    let (service, saved) = World::of(vec![tagged, lead(11, Some(TEAM))]).service();
    let tags = |id: i64| {
        let work = ImportedWork {
            tags: ["storm".to_owned(), "hail".to_owned()].into(),
            ..ImportedWork::default()
        };
        (id, work)
    };
    let sets = service
        .apply_imported_work(&person(2, "p2@example.com"), &[tags(10), tags(11)])
        .await
        .unwrap();
    assert_eq!(sets, [WorkSet::All, WorkSet::All]);
    let saved = saved.lock().unwrap();
    let changed: Vec<i64> = saved.iter().map(|c| c.lead_id).collect();
    assert_eq!(changed, [11]);
}
