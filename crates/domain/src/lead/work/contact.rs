//! Logging a contact with a lead's owner (a call, a message left, an e-mail): one timeline entry
//! with its outcome, and with it what the contact decided (docs/working-leads.md "Contacts").
use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::json;

use crate::lead::barred::Bar;
use crate::lead::record::Lead;
use crate::store::StoreResult;
use crate::team::LeadWorkAction;
use crate::user::User;
use crate::word_enum::word_enum;

use super::model::{kind, LeadStatus, NewActivity};
use super::numbers::{called_number, put_first, take_off_numbers};
use super::repository::LeadChange;
use super::service::{optional_note, set_follow_up, set_status, LeadWorkService, WorkResult};

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

impl LeadWorkService {
    /// Logs a contact on a lead (anyone who may edit it): a `contact_logged` timeline entry,
    /// its note, a `new` lead the owner heard from set `contacted`, and the follow-up day given;
    /// one change, with `lead.updated` naming the outcome. The number called, when given (one
    /// of the lead's, else 422), is named in the entry: a wrong one is taken off the lead, the
    /// one the owner answered becomes its first. Applies to the lead as it is (a concurrent
    /// change is read again), like a PATCH without `If-Match`.
    pub async fn log_contact(&self, user: &User, id: i64, log: &ContactLog) -> WorkResult<Lead> {
        let note = optional_note(log.note.as_deref(), &["note"])?;
        self.change_as_it_is(user, id, LeadWorkAction::Edit, |change, lead, _| {
            let phone = match log.phone.as_deref() {
                Some(given) => Some(called_number(lead, given)?),
                None => None,
            };
            record_contact(change, lead, log.outcome, true, phone.as_deref());
            change.note = note.clone();
            if let Some(day) = log.follow_up {
                set_follow_up(change, lead, day);
            }
            Ok(())
        })
        .await
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
