//! OpenStreetMap's Nominatim (`GET /search`, structured query, `format=jsonv2`).
//!
//! Its usage policy allows at most one request per second and asks for an identifying User-Agent.
//! The second is the client's User-Agent (see [`crate::user_agent`]); the first is one gate for the
//! whole process, shared by every `NominatimGeocoder` and every attempt including retries, so two
//! workers (or two adapters built by tests) can never together exceed it.
//! Nominatim gives no county FIPS and no exactness, so results are `non_exact` without a county.
use std::time::Duration;

use async_trait::async_trait;
use leadhub_domain::enrich::{GeocodeOutcome, GeocodeQuery, GeocodeResult, Geocoder};
use serde::Deserialize;

use crate::rate_gate::RateGate;
use crate::upstream::Upstream;
use crate::{address_params, GeocodeSettings};

/// The adapter's name in `LEADHUB_GEOCODER` and in `GeocodeResult::source`.
pub const NOMINATIM: &str = "nominatim";

static NOMINATIM_POLICY_GATE: RateGate = RateGate::new(Duration::from_secs(1));

#[derive(Debug)]
pub struct NominatimGeocoder {
    /// Scheme and host, no trailing slash.
    base_url: String,
    upstream: Upstream,
}

impl NominatimGeocoder {
    pub fn new(settings: &GeocodeSettings) -> anyhow::Result<Self> {
        Ok(NominatimGeocoder {
            base_url: settings.nominatim_url.trim_end_matches('/').to_string(),
            upstream: Upstream::new(
                NOMINATIM,
                &settings.user_agent,
                settings.timeout,
                settings.retry,
                settings.breaker,
                Some(&NOMINATIM_POLICY_GATE),
            )?,
        })
    }
}

#[derive(Deserialize)]
struct Place {
    /// jsonv2 sends coordinates as strings.
    lat: String,
    lon: String,
    display_name: Option<String>,
}

#[async_trait]
impl Geocoder for NominatimGeocoder {
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome {
        let url = format!("{}/search", self.base_url);
        let mut params = address_params(query, "postalcode");
        for (name, value) in [("country", "us"), ("format", "jsonv2"), ("limit", "1")] {
            params.push((name, value.to_string()));
        }
        let body = self
            .upstream
            .fetch(|client| client.get(&url).query(&params))
            .await?;
        parse_places(&body).map_err(|problem| self.upstream.failed(problem))
    }
}

fn parse_places(body: &str) -> Result<Option<GeocodeResult>, String> {
    let places: Vec<Place> =
        serde_json::from_str(body).map_err(|e| format!("malformed answer: {e}"))?;
    let Some(place) = places.into_iter().next() else {
        return Ok(None);
    };
    let coordinate = |text: &str| {
        text.trim()
            .parse::<f64>()
            .map_err(|_| format!("malformed answer: coordinate {text:?}"))
    };
    Ok(Some(GeocodeResult {
        latitude: coordinate(&place.lat)?,
        longitude: coordinate(&place.lon)?,
        source: NOMINATIM.to_string(),
        match_type: "non_exact".to_string(),
        matched_address: place.display_name,
        county_fips: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_jsonv2_place() {
        let body = r#"[{"place_id":1,"lat":"30.2711286","lon":"-97.7436995",
            "display_name":"Texas State Capitol, Austin, Texas, USA","category":"building"}]"#;
        let place = parse_places(body).expect("parses").expect("a place");
        assert!((place.latitude - 30.2711286).abs() < 1e-9);
        assert!((place.longitude - -97.7436995).abs() < 1e-9);
        assert_eq!(place.county_fips, None);
        assert_eq!(parse_places("[]"), Ok(None));
        assert!(parse_places(r#"{"error":"x"}"#).is_err());
        assert!(parse_places(r#"[{"lat":"north","lon":"1"}]"#).is_err());
    }
}
