//! The `AppraisalSource` adapter: picks the county, asks its layer, maps the answer.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use leadhub_domain::circuit_breaker::{BreakerPolicy, CircuitBreaker};
use leadhub_domain::enrich::{AppraisalQuery, AppraisalSource, EnrichError};
use leadhub_domain::telemetry::{CallOutcome, APPRAISAL_CALLS};
use serde_json::{Map, Value};
use tokio::sync::Semaphore;

use crate::arcgis::{self, CallPolicy};
use crate::config::{county_name_key, County, CountyFile, Settings};
use crate::mapping::appraisal_object;

/// What several counties on one layer (a regional layer, say) share: its circuit and its concurrency limit.
/// The circuit counts failed lookups (after their retries), not attempts.
#[derive(Debug)]
struct Layer {
    breaker: CircuitBreaker,
    permits: Semaphore,
}

#[derive(Debug)]
struct CountyEntry {
    county: County,
    name_key: Option<String>,
    layer: Arc<Layer>,
}

/// County appraisal over ArcGIS REST parcel layers, configured by a county file.
#[derive(Debug)]
pub struct CountyAppraisal {
    client: reqwest::Client,
    settings: Settings,
    counties: Vec<CountyEntry>,
}

impl CountyAppraisal {
    /// Builds the adapter (and its HTTP client) from a loaded county file.
    pub fn new(file: CountyFile) -> anyhow::Result<CountyAppraisal> {
        let client = reqwest::Client::builder()
            .user_agent(concat!(
                "leadhub/",
                env!("CARGO_PKG_VERSION"),
                " (county appraisal)"
            ))
            .connect_timeout(file.settings.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| anyhow::anyhow!("cannot build the appraisal HTTP client: {e}"))?;
        let mut layers: HashMap<String, Arc<Layer>> = HashMap::new();
        let counties = file
            .counties
            .into_iter()
            .map(|county| {
                let layer = layers
                    .entry(county.layer_url.as_str().to_string())
                    .or_insert_with(|| {
                        let policy = BreakerPolicy {
                            failures_to_open: file.settings.breaker_failures,
                            time_lost_to_open: Duration::MAX,
                            cool_down: file.settings.breaker_cooldown,
                        };
                        Arc::new(Layer {
                            breaker: CircuitBreaker::new(
                                format!("appraisal {}", county_label(&county)),
                                policy,
                            ),
                            permits: Semaphore::new(file.settings.max_concurrent),
                        })
                    })
                    .clone();
                CountyEntry {
                    name_key: county.name_key(),
                    county,
                    layer,
                }
            })
            .collect();
        Ok(CountyAppraisal {
            client,
            settings: file.settings,
            counties,
        })
    }

    /// The configured counties, in file order.
    pub fn counties(&self) -> impl Iterator<Item = &County> {
        self.counties.iter().map(|c| &c.county)
    }

    /// The county that answers for a query: by FIPS when the query has one, else (or when no county has that FIPS)
    /// by state + county name, case-insensitively and with or without the "County" suffix.
    pub fn county_for(&self, query: &AppraisalQuery) -> Option<&County> {
        self.entry_for(query).map(|e| &e.county)
    }

    fn entry_for(&self, query: &AppraisalQuery) -> Option<&CountyEntry> {
        if let Some(fips) = query.county_fips.as_deref().map(str::trim) {
            if let Some(e) = self
                .counties
                .iter()
                .find(|e| e.county.fips.as_deref() == Some(fips))
            {
                return Some(e);
            }
        }
        let state = query.state.as_deref()?.trim();
        let name = county_name_key(query.county.as_deref()?);
        self.counties.iter().find(|e| {
            e.county.state.as_str().eq_ignore_ascii_case(state)
                && e.name_key.as_deref() == Some(name.as_str())
        })
    }

    async fn lookup(
        &self,
        entry: &CountyEntry,
        params: &[(&'static str, String)],
    ) -> Result<Option<Map<String, Value>>, EnrichError> {
        let county = &entry.county;
        let count = |outcome: CallOutcome| {
            metrics::counter!(APPRAISAL_CALLS, "county" => county_label(county), "outcome" => outcome.as_str())
                .increment(1);
        };
        let pass = match entry.layer.breaker.admit(Instant::now()) {
            Ok(pass) => pass,
            Err(open) => {
                count(CallOutcome::CircuitOpen);
                return Err(EnrichError::paused(&county.source, open));
            }
        };
        let _permit = entry
            .layer
            .permits
            .acquire()
            .await
            .map_err(|_| EnrichError::failed(&county.source, "is shutting down"))?;
        let policy = CallPolicy {
            timeout: county.timeout,
            retries: self.settings.retries,
            retry_backoff: self.settings.retry_backoff,
        };
        let started = Instant::now();
        let outcome = arcgis::query(&self.client, &county.query_url(), params, &policy).await;
        match &outcome {
            Ok(_) => pass.success(),
            Err(e) => {
                // The full cause here (the request's span carries its id); the warning says it in words.
                tracing::warn!(source = %county.source, error = %e.cause(), "appraisal lookup failed");
                pass.failure(Instant::now(), started.elapsed());
            }
        }
        count(match &outcome {
            Ok(_) => CallOutcome::Ok,
            Err(arcgis::AttemptError::Timeout) => CallOutcome::Timeout,
            Err(arcgis::AttemptError::Retryable(..)) => CallOutcome::Failed,
            Err(arcgis::AttemptError::Fatal(..)) => CallOutcome::Refused,
        });
        outcome.map_err(|e| e.for_people(&county.source, county.timeout))
    }
}

/// How metrics name a county: its state and name (or FIPS), never the layer's URL, since
/// `/metrics` is read by whoever may scrape it.
fn county_label(county: &County) -> String {
    let name = county
        .county
        .as_deref()
        .or(county.fips.as_deref())
        .unwrap_or("?");
    format!("{} {name}", county.state.as_str())
}

#[async_trait]
impl AppraisalSource for CountyAppraisal {
    async fn appraise(&self, query: &AppraisalQuery) -> Result<Option<Value>, EnrichError> {
        let Some(entry) = self.entry_for(query) else {
            tracing::debug!(
                state = ?query.state, county = ?query.county, fips = ?query.county_fips,
                "no county configured for this lead"
            );
            return Ok(None);
        };
        let county = &entry.county;
        let finish =
            |attrs: Map<String, Value>| appraisal_object(&county.source, &county.fields, attrs);

        if let Some(parcel) = query
            .parcel_number
            .as_deref()
            .filter(|p| !p.trim().is_empty())
        {
            match arcgis::parcel_where(&county.parcel_id_field, county.parcel_id_type, parcel) {
                Ok(clause) => {
                    if let Some(attrs) = self.lookup(entry, &arcgis::where_params(clause)).await? {
                        return Ok(Some(finish(attrs)));
                    }
                    // No parcel under that id (often an id in another format): the point may still find it.
                }
                // No real parcel id looks like this, so it cannot match: same as no parcel, and never a query.
                Err(e) => {
                    tracing::info!(source = %county.source, reason = %e, "parcel number not looked up")
                }
            }
        }

        let point = match (query.latitude, query.longitude) {
            (Some(lat), Some(lon))
                if lat.is_finite()
                    && lon.is_finite()
                    && lat.abs() <= 90.0
                    && lon.abs() <= 180.0 =>
            {
                Some((lat, lon))
            }
            _ => None,
        };
        let Some((lat, lon)) = point else {
            return Ok(None);
        };
        Ok(self
            .lookup(entry, &arcgis::point_params(lat, lon))
            .await?
            .map(finish))
    }
}
