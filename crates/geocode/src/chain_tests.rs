//! The chain's cache rules with the cache and the geocoders mocked: a fresh answer asks no
//! geocoder, only definite answers are remembered.
#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use chrono::{TimeDelta, Utc};
use leadhub_domain::enrich::{
    CachedGeocode, EnrichError, GeocodeQuery, GeocodeResult, Geocoder, MockGeocodeCache,
    MockGeocoder,
};
use leadhub_domain::store::StoreError;

use crate::chain::{GeocoderChain, CACHE_FRESH_FOR};

fn query(address: &str) -> GeocodeQuery {
    GeocodeQuery {
        address_key: format!("{address}|AUSTIN|TX|78701").to_uppercase(),
        address: address.into(),
        city: Some("Austin".into()),
        state: Some("TX".into()),
        zip_code: Some("78701".into()),
    }
}

fn found(source: &str) -> GeocodeResult {
    GeocodeResult {
        latitude: 30.26,
        longitude: -97.74,
        source: source.into(),
        match_type: "exact".into(),
        matched_address: None,
        county_fips: Some("48453".into()),
    }
}

/// A Census geocoder asked exactly once, which finds the address.
fn finds_once() -> MockGeocoder {
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode()
        .times(1)
        .returning(|_| Ok(Some(found("census"))));
    geocoder
}

/// A cache holding `result` for `query`'s address, remembered `age` ago.
fn cache_holding(
    query: &GeocodeQuery,
    result: Option<GeocodeResult>,
    age: TimeDelta,
) -> MockGeocodeCache {
    let mut cache = MockGeocodeCache::new();
    let cached = CachedGeocode {
        result,
        cached_at: Utc::now() - age,
    };
    cache
        .expect_get()
        .withf({
            let key = query.address_key.clone();
            move |k: &str| k == key
        })
        .returning(move |_| Ok(Some(cached.clone())));
    cache
}

/// A geocoder that must not be asked anything.
fn never_asked() -> MockGeocoder {
    let mut geocoder = MockGeocoder::new();
    geocoder.expect_geocode().never();
    geocoder.expect_geocode_batch().never();
    geocoder
}

fn chain(geocoders: Vec<MockGeocoder>, cache: MockGeocodeCache) -> GeocoderChain {
    GeocoderChain::new(
        geocoders
            .into_iter()
            .map(|g| Arc::new(g) as Arc<dyn Geocoder>)
            .collect(),
        Arc::new(cache),
    )
}

#[tokio::test]
async fn a_fresh_cached_answer_asks_no_geocoder() {
    let at = query("100 Congress Ave");
    for remembered in [Some(found("census")), None] {
        let mut cache = cache_holding(&at, remembered.clone(), TimeDelta::days(29));
        cache.expect_put().never();
        let chain = chain(vec![never_asked(), never_asked()], cache);
        assert_eq!(chain.geocode(&at).await.unwrap(), remembered);
        let batch = chain.geocode_batch(std::slice::from_ref(&at)).await;
        assert_eq!(batch.into_iter().next().unwrap().unwrap(), remembered);
    }
}

#[tokio::test]
async fn in_a_batch_only_the_addresses_not_cached_reach_the_geocoder() {
    let cached = query("100 Congress Ave");
    let new = query("200 Congress Ave");
    let mut cache = cache_holding(&cached, Some(found("census")), TimeDelta::hours(1));
    cache.expect_get().returning(|_| Ok(None));
    cache
        .expect_put()
        .withf(|key, entry| key == "200 CONGRESS AVE|AUSTIN|TX|78701" && entry.result.is_some())
        .times(1)
        .returning(|_, _| Ok(()));
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .withf(|asked: &[GeocodeQuery]| asked.len() == 1 && asked[0].address == "200 Congress Ave")
        .times(1)
        .returning(|_| vec![Ok(Some(found("zip")))]);
    let answers = chain(vec![geocoder], cache)
        .geocode_batch(&[cached, new])
        .await;
    let sources: Vec<String> = answers
        .into_iter()
        .map(|a| a.unwrap().unwrap().source)
        .collect();
    assert_eq!(sources, ["census", "zip"]);
}

