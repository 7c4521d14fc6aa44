//! The `Enricher` with its geocoder and appraisal source mocked: which leads are asked about,
//! and the status and warnings each answer gives.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use serde_json::json;

use crate::enrich::{
    AppraisalQuery, EnrichError, GeocodeQuery, GeocodeResult, MockAppraisalSource, MockGeocoder,
};
use crate::lead::fields::LeadFields;
use crate::lead::record::{EnrichmentStatus, EnrichmentUpdate, Lead};
use crate::submission::Enricher;
use crate::test_support::fresh_lead;

/// A lead at `address` in Austin, TX, waiting for enrichment.
fn lead_at(id: i64, address: &str) -> Lead {
    let fields = LeadFields {
        address: Some(address.into()),
        city: Some("Austin".into()),
        state: Some("TX".into()),
        zip_code: Some("78701".into()),
        ..LeadFields::default()
    };
    fresh_lead(id, None, fields, None)
}

fn lead_without_address(id: i64) -> Lead {
    let mut lead = lead_at(id, "");
    lead.fields.address = None;
    lead.enrichment_status = EnrichmentStatus::Skipped;
    lead
}

fn lead_with_coordinates(id: i64) -> Lead {
    let mut lead = lead_at(id, "100 Congress Ave");
    lead.fields.latitude = Some(30.2672);
    lead.fields.longitude = Some(-97.7431);
    lead
}

fn found() -> GeocodeResult {
    GeocodeResult {
        latitude: 30.2649,
        longitude: -97.7466,
        source: "census".into(),
        match_type: "exact".into(),
        matched_address: Some("100 CONGRESS AVE, AUSTIN, TX, 78701".into()),
        county_fips: Some("48453".into()),
    }
}

/// A geocoder asked once, for exactly the addresses `asked` in order, returning `answers`.
fn geocoder(
    asked: &'static [&'static str],
    answers: fn() -> Vec<Result<Option<GeocodeResult>, EnrichError>>,
) -> MockGeocoder {
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .withf(move |queries: &[GeocodeQuery]| queries.iter().map(|q| &q.address).eq(asked))
        .times(1)
        .returning(move |_| answers());
    geocoder.expect_geocode().never();
    geocoder
}

fn enricher(geocoder: Option<MockGeocoder>, appraisal: Option<MockAppraisalSource>) -> Enricher {
    Enricher {
        geocoder: geocoder.map(|g| Arc::new(g) as _),
        appraisal: appraisal.map(|a| Arc::new(a) as _),
    }
}

/// Enriches `lead` alone; its update and warnings.
async fn enrich_one(
    enricher: Enricher,
    lead: Lead,
) -> (EnrichmentUpdate, Vec<crate::lead::fields::Warning>) {
    let [one] = enricher.enrich(vec![lead]).await.try_into().unwrap();
    one
}

fn codes(warnings: &[crate::lead::fields::Warning]) -> Vec<&str> {
    warnings.iter().map(|w| w.code.as_str()).collect()
}

// ---- Geocoding ----

#[tokio::test]
async fn a_found_address_gets_its_location_and_is_complete() {
    let geocoder = geocoder(&["100 Congress Ave"], || vec![Ok(Some(found()))]);
    let (update, warnings) = enrich_one(
        enricher(Some(geocoder), None),
        lead_at(1, "100 Congress Ave"),
    )
    .await;
    assert_eq!(update.coordinates, Some((30.2649, -97.7466)));
    assert_eq!(update.county_fips.as_deref(), Some("48453"));
    assert_eq!(update.geocode.unwrap().match_type, "exact");
    assert_eq!(update.status, EnrichmentStatus::Complete);
    assert!(warnings.is_empty());
}

#[tokio::test]
async fn a_geocoder_failure_leaves_the_lead_pending_retry() {
    let geocoder = geocoder(&["100 Congress Ave"], || {
        vec![Err(EnrichError::Timeout {
            provider: "census".into(),
            within: std::time::Duration::from_secs(10),
        })]
    });
    let (update, warnings) = enrich_one(
        enricher(Some(geocoder), None),
        lead_at(1, "100 Congress Ave"),
    )
    .await;
    assert_eq!(update.status, EnrichmentStatus::PendingRetry);
    assert_eq!(update.coordinates, None);
    assert_eq!(codes(&warnings), ["geocode_failed"]);
    assert_eq!(
        warnings[0].message,
        "census: no answer within 10 s; retried in the background"
    );
}

#[tokio::test]
async fn a_definite_no_match_is_partial() {
    let geocoder = geocoder(&["1 Nowhere Rd"], || vec![Ok(None)]);
    let (update, warnings) =
        enrich_one(enricher(Some(geocoder), None), lead_at(1, "1 Nowhere Rd")).await;
    assert_eq!(update.status, EnrichmentStatus::Partial);
    assert_eq!(codes(&warnings), ["geocode_no_match"]);
}

#[tokio::test]
async fn leads_without_an_address_or_with_coordinates_are_not_geocoded() {
    // Nothing to ask: the batch the geocoder gets is empty.
    let geocoder = geocoder(&[], Vec::new);
    let done = enricher(Some(geocoder), None)
        .enrich(vec![lead_without_address(1), lead_with_coordinates(2)])
        .await;
    let [(no_address, w1), (given, w2)] = done.try_into().unwrap();
    assert_eq!(no_address.status, EnrichmentStatus::Skipped);
    assert_eq!(given.coordinates, Some((30.2672, -97.7431)));
    assert_eq!(
        given.status,
        EnrichmentStatus::Skipped,
        "it waited on nothing: coordinates given, no appraisal configured"
    );
    assert!(!given.looked_up);
    assert!(w1.is_empty() && w2.is_empty());
}

