use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use leadhub_domain::enrich::{EnrichError, Geocoder};
use leadhub_geocode::{CensusGeocoder, CIRCUIT_OPEN};

use crate::support::{FakeReply, FakeServer};
use crate::{query, settings, MATCH_JSON};

fn white_house() -> leadhub_domain::enrich::GeocodeQuery {
    query("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500")
}

#[tokio::test]
async fn a_server_error_is_retried_then_reported() {
    let census = FakeServer::start(|_| FakeReply::status(500, "oops")).await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");

    let answer = geocoder.geocode(&white_house()).await;

    assert!(
        matches!(&answer, Err(EnrichError::Failed(m)) if m == "census: HTTP 500"),
        "{answer:?}"
    );
    assert_eq!(census.count(), 3, "the first attempt and two retries");
}

#[tokio::test]
async fn a_server_error_that_passes_is_not_seen() {
    let failed_once = Arc::new(AtomicBool::new(false));
    let census = FakeServer::start(move |_| {
        if failed_once.swap(true, Ordering::SeqCst) {
            FakeReply::ok(MATCH_JSON)
        } else {
            FakeReply::status(503, "")
        }
    })
    .await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");

    let answer = geocoder.geocode(&white_house()).await;

    assert!(matches!(answer, Ok(Some(_))), "{answer:?}");
    assert_eq!(census.count(), 2);
}

#[tokio::test]
async fn a_client_error_is_not_retried() {
    let census = FakeServer::start(|_| FakeReply::status(404, "not found")).await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");

    let answer = geocoder.geocode(&white_house()).await;

    assert!(
        matches!(&answer, Err(EnrichError::Failed(m)) if m == "census: HTTP 404"),
        "{answer:?}"
    );
    assert_eq!(census.count(), 1);
}

#[tokio::test]
async fn a_slow_service_times_out() {
    let census =
        FakeServer::start(|_| FakeReply::ok(MATCH_JSON).after(Duration::from_secs(2))).await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");
    let started = Instant::now();

    let answer = geocoder.geocode(&white_house()).await;

    assert!(matches!(answer, Err(EnrichError::Timeout)), "{answer:?}");
    assert_eq!(census.count(), 3, "timeouts are retried");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_unreachable_service_is_a_failure() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", closed.local_addr().expect("address"));
    drop(closed);
    let geocoder = CensusGeocoder::new(&settings(&url)).expect("builds");

    let answer = geocoder.geocode(&white_house()).await;

    assert!(matches!(answer, Err(EnrichError::Failed(_))), "{answer:?}");
}

#[tokio::test]
async fn the_circuit_opens_after_repeated_failures_and_closes_after_the_cool_down() {
    let down = Arc::new(AtomicBool::new(true));
    let is_down = down.clone();
    let census = FakeServer::start(move |_| {
        if is_down.load(Ordering::SeqCst) {
            FakeReply::status(500, "")
        } else {
            FakeReply::ok(MATCH_JSON)
        }
    })
    .await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");

    // Five failed attempts open it: three in the first call, two in the second.
    for _ in 0..2 {
        assert!(geocoder.geocode(&white_house()).await.is_err());
    }
    assert_eq!(census.count(), 5);

    let started = Instant::now();
    for _ in 0..20 {
        let answer = geocoder.geocode(&white_house()).await;
        assert!(
            matches!(&answer, Err(EnrichError::Failed(m)) if m == CIRCUIT_OPEN),
            "{answer:?}"
        );
    }
    assert_eq!(census.count(), 5, "no request while open");
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "open fails fast"
    );

    down.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(matches!(
        geocoder.geocode(&white_house()).await,
        Ok(Some(_))
    ));
    assert!(matches!(
        geocoder.geocode(&white_house()).await,
        Ok(Some(_))
    ));
    assert_eq!(census.count(), 7, "the probe closed it");
}

#[tokio::test]
async fn a_failed_probe_keeps_the_circuit_open() {
    let census =
        FakeServer::start(|_| FakeReply::ok(MATCH_JSON).after(Duration::from_secs(5))).await;
    let geocoder = CensusGeocoder::new(&settings(&census.url)).expect("builds");

    for _ in 0..2 {
        assert!(matches!(
            geocoder.geocode(&white_house()).await,
            Err(EnrichError::Timeout)
        ));
    }
    assert_eq!(census.count(), 5);

    tokio::time::sleep(Duration::from_millis(250)).await;
    // One probe (a timeout), then fail fast again for another cool-down.
    assert!(geocoder.geocode(&white_house()).await.is_err());
    assert!(geocoder.geocode(&white_house()).await.is_err());
    assert_eq!(census.count(), 6);
}
