//! `/leads/{id}/edit`: every field of a lead in one form. The fields a person changed are sent
//! through the API's own PATCH body (`LeadPatchBody`: intake's rules and normalisation) with
//! the version the form showed, so a lead changed meanwhile is refused, never overwritten.
use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::Serialize;
use serde_json::{Map, Value};

use leadhub_api::lead_work_views::LeadPatchBody;
use leadhub_domain::error::FieldError;
use leadhub_domain::lead::record::Lead;
use leadhub_domain::lead::work::LeadWorkError;
use leadhub_http::extract::read_body;

use crate::lead::{refused, title};
use crate::lead_view::{label, EMAILS, OWNER, PERMIT, PHONES, PROPERTY};
use crate::lead_walk::Walk;
use crate::render::{problems_text, see_other, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, id_of};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/leads/{id}/edit" => form,
        POST "/leads/{id}/edit" => save,
    }
}

/// The numeric fields, sent as JSON numbers.
const NUMBERS: [&str; 3] = ["bedrooms", "latitude", "longitude"];

/// The form's sections: a heading and the fields under it.
fn sections() -> [(&'static str, Vec<&'static str>); 4] {
    let mut property = PROPERTY.to_vec();
    property.push("bedrooms");
    let mut contacts = PHONES.to_vec();
    contacts.extend(EMAILS);
    let owner = OWNER.to_vec();
    let mut permit = PERMIT.to_vec();
    permit.extend(["latitude", "longitude"]);
    [
        ("Property", property),
        ("Owner", owner),
        ("Phones and e-mails", contacts),
        ("Permit, project and location", permit),
    ]
}

/// A field's stored value as the form shows it ("" when empty).
fn shown(lead: &Lead, name: &str) -> String {
    let f = &lead.fields;
    match name {
        "bedrooms" => f.bedrooms.map(|b| b.to_string()),
        "latitude" => f.latitude.map(|v| v.to_string()),
        "longitude" => f.longitude.map(|v| v.to_string()),
        other => f.string_field(other).cloned().flatten(),
    }
    .unwrap_or_default()
}

#[derive(Serialize)]
struct Input {
    name: &'static str,
    label: String,
    value: String,
}

#[derive(Serialize)]
struct Section {
    title: &'static str,
    inputs: Vec<Input>,
}

/// The form's sections filled with `value` of each field.
fn filled(value: impl Fn(&str) -> String) -> Vec<Section> {
    sections()
        .into_iter()
        .map(|(title, names)| Section {
            title,
            inputs: names
                .into_iter()
                .map(|name| Input {
                    name,
                    label: label(name),
                    value: value(name),
                })
                .collect(),
        })
        .collect()
}

fn page(
    visitor: &Visitor,
    walk: &Walk,
    lead: &Lead,
    version: i64,
    sections: Vec<Section>,
    status: StatusCode,
    error: Option<String>,
) -> Result<HttpResponse, PageError> {
    let mut context = base_context(Some(visitor), "leads");
    context.insert("id", &lead.id);
    context.insert("title", &title(lead));
    context.insert("version", &version);
    context.insert("sections", &sections);
    context.insert("error", &error);
    context.insert("walk_suffix", &walk.suffix());
    visitor.page(status, "lead_edit.html", &context)
}

/// Lead `id` for its form, when the person may see it; else the lead page's refusal (a lead
/// merged away included).
async fn open(visitor: &Visitor, id: i64) -> Result<Lead, PageError> {
    visitor
        .state
        .lead_work
        .lead(&visitor.user, id)
        .await
        .map_err(|e| refused(e, id, &Walk::default()))
}

async fn form(
    visitor: Visitor,
    id: web::Path<String>,
    walk: web::Query<Walk>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let lead = open(&visitor, id).await?;
    stored(&visitor, &walk, &lead, None)
}

/// The form holding `lead` as stored (its version the one a save must match), with `note`.
fn stored(
    visitor: &Visitor,
    walk: &Walk,
    lead: &Lead,
    note: Option<String>,
) -> Result<HttpResponse, PageError> {
    let sections = filled(|name| shown(lead, name));
    page(
        visitor,
        walk,
        lead,
        lead.work.version,
        sections,
        StatusCode::OK,
        note,
    )
}

