//! `LeadWorkService`: working a lead (edit, status, owner, notes, timeline, archive, moves,
//! claims, bulk changes). Who may do what is `team::permits_on_lead`; the API and the pages
//! call the same methods, so both refuse alike.
use std::collections::HashMap;
use std::sync::Arc;

use chrono::NaiveDate;
use serde_json::{json, Map};

use crate::clock::Clock;
use crate::error::{FieldError, LocPart};
use crate::lead::fields::Warning;
use crate::lead::record::{Lead, LeadRepository};
use crate::lead::work::contact::{record_contact, ContactOutcome, ContactSummary};
use crate::lead::work::edit::{edit_fields, unusable_values, AddressKeys, FieldPatch};
use crate::lead::work::model::{kind, ActivityEntry, LeadStatus, NewActivity, Note};
use crate::lead::work::numbers::{bar_numbers_not_to_call, typed_back};
use crate::lead::work::repository::{ChangeSaved, LeadChange, LeadWorkRepository, StoredFields};
use crate::lead::work::tags::{set_tags, TagEdit};
use crate::parse::clean_note;
use crate::store::{store_errors_are_unexpected, StoreResult};
use crate::team::{permits_on_lead, Actor, LeadWorkAction, Role};
use crate::team_access::{actor_on, may_add_to_team, MembershipRepository};
use crate::user::{User, UserRepository};

/// Longest note, in characters.
pub const NOTE_MAX_CHARS: usize = 10_000;
/// Most leads one bulk change may name.
pub const BULK_MAX_IDS: usize = 1000;
/// How often a PATCH without `If-Match` is tried again when another change came first.
pub(super) const UNCONDITIONAL_TRIES: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum LeadWorkError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    /// Another lead holds the property (`lead_id`), or the lead cannot take the change.
    #[error("conflict: {detail}")]
    Conflict {
        detail: String,
        lead_id: Option<i64>,
    },
    /// `If-Match` named another version than the lead's.
    #[error("the lead changed since it was read")]
    PreconditionFailed,
    /// The lead was merged into this one.
    #[error("lead merged into {0}")]
    Merged(i64),
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

store_errors_are_unexpected!(LeadWorkError);

pub(super) type WorkResult<T> = Result<T, LeadWorkError>;

pub(super) fn invalid(path: &[LocPart], kind: &str, msg: impl Into<String>) -> LeadWorkError {
    LeadWorkError::Invalid(vec![FieldError::body(path, kind, msg)])
}

/// A PATCH of a lead as the domain takes it (the web layer has applied intake's request rules).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeadPatch {
    pub fields: FieldPatch,
    pub status: Option<LeadStatus>,
    /// The assignee's public `usr_` id, or None to clear.
    pub assignee: Option<Option<String>>,
    /// The follow-up day, or None to clear.
    pub follow_up: Option<Option<NaiveDate>>,
    /// Set (true) or take off (false) the do-not-call mark.
    pub do_not_call: Option<bool>,
    pub tags: Option<TagEdit>,
}

impl LeadPatch {
    /// Names nothing to change.
    pub fn is_empty(&self) -> bool {
        let LeadPatch {
            fields,
            status,
            assignee,
            follow_up,
            do_not_call,
            tags,
        } = self;
        fields.is_empty()
            && status.is_none()
            && assignee.is_none()
            && follow_up.is_none()
            && do_not_call.is_none()
            && tags.is_none()
    }
}

/// What a bulk change sets on every lead it names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BulkSet {
    pub status: Option<LeadStatus>,
    pub assignee: Option<Option<String>>,
    pub team_id: Option<i64>,
    pub archived: Option<bool>,
    pub follow_up: Option<Option<NaiveDate>>,
    pub do_not_call: Option<bool>,
    /// Tags set, added or taken off on every lead.
    pub tags: Option<TagEdit>,
    /// A contact logged on every lead, as `log_contact` logs one (its status rule gives way to
    /// `status` when both are set).
    pub contact: Option<ContactOutcome>,
    /// A note added to every lead (with a contact: what was said); blank is none.
    pub note: Option<String>,
    /// Numbers (E.164) a do-not-call list flagged: taken off each lead and kept among its numbers
    /// not to call (`numbers::bar_numbers_not_to_call`). An import's per-number flags; the API's
    /// bulk change has no such member.
    pub numbers_not_to_call: Vec<String>,
}

/// A lead after an edit, with what normalising the given values could not use.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub lead: Lead,
    pub warnings: Vec<Warning>,
}

