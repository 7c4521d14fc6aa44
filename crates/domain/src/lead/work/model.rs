//! What working a lead adds to it: where it stands, who works it, its version (the ETag), its
//! archive and merge marks; its notes and its timeline.
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

use crate::lead::barred::BarredNumbers;
use crate::word_enum::word_enum;

word_enum! {
    /// Where a lead stands; every lead starts as `new`.
    pub enum LeadStatus {
        New,
        Contacted,
        Qualified,
        Won,
        Lost,
    }
}

/// The statuses of a lead still being worked ("my open leads"): the funnel's first steps.
pub const OPEN_STATUSES: [&str; 3] = ["new", "contacted", "qualified"];

/// The lead list's `status` filter: one status, or `open`, the leads still being worked (any of
/// `OPEN_STATUSES`), so the list behind a count of open leads shows the leads counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    Is(LeadStatus),
    Open,
}

impl StatusFilter {
    /// The word of `Open`, beside the statuses' own.
    pub const OPEN: &'static str = "open";
    /// Every word the filter takes, `open` first (a list's choice reads so).
    pub const WORDS: [&'static str; 6] = ["open", "new", "contacted", "qualified", "won", "lost"];

    /// Case-insensitive, surrounding spaces ignored.
    pub fn parse(word: &str) -> Option<StatusFilter> {
        if word.trim().eq_ignore_ascii_case(Self::OPEN) {
            return Some(StatusFilter::Open);
        }
        LeadStatus::parse(word).map(StatusFilter::Is)
    }

    /// The statuses it lets through.
    pub fn statuses(self) -> Vec<&'static str> {
        match self {
            StatusFilter::Is(status) => vec![status.as_str()],
            StatusFilter::Open => OPEN_STATUSES.to_vec(),
        }
    }
}

/// A lead's assignee: the row id the rules compare, the public `usr_` id the API shows, and the
/// e-mail address the exports add for people reading them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignee {
    pub id: i64,
    pub user_id: String,
    pub email: String,
}

/// The working state of a lead.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadWork {
    pub status: LeadStatus,
    /// The user working the lead: an active member of its team (never set on an unassigned
    /// lead). The public id is filled in by the store where it answers with leads.
    pub assignee_id: Option<i64>,
    pub assignee: Option<Assignee>,
    /// Raised by one with every change of the lead's fields, status, owner, team or archive.
    pub version: i64,
    pub archived_at: Option<DateTime<Utc>>,
    /// Set when a person merged this lead into another: the survivor's id.
    pub merged_into_id: Option<i64>,
    /// The day someone means to contact the lead next (a calendar day, no time or zone).
    pub follow_up_on: Option<NaiveDate>,
    /// The owner must not be called (they asked, or a list said so): the call lists leave the
    /// lead out and its page says so before its numbers. E-mail is not barred by it.
    pub do_not_call: bool,
    /// The lead's tags, stored form (`tags::parse_tag`), sorted, each once.
    pub tags: Vec<String>,
    /// Numbers (E.164) a contact was logged on as a wrong number, or not to call (the owner
    /// asked, or a do-not-call list flagged them): taken off the lead's phones then, and never
    /// added back by a submission, an import or a merge of leads (`lead::barred`).
    pub barred: BarredNumbers,
}

impl Default for LeadWork {
    fn default() -> Self {
        LeadWork {
            status: LeadStatus::New,
            assignee_id: None,
            assignee: None,
            version: 1,
            archived_at: None,
            merged_into_id: None,
            follow_up_on: None,
            do_not_call: false,
            tags: Vec::new(),
            barred: BarredNumbers::default(),
        }
    }
}

impl LeadWork {
    /// The follow-up day has come: it is `today` or earlier (the rule of `follow_up_by` too).
    pub fn follow_up_due(&self, today: NaiveDate) -> bool {
        self.follow_up_on.is_some_and(|day| day <= today)
    }
}

