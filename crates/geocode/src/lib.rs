#![forbid(unsafe_code)]
//! Adapters of the domain's `Geocoder` port (contract 4.1): `census`, `nominatim`, `zip`, and the
//! chain that tries them in `LEADHUB_GEOCODER` order behind the address-key cache.
//!
//! Every HTTP adapter has a timeout, retries transient failures with backoff and sits behind its
//! own circuit breaker (see `upstream` and `leadhub_domain::circuit_breaker`), so an outage costs a few timeouts, not one
//! per lead. The composition root calls [`build`].
mod cache;
mod census;
mod chain;
#[cfg(test)]
mod chain_tests;
mod nominatim;
mod rate_gate;
mod upstream;
mod zip;

use std::sync::Arc;
use std::time::Duration;

use leadhub_domain::enrich::{GeocodeCache, GeocodeQuery, Geocoder};

pub use cache::MemoryGeocodeCache;
pub use census::{CensusGeocoder, BATCH_THRESHOLD, CENSUS, MAX_BATCH_ROWS};
pub use chain::{GeocoderChain, CACHE_FRESH_FOR};
pub use leadhub_domain::circuit_breaker::BreakerPolicy;
pub use nominatim::{NominatimGeocoder, NOMINATIM};
pub use upstream::RetryPolicy;
pub use zip::{ZipCentroidGeocoder, ZIP};

/// The name that turns geocoding off.
pub const NONE: &str = "none";
/// Every name `build` accepts.
pub const GEOCODER_NAMES: [&str; 4] = [CENSUS, NOMINATIM, ZIP, NONE];

/// How the HTTP geocoders reach their services.
#[derive(Debug, Clone, PartialEq)]
pub struct GeocodeSettings {
    /// `LEADHUB_CENSUS_URL`: scheme and host; the adapter appends `/geocoder/...`.
    pub census_url: String,
    /// `LEADHUB_NOMINATIM_URL`: scheme and host; the adapter appends `/search`.
    pub nominatim_url: String,
    /// Sent with every request; Nominatim's policy requires one that identifies us ([`user_agent`]).
    pub user_agent: String,
    /// Connect and whole-request timeout of one attempt (a batch upload gets more, per row).
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub breaker: BreakerPolicy,
}

impl GeocodeSettings {
    /// The production defaults: 5 s timeout, 2 retries from 100 ms; the breaker opens after 5
    /// consecutive failures or 10 s lost to them, and probes again after 30 s.
    pub fn new(
        census_url: impl Into<String>,
        nominatim_url: impl Into<String>,
        user_agent: impl Into<String>,
    ) -> Self {
        GeocodeSettings {
            census_url: census_url.into(),
            nominatim_url: nominatim_url.into(),
            user_agent: user_agent.into(),
            timeout: Duration::from_secs(5),
            retry: RetryPolicy::default(),
            breaker: BreakerPolicy::default(),
        }
    }
}

/// The structured-address parameters of a lookup: the street, then city, state and ZIP (under
/// `zip_name`) where the query has them.
pub(crate) fn address_params(
    query: &GeocodeQuery,
    zip_name: &'static str,
) -> Vec<(&'static str, String)> {
    let parts = [
        ("city", &query.city),
        ("state", &query.state),
        (zip_name, &query.zip_code),
    ];
    let present = parts
        .into_iter()
        .filter_map(|(name, value)| Some((name, value.clone()?)));
    std::iter::once(("street", query.address.clone()))
        .chain(present)
        .collect()
}

/// `leadhub/<version> (+<public url>)`: who is asking and where to find them.
pub fn user_agent(public_url: &str) -> String {
    format!("leadhub/{} (+{public_url})", env!("CARGO_PKG_VERSION"))
}

/// The geocoder for `LEADHUB_GEOCODER` (already split on commas): the named adapters in order,
/// behind `cache`. `None` when no geocoder is named (empty, or only `none`): the stage is skipped.
/// A repeated name counts once. An unknown name is an error.
pub fn build(
    names: &[String],
    settings: &GeocodeSettings,
    cache: Arc<dyn GeocodeCache>,
) -> anyhow::Result<Option<Arc<dyn Geocoder>>> {
    let mut seen: Vec<&str> = Vec::new();
    let mut geocoders: Vec<Arc<dyn Geocoder>> = Vec::new();
    for name in names {
        let name = name.trim();
        if name.eq_ignore_ascii_case(NONE) || seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
            continue;
        }
        seen.push(name);
        let geocoder: Arc<dyn Geocoder> = match name.to_ascii_lowercase().as_str() {
            CENSUS => Arc::new(CensusGeocoder::new(settings)?),
            NOMINATIM => Arc::new(NominatimGeocoder::new(settings)?),
            ZIP => Arc::new(ZipCentroidGeocoder),
            _ => anyhow::bail!(
                "unknown geocoder {name:?}; use a comma list of {}",
                GEOCODER_NAMES.join(", ")
            ),
        };
        geocoders.push(geocoder);
    }
    if geocoders.is_empty() {
        return Ok(None);
    }
    Ok(Some(Arc::new(GeocoderChain::new(geocoders, cache))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn none_or_nothing_builds_no_geocoder() {
        let settings = GeocodeSettings::new("http://127.0.0.1:1", "http://127.0.0.1:1", "t");
        let cache = Arc::new(MemoryGeocodeCache::new());
        for list in [&[][..], &["none"][..], &["none", "none"][..]] {
            let built = build(&names(list), &settings, cache.clone()).expect("builds");
            assert!(built.is_none(), "{list:?}");
        }
        let built = build(&names(&["census", "zip"]), &settings, cache.clone()).expect("builds");
        assert!(built.is_some());
        assert!(build(&names(&["bing"]), &settings, cache).is_err());
    }

    #[test]
    fn the_user_agent_names_the_product_and_where_to_reach_it() {
        assert_eq!(
            user_agent("https://leads.example.com"),
            format!(
                "leadhub/{} (+https://leads.example.com)",
                env!("CARGO_PKG_VERSION")
            )
        );
    }
}
