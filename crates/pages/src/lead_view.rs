//! What the lead page shows of a lead, in a person's words: its fields grouped with the empty
//! ones folded away, the owner's contacts as links, the next step for its status, and its
//! timeline as sentences.
use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::Value;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::contact::{ContactOutcome, ContactSummary};
use leadhub_domain::lead::work::model::{
    kind, ActivityEntry, ActorRef, LeadStatus, Note, FOLLOW_UP_YEARS, SUBMISSION_KIND,
};
use leadhub_domain::parse::display_phone;
use leadhub_domain::team::Member;

use crate::render::when;

/// The string fields of each group, by name (`STRING_FIELDS` holds every one; a test checks
/// that the groups cover them all). Contacts are shown as links first, so they are not here.
pub const PROPERTY: [&str; 12] = [
    "address",
    "city",
    "state",
    "zip_code",
    "county",
    "parcel_number",
    "subdivision",
    "lot",
    "property_type",
    "lot_size",
    "source",
    "source_identifier",
];
pub const OWNER: [&str; 7] = [
    "first_name",
    "last_name",
    "primary_phone_type",
    "mail_address",
    "mail_city",
    "mail_state",
    "mail_zip",
];
pub const PHONES: [&str; 5] = ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"];
pub const EMAILS: [&str; 3] = ["email_1", "email_2", "email_3"];
pub const PERMIT: [&str; 7] = [
    "project_number",
    "permit_date",
    "permit_status",
    "work_type",
    "project_description",
    "specific_use",
    "related_url",
];

#[derive(Serialize)]
pub struct Field {
    pub label: String,
    pub value: String,
}

/// "zip_code" -> "Zip code".
pub fn label(name: &str) -> String {
    let label = name.replace('_', " ");
    match label.get(0..1) {
        Some(first) => first.to_uppercase() + &label[1..],
        None => label,
    }
}

/// A group of fields: those with a value, and the labels of the empty ones (folded).
#[derive(Serialize, Default)]
pub struct Group {
    pub filled: Vec<Field>,
    pub empty: Vec<String>,
}

impl Group {
    pub fn add(&mut self, name: &str, value: Option<String>) {
        match value.filter(|v| !v.trim().is_empty()) {
            Some(value) => self.filled.push(Field {
                label: label(name),
                value,
            }),
            None => self.empty.push(label(name)),
        }
    }

    pub fn of(lead: &Lead, names: &[&str]) -> Group {
        let mut group = Group::default();
        for name in names {
            group.add(name, lead.fields.string_field(name).cloned().flatten());
        }
        group
    }
}

/// A phone or e-mail as a link: `tel:` with the stored E.164 number, `mailto:` with the address.
#[derive(Serialize)]
pub struct Contact {
    /// As stored (E.164 for a phone): what a form sends back.
    pub value: String,
    pub text: String,
    pub href: String,
    /// The leads list searched for this phone or e-mail: the owner's other properties.
    pub leads: String,
}

/// A tag and the list of the leads carrying it.
#[derive(Serialize)]
pub struct TagLink {
    pub name: String,
    pub leads: String,
}

pub fn tag_link(tag: &str) -> TagLink {
    TagLink {
        name: tag.to_owned(),
        leads: leads_where("tag", tag),
    }
}

pub fn tag_links(tags: &[String]) -> Vec<TagLink> {
    tags.iter().map(|tag| tag_link(tag)).collect()
}

/// The leads list filtered by `name` = `value`.
pub fn leads_where(name: &str, value: &str) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair(name, value)
        .finish();
    format!("/leads?{query}")
}

/// The lead's phones, each shown as people write it (`(512) 555-0100`) and linked as stored.
pub fn phones(lead: &Lead) -> Vec<Contact> {
    contacts(lead, &PHONES, "tel", display_phone)
}

pub fn emails(lead: &Lead) -> Vec<Contact> {
    contacts(lead, &EMAILS, "mailto", str::to_owned)
}

