//! The working state a spreadsheet brings with the leads it creates (a team moving its sales
//! sheet or CRM export to leadhub): each lead's status, the person working it and the day to
//! follow it up, set by the person importing as one bulk change, so the page's rules hold (an owner must be an active
//! member of the lead's team) and each lead's timeline says who set them.
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;

use super::service::{BulkSet, LeadWorkError, LeadWorkService, WorkResult};
use super::tags::TagEdit;
use super::{LeadStatus, LeadWork};
use crate::error::LocPart;
use crate::store::StoreResult;
use crate::user::User;

/// The working state a spreadsheet row gives the lead it creates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportedWork {
    /// None for `new` too: every lead starts as new.
    pub status: Option<LeadStatus>,
    /// The e-mail address of the person to work the lead.
    pub assignee_email: Option<String>,
    pub follow_up: Option<NaiveDate>,
    /// `Some(true)`: the owner must not be called (a file never takes a mark off).
    pub do_not_call: Option<bool>,
    /// Tags added to the lead (stored form).
    pub tags: BTreeSet<String>,
    /// Numbers (E.164) the row's per-number do-not-call flags named: taken off the lead and kept
    /// among its numbers not to call.
    pub numbers_not_to_call: BTreeSet<String>,
}

impl ImportedWork {
    pub fn is_empty(&self) -> bool {
        *self == ImportedWork::default()
    }

    /// What of it a lead that existed takes: the do-not-call mark and the numbers not to call,
    /// since a list saying the owner or a number must not be called holds whoever works the lead,
    /// and the tags, which only add; the rest stays as the team has it.
    pub fn for_existing_lead(&self) -> Option<ImportedWork> {
        let taken = ImportedWork {
            do_not_call: self.do_not_call.filter(|marked| *marked),
            tags: self.tags.clone(),
            numbers_not_to_call: self.numbers_not_to_call.clone(),
            ..ImportedWork::default()
        };
        (!taken.is_empty()).then_some(taken)
    }

    /// Takes in what a later row of the same lead gives it (two rows of one property in a
    /// chunk: the first created the lead, the next merged into it): the first status, owner and
    /// day given, the do-not-call mark if either row sets it, every tag and flagged number.
    fn join(&mut self, later: &ImportedWork) {
        self.status = self.status.or(later.status);
        if self.assignee_email.is_none() {
            self.assignee_email.clone_from(&later.assignee_email);
        }
        self.follow_up = self.follow_up.or(later.follow_up);
        self.do_not_call = match (self.do_not_call, later.do_not_call) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (mine, theirs) => mine.or(theirs),
        };
        self.tags.extend(later.tags.iter().cloned());
        let numbers = later.numbers_not_to_call.iter().cloned();
        self.numbers_not_to_call.extend(numbers);
    }

    /// Whether it sets a status, an owner or a follow-up day: what the import's summary counts
    /// ("Status, owner or follow-up set"); a mark, tags or numbers alone are not.
    pub fn sets_working_state(&self) -> bool {
        self.status.is_some() || self.assignee_email.is_some() || self.follow_up.is_some()
    }

    /// What a lead that existed leaves aside (`for_existing_lead` takes the rest).
    pub fn left_for_existing_lead(&self) -> ImportedWork {
        ImportedWork {
            do_not_call: None,
            tags: BTreeSet::new(),
            numbers_not_to_call: BTreeSet::new(),
            ..self.clone()
        }
    }

    /// What of its status, owner and follow-up day (`left_for_existing_lead`) a lead that
    /// existed, working as `lead` says, keeps otherwise than the row: each part the row gives
    /// that differs from the lead's, with the lead's. A part the lead has already is no edit
    /// lost (a lead export imported again), so it is not among them.
    pub fn kept_by(&self, lead: &LeadWork) -> Vec<KeptWork> {
        let mut kept = Vec::new();
        if self.status.is_some_and(|status| status != lead.status) {
            kept.push(KeptWork::Status(lead.status));
        }
        let owner = lead.assignee.as_ref().map(|a| a.email.as_str());
        if let Some(email) = self.assignee_email.as_deref() {
            // Addresses are compared as people write them: in any case.
            if !owner.is_some_and(|owner| owner.eq_ignore_ascii_case(email)) {
                kept.push(KeptWork::Owner(owner.map(str::to_owned)));
            }
        }
        if self
            .follow_up
            .is_some_and(|day| Some(day) != lead.follow_up_on)
        {
            kept.push(KeptWork::FollowUp(lead.follow_up_on));
        }
        kept
    }
}

