//! Values the domain's unit tests and the end-to-end tests (`tests/`) both build, with the
//! `mock` feature those tests turn on for the port mocks: one home instead of a copy in each.
use crate::enrich::GeocodeResult;

/// The census geocoder's exact match for an Austin address (Travis County, FIPS 48453).
pub fn census_match() -> GeocodeResult {
    GeocodeResult {
        latitude: 30.27,
        longitude: -97.74,
        source: "census".into(),
        match_type: "exact".into(),
        matched_address: None,
        county_fips: Some("48453".into()),
    }
}