/// The PATCH body of the fields whose posted text differs from what the form showed: a blank
/// clears the field, a number field that reads as a number is sent as one (anything else is
/// sent as text, for the API's own type error).
fn patch_of(lead: &Lead, posted: &HashMap<String, String>) -> Map<String, Value> {
    let mut members = Map::new();
    for (_, names) in sections() {
        for name in names {
            let Some(text) = posted.get(name).map(|t| t.trim()) else {
                continue;
            };
            if text == shown(lead, name) {
                continue;
            }
            let value = if text.is_empty() {
                Value::Null
            } else if NUMBERS.contains(&name) {
                serde_json::from_str::<serde_json::Number>(text)
                    .map(Value::Number)
                    .unwrap_or_else(|_| Value::String(text.to_owned()))
            } else {
                Value::String(text.to_owned())
            };
            members.insert(name.to_owned(), value);
        }
    }
    members
}

async fn save(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<HashMap<String, String>>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let version: i64 = form
        .get("version")
        .and_then(|v| v.parse().ok())
        .ok_or(PageError::BadForm)?;
    let lead = open(&visitor, id).await?;
    let members = patch_of(&lead, &form);
    if members.is_empty() {
        return Ok(visitor.finish(see_other(&format!(
            "/leads/{id}?done=unchanged{}",
            walk.and()
        ))));
    }
    let as_posted = |name: &str| {
        form.get(name)
            .map(|v| v.trim().to_owned())
            .unwrap_or_default()
    };
    // A refusal that leaves the lead as the form showed it: the form again as typed, so
    // nothing typed is lost.
    let as_typed = |status: StatusCode, why: String| {
        let error = format!("Nothing was saved: {why}");
        page(
            &visitor,
            &walk,
            &lead,
            version,
            filled(as_posted),
            status,
            Some(error),
        )
    };
    // Refused values, the request rules' or the service's (a value it would drop).
    let typed_again = |problems: &[FieldError]| {
        let why = format!("{}.", problems_text(problems));
        as_typed(StatusCode::UNPROCESSABLE_ENTITY, why)
    };
    let body = Value::Object(members.clone()).to_string();
    let patch = match read_body::<LeadPatchBody>(body.as_bytes()) {
        Ok(body) => body.into_patch(&members),
        Err(problems) => return typed_again(&problems),
    };
    let edited = match visitor
        .state
        .lead_work
        .edit(&visitor.user, id, patch, Some(version))
        .await
    {
        Ok(edited) => edited,
        Err(LeadWorkError::Invalid(problems)) => return typed_again(&problems),
        // Another lead is this property: the form again as typed, saying which.
        Err(LeadWorkError::Conflict { detail, lead_id }) => {
            let why = match lead_id {
                Some(other) => format!(
                    "{detail}. If both are one property, merge this lead into lead {other} \
                     from the lead page."
                ),
                None => format!("{detail}."),
            };
            return as_typed(StatusCode::CONFLICT, why);
        }
        // The lead changed since the form was opened. Its old values typed again would undo
        // that change, so the form now holds the lead as it is, and what the person typed that
        // differs from it is listed: neither their typing nor the other change is lost.
        Err(LeadWorkError::PreconditionFailed) => {
            let now = open(&visitor, id).await?;
            let typed: Vec<String> = sections()
                .iter()
                .flat_map(|(_, names)| names.iter())
                .filter(|name| form.contains_key(**name))
                .filter_map(|name| {
                    let text = as_posted(name);
                    (text != shown(&now, name)).then(|| {
                        let text = if text.is_empty() { "(blank)" } else { &text };
                        format!("{}: {text}", label(name))
                    })
                })
                .collect();
            let error = format!(
                "Someone changed this lead while you edited it, so nothing was saved. The form \
                 now shows the lead as it is; what you typed that differs from it: {}.",
                typed.join("; ")
            );
            let sections = filled(|name| shown(&now, name));
            let status = StatusCode::PRECONDITION_FAILED;
            return page(
                &visitor,
                &walk,
                &now,
                now.work.version,
                sections,
                status,
                Some(error),
            );
        }
        Err(e) => return Err(refused(e, id, &walk)),
    };
    if edited.warnings.is_empty() {
        return Ok(visitor.finish(see_other(&format!("/leads/{id}?done=edited{}", walk.and()))));
    }
    // Saved, but some values could not be fully used (a ZIP that is not one, a lot
    // size without a unit): the form again, showing what was stored. A value that would have
    // been dropped was refused above instead.
    let warnings: Vec<String> = edited
        .warnings
        .iter()
        .map(|w| format!("{}: {}", label(&w.field), w.message))
        .collect();
    let note = format!(
        "Saved, but these values could not be fully used: {}.",
        warnings.join("; ")
    );
    stored(&visitor, &walk, &edited.lead, Some(note))
}
