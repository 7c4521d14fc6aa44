//! Lookups against a wiremock ArcGIS layer answering the recorded shapes: parcel id, point, routing, mapping.

mod common;

use common::{
    count, empty, first_where, found, json, layer, otherwise, param, query, requests, serve,
    source_of, travis, travis_serving, travis_source, travis_toml,
};
use leadhub_domain::enrich::AppraisalQuery;
use serde_json::json;
use wiremock::matchers::query_param_is_missing;
use wiremock::{Mock, MockServer};

const LAYER: &str = "/arcgis/rest/services/TCAD/FeatureServer/0";

#[tokio::test]
async fn parcel_number_is_looked_up_with_a_quoted_where_clause() {
    let (fake, source) = travis_serving(json(travis()), LAYER, "").await;

    let got = found(&source, &query(Some("102345"), Some((30.2781, -97.7583)))).await;

    let seen = requests(&fake).await;
    assert_eq!(seen.len(), 1, "the parcel id answered; no point query");
    assert_eq!(seen[0].url.path(), format!("{LAYER}/query"));
    assert_eq!(
        param(&seen[0], "where").as_deref(),
        Some("PROP_ID='102345'")
    );
    assert_eq!(param(&seen[0], "outFields").as_deref(), Some("*"));
    assert_eq!(param(&seen[0], "returnGeometry").as_deref(), Some("false"));
    assert_eq!(param(&seen[0], "f").as_deref(), Some("json"));
    assert_eq!(param(&seen[0], "geometry").as_deref(), None);

    assert_eq!(
        got,
        json!({
            "source": "Travis County, TX (TCAD)",
            "account_id": "102345",
            "owner_name": "GARCIA MARIA & JOSE",
            "mailing_address": "PO BOX 1234 AUSTIN TX 78767-1234",
            "market_value": 812500,
            "appraised_value": 795000,
            "land_value": 540000,
            "improvement_value": 272500,
            "year_built": 1938,
            "living_area_sqft": 1650,
            "land_acres": 0.1612,
            "legal_description": "LOT 7 BLK 3 SMITH ADDN",
            "raw": {
                "PROP_ID": 102345,
                "geo_id": "0204050112",
                "py_owner_name": "GARCIA MARIA & JOSE",
                "py_address": "PO BOX 1234 AUSTIN TX 78767-1234",
                "situs_address": "1407 W 9TH ST  TX 78703",
                "market_value": 812500,
                "appraised_val": 795000,
                "assessed_val": 795000,
                "land_val": 540000,
                "imprv_val": 272500,
                "yr_built": 1938,
                "living_area": 1650,
                "tcad_acres": 0.1612,
                "legal_desc": "LOT 7 BLK 3 SMITH ADDN"
            }
        })
    );
}

#[tokio::test]
async fn quotes_in_a_parcel_number_are_doubled() {
    let (fake, source) = travis_serving(json(travis()), LAYER, "").await;
    source
        .appraise(&query(Some("O'NEIL-7"), None))
        .await
        .expect("lookup");
    assert_eq!(
        first_where(&fake).await.as_deref(),
        Some("PROP_ID='O''NEIL-7'")
    );
}

#[tokio::test]
async fn unsafe_parcel_numbers_never_reach_the_layer() {
    let (fake, source) = travis_serving(json(travis()), LAYER, "").await;
    for bad in ["1' OR 1=1 --", "102345;DROP", "10%", "a\"b", "x)"] {
        let got = source
            .appraise(&query(Some(bad), None))
            .await
            .expect("no failure");
        assert_eq!(got, None, "{bad}");
    }
    assert_eq!(count(&fake).await, 0);

    // With coordinates the point lookup still runs.
    let got = source
        .appraise(&query(Some("1' OR 1=1 --"), Some((30.2781, -97.7583))))
        .await
        .expect("lookup");
    assert!(got.is_some());
    assert_eq!(count(&fake).await, 1);
    assert!(first_where(&fake).await.as_deref().is_none());
}

#[tokio::test]
async fn point_in_parcel_sends_wgs84_longitude_first() {
    let (fake, source) = travis_serving(json(travis()), LAYER, "").await;

    let got = found(&source, &query(None, Some((30.2781, -97.7583)))).await;
    assert_eq!(got["owner_name"], "GARCIA MARIA & JOSE");

    let seen = requests(&fake).await;
    assert_eq!(seen.len(), 1);
    let q = &seen[0];
    assert_eq!(q.url.path(), format!("{LAYER}/query"));
    assert_eq!(param(q, "geometry").as_deref(), Some("-97.7583,30.2781"));
    assert_eq!(
        param(q, "geometryType").as_deref(),
        Some("esriGeometryPoint")
    );
    assert_eq!(param(q, "inSR").as_deref(), Some("4326"));
    assert_eq!(
        param(q, "spatialRel").as_deref(),
        Some("esriSpatialRelIntersects")
    );
    assert_eq!(param(q, "outFields").as_deref(), Some("*"));
    assert_eq!(param(q, "returnGeometry").as_deref(), Some("false"));
    assert_eq!(param(q, "f").as_deref(), Some("json"));
    assert_eq!(param(q, "where").as_deref(), None);
}

