//! Tags through `edit`: the change saved, and the limit of 20 a lead; a tag renamed or taken off
//! every lead one sees (`retag`).
use super::*;
use crate::lead::work::TagEdit;

fn tagging(edit: TagEdit) -> LeadPatch {
    LeadPatch {
        tags: Some(edit),
        ..LeadPatch::default()
    }
}

#[tokio::test]
async fn tags_added_and_taken_off_are_one_change_with_both_lists() {
    let mut tagged = lead(10, Some(TEAM));
    tagged.work.tags = vec!["cold".into(), "roof".into()];
    let (service, saved) = World::of(vec![tagged]).service();
    let edit = TagEdit {
        add: ["hot".to_owned()].into(),
        remove: ["cold".to_owned()].into(),
        ..TagEdit::default()
    };
    service
        .edit(&person(3, "m"), 10, tagging(edit), None)
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].tags, Some(vec!["hot".into(), "roof".into()]));
    assert_eq!(
        saved[0].activity[0].detail,
        serde_json::json!({"added": ["hot"], "removed": ["cold"]})
    );
    assert_eq!(
        saved[0].changes["tags"],
        serde_json::json!({"old": ["cold", "roof"], "new": ["hot", "roof"]})
    );
}

#[tokio::test]
async fn a_lead_takes_no_more_than_twenty_tags_but_one_over_may_lose_some() {
    let mut full = lead(10, Some(TEAM));
    full.work.tags = (0..21).map(|n| format!("t{n:02}")).collect();
    let (service, saved) = World::of(vec![full]).service();
    let more = TagEdit::adding(["one more".to_owned()]);
    let refused = service
        .edit(&person(3, "m"), 10, tagging(more), None)
        .await
        .unwrap_err();
    assert!(matches!(refused, LeadWorkError::Invalid(_)), "{refused:?}");
    assert!(saved.lock().unwrap().is_empty());
    let fewer = TagEdit::removing(["t00".to_owned()]);
    service
        .edit(&person(3, "m"), 10, tagging(fewer), None)
        .await
        .unwrap();
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].tags.as_ref().map(Vec::len), Some(20));
}

/// A bulk change adding a tag: a lead carrying it already is not saved (it keeps its version,
/// gets no timeline row nor `lead.updated`) and is answered as it is, in its place.
#[tokio::test]
async fn a_bulk_tag_a_lead_carries_already_leaves_it_as_it_is() {
    let mut hot = lead(10, Some(TEAM));
    hot.work.tags = vec!["hot".into()];
    hot.work.version = 3;
    let (service, saved) = World::of(vec![hot, lead(11, Some(TEAM))]).service();
    let set = BulkSet {
        tags: Some(TagEdit::adding(["hot".to_owned()])),
        ..BulkSet::default()
    };
    let leads = service
        .bulk(&person(3, "m"), &[11, 10], &set)
        .await
        .unwrap();
    let answered: Vec<(i64, i64)> = leads.iter().map(|l| (l.id, l.work.version)).collect();
    assert_eq!(answered, [(11, 1), (10, 3)]);
    let changed: Vec<i64> = saved.lock().unwrap().iter().map(|c| c.lead_id).collect();
    assert_eq!(changed, [11]);
    // Every lead carries it now: nothing to save at all.
    let (service, saved) = World::of(vec![tagged(10, TEAM, &["hot"])]).service();
    let leads = service.bulk(&person(3, "m"), &[10], &set).await.unwrap();
    assert_eq!(leads.len(), 1);
    assert!(saved.lock().unwrap().is_empty());
}

/// A lead of `team` carrying `tags`.
fn tagged(id: i64, team: i64, tags: &[&str]) -> Lead {
    let mut lead = lead(id, Some(team));
    lead.work.tags = tags.iter().map(|t| t.to_string()).collect();
    lead
}

#[tokio::test]
async fn a_rename_changes_every_lead_one_sees_with_the_tag_a_thousand_at_a_time() {
    // 1,001 live leads and an archived one of TEAM carry it, beside a lead carrying both
    // spellings; a lead of OTHER_TEAM carries it too, and one of TEAM does not.
    let mut leads: Vec<Lead> = (1..=1001)
        .map(|id| tagged(id, TEAM, &["storm2026"]))
        .collect();
    let mut archived = tagged(2000, TEAM, &["storm2026", "roof"]);
    archived.work.archived_at = Some(now());
    leads.push(archived);
    leads.push(tagged(2001, TEAM, &["storm 2026", "storm2026"]));
    leads.push(tagged(3000, OTHER_TEAM, &["storm2026"]));
    leads.push(tagged(3001, TEAM, &["roof"]));
    let (service, saved) = World::of(leads).service();
    let done = service
        .retag(&person(3, "m"), None, " Storm2026", Some("Storm 2026"))
        .await
        .unwrap();
    assert_eq!(done.leads, 1003);
    let saved = saved.lock().unwrap();
    let mut changed: Vec<i64> = saved.iter().map(|c| c.lead_id).collect();
    changed.sort_unstable();
    let mut expected: Vec<i64> = (1..=1001).chain([2000, 2001]).collect();
    expected.sort_unstable();
    assert_eq!(changed, expected);
    let archived = saved.iter().find(|c| c.lead_id == 2000).unwrap();
    assert_eq!(
        archived.tags,
        Some(vec!["roof".to_owned(), "storm 2026".to_owned()])
    );
    let both = saved.iter().find(|c| c.lead_id == 2001).unwrap();
    assert_eq!(both.tags, Some(vec!["storm 2026".to_owned()]));
    assert_eq!(
        both.activity[0].detail,
        serde_json::json!({"added": [], "removed": ["storm2026"]})
    );
}

#[tokio::test]
async fn a_removal_takes_the_tag_off_and_a_bad_name_changes_nothing() {
    let leads = vec![tagged(1, TEAM, &["hot", "roof"]), tagged(2, TEAM, &["hot"])];
    let (service, saved) = World::of(leads).service();
    let member = person(3, "m");
    let refused = service
        .retag(&member, None, "hot", Some("a;b"))
        .await
        .unwrap_err();
    let LeadWorkError::Invalid(problems) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(problems[0].loc, vec!["body".into(), "to".into()]);
    let same = service.retag(&member, None, "hot", Some("HOT")).await;
    assert_eq!(same.unwrap().leads, 0);
    assert!(saved.lock().unwrap().is_empty());
    let done = service.retag(&member, None, "hot", None).await.unwrap();
    assert_eq!(done.leads, 2);
    let saved = saved.lock().unwrap();
    let mut tags: Vec<_> = saved.iter().map(|c| (c.lead_id, c.tags.clone())).collect();
    tags.sort();
    assert_eq!(
        tags,
        vec![(1, Some(vec!["roof".to_owned()])), (2, Some(vec![]))]
    );
}
