//! The rules of `LeadWorkService`, with mocked ports.
#![allow(clippy::unwrap_used)]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::lead::fields::LeadFields;
use crate::lead::record::{Lead, LeadCursor, LeadFilter, MockLeadRepository};
use crate::lead::work::repository::MockLeadWorkRepository;
use crate::lead::work::{
    ActorRef, ArchiveFilter, BulkSet, ChangeSaved, FieldPatch, LeadChange, LeadPatch, LeadStatus,
    LeadWorkError, LeadWorkService, Note,
};
use crate::store::StoreResult;
use crate::team::{Actor, Role};
use crate::test_support::{clock, fresh_lead, now, person, platform_admin, roster_memberships};
use crate::user::{MockUserRepository, User};

mod contact;
mod imported;
mod numbers;
mod tags;

const TEAM: i64 = 1;
const OTHER_TEAM: i64 = 2;

/// Owner 1, admin 2, member 3 of TEAM; 4 is a member of OTHER_TEAM only; 5 of both.
fn roster() -> Vec<(i64, i64, Role, bool)> {
    vec![
        (TEAM, 1, Role::Owner, true),
        (TEAM, 2, Role::Admin, true),
        (TEAM, 3, Role::Member, true),
        (OTHER_TEAM, 4, Role::Member, true),
        (TEAM, 5, Role::Member, true),
        (OTHER_TEAM, 5, Role::Admin, true),
        (OTHER_TEAM, 2, Role::Member, true),
    ]
}

fn address() -> LeadFields {
    LeadFields {
        address: Some("12 Oak St".into()),
        city: Some("Austin".into()),
        state: Some("TX".into()),
        zip_code: Some("78701".into()),
        ..LeadFields::default()
    }
}

fn lead(id: i64, team_id: Option<i64>) -> Lead {
    fresh_lead(id, team_id, address(), None)
}

/// The changes the repository was asked to save.
type Saved = Arc<Mutex<Vec<LeadChange>>>;

struct World {
    leads: Vec<Lead>,
    neighbours: Vec<(i64, LeadFields)>,
    notes: Vec<Note>,
    users: Vec<User>,
    /// How many times a person was looked up by their public id.
    user_lookups: Arc<AtomicUsize>,
}

impl World {
    fn of(leads: Vec<Lead>) -> World {
        World {
            leads,
            neighbours: Vec::new(),
            notes: Vec::new(),
            users: (1..=6)
                .map(|i| person(i, &format!("p{i}@example.com")))
                .collect(),
            user_lookups: Arc::default(),
        }
    }

    fn service(self) -> (LeadWorkService, Saved) {
        let saved: Saved = Arc::default();
        let mut leads = MockLeadRepository::new();
        leads
            .expect_find_lead()
            .returning(by_id(&self.leads, |l| l.id));
        let stored = self.leads.clone();
        leads
            .expect_find_leads()
            .returning(move |ids| Ok(among(&stored, &ids, |l| l.id)));
        let stored = self.leads.clone();
        leads
            .expect_list_leads_after()
            .returning(move |filter, after, limit| Ok(listed(&stored, &filter, after, limit)));
        let mut work = MockLeadWorkRepository::new();
        let (log, stored) = (saved.clone(), self.leads.clone());
        work.expect_save_change().returning(move |change| {
            log.lock().unwrap().push(change.clone());
            let mut lead = stored
                .iter()
                .find(|l| l.id == change.lead_id)
                .unwrap()
                .clone();
            lead.work.version += 1;
            if let Some(team) = change.team {
                lead.team_id = Some(team);
            }
            Ok(ChangeSaved::Saved(Box::new(lead)))
        });
        let (log, stored) = (saved.clone(), self.leads.clone());
        work.expect_save_changes().returning(move |changes| {
            log.lock().unwrap().extend(changes.iter().cloned());
            Ok(changes
                .iter()
                .map(|c| {
                    let lead = stored.iter().find(|l| l.id == c.lead_id).unwrap().clone();
                    ChangeSaved::Saved(Box::new(lead))
                })
                .collect())
        });
        let neighbours = self.neighbours.clone();
        work.expect_leads_on_street()
            .returning(move |_, _, _| Ok(neighbours.clone()));
        let notes = self.notes.clone();
        work.expect_find_note()
            .returning(move |_, id| Ok(notes.iter().find(|n| n.id == id).cloned()));
        work.expect_delete_note().returning(|_, _, _, _| Ok(()));
        let mut users = MockUserRepository::new();
        let (people, lookups) = (self.users.clone(), self.user_lookups.clone());
        users.expect_find_by_user_id().returning(move |uid| {
            lookups.fetch_add(1, Ordering::SeqCst);
            Ok(people.iter().find(|u| u.user_id == uid).cloned())
        });
        let people = self.users.clone();
        users
            .expect_find_by_email()
            .returning(move |email| Ok(people.iter().find(|u| u.email == email).cloned()));
        users
            .expect_find_by_internal_id()
            .returning(by_id(&self.users, |u| u.id));
        let people = self.users.clone();
        users
            .expect_find_by_internal_ids()
            .returning(move |ids| Ok(among(&people, ids, |u| u.id)));
        let service = LeadWorkService {
            leads: Arc::new(leads),
            work: Arc::new(work),
            memberships: Arc::new(roster_memberships(roster())),
            users: Arc::new(users),
            clock: clock(),
        };
        (service, saved)
    }
}