/// The person a list filter names (`assignee=`, `contacted_by=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Person {
    /// The user asking (`me`); `SubmissionService::visible_filter` makes it `User` of them.
    Me,
    /// The user with this row id.
    User(i64),
    /// The user with this public id (no lead when no user has it).
    PublicId(String),
}

impl Person {
    /// `me` (any case), else a public id as given.
    pub fn parse(given: &str) -> Person {
        if given.eq_ignore_ascii_case("me") {
            Person::Me
        } else {
            Person::PublicId(given.to_owned())
        }
    }

    /// `Me` made the user with row id `me`; anyone else stays.
    pub fn seen_by(self, me: i64) -> Person {
        match self {
            Person::Me => Person::User(me),
            other => other,
        }
    }
}

/// Whose leads a list asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssigneeFilter {
    /// Leads nobody works (`assignee=none`).
    Nobody,
    /// Leads this person works.
    Of(Person),
}

impl AssigneeFilter {
    /// `none` (any case), else a person (`Person::parse`).
    pub fn parse(given: &str) -> AssigneeFilter {
        if given.eq_ignore_ascii_case("none") {
            AssigneeFilter::Nobody
        } else {
            AssigneeFilter::Of(Person::parse(given))
        }
    }
}

/// Which leads a list holds with respect to the archive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArchiveFilter {
    /// Leads not archived (the default view).
    #[default]
    Active,
    /// Only archived leads (`archived=true`).
    Archived,
}

/// Who did something: the row id and how a person recognises them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorRef {
    pub id: i64,
    pub user_id: String,
    pub email: String,
    pub name: Option<String>,
}

/// A note on a lead; deleting one stamps it, the text stays for the record.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub id: i64,
    pub lead_id: i64,
    pub author: ActorRef,
    pub body: String,
    pub created_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
}

/// The kinds of timeline rows this service writes (`docs/working-leads.md` lists their detail).
pub mod kind {
    pub const EDITED: &str = "edited";
    pub const STATUS_CHANGED: &str = "status_changed";
    pub const FOLLOW_UP_SET: &str = "follow_up_set";
    pub const DO_NOT_CALL_SET: &str = "do_not_call_set";
    pub const TAGS_CHANGED: &str = "tags_changed";
    pub const ASSIGNED: &str = "assigned";
    pub const NOTE_ADDED: &str = "note_added";
    pub const NOTE_DELETED: &str = "note_deleted";
    pub const TEAM_MOVED: &str = "team_moved";
    pub const ARCHIVED: &str = "archived";
    pub const RESTORED: &str = "restored";
    pub const RESUBMITTED_RESTORED: &str = "resubmitted_restored";
    pub const MERGED: &str = "merged";
    pub const ENRICHED: &str = "enriched";
    pub const CONTACT_LOGGED: &str = "contact_logged";
    /// Numbers a do-not-call list flagged, taken off the lead (`{"numbers": [...]}`).
    pub const NUMBERS_NOT_TO_CALL: &str = "numbers_not_to_call";
    /// A number taken off the lead's numbers not to call (`{"number": ...}`).
    pub const NUMBER_CALLABLE: &str = "number_callable";
}

/// A timeline row to write with a change, in its transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct NewActivity {
    pub kind: &'static str,
    pub detail: Value,
}

/// One entry of a lead's timeline: a `lead_activity` row, or one of the lead's submissions
/// (`kind` = `submission`, detail `{submission_id, action}`).
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityEntry {
    pub kind: String,
    pub detail: Value,
    pub actor: Option<ActorRef>,
    pub at: DateTime<Utc>,
}

/// The kind of a timeline entry made from a submission.
pub const SUBMISSION_KIND: &str = "submission";

/// The follow-up days people may set: a typo such as `0226-12-05` is refused, not stored.
pub const FOLLOW_UP_YEARS: std::ops::RangeInclusive<i32> = 2000..=2199;

