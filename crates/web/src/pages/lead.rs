//! `/leads/{id}`: one lead, every field grouped, its location, its submission history (how
//! duplicates merged into it) and its enrichment with "Enrich again".
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::Serialize;

use leadhub_domain::error::ServiceError;
use leadhub_domain::lead::record::{EnrichmentStatus, Lead};
use leadhub_domain::submission::HistoryEntry;

use crate::pages::render::{see_other, when, when_opt, PageError};
use crate::pages::session::{Posted, Visitor};
use crate::pages::{base_context, id_of, Button, Done};
use crate::state::AppState;

/// Submissions shown in a lead's history (the newest ones).
const HISTORY: i64 = 100;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/leads/{id}", web::get().to(detail))
        .route("/leads/{id}/enrich", web::post().to(enrich));
}

/// The string fields of each group, by name (`STRING_FIELDS` holds every one; a test checks
/// that the groups cover them all).
const PROPERTY: [&str; 12] = [
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
const OWNER: [&str; 15] = [
    "first_name",
    "last_name",
    "primary_phone",
    "primary_phone_type",
    "phone_2",
    "phone_3",
    "phone_4",
    "phone_5",
    "email_1",
    "email_2",
    "email_3",
    "mail_address",
    "mail_city",
    "mail_state",
    "mail_zip",
];
const PERMIT: [&str; 7] = [
    "project_number",
    "permit_date",
    "permit_status",
    "work_type",
    "project_description",
    "specific_use",
    "related_url",
];

#[derive(Serialize)]
struct Field {
    label: String,
    value: Option<String>,
}

fn field(name: &str, value: Option<String>) -> Field {
    let mut label = name.replace('_', " ");
    if let Some(first) = label.get(0..1) {
        label = first.to_uppercase() + &label[1..];
    }
    Field { label, value }
}

fn group(lead: &Lead, names: &[&str]) -> Vec<Field> {
    names
        .iter()
        .map(|n| field(n, lead.fields.string_field(n).cloned().flatten()))
        .collect()
}

#[derive(Serialize)]
struct HistoryLine {
    id: i64,
    at: String,
    submitter: String,
    action: String,
    warnings: Vec<String>,
    error: Option<String>,
    raw_json: String,
}

impl HistoryLine {
    fn new(entry: &HistoryEntry) -> HistoryLine {
        let s = &entry.submission;
        HistoryLine {
            id: s.id,
            at: when(s.created_at),
            submitter: entry
                .submitter
                .as_ref()
                .map(|u| format!("{} <{}>", u.display_name(), u.email))
                .unwrap_or_else(|| "(account removed)".to_owned()),
            action: s
                .result_action
                .map(|a| a.as_str().to_owned())
                .unwrap_or_else(|| s.status.as_str().to_owned()),
            warnings: s
                .validation_warnings
                .iter()
                .map(|w| format!("{}: {}", w.field, w.message))
                .collect(),
            error: s.error.clone(),
            raw_json: s.raw_json.clone(),
        }
    }
}

/// What each enrichment status means, in a sentence.
fn enrichment_reason(status: EnrichmentStatus) -> &'static str {
    match status {
        EnrichmentStatus::Complete => {
            "Every enrichment stage that applies ran and found something."
        }
        EnrichmentStatus::Partial => {
            "The stages ran, but one found nothing (no geocoder match or no county parcel)."
        }
        EnrichmentStatus::PendingRetry => {
            "A stage failed or timed out; it is retried in the background."
        }
        EnrichmentStatus::GaveUp => {
            "A stage kept failing until its retries gave up; it is not retried on its own."
        }
        EnrichmentStatus::Skipped => {
            "No stage applied: the lead has no address, or enrichment is not configured."
        }
    }
}