/// What a store lists of `all` for `filter`'s teams, archive and tag (its other members unset in
/// these tests): newest first, after `after`, at most `limit`.
fn listed(all: &[Lead], filter: &LeadFilter, after: Option<LeadCursor>, limit: i64) -> Vec<Lead> {
    let mut found: Vec<Lead> = all
        .iter()
        .filter(|l| match &filter.visible_teams {
            Some(teams) => l.team_id.is_none_or(|t| teams.contains(&t)),
            None => true,
        })
        .filter(|l| filter.team_id.is_none_or(|t| l.team_id == Some(t)))
        .filter(|l| match filter.archive {
            ArchiveFilter::Active => l.work.archived_at.is_none(),
            ArchiveFilter::Archived => l.work.archived_at.is_some(),
        })
        .filter(|l| filter.tags.iter().all(|t| l.work.tags.contains(t)))
        .filter(|l| !filter.without_tags.iter().any(|t| l.work.tags.contains(t)))
        .filter(|l| after.is_none_or(|a| (l.created_at, l.id) < (a.created_at, a.id)))
        .cloned()
        .collect();
    found.sort_by_key(|l| std::cmp::Reverse((l.created_at, l.id)));
    found.truncate(usize::try_from(limit).unwrap());
    found
}

/// A store's look-up of one thing by row id, answered from `all`.
fn by_id<T: Clone + Send + 'static>(
    all: &[T],
    id_of: fn(&T) -> i64,
) -> impl FnMut(i64) -> StoreResult<Option<T>> + Send + 'static {
    let all = all.to_vec();
    move |id| Ok(all.iter().find(|t| id_of(t) == id).cloned())
}

/// The things of `all` whose id (`id_of`) is among `ids`, as a store reads them by id.
fn among<T: Clone>(all: &[T], ids: &[i64], id_of: fn(&T) -> i64) -> Vec<T> {
    all.iter()
        .filter(|t| ids.contains(&id_of(t)))
        .cloned()
        .collect()
}

fn status(s: LeadStatus) -> LeadPatch {
    LeadPatch {
        status: Some(s),
        ..LeadPatch::default()
    }
}

fn assign(user_id: Option<&str>) -> LeadPatch {
    LeadPatch {
        assignee: Some(user_id.map(str::to_owned)),
        ..LeadPatch::default()
    }
}

fn fields(pairs: &[(&str, Option<&str>)]) -> LeadPatch {
    let mut patch = FieldPatch::default();
    for (name, value) in pairs {
        *patch.values.string_field_mut(name).unwrap() = value.map(str::to_owned);
        patch.given.insert((*name).to_owned());
    }
    LeadPatch {
        fields: patch,
        ..LeadPatch::default()
    }
}

/// The refusal is a conflict that names the lead holding what was asked for.
fn assert_conflict_naming(err: &LeadWorkError, lead_id: i64) {
    assert!(
        matches!(err, LeadWorkError::Conflict { lead_id: Some(id), .. } if *id == lead_id),
        "{err:?}"
    );
}

fn kinds(saved: &Saved) -> Vec<&'static str> {
    saved
        .lock()
        .unwrap()
        .iter()
        .flat_map(|c| c.activity.iter().map(|a| a.kind))
        .collect()
}

