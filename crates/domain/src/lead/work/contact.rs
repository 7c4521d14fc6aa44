//! Logging a contact with a lead's owner (a call, a message left, an e-mail): one timeline entry
//! with its outcome, and with it what the contact decided (docs/working-leads.md "Contacts").
use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::json;

use crate::lead::barred::Bar;
use crate::lead::normalize::PHONE_FIELDS;
use crate::lead::record::Lead;
use crate::parse::normalize_phone;
use crate::store::StoreResult;
use crate::team::LeadWorkAction;
use crate::user::User;
use crate::word_enum::word_enum;

use super::edit::changes;
use super::model::{kind, LeadStatus, NewActivity};
use super::repository::{ChangeSaved, LeadChange, StoredFields};
use super::service::{
    collision, invalid, optional_note, set_follow_up, set_status, LeadWorkError, LeadWorkService,
    WorkResult, UNCONDITIONAL_TRIES,
};

word_enum! {
    /// How a contact attempt went.
    pub enum ContactOutcome {
        /// Called; nobody answered.
        NoAnswer,
        /// Called and left a message (voicemail, someone else at the number).
        LeftMessage,
        /// Spoke with the owner.
        Reached,
        /// The number is not the owner's.
        WrongNumber,
        /// Wrote an e-mail.
        Emailed,
    }
}

impl ContactOutcome {
    /// Whether the owner has now heard from us: a `new` lead becomes `contacted`. A call nobody
    /// answered, or a wrong number, leaves the lead where it stands.
    pub fn got_through(self) -> bool {
        matches!(
            self,
            ContactOutcome::LeftMessage | ContactOutcome::Reached | ContactOutcome::Emailed
        )
    }
}

/// The contacts logged on one lead: how many, and the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContactSummary {
    pub count: i64,
    pub last_at: DateTime<Utc>,
    pub last_outcome: ContactOutcome,
}

impl ContactSummary {
    /// Folds a lead's `contact_logged` entries (their time, id and outcome, in any order) into
    /// their summary: the last is the latest, the later row on a tie; an entry whose outcome is
    /// not a known word counts but is never the last (None: no entry had a known outcome).
    pub fn of(
        entries: impl IntoIterator<Item = (DateTime<Utc>, i64, Option<ContactOutcome>)>,
    ) -> Option<Self> {
        let mut count = 0;
        let mut last: Option<(DateTime<Utc>, i64, ContactOutcome)> = None;
        for (at, id, outcome) in entries {
            count += 1;
            if let Some(outcome) = outcome {
                if last.is_none_or(|(l_at, l_id, _)| (at, id) > (l_at, l_id)) {
                    last = Some((at, id, outcome));
                }
            }
        }
        last.map(|(last_at, _, last_outcome)| ContactSummary {
            count,
            last_at,
            last_outcome,
        })
    }
}

/// A contact as the caller logs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactLog {
    pub outcome: ContactOutcome,
    /// What was said; stored as a note of the lead (blank: none).
    pub note: Option<String>,
    /// The next follow-up day (None inside: cleared); None leaves the day as it is.
    pub follow_up: Option<Option<NaiveDate>>,
    /// The number called, written any way a phone is (`(512) 555-0100`): one of the lead's.
    /// A wrong number is taken off the lead (`take_off_numbers`).
    pub phone: Option<String>,
}

/// A contact with `outcome` as part of `change`: its `contact_logged` timeline entry, the
/// outcome `lead.updated` names and, when `status_follows` (no status is set beside it), a `new`
/// lead whose owner heard from us set `contacted`. The one home of the contact's rule, for a
/// single log and a bulk one. A call to `phone` (one of the lead's numbers, E.164; a bulk change
/// names none): the entry names it; a wrong number is taken off the lead, and the number the
/// owner answered becomes its first.
pub(super) fn record_contact(
    change: &mut LeadChange,
    lead: &Lead,
    outcome: ContactOutcome,
    status_follows: bool,
    phone: Option<&str>,
) {
    let mut detail = json!({ "outcome": outcome.as_str() });
    // An e-mail reached no number.
    let phone = phone.filter(|_| outcome != ContactOutcome::Emailed);
    if let Some(phone) = phone {
        detail["phone"] = json!(phone);
        match outcome {
            ContactOutcome::WrongNumber => {
                take_off_numbers(change, lead, &[phone.to_owned()], Bar::Wrong);
            }
            ContactOutcome::Reached => put_first(change, lead, phone),
            _ => {}
        }
    }
    change.activity.push(NewActivity {
        kind: kind::CONTACT_LOGGED,
        detail,
    });
    change.contact = Some(outcome);
    if status_follows && outcome.got_through() && lead.work.status == LeadStatus::New {
        set_status(change, lead, LeadStatus::Contacted);
    }
}

/// The lead's number that `given` is (any writing of it), E.164; 422 at `phone` otherwise.
fn called_number(lead: &Lead, given: &str) -> WorkResult<String> {
    let number = normalize_phone(given).filter(|number| lead.fields.phones().any(|n| n == number));
    number.ok_or_else(|| {
        invalid(
            &["phone".into()],
            "value_error",
            "Not one of the lead's numbers",
        )
    })
}

