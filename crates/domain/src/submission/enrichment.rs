//! The geocoding and appraisal stages, run with bounded concurrency over the leads that need them.
use std::sync::Arc;

use futures_util::stream::{self, StreamExt};

use crate::address::AddressKey;
use crate::enrich::{
    AppraisalQuery, AppraisalSource, EnrichError, GeocodeOutcome, GeocodeQuery, Geocoder,
};
use crate::lead::fields::Warning;
use crate::lead::record::{EnrichmentStatus, EnrichmentUpdate, GeocodeInfo, Lead};

/// How many leads are enriched at once: enough to hide adapter latency, few enough to be
/// polite to public services (the adapters bound their own request rates too).
const CONCURRENCY: usize = 16;

#[derive(Clone, Default)]
pub struct Enricher {
    pub geocoder: Option<Arc<dyn Geocoder>>,
    pub appraisal: Option<Arc<dyn AppraisalSource>>,
}

impl Enricher {
    pub fn is_configured(&self) -> bool {
        self.geocoder.is_some() || self.appraisal.is_some()
    }

    /// Enriches each lead; returns the update to store and the warnings, per lead, in order.
    pub async fn enrich(&self, leads: Vec<Lead>) -> Vec<(EnrichmentUpdate, Vec<Warning>)> {
        self.enrich_telling(leads)
            .await
            .into_iter()
            .map(|e| (e.update, e.warnings))
            .collect()
    }

    /// As `enrich`, with what held each lead back, for the retry that follows.
    /// Geocoding goes through `geocode_batch` (one Census batch request for many addresses);
    /// appraisal lookups run with bounded concurrency.
    pub async fn enrich_telling(&self, leads: Vec<Lead>) -> Vec<Enriched> {
        let mut geocoded: Vec<Option<GeocodeOutcome>> = leads.iter().map(|_| None).collect();
        if let Some(geocoder) = &self.geocoder {
            let wanted: Vec<(usize, GeocodeQuery)> = leads
                .iter()
                .enumerate()
                .filter_map(|(i, lead)| geocode_query(lead).map(|q| (i, q)))
                .collect();
            let queries: Vec<GeocodeQuery> = wanted.iter().map(|(_, q)| q.clone()).collect();
            let answers = geocoder.geocode_batch(&queries).await;
            for ((i, _), answer) in wanted.into_iter().zip(answers) {
                geocoded[i] = Some(answer);
            }
        }
        stream::iter(leads.into_iter().zip(geocoded))
            .map(|(lead, geocode)| self.finish_one(lead, geocode))
            .buffered(CONCURRENCY)
            .collect()
            .await
    }

