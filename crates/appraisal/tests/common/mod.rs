//! wiremock servers on 127.0.0.1 standing in for ArcGIS REST layers (they record each request as it
//! arrives), the recorded answers, and a county file pointing at them.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use leadhub_domain::enrich::AppraisalSource;
use wiremock::{MockServer, Respond, ResponseTemplate};

#[path = "../../../geocode/tests/support/servers.rs"]
mod servers;
pub use servers::*;

/// The recorded shapes, copied from `shared/fixtures/arcgis` into this crate.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

pub fn travis() -> String {
    fixture("travis-parcel-query-response.json")
}

pub fn empty() -> String {
    fixture("empty-query-response.json")
}

pub fn arcgis_error() -> String {
    fixture("error-response.json")
}

/// The URL of a layer on this server.
pub fn layer(server: &MockServer, path: &str) -> String {
    format!("{}{path}", server.uri())
}

/// An ArcGIS answer: JSON with HTTP 200.
pub fn json(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "application/json")
}

pub fn status(status: u16, body: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body, "application/json")
}

/// A county file with one Travis county on `layer_url`, the fixture's field names, and fast resilience settings.
pub fn travis_toml(layer_url: &str, settings: &str) -> String {
    format!(
        r#"
[settings]
retry_backoff_ms = 10
{settings}

[[county]]
source = "Travis County, TX (TCAD)"
state = "TX"
county = "Travis"
fips = "48453"
layer_url = "{layer_url}"
parcel_id_field = "PROP_ID"

[county.fields]
account_id = "PROP_ID"
owner_name = "py_owner_name"
mailing_address = "py_address"
market_value = "market_value"
appraised_value = "appraised_val"
land_value = "land_val"
improvement_value = "imprv_val"
year_built = "yr_built"
living_area_sqft = "living_area"
land_acres = "tcad_acres"
legal_description = "legal_desc"
"#
    )
}

/// The source a county file describes, with a 5 s default timeout.
pub fn source_of(toml: &str) -> Arc<dyn AppraisalSource> {
    leadhub_appraisal::from_toml_str(toml, Duration::from_secs(5)).expect("config")
}

/// The Travis county of `travis_toml` on the layer at `path` of `server`.
pub fn travis_source(server: &MockServer, path: &str, settings: &str) -> Arc<dyn AppraisalSource> {
    source_of(&travis_toml(&layer(server, path), settings))
}

/// A layer server answering every request with `respond`, and the Travis county source on it.
pub async fn travis_serving(
    respond: impl Respond + 'static,
    path: &str,
    settings: &str,
) -> (MockServer, Arc<dyn AppraisalSource>) {
    let server = serve(respond).await;
    let source = travis_source(&server, path, settings);
    (server, source)
}

/// The `where` clause of the first request the server received.
pub async fn first_where(server: &MockServer) -> Option<String> {
    param(requests(server).await.first()?, "where")
}

pub fn query(
    parcel: Option<&str>,
    coords: Option<(f64, f64)>,
) -> leadhub_domain::enrich::AppraisalQuery {
    leadhub_domain::enrich::AppraisalQuery {
        parcel_number: parcel.map(str::to_string),
        latitude: coords.map(|c| c.0),
        longitude: coords.map(|c| c.1),
        state: Some("TX".into()),
        county: Some("Travis".into()),
        county_fips: None,
    }
}

/// What `source` returns for `query`, which must be a parcel.
pub async fn found(
    source: &Arc<dyn AppraisalSource>,
    query: &leadhub_domain::enrich::AppraisalQuery,
) -> serde_json::Value {
    source
        .appraise(query)
        .await
        .expect("a lookup")
        .expect("a parcel")
}