/// The lead page's share of a lead (`LeadWorkService::desk`).
#[derive(Debug, Clone)]
pub struct LeadDesk {
    pub lead: Lead,
    pub actor: Actor,
    pub notes: Vec<Note>,
    pub timeline: Vec<ActivityEntry>,
    pub timeline_total: i64,
    /// The contacts logged on the lead (None: none yet).
    pub contacts: Option<ContactSummary>,
}

pub struct LeadWorkService {
    pub leads: Arc<dyn LeadRepository>,
    pub work: Arc<dyn LeadWorkRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub users: Arc<dyn UserRepository>,
    pub clock: Arc<dyn Clock>,
}

/// A lead and who the caller is on it.
pub(super) struct Opened {
    pub(super) lead: Lead,
    actor: Actor,
}

impl LeadWorkService {
    /// Who `user` is on `lead`: on a team's lead their role there (None: an outsider, who is
    /// not told the lead exists); on an unassigned lead, which every user sees, a member.
    async fn actor_on_lead(&self, user: &User, lead: &Lead) -> WorkResult<Option<Actor>> {
        Ok(match lead.team_id {
            Some(team_id) => actor_on(self.memberships.as_ref(), user, team_id).await?,
            None => Actor::of(user, Some(Role::Member)),
        })
    }

    /// The lead when `user` may see it (else 404, whether or not it exists).
    async fn open(&self, user: &User, id: i64) -> WorkResult<Opened> {
        let lead = self
            .leads
            .find_lead(id)
            .await?
            .ok_or(LeadWorkError::NotFound("Lead"))?;
        let actor = self
            .actor_on_lead(user, &lead)
            .await?
            .ok_or(LeadWorkError::NotFound("Lead"))?;
        Ok(Opened { lead, actor })
    }

    /// `open` for a change: a lead merged away takes none (409 naming the survivor), and the
    /// actor must be allowed `action` (403).
    pub(super) async fn open_for(
        &self,
        user: &User,
        id: i64,
        action: LeadWorkAction,
    ) -> WorkResult<Opened> {
        let opened = self.open(user, id).await?;
        opened_for(opened.lead, Some(opened.actor), action)
    }

    /// One lead, as its GET shows it: a lead merged away answers with its survivor.
    pub async fn lead(&self, user: &User, id: i64) -> WorkResult<Lead> {
        let opened = self.open(user, id).await?;
        match opened.lead.work.merged_into_id {
            Some(into) => Err(LeadWorkError::Merged(into)),
            None => Ok(opened.lead),
        }
    }

    /// A lead and who `user` is on it, for a page that shows only what the person may do
    /// (`permits_on_lead`); a lead merged away answers `Merged` like `lead`.
    pub async fn lead_and_actor(&self, user: &User, id: i64) -> WorkResult<(Lead, Actor)> {
        let Opened { lead, actor } = self.open(user, id).await?;
        match lead.work.merged_into_id {
            Some(into) => Err(LeadWorkError::Merged(into)),
            None => Ok((lead, actor)),
        }
    }

    /// How the people working `leads` are named (row id -> their display name), for a list.
    pub async fn assignee_names(&self, leads: &[Lead]) -> StoreResult<HashMap<i64, String>> {
        let mut ids: Vec<i64> = leads.iter().filter_map(|l| l.work.assignee_id).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(self
            .users
            .find_by_internal_ids(&ids)
            .await?
            .into_iter()
            .map(|user| (user.id, user.display_name()))
            .collect())
    }

    /// What the lead page shows of working a lead, opened once: the lead and who `user` is on
    /// it, its notes, and one page of its timeline with the timeline's length.
    pub async fn desk(
        &self,
        user: &User,
        id: i64,
        limit: i64,
        offset: i64,
    ) -> WorkResult<LeadDesk> {
        let (lead, actor) = self.lead_and_actor(user, id).await?;
        let notes = self.work.notes(lead.id).await?;
        let (timeline, timeline_total) = self.work.activity(lead.id, limit, offset).await?;
        let contacts = self
            .work
            .contact_summaries(vec![lead.id])
            .await?
            .remove(&lead.id);
        Ok(LeadDesk {
            lead,
            actor,
            notes,
            timeline,
            timeline_total,
            contacts,
        })
    }