/// The lead's values of the fields `names`, each linked with the URL `scheme`.
fn contacts(
    lead: &Lead,
    names: &[&str],
    scheme: &str,
    shown: impl Fn(&str) -> String,
) -> Vec<Contact> {
    names
        .iter()
        .filter_map(|n| lead.fields.string_field(n).cloned().flatten())
        .map(|value| Contact {
            href: format!("{scheme}:{value}"),
            leads: leads_where("q", &value),
            text: shown(&value),
            value,
        })
        .collect()
}

/// The step a lead waits for, by where it stands (`docs/working-leads.md`, "The lead page"); a
/// follow-up day that has come (by `today`) is the step of an open lead with an owner.
pub fn next_action(
    lead: &Lead,
    has_contact: bool,
    contacts: Option<&ContactSummary>,
    today: NaiveDate,
) -> String {
    next_step(lead, has_contact, contacts, today)
        .map_or_else(|n| format!("{n} contacts without reaching the owner: try another way (an e-mail, a letter to the mailing address), or mark it lost."), str::to_owned)
}

/// The next step's words, or (Err) the number of contacts that have not reached the owner of
/// a new lead, when there have been `TRIES_BEFORE_ANOTHER_WAY` or more.
fn next_step(
    lead: &Lead,
    has_contact: bool,
    contacts: Option<&ContactSummary>,
    today: NaiveDate,
) -> Result<&'static str, i64> {
    if lead.work.archived_at.is_some() {
        return Ok("Archived: restore it to work it again.");
    }
    if lead.team_id.is_none() {
        return Ok("Claim it for one of your teams, so the team works it.");
    }
    if lead.work.assignee_id.is_none()
        && !matches!(lead.work.status, LeadStatus::Won | LeadStatus::Lost)
    {
        return Ok("Give it an owner: who calls this lead?");
    }
    let closed = matches!(lead.work.status, LeadStatus::Won | LeadStatus::Lost);
    if !closed && lead.work.follow_up_due(today) && lead.work.do_not_call {
        return Ok("The follow-up is due: e-mail the owner (do not call), log it, and set the next day or clear it.");
    }
    if !closed && lead.work.follow_up_due(today) {
        return Ok("The follow-up is due: contact the owner, log how it went, and set the next day or clear it.");
    }
    // A new lead's contacts are those that did not get through (one that did made it contacted).
    let last = contacts.filter(|_| lead.work.status == LeadStatus::New);
    if last.is_some_and(|c| c.last_outcome == ContactOutcome::WrongNumber) {
        return Ok(if lead.fields.phones().next().is_some() {
            "The last call reached a wrong number: call another of the lead's numbers, find the owner's (Edit adds it), or e-mail them."
        } else {
            "The last call reached a wrong number and the lead has no other: find the owner's number (Edit adds it), or e-mail them."
        });
    }
    if let Some(c) = last.filter(|c| c.count >= TRIES_BEFORE_ANOTHER_WAY) {
        return Err(c.count);
    }
    Ok(match lead.work.status {
        LeadStatus::New if lead.work.do_not_call => {
            "Do not call this owner: e-mail them if there is an address, or close the lead."
        }
        LeadStatus::New if has_contact => {
            "Call or e-mail the owner, and log how it went (Log a contact)."
        }
        LeadStatus::New => "Find a phone number or e-mail for the owner (Edit adds it).",
        LeadStatus::Contacted => {
            "Qualify it (a real project and a decision maker), or mark it lost."
        }
        LeadStatus::Qualified => "Close it: won or lost.",
        LeadStatus::Won | LeadStatus::Lost => "Closed: nothing waits on this lead.",
    })
}

/// Contacts on a new lead that did not reach its owner before the page suggests another way.
const TRIES_BEFORE_ANOTHER_WAY: i64 = 3;

/// The days a follow-up date field offers (`follow_up_min`, `follow_up_max`): the domain's
/// `FOLLOW_UP_YEARS`, so the browser's picker and the server refuse alike.
pub fn insert_follow_up_bounds(context: &mut tera::Context) {
    let (first, last) = (FOLLOW_UP_YEARS.start(), FOLLOW_UP_YEARS.end());
    context.insert("follow_up_min", &format!("{first}-01-01"));
    context.insert("follow_up_max", &format!("{last}-12-31"));
}

