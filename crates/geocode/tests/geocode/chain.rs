use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use leadhub_domain::enrich::{CachedGeocode, EnrichError, GeocodeCache, GeocodeResult, Geocoder};
use leadhub_geocode::{build, MemoryGeocodeCache};

use wiremock::{MockServer, Request, ResponseTemplate};

use crate::support::{address_rows, batch_match_row, count, ok, requests, serve, status};
use crate::{query, settings, MATCH_JSON, NO_MATCH_JSON};

fn chain(names: &[&str], url: &str, cache: Arc<MemoryGeocodeCache>) -> Arc<dyn Geocoder> {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    build(&names, &settings(url), cache)
        .expect("builds")
        .expect("a geocoder")
}

/// `chain` on `census` with a fresh cache, and the cache.
fn chain_with_cache(
    names: &[&str],
    census: &MockServer,
) -> (Arc<MemoryGeocodeCache>, Arc<dyn Geocoder>) {
    let cache = Arc::new(MemoryGeocodeCache::new());
    (cache.clone(), chain(names, &census.uri(), cache))
}

/// A cache entry for `result`, from `at`.
fn entry(result: Option<GeocodeResult>, at: DateTime<Utc>) -> CachedGeocode {
    CachedGeocode {
        result,
        cached_at: at,
    }
}

fn somewhere(source: &str) -> GeocodeResult {
    GeocodeResult {
        latitude: 1.0,
        longitude: 2.0,
        source: source.into(),
        match_type: "exact".into(),
        matched_address: None,
        county_fips: None,
    }
}

#[tokio::test]
async fn zip_finds_the_centre_of_a_zip_code() {
    let found = chain(&["zip"], "http://127.0.0.1:1", Arc::default())
        .geocode(&query("1100 Congress Ave", "Austin", "TX", "78701"))
        .await
        .expect("no failure")
        .expect("a centroid");

    assert!((found.latitude - 30.27).abs() < 0.02, "{found:?}");
    assert!((found.longitude - -97.74).abs() < 0.02, "{found:?}");
    assert_eq!(
        (found.source.as_str(), found.match_type.as_str()),
        ("zip", "zip_centroid")
    );
}

#[tokio::test]
async fn a_no_match_falls_through_to_the_next_geocoder_and_is_cached() {
    let census = serve(ok(NO_MATCH_JSON)).await;
    let (cache, geocoder) = chain_with_cache(&["census", "zip"], &census);
    let lead = query("1100 Congress Ave", "Austin", "TX", "78701");

    let found = geocoder
        .geocode(&lead)
        .await
        .expect("ok")
        .expect("a centroid");

    assert_eq!(found.source, "zip");
    assert_eq!(count(&census).await, 1);
    let cached = cache.get(&lead.address_key).await.expect("readable");
    assert_eq!(cached.and_then(|c| c.result), Some(found));
}

#[tokio::test]
async fn the_first_geocoder_that_matches_wins() {
    let census = serve(ok(MATCH_JSON)).await;
    let lead = query("1100 Congress Ave", "Austin", "TX", "78701");

    // In order: the chain, the source that answers, the Census requests made so far.
    for (order, source, asked) in [
        (["zip", "census"], "zip", 0),
        (["census", "zip"], "census", 1),
    ] {
        let found = chain(&order, &census.uri(), Arc::default())
            .geocode(&lead)
            .await
            .expect("ok")
            .expect("found");
        assert_eq!(found.source, source);
        assert_eq!(count(&census).await, asked);
    }
}

#[tokio::test]
async fn a_failure_falls_through_but_is_the_answer_when_nobody_matches() {
    let census = serve(status(404, "")).await;
    let (cache, geocoder) = chain_with_cache(&["census", "zip"], &census);

    let found = geocoder
        .geocode(&query("1100 Congress Ave", "Austin", "TX", "78701"))
        .await;
    assert_eq!(found.expect("ok").expect("a centroid").source, "zip");

    let unfound = geocoder
        .geocode(&query("1 Nowhere Rd", "Austin", "TX", ""))
        .await;
    assert!(
        matches!(unfound, Err(EnrichError::Failed(_))),
        "{unfound:?}"
    );

    assert!(cache.is_empty(), "nothing learnt while census was failing");
}