#[tokio::test]
async fn a_stale_answer_is_asked_again_and_replaced() {
    let at = query("100 Congress Ave");
    let mut cache = cache_holding(&at, None, CACHE_FRESH_FOR + TimeDelta::minutes(1));
    cache
        .expect_put()
        .withf(|_, entry| entry.result.as_ref().map(|r| r.source.as_str()) == Some("census"))
        .times(1)
        .returning(|_, _| Ok(()));
    let answer = chain(vec![finds_once()], cache).geocode(&at).await.unwrap();
    assert_eq!(answer, Some(found("census")));
}

#[tokio::test]
async fn a_failure_is_returned_and_never_cached() {
    let at = query("100 Congress Ave");
    let mut cache = MockGeocodeCache::new();
    cache.expect_get().returning(|_| Ok(None));
    cache.expect_put().never();
    let mut failing = MockGeocoder::new();
    failing.expect_geocode().times(1).returning(|_| {
        Err(EnrichError::Timeout {
            provider: "census".into(),
            within: std::time::Duration::from_secs(5),
        })
    });
    let mut no_match = MockGeocoder::new();
    no_match.expect_geocode().times(1).returning(|_| Ok(None));
    let answer = chain(vec![failing, no_match], cache).geocode(&at).await;
    assert!(
        matches!(answer, Err(EnrichError::Timeout { .. })),
        "{answer:?}"
    );
}

#[tokio::test]
async fn an_unreadable_cache_is_bypassed() {
    let at = query("100 Congress Ave");
    let mut cache = MockGeocodeCache::new();
    cache
        .expect_get()
        .returning(|_| Err(StoreError::Unexpected(anyhow::anyhow!("disk full"))));
    cache.expect_put().times(1).returning(|_, _| Ok(()));
    let answer = chain(vec![finds_once()], cache).geocode(&at).await.unwrap();
    assert_eq!(answer, Some(found("census")));
}

#[tokio::test]
async fn an_address_without_a_key_is_neither_looked_up_nor_cached() {
    let mut at = query("somewhere");
    at.address_key.clear();
    let mut cache = MockGeocodeCache::new();
    cache.expect_get().never();
    cache.expect_put().never();
    let mut geocoder = MockGeocoder::new();
    geocoder.expect_geocode().times(1).returning(|_| Ok(None));
    assert_eq!(
        chain(vec![geocoder], cache).geocode(&at).await.unwrap(),
        None
    );
}

/// A geocoder that fails every address with `error`, alone and in batches.
fn failing(error: fn() -> EnrichError) -> MockGeocoder {
    let mut geocoder = MockGeocoder::new();
    geocoder.expect_geocode().returning(move |_| Err(error()));
    geocoder
        .expect_geocode_batch()
        .returning(move |asked| asked.iter().map(|_| Err(error())).collect());
    geocoder
}

fn paused(secs: u64) -> EnrichError {
    EnrichError::Paused {
        provider: "census".into(),
        probe_in: std::time::Duration::from_secs(secs),
    }
}

fn no_cache() -> MockGeocodeCache {
    let mut cache = MockGeocodeCache::new();
    cache.expect_get().returning(|_| Ok(None));
    cache.expect_put().never();
    cache
}

#[tokio::test]
async fn a_real_failure_is_told_before_a_pause_in_either_order() {
    let at = query("100 Congress Ave");
    let unreachable = || EnrichError::failed("nominatim", "could not be reached");
    for paused_first in [true, false] {
        let (first, second) = if paused_first {
            (failing(|| paused(30)), failing(unreachable))
        } else {
            (failing(unreachable), failing(|| paused(30)))
        };
        let chain = chain(vec![first, second], no_cache());
        let alone = chain.geocode(&at).await;
        let batch = chain.geocode_batch(std::slice::from_ref(&at)).await;
        for answer in [alone, batch.into_iter().next().unwrap()] {
            // Not Paused: the round asked a geocoder and learnt it is down, so it spends an
            // attempt and says why.
            assert_eq!(
                answer.unwrap_err().to_string(),
                "nominatim: could not be reached",
                "paused first: {paused_first}"
            );
        }
    }
}

#[tokio::test]
async fn of_two_pauses_the_shorter_wait_is_told() {
    let at = query("100 Congress Ave");
    let chain = chain(
        vec![failing(|| paused(300)), failing(|| paused(30))],
        no_cache(),
    );
    let alone = chain.geocode(&at).await;
    let batch = chain.geocode_batch(std::slice::from_ref(&at)).await;
    for answer in [alone, batch.into_iter().next().unwrap()] {
        assert_eq!(
            answer.unwrap_err().paused_for(),
            Some(std::time::Duration::from_secs(30))
        );
    }
}