/// A person as the page names them.
pub fn person(actor: &ActorRef) -> String {
    match actor.name.as_deref().filter(|n| !n.is_empty()) {
        Some(name) => format!("{name} <{}>", actor.email),
        None => actor.email.clone(),
    }
}

#[derive(Serialize)]
pub struct NoteLine {
    pub id: i64,
    pub author: String,
    pub at: String,
    pub body: String,
    pub mine: bool,
}

impl NoteLine {
    pub fn new(note: &Note, me: i64, offset: UtcOffset) -> NoteLine {
        NoteLine {
            id: note.id,
            author: person(&note.author),
            at: when(note.created_at, offset),
            body: note.body.clone(),
            mine: note.author.id == me,
        }
    }
}

/// Names for the row ids a timeline stores: the team's members and the visitor's teams.
#[derive(Default)]
pub struct Names {
    pub users: HashMap<i64, String>,
    pub teams: HashMap<i64, String>,
}

impl Names {
    pub fn of(members: &[Member], teams: impl IntoIterator<Item = (i64, String)>) -> Names {
        Names {
            users: members
                .iter()
                .map(|m| (m.user_internal_id, member_name(m)))
                .collect(),
            teams: teams.into_iter().collect(),
        }
    }

    fn user(&self, id: &Value) -> String {
        match id.as_i64() {
            None => "nobody".to_owned(),
            Some(id) => self
                .users
                .get(&id)
                .cloned()
                .unwrap_or_else(|| format!("user #{id}")),
        }
    }

    fn team(&self, id: &Value) -> String {
        match id.as_i64() {
            None => "no team".to_owned(),
            Some(id) => self
                .teams
                .get(&id)
                .map(|name| format!("{name} (team {id})"))
                .unwrap_or_else(|| format!("team {id}")),
        }
    }
}

pub fn member_name(m: &Member) -> String {
    if m.user_name.trim().is_empty() {
        m.user_email.clone()
    } else {
        format!("{} <{}>", m.user_name, m.user_email)
    }
}

/// A choice of a `<select>`.
#[derive(Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// How the page words a contact's outcome: the button that logs it, and the timeline's line.
pub fn contact_words(outcome: ContactOutcome) -> (&'static str, &'static str) {
    match outcome {
        ContactOutcome::NoAnswer => ("No answer", "Called: no answer"),
        ContactOutcome::LeftMessage => ("Left a message", "Called: left a message"),
        ContactOutcome::Reached => ("Spoke with them", "Spoke with the owner"),
        ContactOutcome::WrongNumber => ("Wrong number", "Called: wrong number"),
        ContactOutcome::Emailed => ("Sent an e-mail", "E-mailed the owner"),
    }
}

/// A `contact_logged` entry's line: its outcome, and the number called where the entry names
/// one ("Called (512) 555-0100: wrong number, taken off the lead").
fn contact_line(detail: &Value) -> String {
    let outcome = detail
        .get("outcome")
        .and_then(Value::as_str)
        .and_then(ContactOutcome::parse);
    let Some(outcome) = outcome else {
        return "Logged a contact".to_owned();
    };
    let words = contact_words(outcome).1;
    let Some(phone) = detail.get("phone").and_then(Value::as_str) else {
        return words.to_owned();
    };
    let number = display_phone(phone);
    match outcome {
        ContactOutcome::WrongNumber => {
            format!("Called {number}: wrong number, taken off the lead")
        }
        ContactOutcome::Reached => format!("{words} at {number}"),
        _ => words.replacen("Called", &format!("Called {number}"), 1),
    }
}

/// A lead's logged contacts as the list and the lead page show them.
#[derive(Serialize)]
pub struct ContactLine {
    /// The last one's outcome, lower case ("left a message").
    pub last: String,
    /// When the last one was: its day and its time, on the person's clock.
    pub day: String,
    pub at: String,
    pub count: i64,
}

