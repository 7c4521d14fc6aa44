//! The county file: what loads, what is refused and how the refusal reads, and the shipped example.

use std::path::PathBuf;
use std::time::Duration;

use leadhub_appraisal::{from_file, AppraisalKey, CountyFile, ParcelIdType, DEFAULT_TIMEOUT};

fn example_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/counties.example.toml"
    ))
}

const GOOD: &str = r#"
[[county]]
state = "TX"
county = "Travis"
fips = "48453"
layer_url = "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0"
parcel_id_field = "PROP_ID"
[county.fields]
owner_name = "py_owner_name"
market_value = "market_value"
"#;

/// Loads `GOOD` with one line replaced (or added after `state`), and returns the error text.
fn error_with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "test setup: {from}");
    let text = GOOD.replacen(from, to, 1);
    match CountyFile::from_toml_str(&text, DEFAULT_TIMEOUT) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// `error_with`, and checks that the error mentions every part.
fn refused(from: &str, to: &str, parts: &[&str]) {
    assert_mentions(&error_with(from, to), parts);
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should mention {p:?}");
    }
}

#[test]
fn the_shipped_example_loads() {
    let file = CountyFile::from_file(&example_path(), DEFAULT_TIMEOUT)
        .expect("docs/counties.example.toml");
    let names: Vec<_> = file
        .counties
        .iter()
        .map(|c| {
            (
                c.county.clone().unwrap_or_default(),
                c.fips.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("Travis".to_string(), "48453".to_string()),
            ("Dallas".to_string(), "48113".to_string()),
            ("Tarrant".to_string(), "48439".to_string()),
        ]
    );
    for c in &file.counties {
        assert_eq!(c.state.as_str(), "TX");
        assert!(
            c.source.ends_with(", TX (TCAD)")
                || c.source.ends_with(", TX (DCAD)")
                || c.source.ends_with(", TX (TAD)")
        );
        assert!(
            c.fields.contains_key(&AppraisalKey::OwnerName),
            "{}",
            c.source
        );
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
    }
    assert_eq!(file.settings.breaker_failures, 5);
    // The names the fixtures README gives for each district.
    let travis = &file.counties[0];
    assert_eq!(travis.parcel_id_field, "PROP_ID");
    assert_eq!(
        travis.fields[&AppraisalKey::OwnerName],
        vec!["py_owner_name".to_string()]
    );
    assert_eq!(
        file.counties[1].fields[&AppraisalKey::AppraisedValue],
        vec!["CNTASSDVAL".to_string()]
    );
    assert_eq!(
        file.counties[2].fields[&AppraisalKey::MarketValue],
        vec!["Total_Valu".to_string()]
    );
    // And the composition root's constructor takes it.
    from_file(&example_path(), DEFAULT_TIMEOUT).expect("adapter");
}

#[test]
fn a_minimal_county_gets_the_defaults() {
    let file = CountyFile::from_toml_str(GOOD, Duration::from_millis(1234)).expect("good");
    let c = &file.counties[0];
    assert_eq!(c.timeout, Duration::from_millis(1234));
    assert_eq!(c.parcel_id_type, ParcelIdType::String);
    assert_eq!(
        c.source,
        "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0"
    );
    assert_eq!(
        c.query_url(),
        "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0/query"
    );
    assert_eq!(file.settings.retries, 2);
    assert_eq!(file.settings.breaker_failures, 5);
    assert_eq!(file.settings.breaker_cooldown, Duration::from_secs(30));
}

#[test]
fn a_trailing_slash_on_the_layer_is_dropped() {
    let text = GOOD.replace("FeatureServer/0\"", "FeatureServer/0/\"");
    let file = CountyFile::from_toml_str(&text, DEFAULT_TIMEOUT).expect("good");
    assert!(file.counties[0]
        .query_url()
        .ends_with("/FeatureServer/0/query"));
}

#[test]
fn state_must_be_a_code() {
    refused(
        "state = \"TX\"",
        "state = \"Texas\"",
        &["county #1 (Travis, Texas)", "state", "Texas"],
    );
    refused(
        "state = \"TX\"\n",
        "",
        &["county #1 (Travis)", "state", "missing"],
    );
}

#[test]
fn fips_must_be_five_digits_in_the_state() {
    refused(
        "fips = \"48453\"",
        "fips = \"4845\"",
        &["county #1", "fips", "4845", "five-digit"],
    );
    refused(
        "fips = \"48453\"",
        "fips = \"40109\"",
        &["fips", "40109", "TX", "48"],
    );
}

#[test]
fn a_county_needs_a_name_or_fips() {
    refused(
        "county = \"Travis\"\nfips = \"48453\"\n",
        "",
        &["county #1", "county", "fips"],
    );
    // FIPS alone is enough.
    let text = GOOD.replacen("county = \"Travis\"\n", "", 1);
    CountyFile::from_toml_str(&text, DEFAULT_TIMEOUT).expect("fips only");
}

#[test]
fn layer_url_must_be_a_layer() {
    for (bad, why) in [
        (
            "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer",
            "FeatureServer/<layer id>",
        ),
        (
            "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0/query",
            "FeatureServer/<layer id>",
        ),
        (
            "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0?f=json",
            "without ?query",
        ),
        ("gis.example.org/TCAD/FeatureServer/0", "not a URL"),
        ("file:///etc/TCAD/MapServer/0", "http(s)"),
    ] {
        refused(
            "https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0",
            bad,
            &["county #1 (Travis, TX)", "layer_url", why],
        );
    }
    refused(
        "layer_url = \"https://gis.example.org/arcgis/rest/services/TCAD/FeatureServer/0\"\n",
        "",
        &["layer_url", "missing"],
    );
}

#[test]
fn attribute_names_must_be_identifiers() {
    refused(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID OR 1=1\"",
        &[
            "county #1 (Travis, TX)",
            "parcel_id_field",
            "not a valid attribute name",
        ],
    );
    refused(
        "parcel_id_field = \"PROP_ID\"\n",
        "",
        &["parcel_id_field", "missing"],
    );
    refused(
        "owner_name = \"py_owner_name\"",
        "owner_name = \"py owner\"",
        &["fields.owner_name", "py owner"],
    );
}

#[test]
fn field_keys_are_the_contract_keys() {
    refused(
        "owner_name = \"py_owner_name\"",
        "owner = \"py_owner_name\"",
        &[
            "county #1 (Travis, TX)",
            "fields.owner",
            "unknown key",
            "owner_name",
        ],
    );
    refused(
        "market_value = \"market_value\"",
        "market_value = [\"a\", \"b\"]",
        &["fields.market_value", "only text keys"],
    );
    refused(
        "owner_name = \"py_owner_name\"",
        "owner_name = []",
        &["fields.owner_name", "no attribute"],
    );
    refused(
        "[county.fields]\nowner_name = \"py_owner_name\"\nmarket_value = \"market_value\"\n",
        "",
        &["county #1", "fields", "maps no key"],
    );
}

#[test]
fn a_file_that_is_not_toml_is_one_line_naming_the_place() {
    let e = CountyFile::from_toml_str("root:x:0:0:root:/root:/bin/bash\n", DEFAULT_TIMEOUT)
        .expect_err("refused")
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("invalid TOML at line 1, column 32 (`root:x:0:0:root:/root:/bin/bash`): "),
        "{e}"
    );
}