    async fn finish_one(&self, lead: Lead, geocode: Option<GeocodeOutcome>) -> Enriched {
        let mut tally = Tally::default();
        let mut update = EnrichmentUpdate {
            lead_id: lead.id,
            coordinates: lead.fields.latitude.zip(lead.fields.longitude),
            geocode: lead.geocode.clone(),
            county_fips: lead.county_fips.clone(),
            appraisal: lead.appraisal.clone(),
            status: EnrichmentStatus::Skipped,
            looked_up: false,
        };
        if let Some(answer) = geocode {
            tally.ran = true;
            match answer {
                Ok(Some(found)) => {
                    update.coordinates = Some((found.latitude, found.longitude));
                    update.county_fips = found.county_fips.clone().or(update.county_fips);
                    update.geocode = Some(GeocodeInfo {
                        source: found.source,
                        match_type: found.match_type,
                        matched_address: found.matched_address,
                    });
                }
                Ok(None) => tally.missed(
                    "address",
                    "geocode_no_match",
                    "No geocoder found this address",
                ),
                Err(e) => tally.failed("address", "geocode_failed", &e),
            }
        }
        if let (None, Some(source)) = (&update.appraisal, &self.appraisal) {
            if lead.fields.parcel_number.is_some() || update.coordinates.is_some() {
                tally.ran = true;
                let query = AppraisalQuery {
                    parcel_number: lead.fields.parcel_number.clone(),
                    latitude: update.coordinates.map(|c| c.0),
                    longitude: update.coordinates.map(|c| c.1),
                    state: lead.fields.state.clone(),
                    county: lead.fields.county.clone(),
                    county_fips: update.county_fips.clone(),
                };
                match source.appraise(&query).await {
                    Ok(Some(appraisal)) => update.appraisal = Some(appraisal),
                    Ok(None) => tally.missed(
                        "parcel_number",
                        "appraisal_no_match",
                        "No county parcel was found for this lead",
                    ),
                    Err(e) => tally.failed("parcel_number", "appraisal_failed", &e),
                }
            }
        }
        update.status = match (tally.ran, tally.failed, tally.missed) {
            // Marked to wait for enrichment (a merge that changed the lead), or given up, yet no
            // stage of this enricher applies (it has coordinates and no appraisal is
            // configured): it waits on nothing, and is what its stages found before, or skipped.
            (false, _, _)
                if self.is_configured()
                    && matches!(
                        lead.enrichment_status,
                        EnrichmentStatus::PendingRetry | EnrichmentStatus::GaveUp
                    ) =>
            {
                if update.geocode.is_some() || update.appraisal.is_some() {
                    EnrichmentStatus::Complete
                } else {
                    EnrichmentStatus::Skipped
                }
            }
            (false, _, _) => lead.enrichment_status,
            (true, true, _) => EnrichmentStatus::PendingRetry,
            (true, false, true) => EnrichmentStatus::Partial,
            (true, false, false) => EnrichmentStatus::Complete,
        };
        update.looked_up = tally.ran;
        let setback = tally
            .setback
            .filter(|_| update.status == EnrichmentStatus::PendingRetry);
        Enriched {
            to_save: tally.ran || update.status != lead.enrichment_status,
            update,
            warnings: tally.warnings,
            setback,
        }
    }
}

/// One lead's enrichment: what to store, the warnings, and what held it back if it must wait.
#[derive(Debug, Clone)]
pub struct Enriched {
    pub update: EnrichmentUpdate,
    pub warnings: Vec<Warning>,
    pub setback: Option<Setback>,
    /// Whether the lead changes: a stage ran, or its status is settled. Otherwise nothing is
    /// stored (no timeline entry, no `lead.enriched` event for a lookup that never happened).
    pub to_save: bool,
}

/// Why a lead still waits for enrichment.
#[derive(Debug, Clone, PartialEq)]
pub struct Setback {
    /// The first failure in words (`census: could not be reached`), never a URL.
    pub reason: String,
    /// Every stage that failed was paused by its circuit breaker: the longest of their waits
    /// until a probe may pass. None when a stage really failed.
    pub paused_for: Option<std::time::Duration>,
}

/// What the enrichment stages of one lead came to: whether any ran, failed or found nothing, and
/// the warnings they left.
#[derive(Default)]
struct Tally {
    ran: bool,
    failed: bool,
    missed: bool,
    warnings: Vec<Warning>,
    setback: Option<Setback>,
}

impl Tally {
    fn missed(&mut self, field: &str, code: &str, message: &str) {
        self.missed = true;
        self.warnings.push(Warning::new(field, code, message));
    }

    fn failed(&mut self, field: &str, code: &str, error: &EnrichError) {
        self.failed = true;
        self.warnings.push(Warning::new(
            field,
            code,
            format!("{error}; retried in the background"),
        ));
        let paused = error.paused_for();
        self.setback = Some(match self.setback.take() {
            None => Setback {
                reason: error.to_string(),
                paused_for: paused,
            },
            Some(first) => Setback {
                reason: first.reason,
                paused_for: first.paused_for.zip(paused).map(|(a, b)| a.max(b)),
            },
        });
    }
}

/// What to ask a geocoder for a lead without coordinates; None when it has them or no address.
fn geocode_query(lead: &Lead) -> Option<GeocodeQuery> {
    if lead.fields.latitude.is_some() {
        return None;
    }
    let address = lead.fields.address.clone()?;
    let address_key = AddressKey::parse(
        &address,
        lead.fields.city.as_deref(),
        lead.fields.state.as_deref(),
        lead.fields.zip_code.as_deref(),
    )
    .map(|k| k.full_key())
    .unwrap_or_default();
    Some(GeocodeQuery {
        address_key,
        address,
        city: lead.fields.city.clone(),
        state: lead.fields.state.clone(),
        zip_code: lead.fields.zip_code.clone(),
    })
}
