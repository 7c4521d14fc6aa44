//! Tags through `edit`: the change saved, and the limit of 20 a lead.
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