#[tokio::test]
async fn a_cached_answer_makes_no_request() {
    let census = serve(ok(MATCH_JSON)).await;
    let (cache, geocoder) = chain_with_cache(&["census"], &census);
    let known = query("1 Known St", "Austin", "TX", "78701");
    let unfindable = query("1 Nowhere Rd", "Austin", "TX", "78701");
    let now = Utc::now();
    cache
        .put(&known.address_key, entry(Some(somewhere("census")), now))
        .await
        .expect("put");
    cache
        .put(&unfindable.address_key, entry(None, now))
        .await
        .expect("put");

    assert_eq!(
        geocoder.geocode(&known).await.expect("ok"),
        Some(somewhere("census"))
    );
    assert_eq!(geocoder.geocode(&unfindable).await.expect("ok"), None);
    assert_eq!(count(&census).await, 0);

    // A found address is remembered: the second lead there costs nothing.
    let white_house = query("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500");
    for _ in 0..2 {
        assert!(geocoder.geocode(&white_house).await.expect("ok").is_some());
    }
    assert_eq!(count(&census).await, 1);
}

#[tokio::test]
async fn a_stale_cached_answer_is_asked_again() {
    let census = serve(ok(MATCH_JSON)).await;
    let (cache, geocoder) = chain_with_cache(&["census"], &census);
    let lead = query("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500");
    let long_ago = Utc::now() - TimeDelta::days(31);
    cache
        .put(&lead.address_key, entry(None, long_ago))
        .await
        .expect("put");

    let found = geocoder.geocode(&lead).await.expect("ok");

    assert_eq!(found.map(|f| f.source).as_deref(), Some("census"));
    assert_eq!(count(&census).await, 1);
    let refreshed = cache
        .get(&lead.address_key)
        .await
        .expect("get")
        .expect("cached");
    assert!(refreshed.cached_at > long_ago && refreshed.result.is_some());
}

/// Census batches: "Nowhere" streets unmatched, others matched in Travis County.
fn census_batch(request: &Request) -> ResponseTemplate {
    let rows: Vec<String> = address_rows(request)
        .iter()
        .rev()
        .map(|row| {
            if row[1].contains("Nowhere") {
                format!("\"{}\",\"{}\",\"No_Match\"", row[0], row[1])
            } else {
                batch_match_row(&row[0], &row[1], -97.74, 30.27)
            }
        })
        .collect();
    ok(rows.join("\n"))
}

#[tokio::test]
async fn a_batch_asks_only_for_uncached_addresses_then_falls_through() {
    let census = serve(census_batch).await;
    let (cache, geocoder) = chain_with_cache(&["census", "zip"], &census);
    let leads: Vec<_> = (0..12)
        .map(|i| {
            let street = if i % 4 == 1 {
                format!("{i} Nowhere Rd")
            } else {
                format!("{i} Congress Ave")
            };
            query(&street, "Austin", "TX", "78701")
        })
        .collect();
    for lead in &leads[..2] {
        cache
            .put(
                &lead.address_key,
                entry(Some(somewhere("cache")), Utc::now()),
            )
            .await
            .expect("put");
    }

    let answers = geocoder.geocode_batch(&leads).await;

    let sources: Vec<String> = answers
        .iter()
        .map(|a| {
            a.as_ref()
                .expect("ok")
                .as_ref()
                .expect("found")
                .source
                .clone()
        })
        .collect();
    let expected: Vec<&str> = (0..12)
        .map(|i| match i {
            0 | 1 => "cache",
            i if i % 4 == 1 => "zip",
            _ => "census",
        })
        .collect();
    assert_eq!(sources, expected);
    let uploads = requests(&census).await;
    assert_eq!(uploads.len(), 1);
    assert_eq!(
        address_rows(&uploads[0]).len(),
        10,
        "cached addresses are not asked"
    );
    assert_eq!(cache.len(), 12);

    geocoder.geocode_batch(&leads).await;
    assert_eq!(
        count(&census).await,
        1,
        "the second time everything is cached"
    );
}