    /// Edits a lead's fields, status and owner. `if_version`: the version the caller read (a
    /// stale one is refused); without it the edit applies to the lead as it is.
    pub async fn edit(
        &self,
        user: &User,
        id: i64,
        patch: LeadPatch,
        if_version: Option<i64>,
    ) -> WorkResult<Edited> {
        if patch.is_empty() {
            return Err(LeadWorkError::Invalid(
                vec![FieldError::nothing_to_change()],
            ));
        }
        for _ in 0..UNCONDITIONAL_TRIES {
            let Opened { lead, actor } = self.open_for(user, id, LeadWorkAction::Edit).await?;
            if if_version.is_some_and(|v| v != lead.work.version) {
                return Err(LeadWorkError::PreconditionFailed);
            }
            if let Some(marked) = patch.do_not_call {
                may_mark_do_not_call(actor, &lead, marked)?;
            }
            let (change, warnings) = self.edit_change(user, &lead, &patch).await?;
            let Some(change) = change else {
                return Ok(Edited { lead, warnings });
            };
            match self.work.save_change(change).await? {
                ChangeSaved::Saved(lead) => {
                    return Ok(Edited {
                        lead: *lead,
                        warnings,
                    })
                }
                ChangeSaved::Collision(other) => return Err(collision(other)),
                ChangeSaved::Stale if if_version.is_some() => {
                    return Err(LeadWorkError::PreconditionFailed)
                }
                ChangeSaved::Stale | ChangeSaved::RolledBack => continue,
            }
        }
        Err(LeadWorkError::PreconditionFailed)
    }

    /// The change a patch makes to `lead` (None: it changes nothing), and its warnings.
    async fn edit_change(
        &self,
        user: &User,
        lead: &Lead,
        patch: &LeadPatch,
    ) -> WorkResult<(Option<LeadChange>, Vec<Warning>)> {
        let mut change = self.change_of(user, lead);
        let mut warnings = Vec::new();
        if !patch.fields.is_empty() {
            let year = chrono::Datelike::year(&self.clock.now());
            let refused = unusable_values(&patch.fields, year);
            if !refused.is_empty() {
                return Err(LeadWorkError::Invalid(refused));
            }
            let edit = edit_fields(&lead.fields, &patch.fields, year);
            if edit.fields.is_empty() {
                return Err(invalid(
                    &[],
                    "value_error",
                    "A lead needs at least one field",
                ));
            }
            if let Some(Some(keys)) = &edit.keys {
                self.check_property(lead.id, lead.team_id, keys).await?;
            }
            warnings = edit.warnings;
            typed_back(&mut change, lead, &edit.fields)?;
            if !edit.changes.is_empty() {
                change.activity.push(NewActivity {
                    kind: kind::EDITED,
                    detail: json!({ "changes": edit.changes }),
                });
                change.changes.extend(edit.changes);
                change.fields = Some(StoredFields {
                    fields: edit.fields,
                    lot_size_acres: edit.lot_size_acres,
                    keys: edit.keys,
                });
            }
        }
        if let Some(status) = patch.status {
            set_status(&mut change, lead, status);
        }
        if let Some(assignee) = &patch.assignee {
            let id = self
                .assignee_of(lead.team_id, assignee.as_deref(), &["assignee_id"])
                .await?;
            set_assignee(&mut change, lead, id);
        }
        if let Some(day) = patch.follow_up {
            set_follow_up(&mut change, lead, day);
        }
        if let Some(marked) = patch.do_not_call {
            set_do_not_call(&mut change, lead, marked);
        }
        if let Some(edit) = &patch.tags {
            set_tags(&mut change, lead, edit)
                .map_err(|msg| invalid(&["tags".into()], "too_long", msg))?;
        }
        Ok(((!change.activity.is_empty()).then_some(change), warnings))
    }

    /// Applies what `make` adds to an empty change of the lead, opened for `action`, to the lead
    /// as it is: a concurrent change is read again (`UNCONDITIONAL_TRIES` times), as a PATCH
    /// without `If-Match` is. A change that adds nothing is not saved (the lead as it is).
    pub(super) async fn change_as_it_is(
        &self,
        user: &User,
        id: i64,
        action: LeadWorkAction,
        make: impl Fn(&mut LeadChange, &Lead, Actor) -> WorkResult<()>,
    ) -> WorkResult<Lead> {
        for _ in 0..UNCONDITIONAL_TRIES {
            let Opened { lead, actor } = self.open_for(user, id, action).await?;
            let mut change = self.change_of(user, &lead);
            make(&mut change, &lead, actor)?;
            if change.activity.is_empty() {
                return Ok(lead);
            }
            match self.work.save_change(change).await? {
                ChangeSaved::Saved(lead) => return Ok(*lead),
                ChangeSaved::Collision(other) => return Err(collision(other)),
                ChangeSaved::Stale | ChangeSaved::RolledBack => continue,
            }
        }
        Err(LeadWorkError::Conflict {
            detail: "The lead changed meanwhile; try again".into(),
            lead_id: None,
        })
    }

