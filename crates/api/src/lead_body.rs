//! Leads as submitted: `LeadSubmission` declares every field with its rules, `SubmittedLead` is
//! one lead with its JSON text, kept verbatim. The single submission's body is one, each batch
//! element is one, so both refuse a lead for the same reasons (a CSV import cleans its cells
//! into these rules instead: `leadhub_domain::import`). Normalising and warnings are the domain's (`lead::normalize`).
use std::borrow::Cow;

use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use validator::{Validate, ValidationError, ValidationErrors};

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::lead::fields::{PHONE_TYPES, PROPERTY_TYPES};
use leadhub_domain::lead::LeadFields;
use leadhub_domain::submission::SubmissionRequest;
use leadhub_http::extract::json_text::is_object;
use leadhub_http::extract::problems::{problems, FIELD_PARAM};
use leadhub_http::extract::rules::{one_of, state_code};
use leadhub_http::extract::{json_type, Lax, RequestBody};

/// Largest JSON text of one lead, as stored verbatim. Every known field at its longest is
/// about 15 KB (36 KB with every character `\u`-escaped); unknown members are ignored but
/// stored, so without a bound one element could keep megabytes.
pub const MAX_LEAD_JSON: usize = 64 * 1024;

/// A lead as submitted; every field is optional. Strings are trimmed; blank counts as absent.
/// Members of other names are ignored (and kept in the submission's verbatim text).
#[derive(Debug, Default, Deserialize, Validate, JsonSchema)]
#[validate(schema(function = "coordinates_paired", skip_on_field_errors = false))]
pub struct LeadSubmission {
    /// e.g. "123 N Main St Apt 4"
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub address: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub city: Lax<String>,
    /// US state, DC or territory code (AS, GU, MP, PR, VI, UM), any case.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "state_code")
    )]
    pub state: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub zip_code: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub county: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub first_name: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub last_name: Lax<String>,
    /// e.g. "(512) 555-0100"; stored as E.164 when libphonenumber's rules say it is valid (a
    /// number without a country code is read as US), else dropped with an `invalid_phone` warning.
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub primary_phone: Lax<String>,
    /// mobile, landline or voip.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "phone_type")
    )]
    pub primary_phone_type: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub phone_2: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub phone_3: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub phone_4: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub phone_5: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub email_1: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub email_2: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub email_3: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub mail_address: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub mail_city: Lax<String>,
    /// A state code, like `state`.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "state_code")
    )]
    pub mail_state: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub mail_zip: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub project_number: Lax<String>,
    /// Many forms are understood (2025-01-05, 01/05/2025, Jan 5, 2025, ...); stored as YYYY-MM-DD.
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub permit_date: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub permit_status: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub parcel_number: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub subdivision: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub lot: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub work_type: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 5000))]
    pub project_description: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub specific_use: Lax<String>,
    /// residential, commercial, agricultural or vacant_land.
    #[validate(
        custom(function = "json_type"),
        length(max = 255),
        custom(function = "property_type")
    )]
    pub property_type: Lax<String>,
    /// Free text such as "0.25 acres" or "10,890 sqft"; `lot_size_acres` is derived from it.
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub lot_size: Lax<String>,
    #[validate(custom(function = "json_type"), range(min = 0, max = 100))]
    pub bedrooms: Lax<i64>,
    #[validate(custom(function = "json_type"), length(max = 2048))]
    pub related_url: Lax<String>,
    /// With `longitude`, or neither.
    #[validate(custom(function = "json_type"), range(min = -90.0, max = 90.0))]
    pub latitude: Lax<f64>,
    #[validate(custom(function = "json_type"), range(min = -180.0, max = 180.0))]
    pub longitude: Lax<f64>,
    /// The lead's channel, e.g. "permit_scrape".
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub source: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub source_identifier: Lax<String>,
    /// The lead's team: on a submission, a team the caller is a member of.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
}

fn phone_type(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &PHONE_TYPES)
}

fn property_type(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &PROPERTY_TYPES)
}

