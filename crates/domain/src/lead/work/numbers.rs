//! A lead's phone numbers as working it changes them: the number called, the one the owner
//! answered put first, and the numbers barred from the lead (`lead::barred`): a wrong one, one a
//! list flagged, one the owner asked not to be called at (docs/working-leads.md "Do not call").
use serde_json::json;

use crate::lead::barred::{Bar, BarredNumbers};
use crate::lead::fields::LeadFields;
use crate::lead::normalize::PHONE_FIELDS;
use crate::lead::record::{Lead, LeadFilter};
use crate::lead::search::SearchText;
use crate::parse::normalize_phone;
use crate::team::LeadWorkAction;
use crate::user::User;

use super::edit::changes;
use super::model::{kind, NewActivity};
use super::repository::{LeadChange, StoredFields};
use super::service::{allow, invalid, LeadWorkError, LeadWorkService, WorkResult};

/// The most of a team's other leads a number barred at its owner's request, or flagged by a
/// list, is barred on too.
const OTHER_LEADS_MAX: i64 = 100;

/// The lead's number that `given` is (any writing of it), E.164; 422 at `phone` otherwise.
pub(super) fn called_number(lead: &Lead, given: &str) -> WorkResult<String> {
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
pub(super) fn take_off_numbers(
    change: &mut LeadChange,
    lead: &Lead,
    barring: &[String],
    bar: Bar,
) -> bool {
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
    let listed = set_barred(change, lead, barred);
    kept != numbers || listed
}

/// Gives the lead `barred` as part of `change`, each list that differs from the lead's among
/// the changes `lead.updated` tells; false (and nothing set) when no list differs.
fn set_barred(change: &mut LeadChange, lead: &Lead, barred: BarredNumbers) -> bool {
    let listed = barred.changes_from(&lead.work.barred);
    for (name, old, new) in &listed {
        change
            .changes
            .insert((*name).into(), json!({"old": old, "new": new}));
    }
    if !listed.is_empty() {
        change.barred = Some(barred);
    }
    !listed.is_empty()
}

/// The numbers an edit types among the lead's phones that the lead keeps off them, as part of
/// `change`: one not to call is refused (422 at its field: whoever may take the lead's
/// do-not-call mark off lifts it first, "may be called again"), since the owner asked or a
/// registry flagged it; a wrong one is right after all (the person typed it knowing) and leaves
/// the lead's wrong numbers.
pub(super) fn typed_back(
    change: &mut LeadChange,
    lead: &Lead,
    edited: &LeadFields,
) -> WorkResult<()> {
    let before: Vec<&str> = lead.fields.phones().collect();
    let mut barred = lead.work.barred.clone();
    for name in PHONE_FIELDS {
        let typed = edited.string_field(name).and_then(|v| v.as_deref());
        let Some(number) = typed.filter(|n| !before.contains(n)) else {
            continue;
        };
        if barred.has(Bar::NotToCall, number) {
            return Err(invalid(
                &[(*name).into()],
                "number_not_to_call",
                "This number is among the lead's numbers not to call: it is lifted first \
                 (\"may be called again\", by a team admin or owner)",
            ));
        }
        barred.wrong.retain(|n| n != number);
    }
    set_barred(change, lead, barred);
    Ok(())
}

/// Bars `numbers` (E.164) not to call on the lead (a list flagged them, or the owner asked), as
/// part of `change`: taken off its phones and kept among its numbers not to call, with a
/// `numbers_not_to_call` timeline entry naming them; nothing when the lead had them so already.
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
pub(super) fn put_first(change: &mut LeadChange, lead: &Lead, phone: &str) {
    let mut numbers = numbers_of(lead);
    if numbers.first().map(String::as_str) == Some(phone) {
        return;
    }
    numbers.retain(|number| number != phone);
    numbers.insert(0, phone.to_owned());
    set_numbers(change, lead, &numbers);
}

impl LeadWorkService {
    /// Bars one of the lead's numbers (`phone`, written any way; else 422 at `phone`) at its
    /// owner's request, as a list's flag bars one: taken off the lead and kept among its numbers
    /// not to call. Anyone who may edit the lead; applies to the lead as it is. The request is
    /// the person's, not the property's: the team's other live leads with that number (the
    /// owner's other properties, `OTHER_LEADS_MAX` at most) bar it too, each as its own change.
    pub async fn bar_number(&self, user: &User, id: i64, phone: &str) -> WorkResult<Lead> {
        let barred = self
            .change_as_it_is(user, id, LeadWorkAction::Edit, |change, lead, _| {
                let number = called_number(lead, phone)?;
                bar_numbers_not_to_call(change, lead, &[number]);
                Ok(())
            })
            .await?;
        // `called_number` read it, so it reads; a lead of no team bars it alone.
        if let (Some(number), Some(team_id)) = (normalize_phone(phone), barred.team_id) {
            self.bar_on_team_leads(user, team_id, &number, &[id])
                .await?;
        }
        Ok(barred)
    }

    /// Bars `number` (E.164) on the team's live leads that still carry it among their phones
    /// (`OTHER_LEADS_MAX` at most), but those of `barred` (the leads that barred it just now),
    /// each as its own change by `user`: a request or a list not to call a number speaks of the
    /// person who answers it, whichever of their properties a lead is. A lead that is no longer
    /// `user`'s to edit (moved, archived or merged meanwhile) is passed over: the number is
    /// barred where it still can be, not refused for a lead nobody asked about.
    pub(super) async fn bar_on_team_leads(
        &self,
        user: &User,
        team_id: i64,
        number: &str,
        barred: &[i64],
    ) -> WorkResult<()> {
        let filter = LeadFilter {
            team_id: Some(team_id),
            q: SearchText::parse(number),
            ..LeadFilter::default()
        };
        let carrying = self
            .leads
            .list_leads_after(filter, None, OTHER_LEADS_MAX)
            .await?;
        let carries = |lead: &Lead| lead.fields.phones().any(|n| n == number);
        let others = carrying.iter().filter(|lead| !barred.contains(&lead.id));
        for other in others.filter(|lead| carries(lead)) {
            let outcome = self
                .change_as_it_is(user, other.id, LeadWorkAction::Edit, |change, lead, _| {
                    // Still the lead's number: it may have changed since the list was read.
                    if carries(lead) {
                        bar_numbers_not_to_call(change, lead, &[number.to_owned()]);
                    }
                    Ok(())
                })
                .await;
            match outcome {
                Ok(_)
                | Err(LeadWorkError::NotFound(_))
                | Err(LeadWorkError::Forbidden(_))
                | Err(LeadWorkError::Merged(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Takes `phone` off the lead's numbers not to call, as taking the lead's do-not-call mark off
    /// is: a team admin or owner (a platform admin on an unassigned lead). It is not put back on
    /// the lead's phones: an edit does that. A number not on the list is a 422 at `phone`.
    pub async fn unbar_number(&self, user: &User, id: i64, phone: &str) -> WorkResult<Lead> {
        self.change_as_it_is(user, id, LeadWorkAction::Edit, |change, lead, actor| {
            // Whoever may take the lead's mark off, asked before the number is looked at.
            allow(actor, LeadWorkAction::ClearDoNotCall)?;
            let barred = &lead.work.barred;
            let number = normalize_phone(phone).filter(|n| barred.has(Bar::NotToCall, n));
            let Some(number) = number else {
                let msg = "Not one of the lead's numbers not to call";
                return Err(invalid(&["phone".into()], "value_error", msg));
            };
            let mut kept = barred.clone();
            kept.not_to_call.retain(|n| *n != number);
            set_barred(change, lead, kept);
            change.activity.push(NewActivity {
                kind: kind::NUMBER_CALLABLE,
                detail: json!({ "number": number }),
            });
            Ok(())
        })
        .await
    }
}
