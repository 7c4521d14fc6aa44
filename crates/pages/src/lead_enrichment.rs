//! The lead page's enrichment card (status and why, what lies ahead, location, map, geocode,
//! appraisal) and its submission history.
use serde::Serialize;
use tera::Context;

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::error::ServiceError;
use leadhub_domain::lead::record::{EnrichmentStatus, Lead};
use leadhub_domain::submission::HistoryEntry;
use leadhub_http::state::AppState;

use crate::lead_view::Group;
use crate::render::{when, when_opt, PageError};

#[derive(Serialize)]
pub struct HistoryLine {
    id: i64,
    at: String,
    submitter: String,
    action: String,
    warnings: Vec<String>,
    error: Option<String>,
    raw_json: String,
}

impl HistoryLine {
    pub fn new(entry: &HistoryEntry, offset: UtcOffset) -> HistoryLine {
        let s = &entry.submission;
        HistoryLine {
            id: s.id,
            at: when(s.created_at, offset),
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
fn appraisal_fields(lead: &Lead) -> Group {
    let mut group = Group::default();
    if let Some(serde_json::Value::Object(appraisal)) = &lead.appraisal {
        for (name, value) in appraisal.iter().filter(|(name, _)| name.as_str() != "raw") {
            let text = match value {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            group.add(name, text);
        }
    }
    group
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

/// Puts the enrichment card's values into the lead page's context.
pub async fn insert_enrichment(
    context: &mut Context,
    state: &AppState,
    lead: &Lead,
    history: &[HistoryEntry],
    offset: UtcOffset,
) -> Result<(), PageError> {
    let f = &lead.fields;
    context.insert("appraisal", &appraisal_fields(lead));
    let mut geocode = Group::default();
    if let Some(g) = &lead.geocode {
        geocode.add("source", Some(g.source.clone()));
        geocode.add("match", Some(g.match_type.clone()));
        geocode.add("matched_address", g.matched_address.clone());
        geocode.add("county_fips", lead.county_fips.clone());
    }
    context.insert("geocode", &lead.geocode.as_ref().map(|_| geocode));
    context.insert("location", &location(lead));
    context.insert(
        "map",
        &f.latitude
            .zip(f.longitude)
            .and_then(|(lat, lon)| crate::map::view(state.config.map_tiles.as_deref(), lat, lon)),
    );
    context.insert("enrichment", lead.enrichment_status.as_str());
    context.insert(
        "enrichment_reason",
        enrichment_reason(lead.enrichment_status),
    );
    let outlook = state
        .enrichment_retries
        .outlook(lead)
        .await
        .map_err(ServiceError::from)?;
    let outlook = outlook.as_ref();
    context.insert(
        "enrichment_next_try",
        &when_opt(outlook.and_then(|o| o.next_try_at), offset),
    );
    context.insert(
        "enrichment_gave_up",
        &when_opt(outlook.and_then(|o| o.gave_up_at), offset),
    );
    context.insert(
        "enrichment_last_reason",
        &outlook.and_then(|o| o.last_reason.clone()),
    );
    context.insert("enrichment_warnings", &enrichment_warnings(history));
    Ok(())
}