    /// An empty change of `lead` by `user`, now.
    pub(super) fn change_of(&self, user: &User, lead: &Lead) -> LeadChange {
        LeadChange {
            lead_id: lead.id,
            version: lead.work.version,
            actor_id: user.id,
            at: self.clock.now(),
            fields: None,
            status: None,
            assignee: None,
            follow_up: None,
            do_not_call: None,
            tags: None,
            barred: None,
            team: None,
            archived: None,
            note: None,
            contact: None,
            activity: Vec::new(),
            changes: Map::new(),
        }
    }

    /// The row id of the assignee named by `user_id` (None: nobody): an active member of
    /// `team_id`. An unassigned lead takes nobody (422 at `path`).
    async fn assignee_of(
        &self,
        team_id: Option<i64>,
        user_id: Option<&str>,
        path: &[&str],
    ) -> WorkResult<Option<(i64, String)>> {
        self.assignee_among(team_id, user_id, path, &mut Assignees::new())
            .await
    }

    /// `assignee_of`, each team's person looked up once in `known`: a bulk change (an import's
    /// owner column) names the same few people for hundreds of leads.
    async fn assignee_among(
        &self,
        team_id: Option<i64>,
        user_id: Option<&str>,
        path: &[&str],
        known: &mut Assignees,
    ) -> WorkResult<Option<(i64, String)>> {
        let Some(user_id) = user_id else {
            return Ok(None);
        };
        let path: Vec<LocPart> = path.iter().map(|p| LocPart::from(*p)).collect();
        let Some(team_id) = team_id else {
            return Err(invalid(
                &path,
                "value_error",
                "An unassigned lead has no assignee: claim it into a team first",
            ));
        };
        let key = (team_id, user_id.to_owned());
        let member = match known.get(&key) {
            Some(member) => member.clone(),
            None => {
                let member = self.member_named(team_id, user_id).await?;
                known.insert(key, member.clone());
                member
            }
        };
        member.map(Some).ok_or_else(|| {
            invalid(
                &path,
                "value_error",
                "The assignee must be an active member of the lead's team",
            )
        })
    }

    /// The row and public ids of `user_id` when they are an active member of `team_id`.
    async fn member_named(&self, team_id: i64, user_id: &str) -> WorkResult<Option<(i64, String)>> {
        let Some(found) = self.users.find_by_user_id(user_id).await? else {
            return Ok(None);
        };
        let membership = self.memberships.membership(team_id, found.id).await?;
        Ok(membership.map(|_| (found.id, found.user_id)))
    }

    /// 409 when another lead of `team_id`'s scope is the same property as `keys`.
    async fn check_property(
        &self,
        lead_id: i64,
        team_id: Option<i64>,
        keys: &AddressKeys,
    ) -> WorkResult<()> {
        let others = self
            .work
            .leads_on_street(team_id, keys.street_key.clone(), lead_id)
            .await?;
        let holder = others.into_iter().find(|(_, fields)| {
            fields
                .address_key()
                .is_some_and(|other| other.same_property(&keys.key))
        });
        match holder {
            Some((other, _)) => Err(collision(other)),
            None => Ok(()),
        }
    }

    /// Adds a note (1 to 10,000 characters after trimming).
    pub async fn add_note(&self, user: &User, id: i64, body: &str) -> WorkResult<Note> {
        let body = checked_note(body, &["body"])?;
        let Opened { lead, .. } = self.open_for(user, id, LeadWorkAction::AddNote).await?;
        Ok(self
            .work
            .add_note(lead.id, user.id, body, self.clock.now())
            .await?)
    }

    /// The notes of an import's rows, each `(lead, text)` on the lead its row created or merged
    /// into. Those leads came back from the person's own submissions, which the team rule let
    /// through, so they may see them and no lead is opened again. A text that is no note (blank,
    /// too long) is passed over, and one the lead already has is not added twice. How many notes
    /// were added.
    pub async fn add_imported_notes(
        &self,
        user: &User,
        notes: Vec<(i64, String)>,
    ) -> StoreResult<u64> {
        let notes: Vec<(i64, String)> = notes
            .into_iter()
            .filter_map(|(lead, text)| Some((lead, checked_note(&text, &[]).ok()?)))
            .collect();
        if notes.is_empty() {
            return Ok(0);
        }
        self.work
            .add_notes_once(notes, user.id, self.clock.now())
            .await
    }

    /// The lead's notes, newest first.
    pub async fn notes(&self, user: &User, id: i64) -> WorkResult<Vec<Note>> {
        let Opened { lead, .. } = self.open(user, id).await?;
        Ok(self.work.notes(lead.id).await?)
    }

