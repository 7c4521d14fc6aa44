use std::time::{Duration, Instant};

use leadhub_domain::enrich::Geocoder;
use leadhub_geocode::NominatimGeocoder;

use wiremock::matchers::query_param;
use wiremock::{Mock, MockServer};

use crate::support::{header, ok, otherwise, param, requests};
use crate::{query, settings};

const CAPITOL: &str = r#"[{"place_id":311,"licence":"Data (c) OpenStreetMap contributors, ODbL 1.0.",
  "osm_type":"way","osm_id":1,"lat":"30.2746652","lon":"-97.7403505","category":"building",
  "type":"government","place_rank":30,"importance":0.5,"addresstype":"building",
  "name":"Texas State Capitol","display_name":"Texas State Capitol, 1100, Congress Avenue, Austin, Travis County, Texas, 78701, United States",
  "boundingbox":["30.27","30.28","-97.75","-97.73"]}]"#;

// One test, because the one-request-per-second gate is shared by the whole process.
#[tokio::test]
async fn nominatim_is_asked_at_most_once_a_second_and_told_who_asks() {
    let nominatim = MockServer::start().await;
    Mock::given(query_param("street", "1 Nowhere Rd"))
        .respond_with(ok("[]"))
        .mount(&nominatim)
        .await;
    otherwise(&nominatim, ok(CAPITOL)).await;
    let geocoder = NominatimGeocoder::new(&settings(&nominatim.uri())).expect("builds");
    let capitol = query("1100 Congress Ave", "Austin", "TX", "78701");
    let started = Instant::now();

    let answers = futures_util::future::join_all([
        geocoder.geocode(&capitol),
        geocoder.geocode(&capitol),
        geocoder.geocode(&query("1 Nowhere Rd", "Austin", "TX", "")),
    ])
    .await;

    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let found = answers[0].as_ref().expect("ok").as_ref().expect("a place");
    assert_eq!((found.latitude, found.longitude), (30.2746652, -97.7403505));
    assert_eq!(
        (found.source.as_str(), found.match_type.as_str()),
        ("nominatim", "non_exact")
    );
    assert_eq!(found.county_fips, None);
    assert!(matches!(answers[2], Ok(None)), "{:?}", answers[2]);

    let requests = requests(&nominatim).await;
    assert_eq!(requests.len(), 3);
    let first = &requests[0];
    assert_eq!(first.url.path(), "/search");
    assert_eq!(
        header(first, "user-agent"),
        Some("leadhub/test (+http://leads.test)")
    );
    for (name, value) in [
        ("street", "1100 Congress Ave"),
        ("city", "Austin"),
        ("state", "TX"),
        ("postalcode", "78701"),
        ("country", "us"),
        ("format", "jsonv2"),
        ("limit", "1"),
    ] {
        assert_eq!(param(first, name).as_deref(), Some(value), "{name}");
    }
}
