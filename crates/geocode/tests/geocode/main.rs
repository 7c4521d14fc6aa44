//! The geocoding adapters against wiremock servers on 127.0.0.1 answering the recorded Census shapes.
#[path = "../support/mod.rs"]
mod support;

mod census;
mod chain;
mod nominatim;
mod resilience;

use std::time::Duration;

use leadhub_domain::enrich::GeocodeQuery;
use leadhub_geocode::{CensusGeocoder, GeocodeSettings};
use wiremock::{MockServer, Respond};

pub const MATCH_JSON: &str = include_str!("../fixtures/geographies-address.json");
pub const NO_MATCH_JSON: &str = include_str!("../fixtures/locations-onelineaddress-nomatch.json");

/// Both services at `url`, with short timings so failure paths take milliseconds.
pub fn settings(url: &str) -> GeocodeSettings {
    let mut settings = GeocodeSettings::new(url, url, "leadhub/test (+http://leads.test)");
    settings.timeout = Duration::from_millis(300);
    settings.retry.first_backoff = Duration::from_millis(20);
    settings.breaker.cool_down = Duration::from_millis(200);
    settings
}

/// The Census geocoder on the service at `url`, with the test settings.
pub fn census_at(url: &str) -> CensusGeocoder {
    CensusGeocoder::new(&settings(url)).expect("builds")
}

/// A Census service answering every request with `respond`, and the geocoder on it.
pub async fn census_serving(respond: impl Respond + 'static) -> (MockServer, CensusGeocoder) {
    let census = support::serve(respond).await;
    let geocoder = census_at(&census.uri());
    (census, geocoder)
}

pub fn query(address: &str, city: &str, state: &str, zip: &str) -> GeocodeQuery {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    GeocodeQuery {
        address_key: format!("{address}|{city}|{state}|{zip}").to_uppercase(),
        address: address.to_string(),
        city: some(city),
        state: some(state),
        zip_code: some(zip),
    }
}
