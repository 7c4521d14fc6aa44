//! The numbers a lead keeps off its phones: those a logged contact found wrong and those not to
//! call (the owner asked, or a do-not-call list flagged them). Each is taken off the lead when it
//! is found out and never added back by a submission, an import or a merge of leads; a person's
//! edit may type a wrong one back (it is right after all), not one not to call
//! (`lead::work::numbers::typed_back`).
use serde_json::Value;

use crate::lead::fields::Warning;

/// A lead's barred numbers (E.164), each list oldest first, each number once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BarredNumbers {
    /// Numbers a contact was logged on as a wrong number (`leads.wrong_phones`).
    pub wrong: Vec<String>,
    /// Numbers not to call (`leads.do_not_call_phones`): the owner asked, or an imported file's
    /// per-number flag named them (skip-tracing services flag registry numbers one by one).
    pub not_to_call: Vec<String>,
}

/// Which of the lead's lists a number joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bar {
    Wrong,
    NotToCall,
}

impl Bar {
    /// The list's name in the API's lead, the timeline's changes and `lead.updated`.
    pub fn field(self) -> &'static str {
        match self {
            Bar::Wrong => "wrong_phones",
            Bar::NotToCall => "do_not_call_phones",
        }
    }
}

impl BarredNumbers {
    pub fn is_empty(&self) -> bool {
        self.wrong.is_empty() && self.not_to_call.is_empty()
    }

    pub fn list(&self, bar: Bar) -> &[String] {
        match bar {
            Bar::Wrong => &self.wrong,
            Bar::NotToCall => &self.not_to_call,
        }
    }

    fn list_mut(&mut self, bar: Bar) -> &mut Vec<String> {
        match bar {
            Bar::Wrong => &mut self.wrong,
            Bar::NotToCall => &mut self.not_to_call,
        }
    }

    /// Whether `number` is on the list `bar`.
    pub fn has(&self, bar: Bar, number: &str) -> bool {
        self.list(bar).iter().any(|n| n == number)
    }

    /// Adds `number` to the list `bar` (at its end, once).
    pub fn add(&mut self, bar: Bar, number: &str) {
        let list = self.list_mut(bar);
        if !list.iter().any(|n| n == number) {
            list.push(number.to_owned());
        }
    }

    /// These lists with `other`'s numbers after, each once (a merge of two leads).
    pub fn joined(&self, other: &BarredNumbers) -> BarredNumbers {
        let mut joined = self.clone();
        for bar in [Bar::Wrong, Bar::NotToCall] {
            for number in other.list(bar) {
                joined.add(bar, number);
            }
        }
        joined
    }

    /// The warning that leaves `number`, given in `field`, off the lead; None when it is not
    /// barred. A flagged number says so before a wrong one: it is the one with consequences.
    pub fn warning(&self, field: &'static str, number: &str) -> Option<Warning> {
        if self.has(Bar::NotToCall, number) {
            Some(Warning::new(
                field,
                "number_not_to_call",
                format!(
                    "'{number}' was not added: it is among this lead's numbers not to call \
                     (the owner asked, or a do-not-call list flagged it)"
                ),
            ))
        } else if self.has(Bar::Wrong, number) {
            Some(Warning::new(
                field,
                "wrong_number",
                format!(
                    "'{number}' was not added: a contact logged it as a wrong number on this lead"
                ),
            ))
        } else {
            None
        }
    }

    /// `lead.updated`'s entries for the lists that differ from `old`'s: `{"old": [...], "new":
    /// [...]}` by list name.
    pub fn changes_from(&self, old: &BarredNumbers) -> Vec<(&'static str, Value, Value)> {
        [Bar::Wrong, Bar::NotToCall]
            .into_iter()
            .filter(|bar| old.list(*bar) != self.list(*bar))
            .map(|bar| {
                (
                    bar.field(),
                    Value::from(old.list(bar).to_vec()),
                    Value::from(self.list(bar).to_vec()),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn barred(wrong: &[&str], not_to_call: &[&str]) -> BarredNumbers {
        let owned = |l: &[&str]| l.iter().map(|n| n.to_string()).collect();
        BarredNumbers {
            wrong: owned(wrong),
            not_to_call: owned(not_to_call),
        }
    }

    #[test]
    fn a_flagged_number_is_said_before_a_wrong_one() {
        let lead = barred(&["+15125550100", "+15125550101"], &["+15125550101"]);
        let code = |n: &str| lead.warning("primary_phone", n).map(|w| w.code);
        assert_eq!(code("+15125550100").as_deref(), Some("wrong_number"));
        assert_eq!(code("+15125550101").as_deref(), Some("number_not_to_call"));
        assert_eq!(code("+15125550102"), None);
    }

    #[test]
    fn joining_keeps_the_first_leads_order_and_each_number_once() {
        let survivor = barred(&["+15125550100"], &[]);
        let merged = barred(&["+15125550101", "+15125550100"], &["+15125550102"]);
        assert_eq!(
            survivor.joined(&merged),
            barred(&["+15125550100", "+15125550101"], &["+15125550102"])
        );
        let changes = survivor.joined(&merged).changes_from(&survivor);
        let names: Vec<&str> = changes.iter().map(|(name, _, _)| *name).collect();
        assert_eq!(names, ["wrong_phones", "do_not_call_phones"]);
        assert!(survivor.changes_from(&survivor).is_empty());
    }
}
