//! The bodies and answers of working a lead (`lead_work`): the PATCH body (intake's
//! `LeadSubmission` rules plus `status` and `assignee_id`), notes, the timeline, moves and bulk
//! changes; and `Tagged`, an answer with the lead's `ETag`.
use std::borrow::Cow;
use std::collections::BTreeSet;

use actix_web::body::BoxBody;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, Responder};
use apistos::paths::{Parameter, ParameterDefinition, ParameterIn};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use chrono::NaiveDate;
use futures_util::future::{ready, Ready};
use schemars::schema::{InstanceType, SchemaObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use validator::{Validate, ValidationError, ValidationErrors};

use leadhub_domain::lead::fields::STRING_FIELDS;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::{
    follow_up_day, parse_tag, ActivityEntry, ActorRef, BulkSet, ContactLog, ContactOutcome, Edited,
    FieldPatch, LeadPatch, LeadStatus, Note, TagEdit,
};
use leadhub_http::extract::rules::{enum_message, follow_up_date, tag_list};
use leadhub_http::extract::{flat_problems, json_type, Lax, RequestBody};
use leadhub_http::time::iso;

use crate::lead_body::LeadSubmission;
use crate::leads::lead_status;
use crate::page::page_type;
use crate::submission_views::{warnings, LeadView, WarningView};

/// An answer with the lead's version as its `ETag` (quoted, e.g. `"3"`).
pub struct Tagged<T> {
    body: T,
    version: i64,
}

impl<T> Tagged<T> {
    /// The same version with its body changed.
    pub fn map<U>(self, change: impl FnOnce(T) -> U) -> Tagged<U> {
        Tagged {
            body: change(self.body),
            version: self.version,
        }
    }
}

impl Tagged<LeadView> {
    pub fn of(lead: Lead) -> Self {
        Tagged {
            version: lead.work.version,
            body: LeadView::from(lead),
        }
    }
}

impl Tagged<EditedLeadView> {
    pub fn edited(edited: Edited) -> Self {
        Tagged {
            version: edited.lead.work.version,
            body: EditedLeadView {
                validation_warnings: warnings(&edited.warnings),
                lead: LeadView::from(edited.lead),
            },
        }
    }
}

/// The `ETag` of a lead at `version`.
pub fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// The version an `If-Match` header names: None without the header or with `*` (any version);
/// a tag that is not one of ours names no version (-1), so it never matches. `If-Match` compares
/// strongly (RFC 9110 13.1.1): a weak tag (`W/"3"`) never matches, and the first strong tag of a
/// list is the one compared.
pub struct IfMatch(pub Option<i64>);

impl IfMatch {
    fn of(req: &HttpRequest) -> IfMatch {
        let Some(given) = req.headers().get(header::IF_MATCH) else {
            return IfMatch(None);
        };
        let given = given.to_str().unwrap_or("");
        let mut tags = given.split(',').map(str::trim);
        if given.trim() == "*" {
            return IfMatch(None);
        }
        let strong = tags.find(|t| !t.starts_with("W/"));
        let version = strong.and_then(|t| t.trim_matches('"').parse().ok());
        IfMatch(Some(version.unwrap_or(-1)))
    }
}

impl FromRequest for IfMatch {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(IfMatch::of(req)))
    }
}

impl ApiComponent for IfMatch {
    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        Vec::new()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        None
    }

    fn parameters() -> Vec<Parameter> {
        let tag = SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            ..Default::default()
        };
        vec![Parameter {
            name: "If-Match".to_owned(),
            _in: ParameterIn::Header,
            description: Some(
                "The ETag of the lead as read (e.g. \"3\"): a lead changed since answers 412. \
                 Without it the change applies to the lead as it is."
                    .to_owned(),
            ),
            required: Some(false),
            definition: Some(ParameterDefinition::Schema(Box::new(ReferenceOr::Object(
                Schema::Object(tag),
            )))),
            ..Default::default()
        }]
    }
}

impl<T: Serialize> Responder for Tagged<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Ok()
            .insert_header((header::ETAG, etag(self.version)))
            .json(self.body)
    }
}

impl<T: ApiComponent> ApiComponent for Tagged<T> {
    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        T::child_schemas()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        T::schema()
    }
}

/// A lead after a PATCH, with what normalising the given values could not use.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct EditedLeadView {
    #[serde(flatten)]
    pub lead: LeadView,
    pub validation_warnings: Vec<WarningView>,
}