#[tokio::test]
async fn no_parcel_is_none() {
    let (_fake, source) = travis_serving(json(empty()), LAYER, "").await;
    assert_eq!(
        source
            .appraise(&query(Some("999"), None))
            .await
            .expect("lookup"),
        None
    );
    assert_eq!(
        source
            .appraise(&query(None, Some((30.0, -97.0))))
            .await
            .expect("lookup"),
        None
    );
}

#[tokio::test]
async fn a_parcel_id_without_match_falls_back_to_the_point() {
    let fake = MockServer::start().await;
    Mock::given(query_param_is_missing("where"))
        .respond_with(json(travis()))
        .mount(&fake)
        .await;
    otherwise(&fake, json(empty())).await;
    let source = travis_source(&fake, LAYER, "");
    let got = source
        .appraise(&query(Some("0204050112"), Some((30.2781, -97.7583))))
        .await
        .expect("lookup");
    assert_eq!(got.expect("found by point")["account_id"], "102345");
    let seen = requests(&fake).await;
    assert_eq!(seen.len(), 2);
    assert!(param(&seen[0], "where").as_deref().is_some());
    assert!(param(&seen[1], "geometry").as_deref().is_some());
}

#[tokio::test]
async fn nothing_to_look_up_is_none_without_a_request() {
    let (fake, source) = travis_serving(json(travis()), LAYER, "").await;
    assert_eq!(source.appraise(&query(None, None)).await.expect("ok"), None);
    assert_eq!(
        source.appraise(&query(Some("  "), None)).await.expect("ok"),
        None
    );
    // Out-of-range coordinates are not sent.
    assert_eq!(
        source
            .appraise(&query(None, Some((97.0, 30.0))))
            .await
            .expect("ok"),
        None
    );
    assert_eq!(count(&fake).await, 0);
}

#[tokio::test]
async fn several_features_take_the_first() {
    let two = json!({"features": [
        {"attributes": {"PROP_ID": 1, "py_owner_name": "FIRST"}},
        {"attributes": {"PROP_ID": 2, "py_owner_name": "SECOND"}}
    ]})
    .to_string();
    let (_fake, source) = travis_serving(json(two.clone()), LAYER, "").await;
    let got = found(&source, &query(None, Some((30.0, -97.0)))).await;
    assert_eq!(got["owner_name"], "FIRST");
    assert_eq!(got["account_id"], "1");
    // Unmapped and absent values are null, numeric strings become numbers.
    assert_eq!(got["market_value"], serde_json::Value::Null);
}

#[tokio::test]
async fn numeric_strings_are_coerced_and_source_defaults_to_the_layer_url() {
    let body = json!({"features": [{"attributes": {
        "Account_Nu": "04123456", "Owner_Name": "  SMITH  JOHN ", "Owner_Addr": "PO BOX 1",
        "Owner_City": "FORT WORTH TX", "Owner_Zip": "76101", "Total_Valu": "325,000",
        "Year_Built": "0", "Living_Are": "1,850", "Land_Acres": " 0.25 "
    }}]})
    .to_string();
    let fake = serve(json(body.clone())).await;
    let layer = layer(
        &fake,
        "/arcgis/rest/services/OD_TAD/OD_ParcelView/MapServer/0",
    );
    let toml = format!(
        r#"
[[county]]
state = "TX"
county = "Tarrant County"
layer_url = "{layer}"
parcel_id_field = "Account_Nu"
[county.fields]
account_id = "Account_Nu"
owner_name = "Owner_Name"
mailing_address = ["Owner_Addr", "Owner_City", "Owner_Zip"]
market_value = "Total_Valu"
year_built = "Year_Built"
living_area_sqft = "Living_Are"
land_acres = "Land_Acres"
"#
    );
    let source = source_of(&toml);
    let q = AppraisalQuery {
        parcel_number: Some("04123456".into()),
        latitude: None,
        longitude: None,
        state: Some("tx".into()),
        county: Some("TARRANT".into()),
        county_fips: None,
    };
    let got = source.appraise(&q).await.expect("ok").expect("some");
    assert_eq!(got["source"], layer);
    assert_eq!(got["account_id"], "04123456");
    assert_eq!(got["owner_name"], "SMITH JOHN");
    assert_eq!(got["mailing_address"], "PO BOX 1, FORT WORTH TX, 76101");
    assert_eq!(got["market_value"], 325000);
    assert_eq!(got["year_built"], serde_json::Value::Null);
    assert_eq!(got["living_area_sqft"], 1850);
    assert_eq!(got["land_acres"], 0.25);
    assert_eq!(got["appraised_value"], serde_json::Value::Null);
    assert_eq!(got["raw"]["Total_Valu"], "325,000");
    assert_eq!(
        first_where(&fake).await.as_deref(),
        Some("Account_Nu='04123456'")
    );
}