impl ContactLine {
    pub fn of(summary: &ContactSummary, offset: UtcOffset) -> ContactLine {
        ContactLine {
            last: contact_words(summary.last_outcome).0.to_lowercase(),
            day: offset.local(summary.last_at).date().to_string(),
            at: when(summary.last_at, offset),
            count: summary.count,
        }
    }
}

/// The lead page's contact buttons, one per outcome.
pub fn contact_choices() -> Vec<Choice> {
    ContactOutcome::NAMES
        .iter()
        .filter_map(|word| ContactOutcome::parse(word))
        .map(|outcome| Choice {
            value: outcome.as_str().to_owned(),
            label: contact_words(outcome).0.to_owned(),
        })
        .collect()
}

/// People as owners to choose: their public id, and their name as people read it.
pub fn owner_choices<'a>(members: impl IntoIterator<Item = &'a Member>) -> Vec<Choice> {
    members
        .into_iter()
        .map(|m| Choice {
            value: m.user_id.clone(),
            label: member_name(m),
        })
        .collect()
}

#[derive(Serialize)]
pub struct TimelineLine {
    pub kind: String,
    pub text: String,
    /// Field, old value, new value: the rows of an edit.
    pub changes: Vec<[String; 3]>,
    pub who: String,
    pub at: String,
}