/// `PATCH /api/v1/leads/{id}`: any lead field (intake's rules and normalisation; `null` or a
/// blank string clears it), `status`, `assignee_id`. A member the lead does not have is a 422.
#[derive(Debug, Deserialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct LeadPatchBody {
    #[serde(flatten)]
    pub lead: LeadSubmission,
    /// new, contacted, qualified, won or lost.
    #[serde(default)]
    pub status: Lax<String>,
    /// The public id (`usr_...`) of an active member of the lead's team, or null for nobody.
    #[serde(default)]
    pub assignee_id: Lax<String>,
    /// The day to contact the lead next, `YYYY-MM-DD` (2000 to 2199), or null to clear.
    #[serde(default)]
    pub follow_up_on: Lax<String>,
    /// true marks the lead do-not-call (anyone who may edit it); false takes the mark off (a
    /// team admin or owner).
    #[serde(default)]
    pub do_not_call: Lax<bool>,
    /// The lead's tags, all of them (an empty list takes every tag off); each at most 40
    /// characters without a comma or semicolon, kept lower case. At most 20.
    #[serde(default)]
    pub tags: Lax<Vec<String>>,
    /// Tags to add to those the lead has.
    #[serde(default)]
    pub add_tags: Lax<Vec<String>>,
    /// Tags to take off.
    #[serde(default)]
    pub remove_tags: Lax<Vec<String>>,
}

impl Validate for LeadPatchBody {
    fn validate(&self) -> Result<(), ValidationErrors> {
        let mut own = ValidationErrors::new();
        if let Err(e) = json_type(&self.status).and_then(|()| lead_status(&self.status)) {
            own.add("status", e);
        }
        if let Err(e) = json_type(&self.assignee_id) {
            own.add("assignee_id", e);
        }
        if let Err(e) =
            json_type(&self.follow_up_on).and_then(|()| follow_up_date(&self.follow_up_on))
        {
            own.add("follow_up_on", e);
        }
        if let Err(e) = json_type(&self.do_not_call) {
            own.add("do_not_call", e);
        }
        for (name, checked) in [
            (
                "tags",
                json_type(&self.tags).and_then(|()| tag_list(&self.tags)),
            ),
            (
                "add_tags",
                json_type(&self.add_tags).and_then(|()| tag_list(&self.add_tags)),
            ),
            (
                "remove_tags",
                json_type(&self.remove_tags).and_then(|()| tag_list(&self.remove_tags)),
            ),
        ] {
            if let Err(e) = checked {
                own.add(name, e);
            }
        }
        // Absent reads as null here (intake's fields take no default): `null` is refused by
        // the handler, which sees the members sent.
        if matches!(self.lead.team_id, Lax::Given(_) | Lax::Wrong(_)) {
            own.add(
                "team_id",
                ValidationError::new("value_error").with_message(Cow::Borrowed(
                    "A lead changes team with POST /api/v1/leads/{id}/move or /claim",
                )),
            );
        }
        let own = if own.is_empty() { Ok(()) } else { Err(own) };
        flat_problems([self.lead.validate(), own])
    }
}

impl RequestBody for LeadPatchBody {
    const REFUSES_UNKNOWN: bool = true;
}

/// A follow-up member as a change: absent changes nothing; null or blank clears the day.
fn follow_up_change(field: &Lax<String>) -> Option<Option<NaiveDate>> {
    match field {
        Lax::Absent => None,
        other => Some(other.text().and_then(follow_up_day)),
    }
}

/// The tag members as a change (None: none of them sent with a list).
fn tag_edit(
    set: &Lax<Vec<String>>,
    add: &Lax<Vec<String>>,
    remove: &Lax<Vec<String>>,
) -> Option<TagEdit> {
    let read = |list: &Lax<Vec<String>>| -> Option<BTreeSet<String>> {
        list.value()
            .map(|tags| tags.iter().filter_map(|t| parse_tag(t).ok()).collect())
    };
    let edit = TagEdit {
        set: read(set),
        add: read(add).unwrap_or_default(),
        remove: read(remove).unwrap_or_default(),
    };
    (edit != TagEdit::default()).then_some(edit)
}

/// The numeric fields a PATCH may name besides the text ones.
const NUMBER_FIELDS: [&str; 3] = ["bedrooms", "latitude", "longitude"];

/// The problem of a PATCH that names `team_id` (also as null).
pub fn team_id_refused() -> leadhub_domain::error::FieldError {
    leadhub_domain::error::FieldError::body(
        &["team_id".into()],
        "value_error",
        "A lead changes team with POST /api/v1/leads/{id}/move or /claim",
    )
}

