#![forbid(unsafe_code)]
//! County appraisal for leads (contract 4.2): an `AppraisalSource` over the ArcGIS REST parcel layers that US
//! counties and appraisal districts publish, configured by a county file (`LEADHUB_COUNTIES`, see
//! `docs/counties.md`).
//!
//! Per lead: pick the county (FIPS, else state + name), look the parcel up by `parcel_number` (a `where` on the
//! county's parcel-id field), else (or when that finds nothing) by the point at the lead's coordinates, and map the
//! first feature's attributes onto the contract's `appraisal` object. Calls have timeouts, retries with backoff for
//! timeouts and 5xx only, a per-layer concurrency limit and a per-layer circuit breaker.
//!
//! Errors: a timeout is `EnrichError::Timeout`; every other failure (HTTP status, an ArcGIS `error` object inside a
//! 200, malformed JSON, an open circuit) is `EnrichError::Failed`, both naming the county's `source` and saying what
//! happened in words; the full cause (the layer's own error text, the library's) is logged. No county, no parcel:
//! `Ok(None)`.

mod arcgis;
pub mod config;
mod mapping;
mod source;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use leadhub_domain::enrich::AppraisalSource;

pub use arcgis::{parcel_where, UnsafeParcelId};
pub use config::{AppraisalKey, ConfigError, County, CountyFile, ParcelIdType, Settings};
pub use source::CountyAppraisal;

/// The default per-request timeout (contract 4.1/4.2: 5 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Loads the county file at `path` and builds the adapter, for the composition root. `timeout` is the per-request
/// timeout for counties (and `[settings]`) that set none.
pub fn from_file(path: &Path, timeout: Duration) -> anyhow::Result<Arc<dyn AppraisalSource>> {
    let file = CountyFile::from_file(path, timeout)?;
    Ok(Arc::new(CountyAppraisal::new(file)?))
}

/// Same as [`from_file`] from the file's text (tests, embedded configurations).
pub fn from_toml_str(toml: &str, timeout: Duration) -> anyhow::Result<Arc<dyn AppraisalSource>> {
    let file = CountyFile::from_toml_str(toml, timeout)?;
    Ok(Arc::new(CountyAppraisal::new(file)?))
}
