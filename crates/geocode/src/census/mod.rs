//! The US Census Geocoder (geocoding.geo.census.gov): free, US-only, answers with the county FIPS
//! that picks a county appraisal layer.
//!
//! Single leads use `GET /geocoder/geographies/address` (street, city, state, zip as separate
//! fields) when the lead has a city and state or a ZIP code: the lead already holds its address in
//! parts, so Census need not guess where the street ends and the city begins, and this is the form
//! the recorded fixture was taken with. A lead with only an address line uses
//! `/geocoder/geographies/onelineaddress`. Both answer the same JSON shape.
//!
//! That JSON carries no exact/non-exact flag (only the batch CSV does), so single lookups report
//! `non_exact`: we do not claim more than Census said. Several candidates for one address are
//! treated like a batch `Tie`: no match (see `batch`).
//!
//! Batches of [`BATCH_THRESHOLD`] or more go to `addressbatch` (see `batch`); smaller ones are
//! single lookups, a few at a time.
mod batch;

use std::time::Duration;

use async_trait::async_trait;
use futures_util::{stream, StreamExt};
use leadhub_domain::enrich::{GeocodeOutcome, GeocodeQuery, GeocodeResult, Geocoder};
use serde::Deserialize;

use crate::upstream::Upstream;
use crate::{address_params, GeocodeSettings};

/// The adapter's name in `LEADHUB_GEOCODER` and in `GeocodeResult::source`.
pub const CENSUS: &str = "census";
/// From this many addresses on, a batch is one `addressbatch` upload rather than single lookups.
pub const BATCH_THRESHOLD: usize = 10;
/// Census refuses batch files of more rows than this.
pub const MAX_BATCH_ROWS: usize = 10_000;
/// Single lookups in flight at once for batches below the threshold: polite to a free service.
const SINGLE_LOOKUP_CONCURRENCY: usize = 4;

const BENCHMARK: &str = "Public_AR_Current";
const VINTAGE: &str = "Current_Current";

#[derive(Debug)]
pub struct CensusGeocoder {
    /// Scheme and host, no trailing slash.
    base_url: String,
    timeout: Duration,
    upstream: Upstream,
}

impl CensusGeocoder {
    pub fn new(settings: &GeocodeSettings) -> anyhow::Result<Self> {
        Ok(CensusGeocoder {
            base_url: settings.census_url.trim_end_matches('/').to_string(),
            timeout: settings.timeout,
            upstream: Upstream::new(
                CENSUS,
                &settings.user_agent,
                settings.timeout,
                settings.retry,
                settings.breaker,
                None,
            )?,
        })
    }

    fn single_lookup_request(&self, query: &GeocodeQuery) -> (String, Vec<(&'static str, String)>) {
        let mut params = vec![
            ("benchmark", BENCHMARK.to_string()),
            ("vintage", VINTAGE.to_string()),
            ("format", "json".to_string()),
        ];
        let has_city_and_state = query.city.is_some() && query.state.is_some();
        if has_city_and_state || query.zip_code.is_some() {
            params.extend(address_params(query, "zip"));
            (
                format!("{}/geocoder/geographies/address", self.base_url),
                params,
            )
        } else {
            let mut line = query.address.clone();
            for part in [&query.city, &query.state].into_iter().flatten() {
                line.push_str(", ");
                line.push_str(part);
            }
            params.push(("address", line));
            (
                format!("{}/geocoder/geographies/onelineaddress", self.base_url),
                params,
            )
        }
    }
}

#[async_trait]
impl Geocoder for CensusGeocoder {
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome {
        let (url, params) = self.single_lookup_request(query);
        let body = self
            .upstream
            .fetch(|client| client.get(&url).query(&params))
            .await?;
        parse_single_answer(&body).map_err(|problem| self.upstream.failed(problem))
    }

    async fn geocode_batch(&self, queries: &[GeocodeQuery]) -> Vec<GeocodeOutcome> {
        if queries.len() < BATCH_THRESHOLD {
            // Indices, not references: a closure over `&GeocodeQuery` trips the compiler's
            // higher-ranked lifetime check for `Send` futures.
            return stream::iter(0..queries.len())
                .map(|i| self.geocode(&queries[i]))
                .buffered(SINGLE_LOOKUP_CONCURRENCY)
                .collect()
                .await;
        }
        let mut outcomes = Vec::with_capacity(queries.len());
        // One upload at a time: a 10,000-row file already keeps Census busy for minutes.
        for chunk in queries.chunks(MAX_BATCH_ROWS) {
            outcomes.extend(self.batch_lookup(chunk).await);
        }
        outcomes
    }
}

#[derive(Deserialize)]
struct SingleAnswer {
    result: SingleResult,
}

#[derive(Deserialize)]
struct SingleResult {
    #[serde(rename = "addressMatches")]
    address_matches: Vec<AddressMatch>,
}

#[derive(Deserialize)]
struct AddressMatch {
    #[serde(rename = "matchedAddress")]
    matched_address: Option<String>,
    coordinates: Coordinates,
    #[serde(default)]
    geographies: Geographies,
}

#[derive(Deserialize)]
struct Coordinates {
    /// Longitude.
    x: f64,
    /// Latitude.
    y: f64,
}

#[derive(Deserialize, Default)]
struct Geographies {
    #[serde(rename = "Counties", default)]
    counties: Vec<County>,
}

#[derive(Deserialize)]
struct County {
    #[serde(rename = "STATE")]
    state: String,
    #[serde(rename = "COUNTY")]
    county: String,
}

/// Reads a `geographies/address` or `onelineaddress` JSON answer.
fn parse_single_answer(body: &str) -> Result<Option<GeocodeResult>, String> {
    let answer: SingleAnswer =
        serde_json::from_str(body).map_err(|e| format!("malformed answer: {e}"))?;
    let mut matches = answer.result.address_matches.into_iter();
    let (Some(found), None) = (matches.next(), matches.next()) else {
        // None, or several candidates: Census could not settle on one place.
        return Ok(None);
    };
    let county_fips = found
        .geographies
        .counties
        .first()
        .and_then(|c| county_fips(&c.state, &c.county));
    Ok(Some(GeocodeResult {
        latitude: found.coordinates.y,
        longitude: found.coordinates.x,
        source: CENSUS.to_string(),
        match_type: "non_exact".to_string(),
        matched_address: found.matched_address,
        county_fips,
    }))
}

/// Five-digit state + county FIPS, or None when Census left the columns empty or odd.
fn county_fips(state: &str, county: &str) -> Option<String> {
    let fips = format!("{}{}", state.trim(), county.trim());
    (fips.len() == 5 && fips.bytes().all(|b| b.is_ascii_digit())).then_some(fips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_recorded_match() {
        let body = include_str!("../../tests/fixtures/geographies-address.json");
        let found = parse_single_answer(body).expect("parses").expect("a match");
        assert_eq!(found.county_fips.as_deref(), Some("11001"));
        assert!((found.latitude - 38.898754).abs() < 1e-9);
        assert!((found.longitude - -77.03535).abs() < 1e-9);
        assert_eq!(
            found.matched_address.as_deref(),
            Some("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502")
        );
    }

    #[test]
    fn reads_the_recorded_no_match() {
        let body = include_str!("../../tests/fixtures/locations-onelineaddress-nomatch.json");
        assert_eq!(parse_single_answer(body), Ok(None));
    }

    #[test]
    fn refuses_a_malformed_answer() {
        assert!(parse_single_answer("<html>busy</html>").is_err());
        assert!(parse_single_answer(r#"{"result":{}}"#).is_err());
    }
}
