//! The working state an import gives the leads it created: set as the page sets it, an owner
//! a rule refuses left out with the status still set.
use super::*;
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
        let WorkSet::Not(reason) = set else {
            panic!("{sets:?}")
        };
        assert!(reason.starts_with("the owner was left out: "), "{reason}");
    }
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