    /// Deletes a note: its author, or a team admin or owner, or a platform admin.
    pub async fn delete_note(&self, user: &User, id: i64, note_id: i64) -> WorkResult<()> {
        let Opened { lead, actor } = self.open(user, id).await?;
        let note = self
            .work
            .find_note(lead.id, note_id)
            .await?
            .filter(|n| n.deleted_at.is_none())
            .ok_or(LeadWorkError::NotFound("Note"))?;
        let action = if note.author.id == user.id {
            LeadWorkAction::DeleteOwnNote
        } else {
            LeadWorkAction::DeleteOthersNote
        };
        allow(actor, action)?;
        Ok(self
            .work
            .delete_note(lead.id, note_id, user.id, self.clock.now())
            .await?)
    }

    /// The lead's timeline, newest first, with the number of entries.
    pub async fn activity(
        &self,
        user: &User,
        id: i64,
        limit: i64,
        offset: i64,
    ) -> WorkResult<(Vec<ActivityEntry>, i64)> {
        let Opened { lead, .. } = self.open(user, id).await?;
        Ok(self.work.activity(lead.id, limit, offset).await?)
    }

    /// Archives (true) or restores (false) a lead: a team admin or owner, or a platform admin
    /// (an unassigned lead: a platform admin only). Archiving an archived lead changes nothing.
    pub async fn set_archived(&self, user: &User, id: i64, archived: bool) -> WorkResult<Lead> {
        let Opened { lead, .. } = self.open_for(user, id, LeadWorkAction::Archive).await?;
        let mut change = self.change_of(user, &lead);
        archive_change(&mut change, &lead, archived);
        self.save_one(lead, change).await
    }

    /// Moves a lead of a team to `team_id`: an admin or owner of its team (or a platform admin)
    /// who is a member of the target. The assignee is cleared.
    pub async fn move_to(&self, user: &User, id: i64, team_id: i64) -> WorkResult<Lead> {
        let Opened { lead, .. } = self.open_for(user, id, LeadWorkAction::MoveOut).await?;
        if lead.team_id.is_none() {
            return Err(invalid(
                &["team_id".into()],
                "value_error",
                "An unassigned lead is claimed, not moved",
            ));
        }
        let change = self.team_change(user, &lead, team_id, &["team_id"]).await?;
        self.save_one(lead, change).await
    }

    /// Claims an unassigned lead into one of the caller's teams.
    pub async fn claim(&self, user: &User, id: i64, team_id: i64) -> WorkResult<Lead> {
        let Opened { lead, .. } = self.open_for(user, id, LeadWorkAction::Claim).await?;
        if lead.team_id.is_some() {
            return Err(LeadWorkError::Conflict {
                detail: "Lead already belongs to a team".into(),
                lead_id: None,
            });
        }
        let change = self.team_change(user, &lead, team_id, &["team_id"]).await?;
        self.save_one(lead, change).await
    }

    /// The change that puts `lead` into `team_id`, checked: the user may add to that team, it
    /// is another team, and no lead there holds the property.
    async fn team_change(
        &self,
        user: &User,
        lead: &Lead,
        team_id: i64,
        path: &[&str],
    ) -> WorkResult<LeadChange> {
        if let Err(reason) = may_add_to_team(self.memberships.as_ref(), user, team_id).await? {
            return Err(LeadWorkError::Forbidden(reason.to_owned()));
        }
        if lead.team_id == Some(team_id) {
            let path: Vec<LocPart> = path.iter().map(|p| LocPart::from(*p)).collect();
            return Err(invalid(
                &path,
                "value_error",
                "The lead is in this team already",
            ));
        }
        if let Some(key) = lead.fields.address_key() {
            self.check_property(lead.id, Some(team_id), &AddressKeys::of(key))
                .await?;
        }
        let mut change = self.change_of(user, lead);
        move_change(&mut change, lead, team_id);
        Ok(change)
    }

    async fn save_one(&self, lead: Lead, change: LeadChange) -> WorkResult<Lead> {
        if change.activity.is_empty() {
            return Ok(lead);
        }
        match self.work.save_change(change).await? {
            ChangeSaved::Saved(lead) => Ok(*lead),
            ChangeSaved::Collision(other) => Err(collision(other)),
            ChangeSaved::Stale | ChangeSaved::RolledBack => Err(LeadWorkError::Conflict {
                detail: "The lead changed meanwhile; try again".into(),
                lead_id: None,
            }),
        }
    }

    /// Sets the same values on every lead of `ids`, in one transaction, all or nothing: every
    /// lead refused is named in the 422 (at `["body", "ids", index]`).
    pub async fn bulk(&self, user: &User, ids: &[i64], set: &BulkSet) -> WorkResult<Vec<Lead>> {
        let set = &BulkSet {
            note: optional_note(set.note.as_deref(), &["set", "note"])?,
            ..set.clone()
        };
        bulk_shape(ids, set)?;
        self.bulk_each(user, ids, |_| set).await
    }

