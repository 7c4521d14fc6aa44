//! Failures: ArcGIS error objects, HTTP errors, retries, timeouts, malformed answers, the circuit breaker.

mod common;

use std::time::Duration;

use common::{
    arcgis_error, count, json, layer, otherwise, query, serve, serve_after, serve_down_then_up,
    source_of, status, travis, travis_serving, travis_source, travis_toml,
};
use leadhub_appraisal::from_toml_str;
use leadhub_domain::enrich::EnrichError;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer};

const LAYER: &str = "/arcgis/rest/services/TCAD/MapServer/3";

fn failed_message(r: Result<Option<serde_json::Value>, EnrichError>) -> String {
    match r {
        Err(e @ (EnrichError::Failed(_) | EnrichError::Paused { .. })) => e.to_string(),
        other => panic!("expected EnrichError::Failed or Paused, got {other:?}"),
    }
}

#[tokio::test]
async fn an_error_object_in_a_200_is_a_failure_and_not_retried() {
    let (fake, source) = travis_serving(json(arcgis_error()), LAYER, "").await;
    let msg = failed_message(
        source
            .appraise(&query(Some("102345"), Some((30.2, -97.7))))
            .await,
    );
    // In words: the layer's own error text stays in the log.
    assert!(msg.ends_with(": refused the request (ArcGIS 400)"), "{msg}");
    assert!(!msg.contains("Invalid query parameters"), "{msg}");
    assert_eq!(
        count(&fake).await,
        1,
        "no retry and no point fallback after a failure"
    );
}

#[tokio::test]
async fn http_500_is_retried_then_fails() {
    let (fake, source) = travis_serving(status(500, "oops"), LAYER, "retries = 2").await;
    let msg = failed_message(source.appraise(&query(Some("102345"), None)).await);
    assert!(msg.contains("500"), "{msg}");
    assert_eq!(count(&fake).await, 3, "one try and two retries");
}

#[tokio::test]
async fn a_5xx_that_recovers_succeeds() {
    let fake = serve_after(status(503, "busy"), 1, json(travis())).await;
    let source = travis_source(&fake, LAYER, "");
    let got = source
        .appraise(&query(Some("102345"), None))
        .await
        .expect("recovered");
    assert!(got.is_some());
    assert_eq!(count(&fake).await, 2);
}

#[tokio::test]
async fn http_400_and_404_are_not_retried() {
    for code in [400u16, 404] {
        let (fake, source) = travis_serving(status(code, "{}"), LAYER, "retries = 3").await;
        let msg = failed_message(source.appraise(&query(Some("102345"), None)).await);
        assert!(msg.contains(&code.to_string()), "{msg}");
        assert_eq!(count(&fake).await, 1, "status {code}");
    }
}

