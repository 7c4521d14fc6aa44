use std::time::{Duration, Instant};

use leadhub_domain::enrich::{said, EnrichError, Geocoder};

use crate::support::{count, ok, serve_after, serve_down_then_up, status};
use crate::{census_at, census_serving, query, MATCH_JSON};

fn white_house() -> leadhub_domain::enrich::GeocodeQuery {
    query("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500")
}

/// A server error is retried (the first attempt and two retries), a client error is not; both
/// are reported with their status.
#[tokio::test]
async fn http_errors_are_reported_and_only_server_errors_retried() {
    for (code, attempts) in [(500, 3), (404, 1)] {
        let (census, geocoder) = census_serving(status(code, "oops")).await;

        let answer = geocoder.geocode(&white_house()).await;

        let want = if code >= 500 {
            format!("census: answered with an error (HTTP {code})")
        } else {
            format!("census: refused the request (HTTP {code})")
        };
        assert!(
            matches!(&answer, Err(EnrichError::Failed(m)) if *m == want),
            "{answer:?}"
        );
        assert_eq!(count(&census).await, attempts, "status {code}");
    }
}

#[tokio::test]
async fn a_server_error_that_passes_is_not_seen() {
    let census = serve_after(status(503, ""), 1, ok(MATCH_JSON)).await;
    let geocoder = census_at(&census.uri());

    let answer = geocoder.geocode(&white_house()).await;

    assert!(matches!(answer, Ok(Some(_))), "{answer:?}");
    assert_eq!(count(&census).await, 2);
}

#[tokio::test]
async fn a_slow_service_times_out() {
    let (census, geocoder) = census_serving(ok(MATCH_JSON).set_delay(Duration::from_secs(2))).await;
    let started = Instant::now();

    let answer = geocoder.geocode(&white_house()).await;

    assert!(
        matches!(&answer, Err(e @ EnrichError::Timeout { .. })
            if e.to_string().starts_with("census: no answer within ")),
        "{answer:?}"
    );
    assert_eq!(count(&census).await, 3, "timeouts are retried");
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
    let geocoder = census_at(&url);

    let answer = geocoder.geocode(&white_house()).await;

    // In words, without our URL or the library's text.
    assert!(
        matches!(&answer, Err(EnrichError::Failed(m)) if m == "census: could not be reached"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn the_circuit_opens_after_repeated_failures_and_closes_after_the_cool_down() {
    let (census, down) = serve_down_then_up(status(500, ""), ok(MATCH_JSON)).await;
    let geocoder = census_at(&census.uri());

    // Five failed attempts open it: three in the first call, two in the second.
    for _ in 0..2 {
        assert!(geocoder.geocode(&white_house()).await.is_err());
    }
    assert_eq!(count(&census).await, 5);

    let started = Instant::now();
    for _ in 0..20 {
        let answer = geocoder.geocode(&white_house()).await;
        assert!(
            matches!(&answer, Err(e @ EnrichError::Paused { .. }) if e.to_string() == format!("census: {}", said::PAUSED)),
            "{answer:?}"
        );
    }
    assert_eq!(count(&census).await, 5, "no request while open");
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "open fails fast"
    );

    drop(down);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(matches!(
        geocoder.geocode(&white_house()).await,
        Ok(Some(_))
    ));
    assert!(matches!(
        geocoder.geocode(&white_house()).await,
        Ok(Some(_))
    ));
    assert_eq!(count(&census).await, 7, "the probe closed it");
}

#[tokio::test]
async fn a_failed_probe_keeps_the_circuit_open() {
    let (census, geocoder) = census_serving(ok(MATCH_JSON).set_delay(Duration::from_secs(5))).await;

    for _ in 0..2 {
        assert!(matches!(
            geocoder.geocode(&white_house()).await,
            Err(EnrichError::Timeout { .. })
        ));
    }
    assert_eq!(count(&census).await, 5);

    tokio::time::sleep(Duration::from_millis(250)).await;
    // One probe (a timeout), then fail fast again for another cool-down.
    assert!(geocoder.geocode(&white_house()).await.is_err());
    assert!(geocoder.geocode(&white_house()).await.is_err());
    assert_eq!(count(&census).await, 6);
}