    /// Lead `ids[i]` changed by `set_of(i)`, each checked as the single operations check it; one
    /// transaction, all or nothing, every refused lead named at its index.
    pub(super) async fn bulk_each<'s>(
        &self,
        user: &User,
        ids: &[i64],
        set_of: impl Fn(usize) -> &'s BulkSet,
    ) -> WorkResult<Vec<Lead>> {
        let mut problems = Vec::new();
        let mut changes = Vec::with_capacity(ids.len());
        // The leads the change leaves as they are (a status they have, tags they carry): not
        // saved, so each keeps its version and gets no timeline row nor `lead.updated`.
        let mut kept: Vec<(usize, Lead)> = Vec::new();
        // The leads read at once and who the user is on each team once: a bulk change of an
        // import's 500 leads would otherwise read each lead and membership on its own.
        let mut found: HashMap<i64, Lead> = self
            .leads
            .find_leads(ids.to_vec())
            .await?
            .into_iter()
            .map(|lead| (lead.id, lead))
            .collect();
        let mut actors: HashMap<Option<i64>, Option<Actor>> = HashMap::new();
        let mut assignees = Assignees::new();
        for (i, id) in ids.iter().enumerate() {
            let set = set_of(i);
            let opened = match found.remove(id) {
                Some(lead) => {
                    let actor = match actors.get(&lead.team_id) {
                        Some(actor) => *actor,
                        None => {
                            let actor = self.actor_on_lead(user, &lead).await?;
                            *actors.entry(lead.team_id).or_insert(actor)
                        }
                    };
                    opened_for(lead, actor, bulk_action(set))
                }
                // Not stored, or named twice: read and refused as a single change is.
                None => self.open_for(user, *id, bulk_action(set)).await,
            };
            match self.bulk_change_of(user, opened, set, &mut assignees).await {
                Ok((change, lead)) if change.changes_nothing() => kept.push((i, lead)),
                Ok((change, _)) => changes.push((i, change)),
                Err(LeadWorkError::Unexpected(e)) => return Err(LeadWorkError::Unexpected(e)),
                Err(e) => problems.push(id_problem(i, &e)),
            }
        }
        if !problems.is_empty() {
            return Err(LeadWorkError::Invalid(problems));
        }
        let (index, changes): (Vec<usize>, Vec<LeadChange>) = changes.into_iter().unzip();
        let saved = if changes.is_empty() {
            Vec::new()
        } else {
            self.work.save_changes(changes).await?
        };
        let mut leads = kept;
        for (i, outcome) in index.into_iter().zip(saved) {
            match outcome {
                ChangeSaved::Saved(lead) => leads.push((i, *lead)),
                ChangeSaved::RolledBack => {}
                ChangeSaved::Collision(other) => problems.push(id_problem(i, &collision(other))),
                ChangeSaved::Stale => problems.push(id_problem(
                    i,
                    &LeadWorkError::Conflict {
                        detail: "The lead changed meanwhile; try again".into(),
                        lead_id: None,
                    },
                )),
            }
        }
        if problems.is_empty() {
            // In the order of `ids`, as asked.
            leads.sort_by_key(|(i, _)| *i);
            Ok(leads.into_iter().map(|(_, lead)| lead).collect())
        } else {
            Err(LeadWorkError::Invalid(problems))
        }
    }

    /// One lead's change of a bulk request, the lead opened for it (`bulk_action`), checked as
    /// the single operations check it; with the lead as it was read.
    async fn bulk_change_of(
        &self,
        user: &User,
        opened: WorkResult<Opened>,
        set: &BulkSet,
        assignees: &mut Assignees,
    ) -> WorkResult<(LeadChange, Lead)> {
        let Opened { lead, actor } = opened?;
        let mut change = match set.team_id {
            Some(team_id) => {
                let needed = if lead.team_id.is_some() {
                    LeadWorkAction::MoveOut
                } else {
                    LeadWorkAction::Claim
                };
                allow(actor, needed)?;
                self.team_change(user, &lead, team_id, &["set", "team_id"])
                    .await?
            }
            None => self.change_of(user, &lead),
        };
        if !set.numbers_not_to_call.is_empty() {
            bar_numbers_not_to_call(&mut change, &lead, &set.numbers_not_to_call);
        }
        if let Some(outcome) = set.contact {
            record_contact(&mut change, &lead, outcome, set.status.is_none(), None);
        }
        if let Some(status) = set.status {
            set_status(&mut change, &lead, status);
        }
        change.note = set.note.clone();
        if let Some(assignee) = &set.assignee {
            let path = &["set", "assignee_id"];
            let id = self
                .assignee_among(lead.team_id, assignee.as_deref(), path, assignees)
                .await?;
            set_assignee(&mut change, &lead, id);
        }
        if let Some(day) = set.follow_up {
            set_follow_up(&mut change, &lead, day);
        }
        if let Some(marked) = set.do_not_call {
            may_mark_do_not_call(actor, &lead, marked)?;
            set_do_not_call(&mut change, &lead, marked);
        }
        if let Some(edit) = &set.tags {
            set_tags(&mut change, &lead, edit)
                .map_err(|msg| invalid(&["set".into(), "tags".into()], "too_long", msg))?;
        }
        if let Some(archived) = set.archived {
            archive_change(&mut change, &lead, archived);
        }
        Ok((change, lead))
    }
}