#[tokio::test]
async fn a_member_sets_the_status_and_the_change_is_recorded_with_its_old_value() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let edited = service
        .edit(&person(3, "m"), 10, status(LeadStatus::Contacted), Some(1))
        .await
        .unwrap();
    assert_eq!(edited.lead.work.version, 2);
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].status, Some(LeadStatus::Contacted));
    assert_eq!(saved[0].version, 1, "saved against the version read");
    assert_eq!(saved[0].activity[0].kind, "status_changed");
    assert_eq!(
        saved[0].activity[0].detail,
        serde_json::json!({"old": "new", "new": "contacted"})
    );
}

#[tokio::test]
async fn a_stale_if_match_is_refused_before_anything_is_saved() {
    let mut stored = lead(10, Some(TEAM));
    stored.work.version = 4;
    let (service, saved) = World::of(vec![stored]).service();
    let err = service
        .edit(&person(3, "m"), 10, status(LeadStatus::Won), Some(3))
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::PreconditionFailed), "{err:?}");
    assert!(saved.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_page_learns_who_the_person_is_on_the_lead_and_a_merged_lead_names_its_survivor() {
    let mut merged = lead(12, Some(TEAM));
    merged.work.merged_into_id = Some(10);
    let (service, _) = World::of(vec![lead(10, Some(TEAM)), lead(11, None), merged]).service();
    let (_, actor) = service.lead_and_actor(&person(3, "m"), 10).await.unwrap();
    assert_eq!(actor, Actor::Member(Role::Member));
    let (_, actor) = service.lead_and_actor(&person(2, "a"), 10).await.unwrap();
    assert_eq!(actor, Actor::Member(Role::Admin));
    // Every user works an unassigned lead as a member.
    let (_, actor) = service.lead_and_actor(&person(4, "o"), 11).await.unwrap();
    assert_eq!(actor, Actor::Member(Role::Member));
    let err = service
        .lead_and_actor(&person(4, "o"), 10)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::NotFound("Lead")), "{err:?}");
    let err = service
        .lead_and_actor(&person(3, "m"), 12)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::Merged(10)), "{err:?}");
}

#[tokio::test]
async fn a_list_names_its_assignees_and_leaves_out_unknown_ids() {
    let (mut service, _) = World::of(Vec::new()).service();
    // One batch lookup of each assignee once, never a lookup per lead.
    let mut users = MockUserRepository::new();
    users.expect_find_by_internal_id().never();
    users
        .expect_find_by_internal_ids()
        .withf(|ids| *ids == [3, 99])
        .times(1)
        .returning(|_| Ok(vec![person(3, "m")]));
    service.users = Arc::new(users);
    let mut leads = vec![
        lead(1, Some(TEAM)),
        lead(2, Some(TEAM)),
        lead(3, Some(TEAM)),
    ];
    leads[0].work.assignee_id = Some(3);
    leads[1].work.assignee_id = Some(3);
    leads[2].work.assignee_id = Some(99);
    let names = service.assignee_names(&leads).await.unwrap();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(names[&3], person(3, "m").display_name());
    // A list of leads nobody works asks for nobody.
    assert!(service
        .assignee_names(&[lead(4, Some(TEAM))])
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn outsiders_are_not_told_the_lead_exists() {
    let (service, _) = World::of(vec![lead(10, Some(TEAM))]).service();
    for id in [10, 11] {
        let err = service
            .edit(&person(4, "o"), id, status(LeadStatus::Won), None)
            .await
            .unwrap_err();
        assert!(matches!(err, LeadWorkError::NotFound("Lead")), "{err:?}");
    }
}

#[tokio::test]
async fn the_assignee_must_be_an_active_member_of_the_leads_team() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM)), lead(11, None)]).service();
    for (id, who) in [(10, "usr_4"), (10, "usr_99"), (11, "usr_3")] {
        let err = service
            .edit(&person(1, "o"), id, assign(Some(who)), None)
            .await
            .unwrap_err();
        assert!(
            matches!(err, LeadWorkError::Invalid(_)),
            "{id} {who}: {err:?}"
        );
    }
    service
        .edit(&person(1, "o"), 10, assign(Some("usr_3")), None)
        .await
        .unwrap();
    assert_eq!(saved.lock().unwrap()[0].assignee, Some(Some(3)));
    assert_eq!(kinds(&saved), ["assigned"]);
}

