//! Ports for the enrichment stages: geocoding and county appraisal. Adapters live in the
//! `geocode` and `appraisal` crates; a deployment without them runs with `None` (stage skipped).
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// What a geocoder is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct GeocodeQuery {
    /// The USPS address key (`AddressKey::full_key`): results are cached by it.
    pub address_key: String,
    pub address: String,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
}

/// The `match_type` of a place that is only its ZIP code's centre (the offline geocoder's): a
/// distance to it is a guess.
pub const ZIP_CENTROID: &str = "zip_centroid";

/// A found location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeocodeResult {
    pub latitude: f64,
    pub longitude: f64,
    /// The adapter that answered: `census`, `nominatim`, `zip`.
    pub source: String,
    /// `exact`, `non_exact`, or `zip_centroid` (coarse).
    pub match_type: String,
    pub matched_address: Option<String>,
    /// State + county FIPS (e.g. 48453) when the source knows it: it picks the appraisal layer.
    pub county_fips: Option<String>,
}

/// Why an enrichment call brought no answer, told for the person who reads the warning: the
/// provider's name, then what happened in words (`census: no answer within 5 s`). Never a URL, a
/// library's error text or an address of ours: the adapter logs the full cause (with the request
/// id of the span it runs in) before it says this.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EnrichError {
    #[error("{provider}: no answer within {}", within_words(*.within))]
    Timeout {
        provider: String,
        within: std::time::Duration,
    },
    /// The provider's circuit breaker refuses calls after repeated failures; a probe may pass in
    /// `probe_in`. Work that needs the provider waits that long instead of spending a try.
    #[error("{provider}: {}", said::PAUSED)]
    Paused {
        provider: String,
        probe_in: std::time::Duration,
    },
    /// `provider: what happened`, made with `EnrichError::failed`.
    #[error("{0}")]
    Failed(String),
}

impl EnrichError {
    /// `what` happened at `provider`: a phrase of `said` or one as plain.
    pub fn failed(provider: &str, what: &str) -> EnrichError {
        EnrichError::Failed(format!("{provider}: {what}"))
    }

    /// `provider`'s circuit is open (`CircuitBreaker::admit` refused the call).
    pub fn paused(provider: &str, open: crate::circuit_breaker::CircuitOpen) -> EnrichError {
        EnrichError::Paused {
            provider: provider.to_owned(),
            probe_in: open.probe_in,
        }
    }

    /// How long until the provider may be asked again, when it is paused (not failing).
    pub fn paused_for(&self) -> Option<std::time::Duration> {
        match self {
            EnrichError::Paused { probe_in, .. } => Some(*probe_in),
            _ => None,
        }
    }
}

/// Phrases for what went wrong with a provider, shared by the adapters so warnings read alike.
pub mod said {
    pub const UNREACHABLE: &str = "could not be reached";
    pub const PAUSED: &str = "paused after repeated failures";
    pub const UNREADABLE: &str = "gave an answer we could not read";

    /// A 5xx (or a 429): the service has trouble, which may pass.
    pub fn trouble(status: u16) -> String {
        format!("answered with an error (HTTP {status})")
    }

    /// Another 4xx, or an error object inside a 200: the service refused this request.
    pub fn refused(status: u16) -> String {
        format!("refused the request (HTTP {status})")
    }
}

/// `5 s`, or `250 ms` below a second.
fn within_words(within: std::time::Duration) -> String {
    if within.as_secs() >= 1 {
        format!("{} s", within.as_secs())
    } else {
        format!("{} ms", within.as_millis())
    }
}

pub type GeocodeOutcome = Result<Option<GeocodeResult>, EnrichError>;

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Geocoder: Send + Sync {
    /// `Ok(None)` is a definite no-match; `Err` a failure worth retrying later.
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome;

    /// Many addresses at once, results in the same order. Adapters with a batch endpoint
    /// (Census `addressbatch`) override this; the default asks one at a time.
    async fn geocode_batch(&self, queries: &[GeocodeQuery]) -> Vec<GeocodeOutcome> {
        let mut out = Vec::with_capacity(queries.len());
        for q in queries {
            out.push(self.geocode(q).await);
        }
        out
    }
}

/// A remembered geocoding result; `result: None` remembers a definite no-match.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedGeocode {
    pub result: Option<GeocodeResult>,
    pub cached_at: chrono::DateTime<chrono::Utc>,
}

/// Geocoding results by address key, shared by every process on one database.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait GeocodeCache: Send + Sync {
    async fn get(&self, address_key: &str) -> crate::store::StoreResult<Option<CachedGeocode>>;
    /// Remembers an entry (a found location, or `result: None` for a definite no-match) as `get`
    /// returns it; replaces an older one.
    async fn put(&self, address_key: &str, entry: CachedGeocode) -> crate::store::StoreResult<()>;
}

/// What the appraisal stage is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct AppraisalQuery {
    pub parcel_number: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub state: Option<String>,
    pub county: Option<String>,
    pub county_fips: Option<String>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AppraisalSource: Send + Sync {
    /// `Ok(None)`: no county configured or no parcel there; `Err`: a failure worth retrying.
    /// The value is the contract's `appraisal` object.
    async fn appraise(
        &self,
        query: &AppraisalQuery,
    ) -> Result<Option<serde_json::Value>, EnrichError>;
}