#[tokio::test]
async fn numeric_parcel_id_fields_are_compared_unquoted() {
    let fake = serve(json(travis())).await;
    let toml = travis_toml(&layer(&fake, LAYER), "").replace(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID\"\nparcel_id_type = \"number\"",
    );
    let source = source_of(&toml);
    source
        .appraise(&query(Some("0102345"), None))
        .await
        .expect("ok");
    assert_eq!(first_where(&fake).await.as_deref(), Some("PROP_ID=102345"));
}

/// Two counties on two layer servers; which one a query reaches shows the routing.
async fn two_counties() -> (
    MockServer,
    MockServer,
    std::sync::Arc<dyn leadhub_domain::enrich::AppraisalSource>,
) {
    let travis_fake = serve(json(travis())).await;
    let dallas_fake = serve(json(
        json!({"features": [{"attributes": {"PARCELID": "00000123", "OWNERNME1": "DALLAS OWNER"}}]})
            .to_string(),
    ))
    .await;
    let toml = format!(
        r#"
[[county]]
source = "Travis County, TX (TCAD)"
state = "TX"
county = "Travis"
fips = "48453"
layer_url = "{}"
parcel_id_field = "PROP_ID"
[county.fields]
owner_name = "py_owner_name"

[[county]]
source = "Dallas County, TX (DCAD)"
state = "TX"
fips = "48113"
layer_url = "{}"
parcel_id_field = "PARCELID"
[county.fields]
owner_name = "OWNERNME1"
"#,
        layer(&travis_fake, LAYER),
        layer(&dallas_fake, "/arcgis/rest/services/DCAD/MapServer/4")
    );
    let source = source_of(&toml);
    (travis_fake, dallas_fake, source)
}

fn routed(state: Option<&str>, county: Option<&str>, fips: Option<&str>) -> AppraisalQuery {
    AppraisalQuery {
        parcel_number: Some("1".into()),
        latitude: None,
        longitude: None,
        state: state.map(str::to_string),
        county: county.map(str::to_string),
        county_fips: fips.map(str::to_string),
    }
}

/// How many requests the Travis and the Dallas layer received.
async fn asked(travis: &MockServer, dallas: &MockServer) -> (usize, usize) {
    (count(travis).await, count(dallas).await)
}

#[tokio::test]
async fn routing_prefers_fips() {
    let (travis_fake, dallas_fake, source) = two_counties().await;
    // The FIPS says Dallas, whatever the lead's county field says.
    let got = found(&source, &routed(Some("TX"), Some("Travis"), Some("48113"))).await;
    assert_eq!(got["source"], "Dallas County, TX (DCAD)");
    assert_eq!(got["owner_name"], "DALLAS OWNER");
    assert_eq!(asked(&travis_fake, &dallas_fake).await, (0, 1));
}

#[tokio::test]
async fn routing_by_state_and_name_ignores_case_and_suffix() {
    let (travis_fake, dallas_fake, source) = two_counties().await;
    for name in ["Travis", "travis county", "TRAVIS COUNTY", "  Travis  "] {
        let got = found(&source, &routed(Some("TX"), Some(name), None)).await;
        assert_eq!(got["source"], "Travis County, TX (TCAD)", "{name}");
    }
    // An unknown FIPS falls back to the name.
    let got = source
        .appraise(&routed(Some("TX"), Some("Travis County"), Some("48999")))
        .await
        .expect("ok");
    assert!(got.is_some());
    assert_eq!(asked(&travis_fake, &dallas_fake).await, (5, 0));
}

#[tokio::test]
async fn unknown_county_is_none_without_a_request() {
    let (travis_fake, dallas_fake, source) = two_counties().await;
    for q in [
        routed(Some("TX"), Some("Harris"), None),
        routed(Some("OK"), Some("Travis"), None),
        routed(None, Some("Travis"), None),
        routed(Some("TX"), None, None),
        routed(Some("TX"), None, Some("48201")),
        // Dallas is configured by FIPS only, so its name alone does not route.
        routed(Some("TX"), Some("Dallas"), None),
    ] {
        assert_eq!(source.appraise(&q).await.expect("ok"), None, "{q:?}");
    }
    assert_eq!(asked(&travis_fake, &dallas_fake).await, (0, 0));
}