#[tokio::test]
async fn an_address_another_lead_of_the_scope_already_is_answers_a_conflict_naming_it() {
    let mut world = World::of(vec![lead(10, Some(TEAM))]);
    world.neighbours = vec![(
        20,
        LeadFields {
            address: Some("14 Oak Street".into()),
            zip_code: Some("78701".into()),
            ..LeadFields::default()
        },
    )];
    let (service, saved) = world.service();
    let err = service
        .edit(
            &person(3, "m"),
            10,
            fields(&[("address", Some("14 oak st"))]),
            None,
        )
        .await
        .unwrap_err();
    assert_conflict_naming(&err, 20);
    assert!(saved.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_edit_is_normalised_like_intake_and_lists_what_changed() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let edited = service
        .edit(
            &person(3, "m"),
            10,
            fields(&[("email_1", Some(" X@Y.COM ")), ("lot_size", Some("big"))]),
            None,
        )
        .await
        .unwrap();
    let codes: Vec<&str> = edited.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["unparsed_lot_size"], "kept, with a warning");
    // A value normalising would drop is refused: an edit keeps no verbatim copy of it.
    let refused = service
        .edit(
            &person(3, "m"),
            10,
            fields(&[("last_name", Some("Park")), ("phone_2", Some("nope"))]),
            None,
        )
        .await;
    match refused {
        Err(LeadWorkError::Invalid(problems)) => assert_eq!(
            serde_json::to_value(&problems[0].loc).unwrap(),
            serde_json::json!(["body", "phone_2"])
        ),
        other => panic!("{other:?}"),
    }
    let saved = saved.lock().unwrap();
    assert_eq!(saved.len(), 1, "the refused edit saved nothing");
    let stored = saved[0].fields.as_ref().unwrap();
    assert_eq!(stored.fields.email_1.as_deref(), Some("x@y.com"));
    assert_eq!(stored.keys, None, "the address did not change");
    assert_eq!(
        saved[0].activity[0].detail["changes"]["email_1"]["new"],
        "x@y.com"
    );
}

#[tokio::test]
async fn an_edit_that_changes_nothing_saves_nothing() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM))]).service();
    let edited = service
        .edit(&person(3, "m"), 10, status(LeadStatus::New), None)
        .await
        .unwrap();
    assert_eq!(edited.lead.work.version, 1);
    assert!(saved.lock().unwrap().is_empty());
}

#[tokio::test]
async fn archiving_takes_an_admin_and_an_unassigned_lead_a_platform_admin() {
    let (service, saved) = World::of(vec![lead(10, Some(TEAM)), lead(11, None)]).service();
    let refused = [
        (person(3, "m"), 10),
        (person(1, "o"), 11),
        (person(3, "m"), 11),
    ];
    for (who, id) in refused {
        let err = service.set_archived(&who, id, true).await.unwrap_err();
        assert!(
            matches!(err, LeadWorkError::Forbidden(_)),
            "{} {id}: {err:?}",
            who.id
        );
    }
    service
        .set_archived(&person(2, "a"), 10, true)
        .await
        .unwrap();
    service
        .set_archived(&platform_admin(9, "root"), 11, true)
        .await
        .unwrap();
    assert_eq!(kinds(&saved), ["archived", "archived"]);
}

#[tokio::test]
async fn a_move_needs_an_admin_of_the_source_and_a_member_of_the_target_and_clears_the_assignee() {
    let mut assigned = lead(10, Some(TEAM));
    assigned.work.assignee_id = Some(3);
    let (service, saved) = World::of(vec![assigned]).service();
    let err = service
        .move_to(&person(3, "m"), 10, OTHER_TEAM)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::Forbidden(_)), "{err:?}");
    let err = service
        .move_to(&person(1, "o"), 10, OTHER_TEAM)
        .await
        .unwrap_err();
    assert!(
        matches!(err, LeadWorkError::Forbidden(_)),
        "not a member of the target: {err:?}"
    );
    let moved = service
        .move_to(&person(2, "a"), 10, OTHER_TEAM)
        .await
        .unwrap();
    assert_eq!(moved.team_id, Some(OTHER_TEAM));
    let saved = saved.lock().unwrap();
    assert_eq!(saved[0].team, Some(OTHER_TEAM));
    assert_eq!(saved[0].assignee, Some(None));
    let kinds: Vec<&str> = saved[0].activity.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, ["team_moved", "assigned"]);
}