/// Coordinates come in pairs: the missing one is named.
fn coordinates_paired(lead: &LeadSubmission) -> Result<(), ValidationError> {
    let missing = match (lead.latitude.value(), lead.longitude.value()) {
        (Some(_), None) => ("longitude", "longitude is required when latitude is given"),
        (None, Some(_)) => ("latitude", "latitude is required when longitude is given"),
        _ => return Ok(()),
    };
    let mut e = ValidationError::new("missing").with_message(Cow::Borrowed(missing.1));
    e.add_param(Cow::Borrowed(FIELD_PARAM), &missing.0);
    Err(e)
}

/// The request's fields are named as the domain's: the conversion comes from the domain's one
/// list of string fields.
macro_rules! into_lead_fields {
    ($($name:ident),*) => {
        impl LeadSubmission {
            /// The lead's fields as the domain takes them (blank text is absent).
            pub fn into_fields(self) -> LeadFields {
                LeadFields {
                    $($name: self.$name.into_text(),)*
                    bedrooms: self.bedrooms.into_value(),
                    latitude: self.latitude.into_value(),
                    longitude: self.longitude.into_value(),
                }
            }
        }
    };
}

leadhub_domain::with_string_fields!(into_lead_fields);

/// One lead as sent: its JSON text, and its fields when the text is an object.
#[derive(Debug, apistos::ApiComponent)]
pub struct SubmittedLead {
    raw: Box<RawValue>,
    lead: Option<LeadSubmission>,
}

impl<'de> Deserialize<'de> for SubmittedLead {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let lead = if is_object(raw.get().as_bytes()) {
            Some(read_fields(raw.get()).map_err(D::Error::custom)?)
        } else {
            None
        };
        Ok(SubmittedLead { raw, lead })
    }
}

/// A lead object's fields from its (checked) text. A repeated member makes serde's derive
/// refuse the text; JSON parsers take the last one, so then the fields are read from the
/// parsed value.
fn read_fields(text: &str) -> Result<LeadSubmission, serde_json::Error> {
    serde_json::from_str(text)
        .or_else(|_| serde_json::from_str::<Value>(text).and_then(LeadSubmission::deserialize))
}

impl SubmittedLead {
    /// Every problem with this lead, located under `base`.
    pub fn problems(&self, base: Vec<LocPart>) -> Vec<FieldError> {
        match self.validate() {
            Ok(()) => Vec::new(),
            Err(errors) => problems::<Self>(&errors, base),
        }
    }

    /// The submission of a lead that passed validation; `team_id` applies unless the lead
    /// names a team of its own.
    pub fn into_request(self, team_id: Option<i64>) -> SubmissionRequest {
        let lead = self.lead.unwrap_or_default();
        SubmissionRequest {
            team_id: lead.team_id.value().copied().or(team_id),
            fields: lead.into_fields(),
            raw_json: Box::<str>::from(self.raw).into_string(),
            idempotency_key_id: None,
            owner_chosen: false,
        }
    }
}