/// The assignees a bulk change looked up: (team, public user id) -> the row and public ids of an
/// active member, None for anyone else.
type Assignees = HashMap<(i64, String), Option<(i64, String)>>;

/// What a bulk change's lead is opened for: archiving or restoring, else an edit.
fn bulk_action(set: &BulkSet) -> LeadWorkAction {
    if set.archived.is_some() {
        LeadWorkAction::Archive
    } else {
        LeadWorkAction::Edit
    }
}

/// `open_for`'s checks on a lead read already, `actor` who the user is on it (None: an outsider,
/// told the lead is not found): a lead merged away takes no change (409 naming the survivor),
/// and the actor must be allowed `action` (403).
fn opened_for(lead: Lead, actor: Option<Actor>, action: LeadWorkAction) -> WorkResult<Opened> {
    let actor = actor.ok_or(LeadWorkError::NotFound("Lead"))?;
    if let Some(into) = lead.work.merged_into_id {
        return Err(LeadWorkError::Conflict {
            detail: format!("Lead was merged into lead {into}"),
            lead_id: Some(into),
        });
    }
    allow(actor, action)?;
    Ok(Opened { lead, actor })
}

/// A note's text cleaned (`clean_note`), 1 to 10,000 characters; else a 422 at `path` (in the
/// body).
pub(super) fn checked_note(text: &str, path: &[&'static str]) -> WorkResult<String> {
    let path: Vec<LocPart> = path.iter().map(|&member| member.into()).collect();
    let body = clean_note(text);
    if body.is_empty() {
        return Err(invalid(&path, "too_short", "A note needs some text"));
    }
    if body.chars().count() > NOTE_MAX_CHARS {
        return Err(invalid(
            &path,
            "too_long",
            format!("A note should have at most {NOTE_MAX_CHARS} characters"),
        ));
    }
    Ok(body)
}

/// A note given beside a change (a contact's, a bulk change's): blank is none, else checked as
/// every note.
pub(super) fn optional_note(
    text: Option<&str>,
    path: &[&'static str],
) -> WorkResult<Option<String>> {
    match text {
        Some(text) if !text.trim().is_empty() => checked_note(text, path).map(Some),
        _ => Ok(None),
    }
}

/// 403 unless `actor` may do `action`.
pub(super) fn allow(actor: Actor, action: LeadWorkAction) -> WorkResult<()> {
    if permits_on_lead(actor, action) {
        Ok(())
    } else {
        Err(LeadWorkError::Forbidden(
            "Only a team admin or owner may do this".into(),
        ))
    }
}

pub(super) fn collision(other: i64) -> LeadWorkError {
    LeadWorkError::Conflict {
        detail: format!("Lead {other} is already this property"),
        lead_id: Some(other),
    }
}

pub(super) fn set_status(change: &mut LeadChange, lead: &Lead, status: LeadStatus) {
    let old = lead.work.status;
    if status == old {
        return;
    }
    change.status = Some(status);
    let (old, new) = (old.as_str(), status.as_str());
    change.activity.push(NewActivity {
        kind: kind::STATUS_CHANGED,
        detail: json!({"old": old, "new": new}),
    });
    change
        .changes
        .insert("status".into(), json!({"old": old, "new": new}));
}

/// Sets the follow-up day (None clears it); the timeline and `lead.updated` tell it as
/// `YYYY-MM-DD`.
pub(super) fn set_follow_up(change: &mut LeadChange, lead: &Lead, day: Option<NaiveDate>) {
    let old = lead.work.follow_up_on;
    if day == old {
        return;
    }
    change.follow_up = Some(day);
    let detail = json!({"old": old.map(|d| d.to_string()), "new": day.map(|d| d.to_string())});
    change.activity.push(NewActivity {
        kind: kind::FOLLOW_UP_SET,
        detail: detail.clone(),
    });
    change.changes.insert("follow_up_on".into(), detail);
}

/// Sets the assignee (row id and public id, None for nobody). The timeline keeps row ids (the
/// agreed `assigned` detail); `lead.updated` tells the public ids, as the API shows them.
fn set_assignee(change: &mut LeadChange, lead: &Lead, new: Option<(i64, String)>) {
    let old = lead.work.assignee_id;
    let id = new.as_ref().map(|(id, _)| *id);
    // Once per change: a move has cleared the assignee already.
    if id == old || change.assignee.is_some() {
        return;
    }
    change.assignee = Some(id);
    change.activity.push(NewActivity {
        kind: kind::ASSIGNED,
        detail: json!({"old": old, "new": id}),
    });
    let old_public = lead.work.assignee.as_ref().map(|a| a.user_id.clone());
    let new_public = new.map(|(_, public)| public);
    change.changes.insert(
        "assignee_id".into(),
        json!({"old": old_public, "new": new_public}),
    );
}

/// Anyone who may edit a lead may mark it do-not-call; taking a mark off is a team admin's or
/// owner's decision (the owner said they may be called again), as archiving is.
fn may_mark_do_not_call(actor: Actor, lead: &Lead, marked: bool) -> WorkResult<()> {
    if lead.work.do_not_call && !marked {
        return allow(actor, LeadWorkAction::ClearDoNotCall);
    }
    Ok(())
}

/// Sets or takes off the do-not-call mark; the timeline and `lead.updated` tell it as
/// `{"old", "new"}`.
fn set_do_not_call(change: &mut LeadChange, lead: &Lead, marked: bool) {
    let old = lead.work.do_not_call;
    if marked == old {
        return;
    }
    change.do_not_call = Some(marked);
    let detail = json!({"old": old, "new": marked});
    change.activity.push(NewActivity {
        kind: kind::DO_NOT_CALL_SET,
        detail: detail.clone(),
    });
    change.changes.insert("do_not_call".into(), detail);
}

fn archive_change(change: &mut LeadChange, lead: &Lead, archived: bool) {
    if lead.work.archived_at.is_some() == archived {
        return;
    }
    change.archived = Some(archived);
    let kind = if archived {
        kind::ARCHIVED
    } else {
        kind::RESTORED
    };
    change.activity.push(NewActivity {
        kind,
        detail: json!({}),
    });
    change.changes.insert(
        "archived".into(),
        json!({"old": !archived, "new": archived}),
    );
}

/// A move to `team_id`: the assignee (a member of the old team) is cleared.
fn move_change(change: &mut LeadChange, lead: &Lead, team_id: i64) {
    change.team = Some(team_id);
    change.activity.push(NewActivity {
        kind: kind::TEAM_MOVED,
        detail: json!({"old": lead.team_id, "new": team_id}),
    });
    change.changes.insert(
        "team_id".into(),
        json!({"old": lead.team_id, "new": team_id}),
    );
    set_assignee(change, lead, None);
}

/// The request's own rules: 1 to 1000 ids, something to set, a team move not mixed with an
/// assignee (who must belong to the team the lead ends in).
pub(super) fn bulk_shape(ids: &[i64], set: &BulkSet) -> WorkResult<()> {
    if ids.is_empty() {
        return Err(invalid(
            &["ids".into()],
            "too_short",
            "Name at least one lead",
        ));
    }
    if ids.len() > BULK_MAX_IDS {
        return Err(invalid(
            &["ids".into()],
            "too_long",
            format!("At most {BULK_MAX_IDS} leads at once"),
        ));
    }
    if *set == BulkSet::default() {
        return Err(invalid(&["set".into()], "missing", "Give something to set"));
    }
    if set.team_id.is_some() && matches!(set.assignee, Some(Some(_))) {
        return Err(invalid(
            &["set".into()],
            "value_error",
            "Move the leads first, then assign them",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, id) in ids.iter().enumerate() {
        if !seen.insert(id) {
            return Err(invalid(
                &["ids".into(), i.into()],
                "value_error",
                "This lead is named twice",
            ));
        }
    }
    Ok(())
}

/// A refused lead of a bulk request, at `["body", "ids", index]`.
fn id_problem(index: usize, e: &LeadWorkError) -> FieldError {
    let (kind, msg) = match e {
        LeadWorkError::NotFound(thing) => ("not_found", format!("{thing} not found")),
        LeadWorkError::Forbidden(reason) => ("forbidden", reason.clone()),
        LeadWorkError::Conflict { detail, .. } => ("conflict", detail.clone()),
        LeadWorkError::Invalid(problems) => (
            "value_error",
            problems
                .iter()
                .map(|p| p.msg.clone())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        other => ("value_error", other.to_string()),
    };
    FieldError::body(&["ids".into(), index.into()], kind, msg)
}