/// The lead's numbers, in slot order.
fn numbers_of(lead: &Lead) -> Vec<String> {
    lead.fields.phones().map(str::to_owned).collect()
}

/// Puts `numbers` into the lead's phone slots in their order, as part of `change` (the primary
/// number's type goes with a primary number that changes: it described that number).
fn set_numbers(change: &mut LeadChange, lead: &Lead, numbers: &[String]) {
    let mut fields = lead.fields.clone();
    for (i, name) in PHONE_FIELDS.iter().enumerate() {
        if let Some(slot) = fields.string_field_mut(name) {
            *slot = numbers.get(i).cloned();
        }
    }
    if fields.primary_phone != lead.fields.primary_phone {
        fields.primary_phone_type = None;
    }
    change.changes.extend(changes(&lead.fields, &fields));
    change.fields = Some(StoredFields {
        fields,
        lot_size_acres: lead.lot_size_acres,
        keys: None,
    });
}

/// Takes `barring` off the lead's numbers (the later ones move up a slot, so the first number
/// stays the one to call) and keeps each among the lead's barred numbers of the list `bar`, so
/// no submission or import adds it back. Nothing when all are there already (false).
fn take_off_numbers(change: &mut LeadChange, lead: &Lead, barring: &[String], bar: Bar) -> bool {
    let numbers = numbers_of(lead);
    let kept: Vec<String> = numbers
        .iter()
        .filter(|number| !barring.contains(number))
        .cloned()
        .collect();
    if kept != numbers {
        set_numbers(change, lead, &kept);
    }
    let mut barred = lead.work.barred.clone();
    for number in barring {
        barred.add(bar, number);
    }
    let listed = barred.changes_from(&lead.work.barred);
    for (name, old, new) in &listed {
        change
            .changes
            .insert((*name).into(), json!({"old": old, "new": new}));
    }
    if !listed.is_empty() {
        change.barred = Some(barred);
    }
    kept != numbers || !listed.is_empty()
}

/// Bars `numbers` (E.164) that a do-not-call list flagged on the lead, as part of `change`: taken
/// off its phones and kept among its numbers not to call, with a `numbers_not_to_call` timeline
/// entry naming them; nothing when the lead had them so already.
pub(super) fn bar_numbers_not_to_call(change: &mut LeadChange, lead: &Lead, numbers: &[String]) {
    if take_off_numbers(change, lead, numbers, Bar::NotToCall) {
        change.activity.push(NewActivity {
            kind: kind::NUMBERS_NOT_TO_CALL,
            detail: json!({ "numbers": numbers }),
        });
    }
}

/// Makes `phone`, the number the owner answered, the lead's first (the others keep their order
/// after it), so the next call goes where the owner is; nothing when it is first already.
fn put_first(change: &mut LeadChange, lead: &Lead, phone: &str) {
    let mut numbers = numbers_of(lead);
    if numbers.first().map(String::as_str) == Some(phone) {
        return;
    }
    numbers.retain(|number| number != phone);
    numbers.insert(0, phone.to_owned());
    set_numbers(change, lead, &numbers);
}

impl LeadWorkService {
    /// Logs a contact on a lead (anyone who may edit it): a `contact_logged` timeline entry,
    /// its note, a `new` lead the owner heard from set `contacted`, and the follow-up day given;
    /// one change, with `lead.updated` naming the outcome. The number called, when given (one
    /// of the lead's, else 422), is named in the entry: a wrong one is taken off the lead, the
    /// one the owner answered becomes its first. Applies to the lead as it is (a concurrent
    /// change is read again), like a PATCH without `If-Match`.
    pub async fn log_contact(&self, user: &User, id: i64, log: &ContactLog) -> WorkResult<Lead> {
        let note = optional_note(log.note.as_deref(), &["note"])?;
        for _ in 0..UNCONDITIONAL_TRIES {
            let lead = self.open_for(user, id, LeadWorkAction::Edit).await?.lead;
            let phone = match log.phone.as_deref() {
                Some(given) => Some(called_number(&lead, given)?),
                None => None,
            };
            let mut change = self.change_of(user, &lead);
            record_contact(&mut change, &lead, log.outcome, true, phone.as_deref());
            change.note = note.clone();
            if let Some(day) = log.follow_up {
                set_follow_up(&mut change, &lead, day);
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

    /// The contacts logged on each of `leads` (leads the caller sees: a list's page, a lead's
    /// page), by lead id; a lead without any is left out.
    pub async fn contact_summaries(
        &self,
        leads: &[Lead],
    ) -> StoreResult<HashMap<i64, ContactSummary>> {
        if leads.is_empty() {
            return Ok(HashMap::new());
        }
        let ids = leads.iter().map(|l| l.id).collect();
        self.work.contact_summaries(ids).await
    }
}