#[tokio::test]
async fn a_slow_layer_times_out_after_retries() {
    let fake = serve(json(travis()).set_delay(Duration::from_millis(1500))).await;
    // The county's own timeout wins over the constructor's.
    let toml = travis_toml(&layer(&fake, LAYER), "retries = 1").replace(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID\"\ntimeout_ms = 200",
    );
    let source = from_toml_str(&toml, Duration::from_secs(30)).expect("config");
    let started = std::time::Instant::now();
    let got = source.appraise(&query(Some("102345"), None)).await;
    assert!(
        matches!(&got, Err(e @ EnrichError::Timeout { .. }) if e.to_string().ends_with(": no answer within 200 ms")),
        "{got:?}"
    );
    assert_eq!(count(&fake).await, 2, "a timeout is retried");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn the_constructor_timeout_applies_when_the_file_sets_none() {
    let fake = serve(json(travis()).set_delay(Duration::from_millis(1500))).await;
    let source = from_toml_str(
        &travis_toml(&layer(&fake, LAYER), "retries = 0"),
        Duration::from_millis(200),
    )
    .expect("config");
    let got = source.appraise(&query(None, Some((30.2, -97.7)))).await;
    assert!(matches!(got, Err(EnrichError::Timeout { .. })), "{got:?}");
}

#[tokio::test]
async fn malformed_answers_fail_without_retry() {
    for body in [
        "<html>maintenance</html>",
        "{\"features\": [",
        "{}",
        "{\"features\": 3}",
    ] {
        let (fake, source) = travis_serving(json(body.to_string()), LAYER, "").await;
        let msg = failed_message(source.appraise(&query(Some("102345"), None)).await);
        assert!(
            msg.ends_with(": gave an answer we could not read"),
            "{body}: {msg}"
        );
        assert_eq!(count(&fake).await, 1, "{body}");
    }
}

#[tokio::test]
async fn a_refused_connection_is_a_failure() {
    // Bind then drop a listener: nothing answers on that port.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let layer = format!("http://127.0.0.1:{port}{LAYER}");
    let source = source_of(&travis_toml(&layer, ""));
    let msg = failed_message(source.appraise(&query(Some("102345"), None)).await);
    assert!(msg.ends_with(": could not be reached"), "{msg}");
    assert!(!msg.contains("127.0.0.1"), "{msg}");
}

#[tokio::test]
async fn the_breaker_opens_after_five_failures_and_closes_after_a_good_probe() {
    let (fake, down) = serve_down_then_up(status(502, "bad gateway"), json(travis())).await;
    let source = travis_source(&fake, LAYER, "retries = 0\nbreaker_cooldown_ms = 300");
    let q = query(Some("102345"), None);

    for _ in 0..5 {
        failed_message(source.appraise(&q).await);
    }
    assert_eq!(count(&fake).await, 5);

    // Open: refused without a request.
    let msg = failed_message(source.appraise(&q).await);
    assert!(msg.ends_with(": paused after repeated failures"), "{msg}");
    assert_eq!(count(&fake).await, 5);

    // Half-open after the cool-down: a failing probe reopens it.
    tokio::time::sleep(Duration::from_millis(400)).await;
    failed_message(source.appraise(&q).await);
    assert_eq!(count(&fake).await, 6);
    failed_message(source.appraise(&q).await);
    assert_eq!(count(&fake).await, 6, "reopened by the failed probe");

    // The layer recovers; after the cool-down the probe closes the circuit.
    drop(down);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(source.appraise(&q).await.expect("probe").is_some());
    assert!(source.appraise(&q).await.expect("closed").is_some());
    assert_eq!(count(&fake).await, 8);
}

#[tokio::test]
async fn no_match_and_successes_keep_the_breaker_closed() {
    // Fail four times, succeed once, fail four times: never five in a row.
    let fake = MockServer::start().await;
    for (answer, times) in [(status(500, ""), 4), (json(common::empty()), 1)] {
        Mock::given(any())
            .respond_with(answer)
            .up_to_n_times(times)
            .mount(&fake)
            .await;
    }
    otherwise(&fake, status(500, "")).await;
    let source = travis_source(&fake, LAYER, "retries = 0\nbreaker_cooldown_ms = 60000");
    let q = query(Some("102345"), None);
    for _ in 0..9 {
        let _ = source.appraise(&q).await;
    }
    assert_eq!(count(&fake).await, 9);
    // The fifth in a row (the tenth call) opens it; the eleventh is refused.
    let _ = source.appraise(&q).await;
    let _ = source.appraise(&q).await;
    assert_eq!(count(&fake).await, 10);
}

#[tokio::test]
async fn breaker_threshold_is_configurable_and_shared_per_layer() {
    let fake = serve(status(500, "")).await;
    let layer = layer(&fake, LAYER);
    // Two counties on one regional layer share its circuit.
    let toml = format!(
        r#"
[settings]
retries = 0
breaker_failures = 2
breaker_cooldown_ms = 60000

[[county]]
state = "TX"
county = "Collin"
layer_url = "{layer}"
parcel_id_field = "prop_id"
[county.fields]
owner_name = "file_as_name"

[[county]]
state = "TX"
county = "Denton"
layer_url = "{layer}"
parcel_id_field = "prop_id"
[county.fields]
owner_name = "file_as_name"
"#
    );
    let source = source_of(&toml);
    let mut collin = query(Some("1"), None);
    collin.county = Some("Collin".into());
    let mut denton = query(Some("1"), None);
    denton.county = Some("Denton".into());
    failed_message(source.appraise(&collin).await);
    failed_message(source.appraise(&denton).await);
    assert_eq!(count(&fake).await, 2);
    failed_message(source.appraise(&collin).await);
    failed_message(source.appraise(&denton).await);
    assert_eq!(count(&fake).await, 2);
}