/// A lead's own rules (an object, its text within `MAX_LEAD_JSON`) come before its fields'.
impl Validate for SubmittedLead {
    fn validate(&self) -> Result<(), ValidationErrors> {
        let Some(lead) = &self.lead else {
            let mut errors = ValidationErrors::new();
            errors.add(
                "__all__",
                ValidationError::new("model_attributes_type").with_message(Cow::Borrowed(
                    "Input should be a valid dictionary or object to extract fields from",
                )),
            );
            return Err(errors);
        };
        let mut errors = lead.validate().err().unwrap_or_default();
        if self.raw.get().len() > MAX_LEAD_JSON {
            errors.add(
                "__all__",
                ValidationError::new("too_long").with_message(Cow::Owned(format!(
                    "A lead should have at most {MAX_LEAD_JSON} bytes of JSON"
                ))),
            );
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// As sent (validator keeps a failing list's elements with its problem).
impl Serialize for SubmittedLead {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Documented as the fields it carries.
impl JsonSchema for SubmittedLead {
    fn schema_name() -> String {
        LeadSubmission::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        LeadSubmission::json_schema(generator)
    }
}

/// `POST /api/v1/submissions/single`: the body is the lead.
impl RequestBody for SubmittedLead {}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::lead::fields::{max_len, STRING_FIELDS};
    use leadhub_http::extract::read_body;

    fn refused(body: &str) -> Vec<(String, String)> {
        read_body::<SubmittedLead>(body.as_bytes())
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                let loc: Vec<String> = p.loc.iter().map(|l| format!("{l:?}")).collect();
                (loc.join("/"), p.kind)
            })
            .collect()
    }

    #[test]
    fn a_clean_lead_passes() {
        let body = r#"{"state": "tx", "mail_state": "PR", "primary_phone_type": "Mobile",
            "property_type": "VACANT_LAND", "bedrooms": "0", "latitude": -90, "longitude": "180",
            "notes": {"kept": "verbatim"}}"#;
        let lead = read_body::<SubmittedLead>(body.as_bytes()).unwrap();
        let request = lead.into_request(Some(4));
        assert_eq!(request.raw_json, body);
        assert_eq!(request.team_id, Some(4));
        assert_eq!(request.fields.bedrooms, Some(0));
        assert_eq!(request.fields.longitude, Some(180.0));
        assert_eq!(request.fields.state.as_deref(), Some("tx"));
    }

    #[test]
    fn every_problem_is_reported_in_field_order() {
        let body = format!(
            r#"{{"latitude": 91, "bedrooms": 101, "property_type": "castle",
                "primary_phone_type": "fax", "mail_state": "Texas", "state": "XX",
                "project_description": "{}", "city": "{}", "related_url": "{}", "address": 5}}"#,
            "x".repeat(5001),
            "y".repeat(256),
            "z".repeat(2048)
        );
        let found = refused(&body);
        let fields: Vec<&str> = found
            .iter()
            .map(|(loc, _)| loc.rsplit('/').next().unwrap_or_default())
            .collect();
        assert_eq!(
            fields,
            [
                "Field(\"address\")",
                "Field(\"city\")",
                "Field(\"state\")",
                "Field(\"primary_phone_type\")",
                "Field(\"mail_state\")",
                "Field(\"project_description\")",
                "Field(\"property_type\")",
                "Field(\"bedrooms\")",
                "Field(\"latitude\")",
                "Field(\"longitude\")",
            ],
            "{found:?}"
        );
        let kinds: Vec<&str> = found.iter().map(|(_, k)| k.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "string_type",
                "too_long",
                "value_error",
                "enum",
                "value_error",
                "too_long",
                "enum",
                "less_than_equal",
                "less_than_equal",
                "missing"
            ]
        );
    }

    #[test]
    fn the_element_itself_comes_first() {
        assert_eq!(
            refused("[1]"),
            [(
                "Field(\"body\")".to_owned(),
                "model_attributes_type".to_owned()
            )]
        );
        let big = format!(
            r#"{{"notes": "{}", "bedrooms": -1}}"#,
            "n".repeat(MAX_LEAD_JSON)
        );
        let kinds: Vec<String> = refused(&big).into_iter().map(|(_, k)| k).collect();
        assert_eq!(kinds, ["too_long", "greater_than_equal"]);
    }

    #[test]
    fn a_repeated_member_counts_once_as_its_last() {
        let body = r#"{"state": "XX", "state": "TX"}"#;
        let lead = read_body::<SubmittedLead>(body.as_bytes()).unwrap();
        let request = lead.into_request(None);
        assert_eq!(request.fields.state.as_deref(), Some("TX"));
        assert_eq!(request.raw_json, body);
    }

    /// The schema's bounds are the domain's.
    #[test]
    fn lengths_are_the_domains() {
        let schema = schemars::gen::SchemaSettings::openapi3()
            .into_generator()
            .into_root_schema_for::<LeadSubmission>();
        let properties = &schema.schema.object.as_ref().unwrap().properties;
        for name in STRING_FIELDS {
            let Schema::Object(field) = &properties[name] else {
                panic!("{name}")
            };
            let max = field.string.as_ref().and_then(|s| s.max_length);
            assert_eq!(max, Some(max_len(name) as u32), "{name}");
        }
    }
}