#[tokio::test]
async fn any_user_claims_an_unassigned_lead_into_their_own_team_only() {
    let (service, saved) = World::of(vec![lead(11, None), lead(10, Some(TEAM))]).service();
    let err = service.claim(&person(4, "o"), 11, TEAM).await.unwrap_err();
    assert!(matches!(err, LeadWorkError::Forbidden(_)), "{err:?}");
    let err = service
        .claim(&person(3, "m"), 10, OTHER_TEAM)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::Conflict { .. }), "{err:?}");
    service
        .claim(&person(4, "o"), 11, OTHER_TEAM)
        .await
        .unwrap();
    assert_eq!(
        saved.lock().unwrap()[0].activity[0].detail,
        serde_json::json!({"old": null, "new": OTHER_TEAM})
    );
}

fn note(id: i64, author: i64) -> Note {
    Note {
        id,
        lead_id: 10,
        author: ActorRef {
            id: author,
            user_id: format!("usr_{author}"),
            email: "a@example.com".into(),
            name: None,
        },
        body: "called".into(),
        created_at: now(),
        deleted_at: None,
    }
}

#[tokio::test]
async fn a_note_is_deleted_by_its_author_or_an_admin_but_not_another_member() {
    let mut world = World::of(vec![lead(10, Some(TEAM))]);
    world.notes = vec![note(1, 3), note(2, 5)];
    let (service, _) = world.service();
    let err = service
        .delete_note(&person(3, "m"), 10, 2)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::Forbidden(_)), "{err:?}");
    service.delete_note(&person(3, "m"), 10, 1).await.unwrap();
    service.delete_note(&person(2, "a"), 10, 2).await.unwrap();
    let err = service
        .delete_note(&person(2, "a"), 10, 3)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::NotFound("Note")), "{err:?}");
}

#[tokio::test]
async fn notes_are_one_to_ten_thousand_characters() {
    let (service, _) = World::of(vec![lead(10, Some(TEAM))]).service();
    for body in ["   ".to_owned(), "x".repeat(10_001)] {
        let err = service
            .add_note(&person(3, "m"), 10, &body)
            .await
            .unwrap_err();
        assert!(matches!(err, LeadWorkError::Invalid(_)), "{err:?}");
    }
}

#[tokio::test]
async fn an_imports_notes_are_cleaned_and_blank_or_overlong_ones_passed_over() {
    let mut work = MockLeadWorkRepository::new();
    work.expect_add_notes_once()
        .withf(|notes, author, at| {
            *notes == [(10, "call\nafter 5".to_owned()), (12, "ok".to_owned())]
                && *author == 3
                && *at == now()
        })
        .times(1)
        .returning(|notes, _, _| Ok(notes.len() as u64));
    let service = LeadWorkService {
        leads: Arc::new(MockLeadRepository::new()),
        work: Arc::new(work),
        memberships: Arc::new(roster_memberships(roster())),
        users: Arc::new(MockUserRepository::new()),
        clock: clock(),
    };
    let notes = vec![
        (10, " call\r\nafter 5 ".to_owned()),
        (11, "   ".to_owned()),
        (12, "ok".to_owned()),
        (13, "x".repeat(10_001)),
    ];
    let importer = person(3, "m");
    assert_eq!(
        service.add_imported_notes(&importer, notes).await.unwrap(),
        2
    );
    // Nothing left to add: the store is not asked (`times(1)` above).
    let blank = vec![(10, " ".to_owned())];
    assert_eq!(
        service.add_imported_notes(&importer, blank).await.unwrap(),
        0
    );
}

/// Where a bulk refusal names each refused lead, and why: `Index(i):kind`.
fn refused_at(err: LeadWorkError) -> Vec<String> {
    let LeadWorkError::Invalid(problems) = err else {
        panic!("{err:?}")
    };
    problems
        .iter()
        .map(|p| format!("{:?}:{}", p.loc.last().unwrap(), p.kind))
        .collect()
}