/// What a follow-up day must be, in the words the API's 422 and the pages' refusals use.
pub const FOLLOW_UP_RULE: &str = "a date in the format YYYY-MM-DD, from 2000 to 2199";

/// A follow-up day as the API and the pages take it: `YYYY-MM-DD` (surrounding space ignored),
/// a real calendar day within `FOLLOW_UP_YEARS`; None for anything else.
pub fn follow_up_day(given: &str) -> Option<NaiveDate> {
    let given = given.trim();
    let day = NaiveDate::parse_from_str(given, "%Y-%m-%d").ok()?;
    // chrono also reads `2026-1-5`; the stored form is the only one taken.
    let exact = given.len() == 10 && day.to_string() == given;
    (exact && FOLLOW_UP_YEARS.contains(&chrono::Datelike::year(&day))).then_some(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_names_me_nobody_or_a_user_and_me_is_whoever_asks() {
        let ann = Person::PublicId("usr_ann".into());
        assert_eq!(AssigneeFilter::parse("NONE"), AssigneeFilter::Nobody);
        assert_eq!(AssigneeFilter::parse("Me"), AssigneeFilter::Of(Person::Me));
        assert_eq!(
            AssigneeFilter::parse("usr_ann"),
            AssigneeFilter::Of(ann.clone())
        );
        // `none` names nobody only as an assignee: as a contact's author it is an id nobody has.
        assert_eq!(Person::parse("none"), Person::PublicId("none".into()));
        assert_eq!(Person::parse("ME").seen_by(7), Person::User(7));
        assert_eq!(ann.clone().seen_by(7), ann);
    }

    #[test]
    fn the_status_filter_takes_each_status_and_open() {
        assert_eq!(StatusFilter::parse(" Open "), Some(StatusFilter::Open));
        assert_eq!(
            StatusFilter::parse("WON"),
            Some(StatusFilter::Is(LeadStatus::Won))
        );
        assert_eq!(StatusFilter::parse("closed"), None);
        assert_eq!(
            StatusFilter::Open.statuses(),
            ["new", "contacted", "qualified"]
        );
        assert_eq!(StatusFilter::Is(LeadStatus::Lost).statuses(), ["lost"]);
        // Its words are the statuses' and `open`: none missing, none read otherwise.
        assert_eq!(StatusFilter::WORDS[1..], LeadStatus::NAMES);
        for word in StatusFilter::WORDS {
            assert!(StatusFilter::parse(word).is_some(), "{word}");
        }
    }

    #[test]
    fn a_follow_up_day_is_an_iso_calendar_day_in_range() {
        let day = |s: &str| follow_up_day(s).map(|d| d.to_string());
        assert_eq!(day("2026-12-05").as_deref(), Some("2026-12-05"));
        assert_eq!(day(" 2026-12-05 ").as_deref(), Some("2026-12-05"));
        for refused in [
            "",
            "2026-02-30",
            "2026-1-5",
            "12/05/2026",
            "0226-12-05",
            "2200-01-01",
            "2026-12-05T10:00:00Z",
            "tomorrow",
        ] {
            assert_eq!(day(refused), None, "{refused:?}");
        }
        assert_eq!(day("2000-01-01").as_deref(), Some("2000-01-01"));
        let (first, last) = (FOLLOW_UP_YEARS.start(), FOLLOW_UP_YEARS.end());
        assert!(FOLLOW_UP_RULE.ends_with(&format!("from {first} to {last}")));
        let today = follow_up_day("2026-12-03").unwrap();
        let due = |day: &str| {
            let work = LeadWork {
                follow_up_on: follow_up_day(day),
                ..LeadWork::default()
            };
            work.follow_up_due(today)
        };
        assert!(due("2026-12-03") && due("2026-11-30"));
        assert!(!due("2026-12-04") && !due(""));
        assert_eq!(day("2199-12-31").as_deref(), Some("2199-12-31"));
    }
}
