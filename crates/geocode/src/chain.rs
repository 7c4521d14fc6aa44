//! The geocoders of `LEADHUB_GEOCODER`, tried in order behind the address-key cache.
//!
//! - A cached answer younger than [`CACHE_FRESH_FOR`], a location or a definite no-match, is
//!   returned without a request. 30 days: addresses rarely move, yet a no-match from a stale street
//!   database deserves another try after a month. Older answers are asked again and replaced.
//! - The first match wins. A no-match moves on to the next geocoder; so does a failure, but when no
//!   later geocoder finds the address the result is a failure, so the lead is retried later
//!   rather than marked unfindable: the first real one, in preference to a circuit breaker's
//!   pause (`keep_telling`).
//! - Only definite answers are cached: a match, or a no-match from every geocoder. A match found
//!   after an earlier geocoder failed is returned but not cached, so the next lead at that address
//!   asks the better geocoder again once it is back (e.g. a rooftop from Census instead of a ZIP
//!   centre). Leads without an address key are neither looked up nor cached.
//! - A cache that fails is logged and bypassed: it must not stop geocoding.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{TimeDelta, Utc};
use futures_util::{stream, StreamExt};
use leadhub_domain::enrich::{
    CachedGeocode, EnrichError, GeocodeCache, GeocodeOutcome, GeocodeQuery, GeocodeResult, Geocoder,
};

/// How long a cached answer is trusted.
pub const CACHE_FRESH_FOR: TimeDelta = TimeDelta::days(30);
/// Cache reads and writes in flight at once during a batch.
const CACHE_CONCURRENCY: usize = 8;

pub struct GeocoderChain {
    geocoders: Vec<Arc<dyn Geocoder>>,
    cache: Arc<dyn GeocodeCache>,
}

impl GeocoderChain {
    pub fn new(geocoders: Vec<Arc<dyn Geocoder>>, cache: Arc<dyn GeocodeCache>) -> Self {
        GeocoderChain { geocoders, cache }
    }

    /// The fresh cached answer for this address, if any: `Some(None)` is a remembered no-match.
    async fn cached(&self, query: &GeocodeQuery) -> Option<Option<GeocodeResult>> {
        if query.address_key.is_empty() {
            return None;
        }
        match self.cache.get(&query.address_key).await {
            Ok(Some(cached)) if Utc::now() - cached.cached_at < CACHE_FRESH_FOR => {
                Some(cached.result)
            }
            Ok(_) => None,
            Err(error) => {
                tracing::warn!(%error, "geocode cache not readable; asking the geocoders");
                None
            }
        }
    }

    async fn remember(&self, query: &GeocodeQuery, answer: Option<GeocodeResult>) {
        if query.address_key.is_empty() {
            return;
        }
        let entry = CachedGeocode {
            result: answer,
            cached_at: Utc::now(),
        };
        if let Err(error) = self.cache.put(&query.address_key, entry).await {
            tracing::warn!(%error, "geocode answer not cached");
        }
    }
}

/// Where one address of a batch stands.
#[derive(Default)]
struct Progress {
    found: Option<GeocodeResult>,
    from_cache: bool,
    /// The failure to return if nobody finds the address (`keep_telling`).
    failure: Option<EnrichError>,
}

impl Progress {
    fn settled(&self) -> bool {
        self.found.is_some() || self.from_cache
    }
}

/// Keeps in `kept` the failure that tells most, of it and `error`: a real failure (a geocoder was
/// asked and failed) over `Paused` (a breaker refused without asking), else the first. A round
/// whose every failure is `Paused` is postponed without spending an attempt (nothing was learnt),
/// so a pause must not hide that another geocoder was asked and failed: that round was a real
/// try, and its reason is that failure. Of two pauses the shorter wait is kept: the first
/// breaker to let a probe through may already find the address.
fn keep_telling(kept: &mut Option<EnrichError>, error: EnrichError) {
    let replace = match (kept.as_ref(), &error) {
        (None, _) => true,
        (Some(EnrichError::Paused { probe_in: old, .. }), EnrichError::Paused { probe_in, .. }) => {
            probe_in < old
        }
        (Some(EnrichError::Paused { .. }), _) => true,
        (Some(_), _) => false,
    };
    if replace {
        *kept = Some(error);
    }
}

#[async_trait]
impl Geocoder for GeocoderChain {
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome {
        if let Some(answer) = self.cached(query).await {
            return Ok(answer);
        }
        let mut failure = None;
        for geocoder in &self.geocoders {
            match geocoder.geocode(query).await {
                Ok(Some(found)) => {
                    if failure.is_none() {
                        self.remember(query, Some(found.clone())).await;
                    }
                    return Ok(Some(found));
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%error, "geocoder failed; trying the next");
                    keep_telling(&mut failure, error);
                }
            }
        }
        match failure {
            Some(error) => Err(error),
            None => {
                self.remember(query, None).await;
                Ok(None)
            }
        }
    }

    async fn geocode_batch(&self, queries: &[GeocodeQuery]) -> Vec<GeocodeOutcome> {
        // Indices, not references: a closure over `&GeocodeQuery` trips the compiler's
        // higher-ranked lifetime check for `Send` futures.
        let mut progress: Vec<Progress> = stream::iter(0..queries.len())
            .map(|i| async move {
                match self.cached(&queries[i]).await {
                    Some(found) => Progress {
                        found,
                        from_cache: true,
                        failure: None,
                    },
                    None => Progress::default(),
                }
            })
            .buffered(CACHE_CONCURRENCY)
            .collect()
            .await;

        for geocoder in &self.geocoders {
            let pending: Vec<usize> = (0..queries.len())
                .filter(|&i| !progress[i].settled())
                .collect();
            if pending.is_empty() {
                break;
            }
            let asked: Vec<GeocodeQuery> = pending.iter().map(|&i| queries[i].clone()).collect();
            let outcomes = geocoder.geocode_batch(&asked).await;
            if outcomes.len() != asked.len() {
                // A geocoder that loses answers must not turn them into cached no-matches.
                tracing::error!(
                    answered = outcomes.len(),
                    asked = asked.len(),
                    "a geocoder lost answers"
                );
                for &i in &pending {
                    keep_telling(
                        &mut progress[i].failure,
                        EnrichError::failed("geocoding", "some answers went missing"),
                    );
                }
                continue;
            }
            for (i, outcome) in pending.into_iter().zip(outcomes) {
                match outcome {
                    Ok(Some(found)) => progress[i].found = Some(found),
                    Ok(None) => {}
                    Err(error) => keep_telling(&mut progress[i].failure, error),
                }
            }
        }

        let to_remember: Vec<(usize, Option<GeocodeResult>)> = progress
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.from_cache && p.failure.is_none())
            .map(|(i, p)| (i, p.found.clone()))
            .collect();
        stream::iter(to_remember)
            .for_each_concurrent(CACHE_CONCURRENCY, |(i, answer)| {
                self.remember(&queries[i], answer)
            })
            .await;

        progress
            .into_iter()
            .map(|p| match (p.found, p.failure) {
                (Some(found), _) => Ok(Some(found)),
                (None, Some(error)) => Err(error),
                (None, None) => Ok(None),
            })
            .collect()
    }
}