/// A part of a lead's working state that a row merging into it said otherwise, and which stays
/// as the lead has it (`ImportedWork::kept_by`): the lead's own value.
#[derive(Debug, Clone, PartialEq)]
pub enum KeptWork {
    Status(LeadStatus),
    /// The e-mail address of the person working the lead (None: nobody).
    Owner(Option<String>),
    FollowUp(Option<NaiveDate>),
}

/// How much of a lead's imported working state was set.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkSet {
    All,
    /// All but the owner, and why the owner was left out.
    OwnerLeftOut(String),
    /// Part or none of it, and why not the rest.
    Not(String),
}

/// Times a refused lead's change is narrowed (its owner left out) or dropped and the rest tried
/// again: each pass narrows or drops at least one lead, and a lead is narrowed once at most.
const PASSES: usize = 3;

impl LeadWorkService {
    /// Sets each `(lead, working state)` as `user`, in one transaction for all that can be set: an
    /// owner no account has, or one a rule refuses, is left out and the status and follow-up day
    /// set alone. For each item in order, whether all of it was set.
    ///
    /// Items naming one lead are one change of it: a bulk change takes each lead once (a second
    /// change of it would be refused as stale, and its do-not-call mark and tags lost).
    pub async fn apply_imported_work(
        &self,
        user: &User,
        items: &[(i64, ImportedWork)],
    ) -> WorkResult<Vec<WorkSet>> {
        let mut leads: Vec<(i64, ImportedWork)> = Vec::new();
        let mut place: HashMap<i64, usize> = HashMap::new();
        let mut lead_of = Vec::with_capacity(items.len());
        for (lead_id, work) in items {
            let k = *place.entry(*lead_id).or_insert_with(|| {
                leads.push((*lead_id, ImportedWork::default()));
                leads.len() - 1
            });
            leads[k].1.join(work);
            lead_of.push(k);
        }
        let sets = self.apply_to_each_lead(user, &leads).await?;
        if let Err(e) = self.bar_flagged_on_team_leads(user, &leads, &sets).await {
            // The rows' own leads are set; the file's report stands for them.
            tracing::warn!(error = %e, "numbers a file flagged were not barred on every lead of the team");
        }
        Ok(items
            .iter()
            .zip(lead_of)
            .map(|((_, work), k)| match &sets[k] {
                // Another row of the lead named the owner; this one's part was set.
                WorkSet::OwnerLeftOut(_) if work.assignee_email.is_none() => WorkSet::All,
                set => set.clone(),
            })
            .collect())
    }

    /// The working state of leads an import's rows merged into, by lead id, as it is now: what
    /// the rows' status, owner and follow-up day, which such a lead does not take, are compared
    /// with, so that only a cell saying otherwise is reported. Those leads came back from the
    /// person's own submissions, which the team rule let through, so no lead is opened again
    /// (as `add_imported_notes`).
    pub async fn imported_leads_work(
        &self,
        leads: Vec<i64>,
    ) -> StoreResult<HashMap<i64, LeadWork>> {
        Ok(self
            .leads
            .find_leads(leads)
            .await?
            .into_iter()
            .map(|lead| (lead.id, lead.work))
            .collect())
    }