impl LeadPatchBody {
    /// The domain's patch; `members` are the body's member names (which fields were sent).
    pub fn into_patch(self, members: &serde_json::Map<String, Value>) -> LeadPatch {
        let given = members
            .keys()
            .filter(|k| STRING_FIELDS.contains(&k.as_str()) || NUMBER_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect();
        LeadPatch {
            status: self.status.text().and_then(LeadStatus::parse),
            assignee: match &self.assignee_id {
                Lax::Absent => None,
                other => Some(other.text().map(str::to_owned)),
            },
            follow_up: follow_up_change(&self.follow_up_on),
            do_not_call: self.do_not_call.value().copied(),
            tags: tag_edit(&self.tags, &self.add_tags, &self.remove_tags),
            fields: FieldPatch {
                values: self.lead.into_fields(),
                given,
            },
        }
    }
}

/// `POST /api/v1/leads/{id}/notes`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct NoteBody {
    /// 1 to 10,000 characters.
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 10000))]
    pub body: Lax<String>,
}

impl RequestBody for NoteBody {}

/// `POST /api/v1/leads/{id}/contacts`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct ContactBody {
    /// no_answer, left_message, reached, wrong_number or emailed.
    #[validate(
        custom(function = "json_type"),
        required,
        custom(function = "contact_outcome")
    )]
    pub outcome: Lax<String>,
    /// What was said, up to 10,000 characters: stored as a note of the lead (blank: none).
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 10000))]
    pub note: Lax<String>,
    /// The day to contact the lead next, `YYYY-MM-DD` (2000 to 2199), or null to clear it;
    /// absent leaves the day as it is.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "follow_up_date"))]
    pub follow_up_on: Lax<String>,
    /// The number called, one of the lead's, written any way (`(512) 555-0100`,
    /// `+15125550100`). The timeline entry names it; with `wrong_number` it is taken off the
    /// lead (the later numbers move up a slot) and kept in `wrong_phones`, so no submission or
    /// import adds it back; with `reached` it becomes the lead's first number. A number that is
    /// not the lead's is a 422.
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 50))]
    pub phone: Lax<String>,
}

impl RequestBody for ContactBody {
    const REFUSES_UNKNOWN: bool = true;
}

/// One of `ContactOutcome`'s words; blank is not one (the outcome is what the log is for).
fn contact_outcome(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.value() {
        Some(text) if ContactOutcome::parse(text).is_none() => Err(ValidationError::new("enum")
            .with_message(Cow::Owned(enum_message(&ContactOutcome::NAMES)))),
        _ => Ok(()),
    }
}

/// `POST /api/v1/leads/{id}/do-not-call-phones` and `.../remove`: one number.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct NumberBody {
    /// The number, written any way (`(512) 555-0100`, `+15125550100`): one of the lead's to
    /// bar, one of its `do_not_call_phones` to take off that list.
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 50))]
    pub phone: Lax<String>,
}

impl RequestBody for NumberBody {
    const REFUSES_UNKNOWN: bool = true;
}

impl ContactBody {
    /// The domain's log; None without a known outcome (validation refuses such a body first).
    pub fn into_log(self) -> Option<ContactLog> {
        Some(ContactLog {
            outcome: self.outcome.text().and_then(ContactOutcome::parse)?,
            note: self.note.text().map(str::to_owned),
            follow_up: follow_up_change(&self.follow_up_on),
            phone: self.phone.text().map(str::to_owned),
        })
    }
}

/// Who did something.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ActorView {
    /// The public id (`usr_...`).
    pub user_id: String,
    pub email: String,
    pub name: Option<String>,
}

impl From<ActorRef> for ActorView {
    fn from(a: ActorRef) -> Self {
        ActorView {
            user_id: a.user_id,
            email: a.email,
            name: a.name,
        }
    }
}

#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct NoteView {
    pub id: i64,
    pub lead_id: i64,
    pub author: ActorView,
    pub body: String,
    pub created_at: String,
}

impl From<Note> for NoteView {
    fn from(n: Note) -> Self {
        NoteView {
            id: n.id,
            lead_id: n.lead_id,
            author: n.author.into(),
            body: n.body,
            created_at: iso(n.created_at),
        }
    }
}

page_type! {
    /// A page of notes, newest first.
    NotePage of NoteView
}

/// One entry of a lead's timeline.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ActivityView {
    /// `submission` (detail `{submission_id, action}`: created, updated or skipped), `edited`
    /// (`{changes: {field: {old, new}}}`), `status_changed` / `assigned` / `team_moved`
    /// (`{old, new}`), `note_added` / `note_deleted` (`{note_id}`), `merged` (`{merged_id}`),
    /// `archived`, `restored`, `enriched` (`{status}`), `resubmitted_restored`
    /// (`{submission_id}`), `contact_logged` (`{outcome}`).
    pub kind: String,
    pub detail: Value,
    /// Who did it; null for the service's own work.
    pub actor: Option<ActorView>,
    pub at: String,
}