#[tokio::test]
async fn each_answer_goes_to_its_own_lead() {
    let geocoder = geocoder(&["1 Nowhere Rd", "100 Congress Ave"], || {
        vec![Ok(None), Ok(Some(found()))]
    });
    let done = enricher(Some(geocoder), None)
        .enrich(vec![
            lead_with_coordinates(1),
            lead_at(2, "1 Nowhere Rd"),
            lead_at(3, "100 Congress Ave"),
        ])
        .await;
    let ids_and_statuses: Vec<(i64, EnrichmentStatus)> =
        done.iter().map(|(u, _)| (u.lead_id, u.status)).collect();
    assert_eq!(
        ids_and_statuses,
        [
            (1, EnrichmentStatus::Skipped),
            (2, EnrichmentStatus::Partial),
            (3, EnrichmentStatus::Complete),
        ]
    );
}

#[tokio::test]
async fn one_address_written_two_ways_is_asked_under_one_cache_key() {
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .withf(|queries: &[GeocodeQuery]| {
            let [a, b] = queries else { return false };
            !a.address_key.is_empty() && a.address_key == b.address_key
        })
        .times(1)
        .returning(|_| vec![Ok(Some(found())), Ok(Some(found()))]);
    enricher(Some(geocoder), None)
        .enrich(vec![
            lead_at(1, "100 Congress Avenue"),
            lead_at(2, "100 CONGRESS AVE."),
        ])
        .await;
}

// ---- Appraisal ----

fn appraisal_of(
    expected: impl Fn(&AppraisalQuery) -> bool + Send + 'static,
    answer: fn() -> Result<Option<serde_json::Value>, EnrichError>,
) -> MockAppraisalSource {
    let mut source = MockAppraisalSource::new();
    source
        .expect_appraise()
        .withf(expected)
        .times(1)
        .returning(move |_| answer());
    source
}

#[tokio::test]
async fn appraisal_is_asked_at_the_geocoded_location_and_county() {
    let geocoder = geocoder(&["100 Congress Ave"], || vec![Ok(Some(found()))]);
    let appraisal = appraisal_of(
        |q| {
            q.latitude == Some(30.2649)
                && q.longitude == Some(-97.7466)
                && q.county_fips.as_deref() == Some("48453")
                && q.state.as_deref() == Some("TX")
        },
        || Ok(Some(json!({"market_value": 450000}))),
    );
    let (update, warnings) = enrich_one(
        enricher(Some(geocoder), Some(appraisal)),
        lead_at(1, "100 Congress Ave"),
    )
    .await;
    assert_eq!(update.appraisal, Some(json!({"market_value": 450000})));
    assert_eq!(update.status, EnrichmentStatus::Complete);
    assert!(warnings.is_empty());
}

#[tokio::test]
async fn given_coordinates_are_appraised_without_geocoding() {
    let appraisal = appraisal_of(
        |q| q.latitude == Some(30.2672) && q.longitude == Some(-97.7431),
        || Ok(Some(json!({}))),
    );
    let (update, _) = enrich_one(enricher(None, Some(appraisal)), lead_with_coordinates(1)).await;
    assert_eq!(update.status, EnrichmentStatus::Complete);
}

#[tokio::test]
async fn an_appraisal_no_match_is_partial() {
    let appraisal = appraisal_of(|_| true, || Ok(None));
    let (update, warnings) =
        enrich_one(enricher(None, Some(appraisal)), lead_with_coordinates(1)).await;
    assert_eq!(update.status, EnrichmentStatus::Partial);
    assert_eq!(codes(&warnings), ["appraisal_no_match"]);
}

#[tokio::test]
async fn an_appraisal_failure_is_pending_retry() {
    let appraisal = appraisal_of(
        |_| true,
        || {
            Err(EnrichError::failed(
                "Travis CAD",
                crate::enrich::said::UNREACHABLE,
            ))
        },
    );
    let (update, warnings) =
        enrich_one(enricher(None, Some(appraisal)), lead_with_coordinates(1)).await;
    assert_eq!(update.status, EnrichmentStatus::PendingRetry);
    assert_eq!(codes(&warnings), ["appraisal_failed"]);
    assert_eq!(
        warnings[0].message,
        "Travis CAD: could not be reached; retried in the background"
    );
}

#[tokio::test]
async fn a_lead_already_appraised_or_with_nothing_to_appraise_by_is_not_asked() {
    let mut appraised = lead_with_coordinates(1);
    appraised.appraisal = Some(json!({"market_value": 1}));
    let mut appraisal = MockAppraisalSource::new();
    appraisal.expect_appraise().never();
    let done = enricher(None, Some(appraisal))
        .enrich(vec![appraised, lead_without_address(2)])
        .await;
    let statuses: Vec<EnrichmentStatus> = done.iter().map(|(u, _)| u.status).collect();
    // The appraised lead waited on nothing: it is what its appraisal made it.
    assert_eq!(
        statuses,
        [EnrichmentStatus::Complete, EnrichmentStatus::Skipped]
    );
}

#[tokio::test]
async fn without_adapters_nothing_changes() {
    let lead = lead_at(1, "100 Congress Ave");
    let (update, warnings) = enrich_one(Enricher::default(), lead.clone()).await;
    assert_eq!(
        update,
        EnrichmentUpdate {
            lead_id: 1,
            coordinates: None,
            geocode: None,
            county_fips: None,
            appraisal: None,
            status: lead.enrichment_status,
            looked_up: false,
        }
    );
    assert!(warnings.is_empty());
}