    /// The numbers a file flagged, barred on the other leads of each flagged lead's team that
    /// carry them (`bar_on_team_leads`, as the owner's own request is): a list saying a number
    /// must not be dialled speaks of whoever answers it, whichever of their properties a lead
    /// is. Only the leads whose working state was set; a lead of no team bars it alone.
    async fn bar_flagged_on_team_leads(
        &self,
        user: &User,
        leads: &[(i64, ImportedWork)],
        sets: &[WorkSet],
    ) -> WorkResult<()> {
        let flagged: Vec<(i64, &BTreeSet<String>)> = leads
            .iter()
            .zip(sets)
            .filter(|((_, work), set)| {
                !work.numbers_not_to_call.is_empty() && !matches!(set, WorkSet::Not(_))
            })
            .map(|((id, work), _)| (*id, &work.numbers_not_to_call))
            .collect();
        if flagged.is_empty() {
            return Ok(());
        }
        let ids = flagged.iter().map(|(id, _)| *id).collect();
        let team_of: HashMap<i64, i64> = self
            .leads
            .find_leads(ids)
            .await?
            .into_iter()
            .filter_map(|lead| Some((lead.id, lead.team_id?)))
            .collect();
        // Each (team, number) once, passing over the leads of the file that flagged it.
        let mut flagging: BTreeMap<(i64, &str), Vec<i64>> = BTreeMap::new();
        for (id, numbers) in flagged {
            if let Some(&team_id) = team_of.get(&id) {
                for number in numbers {
                    flagging.entry((team_id, number)).or_default().push(id);
                }
            }
        }
        for ((team_id, number), barred) in flagging {
            self.bar_on_team_leads(user, team_id, number, &barred)
                .await?;
        }
        Ok(())
    }

    /// `apply_imported_work` of items naming each lead once.
    async fn apply_to_each_lead(
        &self,
        user: &User,
        items: &[(i64, ImportedWork)],
    ) -> WorkResult<Vec<WorkSet>> {
        let mut outcome = vec![WorkSet::All; items.len()];
        let mut people: HashMap<&str, Option<String>> = HashMap::new();
        for email in items
            .iter()
            .filter_map(|(_, w)| w.assignee_email.as_deref())
        {
            if !people.contains_key(email) {
                let found = self.users.find_by_email(email).await?;
                people.insert(email, found.map(|u| u.user_id));
            }
        }
        let mut sets: Vec<(usize, BulkSet)> = Vec::new();
        for (i, (_, item)) in items.iter().enumerate() {
            let mut set = BulkSet {
                status: item.status,
                follow_up: item.follow_up.map(Some),
                do_not_call: item.do_not_call,
                tags: (!item.tags.is_empty()).then(|| TagEdit::adding(item.tags.iter().cloned())),
                numbers_not_to_call: item.numbers_not_to_call.iter().cloned().collect(),
                ..BulkSet::default()
            };
            if let Some(email) = item.assignee_email.as_deref() {
                match people.get(email).cloned().flatten() {
                    Some(user_id) => set.assignee = Some(Some(user_id)),
                    None => {
                        let reason = format!("no account has the address {email}");
                        outcome[i] = WorkSet::OwnerLeftOut(reason);
                    }
                }
            }
            if set != BulkSet::default() {
                sets.push((i, set));
            }
        }
        for _ in 0..PASSES {
            if sets.is_empty() {
                break;
            }
            let ids: Vec<i64> = sets.iter().map(|(i, _)| items[*i].0).collect();
            let problems = match self.bulk_each(user, &ids, |k| &sets[k].1).await {
                Ok(_) => return Ok(outcome),
                Err(LeadWorkError::Invalid(problems)) => problems,
                Err(e) => return Err(e),
            };
            let mut refused: Vec<(usize, String)> = problems
                .into_iter()
                .filter_map(|p| match p.loc.last() {
                    Some(LocPart::Index(k)) => Some((*k, p.msg)),
                    _ => None,
                })
                .collect();
            if refused.is_empty() {
                break;
            }
            // From the last, so the indices of those before stay right.
            refused.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
            for (k, reason) in refused {
                let Some((i, set)) = sets.get_mut(k) else {
                    continue;
                };
                let others = set.status.is_some()
                    || set.follow_up.is_some()
                    || set.do_not_call.is_some()
                    || set.tags.is_some()
                    || !set.numbers_not_to_call.is_empty();
                if set.assignee.is_some() && others {
                    set.assignee = None;
                    outcome[*i] = WorkSet::OwnerLeftOut(reason);
                } else {
                    outcome[*i] = WorkSet::Not(reason);
                    sets.remove(k);
                }
            }
        }
        // Still refused after the passes (a change made meanwhile): nothing of these was saved.
        for (i, _) in sets {
            outcome[i] = WorkSet::Not("not set: the leads changed while they were imported".into());
        }
        Ok(outcome)
    }
}
