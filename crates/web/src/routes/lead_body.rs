//! Reading lead submissions from JSON: JSON types here (every problem collected), value rules
//! in the domain (`validate_lead`), so one 422 lists everything wrong with every element.
use serde_json::Value;
use utoipa::ToSchema;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::lead::{validate_lead, LeadFields};
use leadhub_domain::submission::SubmissionRequest;

use crate::extract::{Fields, FromBody};

/// Most leads one batch may carry.
pub const MAX_BATCH: usize = 1000;

/// Reads one lead at `base`; the raw element is kept verbatim for the submission record: its
/// text as sent when given (`raw`), else `value` written out as JSON.
/// The CLI import reads each CSV row through here too (as an object of strings), so a row is
/// rejected for exactly the reasons an API element would be.
pub fn read_lead(
    value: &Value,
    raw: Option<&str>,
    base: Vec<LocPart>,
    problems: &mut Vec<FieldError>,
) -> Option<SubmissionRequest> {
    let fields = Fields::of(value, base.clone(), problems)?;
    let before = problems.len();
    let mut lead = LeadFields::from_strings(|name| fields.opt_string(name, usize::MAX, problems));
    lead.bedrooms = fields.opt_int("bedrooms", problems);
    lead.latitude = fields.opt_float("latitude", problems);
    lead.longitude = fields.opt_float("longitude", problems);
    let team_id = fields.opt_int("team_id", problems);
    problems.extend(validate_lead(&lead, &base));
    (problems.len() == before).then(|| SubmissionRequest {
        fields: lead,
        team_id,
        raw_json: raw.map_or_else(|| value.to_string(), str::to_owned),
    })
}

/// `POST /api/v1/submissions/single`.
pub struct SingleSubmission(pub SubmissionRequest);

impl FromBody for SingleSubmission {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        Self::read(value, None)
    }

    fn from_body_text(value: &Value, text: &[u8]) -> Result<Self, Vec<FieldError>> {
        // Text that parsed as JSON is UTF-8.
        Self::read(value, std::str::from_utf8(text).ok().map(str::trim))
    }
}

impl SingleSubmission {
    fn read(value: &Value, raw: Option<&str>) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        match read_lead(value, raw, vec![LocPart::from("body")], &mut problems) {
            Some(r) if problems.is_empty() => Ok(SingleSubmission(r)),
            _ => Err(problems),
        }
    }
}

/// A lead as submitted; every field is optional. Strings are trimmed; blank counts as absent.
#[derive(ToSchema, serde::Serialize)]
#[allow(dead_code)]
pub struct LeadSubmissionSchema {
    #[schema(example = "123 N Main St Apt 4", max_length = 255)]
    address: Option<String>,
    #[schema(example = "Austin", max_length = 255)]
    city: Option<String>,
    /// US state, DC or territory code (AS, GU, MP, PR, VI, UM), any case.
    #[schema(example = "TX", max_length = 255)]
    state: Option<String>,
    #[schema(example = "78701", max_length = 255)]
    zip_code: Option<String>,
    county: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    #[schema(example = "(512) 555-0100")]
    primary_phone: Option<String>,
    /// mobile, landline or voip.
    #[schema(example = "mobile")]
    primary_phone_type: Option<String>,
    phone_2: Option<String>,
    phone_3: Option<String>,
    phone_4: Option<String>,
    phone_5: Option<String>,
    email_1: Option<String>,
    email_2: Option<String>,
    email_3: Option<String>,
    mail_address: Option<String>,
    mail_city: Option<String>,
    /// A state code, like `state`.
    mail_state: Option<String>,
    mail_zip: Option<String>,
    project_number: Option<String>,
    /// Many forms are understood (2025-01-05, 01/05/2025, Jan 5, 2025, ...); stored as YYYY-MM-DD.
    permit_date: Option<String>,
    permit_status: Option<String>,
    parcel_number: Option<String>,
    subdivision: Option<String>,
    lot: Option<String>,
    work_type: Option<String>,
    #[schema(max_length = 5000)]
    project_description: Option<String>,
    specific_use: Option<String>,
    /// residential, commercial, agricultural or vacant_land.
    property_type: Option<String>,
    /// Free text such as "0.25 acres" or "10,890 sqft"; `lot_size_acres` is derived from it.
    lot_size: Option<String>,
    #[schema(minimum = 0, maximum = 100)]
    bedrooms: Option<i64>,
    #[schema(max_length = 2048)]
    related_url: Option<String>,
    /// With `longitude`, or neither.
    #[schema(minimum = -90, maximum = 90)]
    latitude: Option<f64>,
    #[schema(minimum = -180, maximum = 180)]
    longitude: Option<f64>,
    #[schema(example = "permit_scrape")]
    source: Option<String>,
    source_identifier: Option<String>,
    /// Assigns the lead to a team the caller is a member of.
    team_id: Option<i64>,
}

/// A batch of leads.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct BatchRequestSchema {
    #[schema(min_items = 1, max_items = 1000)]
    leads: Vec<LeadSubmissionSchema>,
    /// true (default): answer after every stage ran; false: answer at once, every element `pending`.
    #[schema(default = true)]
    process_immediately: Option<bool>,
    /// Applies to every element; an element's own team_id overrides it.
    team_id: Option<i64>,
}