/// The enrichment warnings of the newest submission: why the status is what it is.
fn enrichment_warnings(history: &[HistoryEntry]) -> Vec<String> {
    history
        .first()
        .map(|h| {
            h.submission
                .validation_warnings
                .iter()
                .filter(|w| w.code.starts_with("geocode_") || w.code.starts_with("appraisal_"))
                .map(|w| w.message.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The appraisal's named values (its `raw` attributes stay out: they are the county's).
fn appraisal_fields(lead: &Lead) -> Vec<Field> {
    let Some(serde_json::Value::Object(appraisal)) = &lead.appraisal else {
        return Vec::new();
    };
    appraisal
        .iter()
        .filter(|(name, _)| name.as_str() != "raw")
        .map(|(name, value)| {
            let text = match value {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            field(name, text)
        })
        .collect()
}

#[derive(Serialize)]
struct Location {
    latitude: f64,
    longitude: f64,
    osm: String,
}

fn location(lead: &Lead) -> Option<Location> {
    let (latitude, longitude) = (lead.fields.latitude?, lead.fields.longitude?);
    Some(Location {
        latitude,
        longitude,
        osm: format!(
            "https://www.openstreetmap.org/?mlat={latitude}&mlon={longitude}#map=17/{latitude}/{longitude}"
        ),
    })
}

async fn detail(
    state: web::Data<AppState>,
    visitor: Visitor,
    id: web::Path<String>,
    done: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let (lead, history) = state
        .submissions
        .lead_history(&visitor.user, id, HISTORY)
        .await?;
    let may_enrich = state.submissions.may_enrich(&visitor.user, &lead).await?;
    let f = &lead.fields;
    let mut context = base_context(Some(&visitor), "leads");
    context.insert("notice", &done.notice());
    context.insert("id", &lead.id);
    context.insert(
        "title",
        &lead
            .address_standardized
            .clone()
            .or_else(|| f.address.clone())
            .unwrap_or_else(|| format!("Lead {}", lead.id)),
    );
    context.insert("address_standardized", &lead.address_standardized);
    let mut property = group(&lead, &PROPERTY);
    property.extend([
        field("bedrooms", f.bedrooms.map(|b| b.to_string())),
        field("lot_size_acres", lead.lot_size_acres.map(|a| a.to_string())),
    ]);
    context.insert("property", &property);
    context.insert("owner", &group(&lead, &OWNER));
    context.insert("permit", &group(&lead, &PERMIT));
    context.insert("appraisal", &appraisal_fields(&lead));
    context.insert(
        "geocode",
        &lead.geocode.as_ref().map(|g| {
            vec![
                field("source", Some(g.source.clone())),
                field("match", Some(g.match_type.clone())),
                field("matched_address", g.matched_address.clone()),
                field("county_fips", lead.county_fips.clone()),
            ]
        }),
    );
    context.insert("location", &location(&lead));
    context.insert(
        "map",
        &f.latitude.zip(f.longitude).and_then(|(lat, lon)| {
            crate::pages::map::view(state.config.map_tiles.as_deref(), lat, lon)
        }),
    );
    context.insert("team_id", &lead.team_id);
    context.insert("enrichment", lead.enrichment_status.as_str());
    context.insert(
        "enrichment_reason",
        enrichment_reason(lead.enrichment_status),
    );
    let outlook = state
        .enrichment_retries
        .outlook(&lead)
        .await
        .map_err(ServiceError::from)?;
    let outlook = outlook.as_ref();
    context.insert(
        "enrichment_next_try",
        &when_opt(outlook.and_then(|o| o.next_try_at)),
    );
    context.insert(
        "enrichment_gave_up",
        &when_opt(outlook.and_then(|o| o.gave_up_at)),
    );
    context.insert(
        "enrichment_last_reason",
        &outlook.and_then(|o| o.last_reason.clone()),
    );
    context.insert("enrichment_warnings", &enrichment_warnings(&history));
    context.insert("may_enrich", &may_enrich);
    context.insert("submission_count", &lead.submission_count);
    context.insert("created", &when(lead.created_at));
    context.insert("updated", &when(lead.updated_at));
    context.insert(
        "history",
        &history.iter().map(HistoryLine::new).collect::<Vec<_>>(),
    );
    context.insert("history_cut", &(lead.submission_count > HISTORY as i32));
    visitor.page(StatusCode::OK, "lead.html", &context)
}

/// POST /leads/{id}/enrich: "Enrich again", under the API's rule (`enrich_now`).
async fn enrich(
    id: web::Path<String>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    visitor
        .state
        .submissions
        .enrich_now(&visitor.user, id)
        .await?;
    Ok(visitor.finish(see_other(&format!("/leads/{id}?done=enriched"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::lead::fields::STRING_FIELDS;

    #[test]
    fn the_groups_show_every_string_field_once() {
        let mut shown: Vec<&str> = PROPERTY
            .iter()
            .chain(&OWNER)
            .chain(&PERMIT)
            .copied()
            .collect();
        shown.sort_unstable();
        let mut all = STRING_FIELDS.to_vec();
        all.sort_unstable();
        assert_eq!(shown, all);
    }
}