fn text_of(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "(empty)".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

impl TimelineLine {
    pub fn new(entry: &ActivityEntry, names: &Names, offset: UtcOffset) -> TimelineLine {
        let d = &entry.detail;
        let old_new = |f: &dyn Fn(&Value) -> String| {
            (
                f(d.get("old").unwrap_or(&Value::Null)),
                f(d.get("new").unwrap_or(&Value::Null)),
            )
        };
        let mut changes = Vec::new();
        let text = match entry.kind.as_str() {
            kind::EDITED => {
                if let Some(Value::Object(fields)) = d.get("changes") {
                    for (field, change) in fields {
                        changes.push([
                            label(field),
                            text_of(change.get("old")),
                            text_of(change.get("new")),
                        ]);
                    }
                }
                format!("Edited {} field{}", changes.len(), plural(changes.len()))
            }
            kind::STATUS_CHANGED => {
                let (old, new) = old_new(&|v| text_of(Some(v)));
                format!("Status {old} → {new}")
            }
            kind::ASSIGNED if d.get("in_turn") == Some(&Value::Bool(true)) => {
                format!(
                    "Given in turn to {}",
                    names.user(d.get("new").unwrap_or(&Value::Null))
                )
            }
            kind::ASSIGNED => {
                let (old, new) = old_new(&|v| names.user(v));
                format!("Owner {old} → {new}")
            }
            kind::TEAM_MOVED if d.get("old").is_none_or(Value::is_null) => {
                format!(
                    "Claimed into {}",
                    names.team(d.get("new").unwrap_or(&Value::Null))
                )
            }
            kind::TEAM_MOVED => {
                let (old, new) = old_new(&|v| names.team(v));
                format!("Moved from {old} to {new}")
            }
            kind::FOLLOW_UP_SET => {
                let day = |key: &str| d.get(key).and_then(Value::as_str);
                match (day("old"), day("new")) {
                    (None, Some(new)) => format!("Follow-up set for {new}"),
                    (Some(old), Some(new)) => format!("Follow-up moved from {old} to {new}"),
                    (Some(old), None) => format!("Follow-up of {old} cleared"),
                    (None, None) => "Follow-up cleared".to_owned(),
                }
            }
            kind::DO_NOT_CALL_SET if d.get("new") == Some(&Value::Bool(true)) => {
                "Marked do not call".to_owned()
            }
            kind::DO_NOT_CALL_SET => "Do-not-call mark taken off".to_owned(),
            kind::TAGS_CHANGED => {
                let list = |key: &str| -> String {
                    let tags = d.get(key).and_then(Value::as_array);
                    let words: Vec<&str> = tags
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    words.join(", ")
                };
                match (list("added"), list("removed")) {
                    (added, removed) if removed.is_empty() => format!("Tagged {added}"),
                    (added, removed) if added.is_empty() => format!("Tag taken off: {removed}"),
                    (added, removed) => format!("Tagged {added}; tag taken off: {removed}"),
                }
            }
            kind::NOTE_ADDED => "Added a note".to_owned(),
            kind::NOTE_DELETED => "Deleted a note".to_owned(),
            kind::MERGED => format!("Lead {} merged into this one", text_of(d.get("merged_id"))),
            kind::ARCHIVED => "Archived".to_owned(),
            kind::RESTORED => "Restored".to_owned(),
            kind::RESUBMITTED_RESTORED => format!(
                "Restored from the archive by submission {}",
                text_of(d.get("submission_id"))
            ),
            kind::ENRICHED => format!("Enrichment ran: {}", text_of(d.get("status"))),
            kind::CONTACT_LOGGED => contact_line(d),
            kind::NUMBERS_NOT_TO_CALL => {
                let numbers = d.get("numbers").and_then(Value::as_array);
                let shown: Vec<String> = numbers
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(display_phone)
                    .collect();
                format!("Not to call, taken off the lead: {}", shown.join(", "))
            }
            kind::NUMBER_CALLABLE => format!(
                "{} may be called again",
                display_phone(d.get("number").and_then(Value::as_str).unwrap_or_default())
            ),
            SUBMISSION_KIND => format!(
                "Submission {}: {}",
                text_of(d.get("submission_id")),
                text_of(d.get("action"))
            ),
            other => other.replace('_', " "),
        };
        TimelineLine {
            kind: entry.kind.clone(),
            text,
            changes,
            who: entry
                .actor
                .as_ref()
                .map(person)
                .unwrap_or_else(|| "the service".to_owned()),
            at: when(entry.at, offset),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::lead::fields::STRING_FIELDS;

    #[test]
    fn a_due_follow_up_is_the_next_step_of_an_open_lead() {
        let today: NaiveDate = "2026-12-03".parse().unwrap();
        let at = chrono::Utc::now();
        let mut lead = Lead {
            id: 1,
            team_id: Some(1),
            fields: Default::default(),
            address_standardized: None,
            lot_size_acres: None,
            geocode: None,
            county_fips: None,
            appraisal: None,
            enrichment_status: leadhub_domain::lead::record::EnrichmentStatus::Skipped,
            submission_count: 1,
            created_at: at,
            updated_at: at,
            work: Default::default(),
        };
        lead.work.assignee_id = Some(7);
        lead.work.status = LeadStatus::Contacted;
        let qualify = next_action(&lead, true, None, today);
        lead.work.follow_up_on = "2026-12-04".parse().ok();
        assert_eq!(
            next_action(&lead, true, None, today),
            qualify,
            "not due yet"
        );
        for due in ["2026-12-03", "2026-11-20"] {
            lead.work.follow_up_on = due.parse().ok();
            assert!(next_action(&lead, true, None, today).starts_with("The follow-up is due"));
        }
        lead.work.status = LeadStatus::Won;
        assert_eq!(
            next_action(&lead, true, None, today),
            "Closed: nothing waits on this lead."
        );
        // A new lead: its contacts so far did not reach the owner.
        lead.work.status = LeadStatus::New;
        lead.work.follow_up_on = None;
        let tried = |count, last_outcome| ContactSummary {
            count,
            last_at: at,
            last_outcome,
        };
        let call = next_action(&lead, true, None, today);
        assert!(call.starts_with("Call or e-mail the owner"), "{call}");
        // An owner not to call is written to, also when a follow-up is due.
        lead.work.do_not_call = true;
        let write = next_action(&lead, true, None, today);
        assert!(
            write.starts_with("Do not call this owner: e-mail them"),
            "{write}"
        );
        lead.work.follow_up_on = Some(today);
        let due = next_action(&lead, true, None, today);
        assert!(due.contains("e-mail the owner (do not call)"), "{due}");
        lead.work.do_not_call = false;
        lead.work.follow_up_on = None;
        let twice = tried(2, ContactOutcome::NoAnswer);
        assert_eq!(next_action(&lead, true, Some(&twice), today), call);
        let thrice = tried(3, ContactOutcome::NoAnswer);
        let another = next_action(&lead, true, Some(&thrice), today);
        assert!(
            another.starts_with("3 contacts without reaching the owner"),
            "{another}"
        );
        let wrong = tried(1, ContactOutcome::WrongNumber);
        lead.fields.phone_2 = Some("+15125550102".into());
        let find = next_action(&lead, true, Some(&wrong), today);
        assert!(
            find.starts_with("The last call reached a wrong number: call another"),
            "{find}"
        );
        let mut taken_off = lead.clone();
        taken_off.fields.phone_2 = None;
        let none_left = next_action(&taken_off, true, Some(&wrong), today);
        assert!(
            none_left.contains("the lead has no other: find the owner's number"),
            "{none_left}"
        );
        lead.work.status = LeadStatus::Contacted;
        assert_eq!(next_action(&lead, true, Some(&thrice), today), qualify);
    }

    #[test]
    fn the_groups_show_every_string_field_once() {
        let mut shown: Vec<&str> = PROPERTY
            .iter()
            .chain(&OWNER)
            .chain(&PHONES)
            .chain(&EMAILS)
            .chain(&PERMIT)
            .copied()
            .collect();
        shown.sort_unstable();
        let mut all = STRING_FIELDS.to_vec();
        all.sort_unstable();
        assert_eq!(shown, all);
    }

    #[test]
    fn an_edit_reads_as_its_fields_and_a_claim_as_a_claim() {
        let names = Names {
            users: HashMap::new(),
            teams: HashMap::from([(4, "Roofers".to_owned())]),
        };
        let entry = |kind: &str, detail: Value| ActivityEntry {
            kind: kind.to_owned(),
            detail,
            actor: None,
            at: chrono::DateTime::UNIX_EPOCH,
        };
        let edit = TimelineLine::new(
            &entry(
                kind::EDITED,
                serde_json::json!({"changes": {"first_name": {"old": null, "new": "Ann"}}}),
            ),
            &names,
            UtcOffset::default(),
        );
        assert_eq!(edit.text, "Edited 1 field");
        assert_eq!(
            edit.changes,
            vec![[
                "First name".to_owned(),
                "(empty)".to_owned(),
                "Ann".to_owned()
            ]]
        );
        assert_eq!(edit.who, "the service");
        let claim = TimelineLine::new(
            &entry(kind::TEAM_MOVED, serde_json::json!({"old": null, "new": 4})),
            &names,
            UtcOffset::default(),
        );
        assert_eq!(claim.text, "Claimed into Roofers (team 4)");
        let owner = TimelineLine::new(
            &entry(kind::ASSIGNED, serde_json::json!({"old": 9, "new": null})),
            &names,
            UtcOffset::default(),
        );
        assert_eq!(owner.text, "Owner user #9 → nobody");
        let in_turn = TimelineLine::new(
            &entry(
                kind::ASSIGNED,
                serde_json::json!({"old": null, "new": 9, "in_turn": true}),
            ),
            &names,
            UtcOffset::default(),
        );
        assert_eq!(in_turn.text, "Given in turn to user #9");
        let tags = |added: &[&str], removed: &[&str]| {
            let detail = serde_json::json!({"added": added, "removed": removed});
            TimelineLine::new(
                &entry(kind::TAGS_CHANGED, detail),
                &names,
                UtcOffset::default(),
            )
            .text
        };
        assert_eq!(tags(&["hot", "storm 2026"], &[]), "Tagged hot, storm 2026");
        assert_eq!(tags(&[], &["cold"]), "Tag taken off: cold");
        assert_eq!(tags(&["a"], &["b"]), "Tagged a; tag taken off: b");
    }
}