#[tokio::test]
async fn a_bulk_change_names_every_refused_lead_and_saves_none() {
    let (service, saved) = World::of(vec![
        lead(10, Some(TEAM)),
        lead(11, Some(OTHER_TEAM)),
        lead(12, None),
    ])
    .service();
    let set = BulkSet {
        archived: Some(true),
        ..BulkSet::default()
    };
    let err = service
        .bulk(&person(2, "a"), &[10, 11, 12, 13], &set)
        .await
        .unwrap_err();
    let at = refused_at(err);
    assert_eq!(
        at,
        [
            "Index(1):forbidden",
            "Index(2):forbidden",
            "Index(3):not_found"
        ]
    );
    assert!(saved.lock().unwrap().is_empty());
    let leads = service.bulk(&person(2, "a"), &[10], &set).await.unwrap();
    assert_eq!(leads.len(), 1);
}

#[tokio::test]
async fn a_bulk_change_looks_its_owner_up_once_a_team() {
    let world = World::of(vec![
        lead(10, Some(TEAM)),
        lead(11, Some(TEAM)),
        lead(12, Some(OTHER_TEAM)),
        lead(13, Some(TEAM)),
    ]);
    let (lookups, owners) = (world.user_lookups.clone(), world.users.clone());
    let (service, saved) = world.service();
    let to = |i: usize| BulkSet {
        assignee: Some(Some(owners[i - 1].user_id.clone())),
        ..BulkSet::default()
    };
    // Person 5 is a member of both teams: every lead is theirs, each team asked about once.
    let leads = service
        .bulk(&person(5, "m"), &[10, 11, 12, 13], &to(5))
        .await
        .unwrap();
    assert_eq!(leads.len(), 4);
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
    let assigned: Vec<Option<Option<i64>>> =
        saved.lock().unwrap().iter().map(|c| c.assignee).collect();
    assert_eq!(assigned, vec![Some(Some(5)); 4]);
    // Person 4 is not of TEAM: each of its leads refused, still one look a team.
    lookups.store(0, Ordering::SeqCst);
    let err = service
        .bulk(&person(5, "m"), &[10, 12, 13], &to(4))
        .await
        .unwrap_err();
    assert_eq!(
        refused_at(err),
        ["Index(0):value_error", "Index(2):value_error"]
    );
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_merged_lead_answers_with_its_survivor() {
    let mut merged = lead(10, Some(TEAM));
    merged.work.merged_into_id = Some(20);
    let (service, _) = World::of(vec![merged]).service();
    let err = service.lead(&person(3, "m"), 10).await.unwrap_err();
    assert!(matches!(err, LeadWorkError::Merged(20)), "{err:?}");
    let err = service
        .edit(&person(3, "m"), 10, status(LeadStatus::Won), None)
        .await
        .unwrap_err();
    assert_conflict_naming(&err, 20);
}

#[tokio::test]
async fn a_team_admin_who_is_a_member_elsewhere_acts_there_as_a_member() {
    let (service, _) = World::of(vec![lead(11, Some(OTHER_TEAM))]).service();
    let err = service
        .set_archived(&person(2, "a"), 11, true)
        .await
        .unwrap_err();
    assert!(matches!(err, LeadWorkError::Forbidden(_)), "{err:?}");
}

#[tokio::test]
async fn sharing_out_gives_the_leads_to_each_person_in_turn_or_none() {
    let leads = (10..15).map(|id| lead(id, Some(TEAM))).collect();
    let (service, saved) = World::of(leads).service();
    let admin = person(2, "a");
    let uid = |i: i64| person(i, "x").user_id;
    let people = [uid(3), uid(5)];
    let shared = service
        .share_out(&admin, &[10, 11, 12, 13, 14], &people)
        .await
        .unwrap();
    assert_eq!(shared.len(), 5);
    let owners: Vec<_> = saved.lock().unwrap().iter().map(|c| c.assignee).collect();
    let (three, five) = (Some(Some(3)), Some(Some(5)));
    assert_eq!(owners, [three, five, three, five, three]);

    // Someone not of the leads' team: every lead they would get is named, nothing is saved.
    saved.lock().unwrap().clear();
    let err = service
        .share_out(&admin, &[10, 11, 12], &[uid(3), uid(4)])
        .await
        .unwrap_err();
    assert_eq!(refused_at(err), ["Index(1):value_error"]);
    assert!(saved.lock().unwrap().is_empty());
    // Nobody to share among, or no lead: refused before anything is read.
    for (ids, people) in [(vec![10], vec![]), (vec![], vec![uid(3)])] {
        let err = service.share_out(&admin, &ids, &people).await.unwrap_err();
        assert!(matches!(err, LeadWorkError::Invalid(_)), "{err:?}");
    }
}