#[test]
fn unknown_settings_and_keys_are_refused() {
    refused(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID\"\nlayer = \"x\"",
        &["invalid TOML", "layer"],
    );
    refused(
        "[[county]]",
        "[settings]\ntimeout = 5\n\n[[county]]",
        &["invalid TOML", "timeout"],
    );
    refused(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID\"\nparcel_id_type = \"int\"",
        &["invalid TOML", "parcel_id_type"],
    );
}

#[test]
fn timeouts_and_settings_are_bounded() {
    refused(
        "parcel_id_field = \"PROP_ID\"",
        "parcel_id_field = \"PROP_ID\"\ntimeout_ms = 0",
        &["county #1 (Travis, TX)", "timeout_ms", "0"],
    );
    refused(
        "[[county]]",
        "[settings]\nbreaker_failures = 0\n\n[[county]]",
        &["settings.breaker_failures"],
    );
    refused(
        "[[county]]",
        "[settings]\nretries = 50\n\n[[county]]",
        &["settings.retries", "50"],
    );
    refused(
        "[[county]]",
        "[settings]\nmax_concurrent = 0\n\n[[county]]",
        &["settings.max_concurrent"],
    );
}

#[test]
fn duplicate_counties_are_refused() {
    let twice = format!("{GOOD}\n{}", GOOD.replace("fips = \"48453\"\n", ""));
    let msg = CountyFile::from_toml_str(&twice, DEFAULT_TIMEOUT)
        .expect_err("duplicate name")
        .to_string();
    assert_mentions(&msg, &["county #2", "Travis", "county #1"]);
    let same_fips = format!("{GOOD}\n{}", GOOD.replace("county = \"Travis\"\n", ""));
    let msg = CountyFile::from_toml_str(&same_fips, DEFAULT_TIMEOUT)
        .expect_err("duplicate fips")
        .to_string();
    assert_mentions(&msg, &["county #2", "48453", "county #1"]);
    // "Travis County" is the same county as "Travis".
    let suffixed = format!(
        "{GOOD}\n{}",
        GOOD.replace("fips = \"48453\"\n", "")
            .replace("\"Travis\"", "\"travis county\"")
    );
    assert!(CountyFile::from_toml_str(&suffixed, DEFAULT_TIMEOUT).is_err());
}

#[test]
fn empty_and_unreadable_files_are_refused() {
    let msg = CountyFile::from_toml_str("", DEFAULT_TIMEOUT)
        .expect_err("empty")
        .to_string();
    assert_mentions(&msg, &["no counties"]);
    let msg = CountyFile::from_toml_str("[[county]\n", DEFAULT_TIMEOUT)
        .expect_err("syntax")
        .to_string();
    assert_mentions(&msg, &["invalid TOML"]);
    let missing = PathBuf::from("/nonexistent/leadhub-counties.toml");
    let msg = CountyFile::from_file(&missing, DEFAULT_TIMEOUT)
        .expect_err("missing")
        .to_string();
    assert_mentions(&msg, &["/nonexistent/leadhub-counties.toml"]);
    let msg = match from_file(&missing, DEFAULT_TIMEOUT) {
        Ok(_) => panic!("loaded a missing file"),
        Err(e) => e.to_string(),
    };
    assert_mentions(&msg, &["cannot read county file"]);
}