impl From<ActivityEntry> for ActivityView {
    fn from(e: ActivityEntry) -> Self {
        ActivityView {
            kind: e.kind,
            detail: e.detail,
            actor: e.actor.map(ActorView::from),
            at: iso(e.at),
        }
    }
}

page_type! {
    /// A page of a lead's timeline, newest first.
    ActivityPage of ActivityView
}

/// `POST /api/v1/leads/{id}/move` and `/claim`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct TeamBody {
    /// The team the lead goes to.
    #[validate(custom(function = "json_type"), required)]
    pub team_id: Lax<i64>,
}

impl RequestBody for TeamBody {}

impl TeamBody {
    /// The team asked for (validation made sure there is one).
    pub fn team_id(&self) -> i64 {
        self.team_id.value().copied().unwrap_or_default()
    }
}

/// What a bulk change sets: any of these.
#[derive(Debug, Default, Deserialize, Validate, schemars::JsonSchema)]
pub struct BulkSetBody {
    /// new, contacted, qualified, won or lost.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "lead_status"))]
    pub status: Lax<String>,
    /// A user's public id, or null for nobody.
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub assignee_id: Lax<String>,
    /// Move (or claim) the leads into this team; the assignee is cleared.
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
    /// true archives, false restores.
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub archived: Lax<bool>,
    /// The follow-up day, `YYYY-MM-DD`, or null to clear it.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "follow_up_date"))]
    pub follow_up_on: Lax<String>,
    /// true marks the leads do-not-call; false takes the mark off (a team admin or owner).
    #[serde(default)]
    #[validate(custom(function = "json_type"))]
    pub do_not_call: Lax<bool>,
    /// Every lead's tags, all of them (an empty list takes every tag off); at most 20.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "tag_list"))]
    pub tags: Lax<Vec<String>>,
    /// Tags to add to every lead.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "tag_list"))]
    pub add_tags: Lax<Vec<String>>,
    /// Tags to take off every lead.
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "tag_list"))]
    pub remove_tags: Lax<Vec<String>>,
    /// A contact logged on every lead, by its outcome: no_answer, left_message, reached,
    /// wrong_number or emailed (as `POST /api/v1/leads/{id}/contacts` logs one; a `status` given
    /// beside it is the status the leads get).
    #[serde(default)]
    #[validate(custom(function = "json_type"), custom(function = "contact_outcome"))]
    pub contact: Lax<String>,
    /// A note added to every lead, up to 10,000 characters (with `contact`: what was said);
    /// blank is none.
    #[serde(default)]
    #[validate(custom(function = "json_type"), length(max = 10000))]
    pub note: Lax<String>,
}

/// `POST /api/v1/leads/bulk`.
#[derive(Debug, Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BulkBody {
    /// 1 to 1000 lead ids, each once.
    #[validate(custom(function = "json_type"), required, length(min = 1, max = 1000))]
    pub ids: Lax<Vec<i64>>,
    /// At least one of its members.
    #[serde(default)]
    #[validate(nested)]
    pub set: BulkSetBody,
}

/// Not a PATCH, but a change all the same: a mistyped member of `set` (or beside it) would
/// silently leave hundreds of leads as they are (contract 1).
impl RequestBody for BulkBody {
    const REFUSES_UNKNOWN: bool = true;
}

impl BulkBody {
    pub fn into_parts(self) -> (Vec<i64>, BulkSet) {
        let set = self.set;
        let bulk = BulkSet {
            status: set.status.text().and_then(LeadStatus::parse),
            assignee: match &set.assignee_id {
                Lax::Absent => None,
                other => Some(other.text().map(str::to_owned)),
            },
            team_id: set.team_id.value().copied(),
            archived: set.archived.value().copied(),
            follow_up: follow_up_change(&set.follow_up_on),
            do_not_call: set.do_not_call.value().copied(),
            tags: tag_edit(&set.tags, &set.add_tags, &set.remove_tags),
            contact: set.contact.text().and_then(ContactOutcome::parse),
            note: set.note.text().map(str::to_owned),
            // An import's per-number flags alone set it.
            numbers_not_to_call: Vec::new(),
        };
        (self.ids.into_value().unwrap_or_default(), bulk)
    }
}

/// The leads a bulk change changed.
#[derive(Serialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BulkResult {
    pub updated: usize,
    pub items: Vec<LeadView>,
}
