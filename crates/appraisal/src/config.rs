//! The county file (`LEADHUB_COUNTIES`, TOML): which ArcGIS parcel layer answers for which county, and how its
//! attribute names map onto the contract's `appraisal` keys. Documented for operators in `docs/counties.md`.
//!
//! Everything is checked once at load, so a bad file stops start-up with a message that names the county and the
//! field, instead of turning into a warning on every lead.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use leadhub_domain::parse::StateCode;
use serde::Deserialize;
use strum::VariantNames;
use url::Url;

/// Defaults for `[settings]`; the per-request timeout default comes from the caller (`from_file`).
const DEFAULT_RETRIES: u32 = 2;
const DEFAULT_RETRY_BACKOFF_MS: u64 = 250;
const DEFAULT_BREAKER_FAILURES: u32 = 5;
const DEFAULT_BREAKER_COOLDOWN_MS: u64 = 30_000;
const DEFAULT_MAX_CONCURRENT: usize = 4;
/// A layer that needs longer than this is down as far as a lead submission is concerned.
const MAX_TIMEOUT_MS: u64 = 120_000;
const MAX_RETRIES: u32 = 10;

/// A county file that failed to load; the message says where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

impl ConfigError {
    fn new(msg: impl Into<String>) -> Self {
        ConfigError(msg.into())
    }
}

/// The contract's `appraisal` keys (section 4.2) that a county maps to layer attributes. `source` and `raw` are
/// filled by the adapter and are not mappable. Written in snake case (`account_id`), in this order.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::VariantNames,
)]
#[strum(serialize_all = "snake_case")]
pub enum AppraisalKey {
    AccountId,
    OwnerName,
    MailingAddress,
    MarketValue,
    AppraisedValue,
    LandValue,
    ImprovementValue,
    YearBuilt,
    LivingAreaSqft,
    LandAcres,
    LegalDescription,
}

/// How a key's value is read from the attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A string; several attributes are joined with ", ".
    Text,
    /// A number; numeric strings ("$812,500") are coerced.
    Number,
    /// A four-digit year; 0 and other placeholders become null.
    Year,
}

impl AppraisalKey {
    /// The key as it appears in the `appraisal` object and in the county file's `fields` table.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn kind(self) -> ValueKind {
        match self {
            AppraisalKey::AccountId
            | AppraisalKey::OwnerName
            | AppraisalKey::MailingAddress
            | AppraisalKey::LegalDescription => ValueKind::Text,
            AppraisalKey::YearBuilt => ValueKind::Year,
            AppraisalKey::MarketValue
            | AppraisalKey::AppraisedValue
            | AppraisalKey::LandValue
            | AppraisalKey::ImprovementValue
            | AppraisalKey::LivingAreaSqft
            | AppraisalKey::LandAcres => ValueKind::Number,
        }
    }
}

/// How the parcel-id value is written into the `where` clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParcelIdType {
    /// `FIELD='value'` (the usual case, and what the ArcGIS docs show).
    #[default]
    String,
    /// `FIELD=123`, for integer fields on servers that refuse to compare them with a quoted literal.
    Number,
}

/// Settings shared by every county (`[settings]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Per-request timeout for counties that do not set their own.
    pub timeout: Duration,
    /// Extra attempts after a timeout or a 5xx; other failures are not retried.
    pub retries: u32,
    /// Wait before the first retry; doubled on each further one up to 5 s, plus up to as much again of jitter.
    pub retry_backoff: Duration,
    /// Consecutive failed lookups on a layer that open its circuit.
    pub breaker_failures: u32,
    /// How long an open circuit refuses calls before it lets one probe through (half-open).
    pub breaker_cooldown: Duration,
    /// Requests in flight per layer at most.
    pub max_concurrent: usize,
}

/// One county, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct County {
    /// What the `appraisal.source` says: the `source` label, else the layer URL.
    pub source: String,
    pub state: StateCode,
    /// The county name as written in the file (e.g. "Travis").
    pub county: Option<String>,
    /// Five-digit state + county FIPS code (e.g. "48453").
    pub fips: Option<String>,
    /// The layer (`.../FeatureServer/N` or `.../MapServer/N`), without a trailing slash.
    pub layer_url: Url,
    pub parcel_id_field: String,
    pub parcel_id_type: ParcelIdType,
    pub timeout: Duration,
    /// Attribute names per key; several names are joined (text keys only).
    pub fields: BTreeMap<AppraisalKey, Vec<String>>,
}

impl County {
    /// The county name reduced for matching: lower case, single spaces, no "County"/"Parish"/"Borough" suffix.
    pub fn name_key(&self) -> Option<String> {
        self.county.as_deref().map(county_name_key)
    }

    /// `{layer}/query`.
    pub fn query_url(&self) -> String {
        format!("{}/query", self.layer_url.as_str().trim_end_matches('/'))
    }
}

/// A loaded county file.
#[derive(Debug, Clone, PartialEq)]
pub struct CountyFile {
    pub settings: Settings,
    pub counties: Vec<County>,
}

impl CountyFile {
    /// Reads and validates a county file; `default_timeout` applies where the file sets none.
    pub fn from_file(path: &Path, default_timeout: Duration) -> Result<CountyFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ConfigError::new(format!("cannot read county file {}: {e}", path.display()))
        })?;
        CountyFile::from_toml_str(&text, default_timeout)
            .map_err(|e| ConfigError::new(format!("county file {}: {e}", path.display())))
    }

    /// Parses and validates a county file's text.
    pub fn from_toml_str(text: &str, default_timeout: Duration) -> Result<CountyFile, ConfigError> {
        // One line (the start refuses with one line): the parser's own text draws the source.
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| place(text, s.start)).unwrap_or_default();
            ConfigError::new(format!("invalid TOML{at}: {}", e.message().trim_end()))
        })?;
        let settings = raw.settings.validate(default_timeout)?;
        if raw.counties.is_empty() {
            return Err(ConfigError::new(
                "no counties: add at least one [[county]] table (or leave LEADHUB_COUNTIES unset)",
            ));
        }
        let mut counties = Vec::with_capacity(raw.counties.len());
        for (i, c) in raw.counties.into_iter().enumerate() {
            counties.push(c.validate(i + 1, &settings)?);
        }
        check_duplicates(&counties)?;
        Ok(CountyFile { settings, counties })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    settings: RawSettings,
    #[serde(default, rename = "county")]
    counties: Vec<RawCounty>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    timeout_ms: Option<u64>,
    retries: Option<u32>,
    retry_backoff_ms: Option<u64>,
    breaker_failures: Option<u32>,
    breaker_cooldown_ms: Option<u64>,
    max_concurrent: Option<usize>,
}

impl RawSettings {
    fn validate(self, default_timeout: Duration) -> Result<Settings, ConfigError> {
        let timeout = match self.timeout_ms {
            Some(ms) => timeout_from_ms(ms, "settings.timeout_ms")?,
            None => default_timeout,
        };
        let retries = self.retries.unwrap_or(DEFAULT_RETRIES);
        if retries > MAX_RETRIES {
            return Err(ConfigError::new(format!(
                "settings.retries: {retries} is more than {MAX_RETRIES}"
            )));
        }
        let breaker_failures = self.breaker_failures.unwrap_or(DEFAULT_BREAKER_FAILURES);
        if breaker_failures == 0 {
            return Err(ConfigError::new(
                "settings.breaker_failures: must be at least 1",
            ));
        }
        let max_concurrent = self.max_concurrent.unwrap_or(DEFAULT_MAX_CONCURRENT);
        if max_concurrent == 0 {
            return Err(ConfigError::new(
                "settings.max_concurrent: must be at least 1",
            ));
        }
        Ok(Settings {
            timeout,
            retries,
            retry_backoff: Duration::from_millis(
                self.retry_backoff_ms.unwrap_or(DEFAULT_RETRY_BACKOFF_MS),
            ),
            breaker_failures,
            breaker_cooldown: Duration::from_millis(
                self.breaker_cooldown_ms
                    .unwrap_or(DEFAULT_BREAKER_COOLDOWN_MS),
            ),
            max_concurrent,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCounty {
    source: Option<String>,
    state: Option<String>,
    county: Option<String>,
    fips: Option<String>,
    layer_url: Option<String>,
    parcel_id_field: Option<String>,
    #[serde(default)]
    parcel_id_type: ParcelIdType,
    timeout_ms: Option<u64>,
    #[serde(default)]
    fields: BTreeMap<String, FieldRef>,
}

/// One attribute name, or several to join (`mailing_address = ["Owner_Addr", "Owner_City", "Owner_Zip"]`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum FieldRef {
    One(String),
    Many(Vec<String>),
}

impl RawCounty {
    fn validate(self, index: usize, settings: &Settings) -> Result<County, ConfigError> {
        // Name the county the way the operator wrote it, so the message points at the right table.
        let label = match (&self.county, &self.fips, &self.state) {
            (Some(name), _, Some(st)) => format!("county #{index} ({name}, {st})"),
            (Some(name), _, None) => format!("county #{index} ({name})"),
            (None, Some(fips), _) => format!("county #{index} (FIPS {fips})"),
            (None, None, _) => format!("county #{index}"),
        };
        let err = |field: &str, msg: String| ConfigError::new(format!("{label}: {field}: {msg}"));

        let state_raw = self
            .state
            .as_deref()
            .ok_or_else(|| err("state", "missing (a two-letter code such as \"TX\")".into()))?;
        let state = StateCode::parse(state_raw).ok_or_else(|| {
            err(
                "state",
                format!("{state_raw:?} is not a two-letter US state code"),
            )
        })?;

        let county = match self.county.as_deref().map(str::trim) {
            Some("") => return Err(err("county", "is empty".into())),
            Some(name) => {
                if !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || " .'-".contains(c))
                {
                    return Err(err("county", format!("{name:?} has unexpected characters")));
                }
                Some(name.to_string())
            }
            None => None,
        };

        let fips = match self.fips.as_deref().map(str::trim) {
            Some(f) => {
                if f.len() != 5 || !f.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err(
                        "fips",
                        format!("{f:?} is not a five-digit county FIPS code"),
                    ));
                }
                if let Some(prefix) = state_fips(state) {
                    if &f[..2] != prefix {
                        return Err(err(
                            "fips",
                            format!(
                                "{f} is not in {state} (FIPS codes of {state} counties start with {prefix})"
                            ),
                        ));
                    }
                }
                Some(f.to_string())
            }
            None => None,
        };
        if county.is_none() && fips.is_none() {
            return Err(err(
                "county",
                "set the county name, the five-digit fips code, or both".into(),
            ));
        }

        let layer_raw = self
            .layer_url
            .as_deref()
            .ok_or_else(|| err("layer_url", "missing".into()))?;
        let layer_url = parse_layer_url(layer_raw).map_err(|m| err("layer_url", m))?;

        let parcel_id_field = self
            .parcel_id_field
            .as_deref()
            .ok_or_else(|| err("parcel_id_field", "missing".into()))?;
        check_attribute_name(parcel_id_field).map_err(|m| err("parcel_id_field", m))?;

        let timeout = match self.timeout_ms {
            Some(ms) => timeout_from_ms(ms, "timeout_ms").map_err(|e| err("timeout_ms", e.0))?,
            None => settings.timeout,
        };

        let mut fields = BTreeMap::new();
        for (key, names) in self.fields {
            let path = format!("fields.{key}");
            let Ok(k) = key.parse::<AppraisalKey>() else {
                return Err(err(
                    &path,
                    format!(
                        "unknown key; the keys are {}",
                        AppraisalKey::VARIANTS.join(", ")
                    ),
                ));
            };
            let names = match names {
                FieldRef::One(n) => vec![n],
                FieldRef::Many(v) => v,
            };
            if names.is_empty() {
                return Err(err(&path, "lists no attribute".into()));
            }
            if names.len() > 1 && k.kind() != ValueKind::Text {
                return Err(err(
                    &path,
                    "only text keys (account_id, owner_name, mailing_address, legal_description) may join several attributes".into(),
                ));
            }
            for n in &names {
                check_attribute_name(n).map_err(|m| err(&path, m))?;
            }
            fields.insert(k, names);
        }
        if fields.is_empty() {
            return Err(err(
                "fields",
                "maps no key: add a [county.fields] table (e.g. owner_name = \"OWNER\")".into(),
            ));
        }

        let source = match self.source.as_deref().map(str::trim) {
            Some("") => {
                return Err(err(
                    "source",
                    "is empty (leave it out to use the layer URL)".into(),
                ))
            }
            Some(s) => s.to_string(),
            None => layer_url.to_string(),
        };

        Ok(County {
            source,
            state,
            county,
            fips,
            layer_url,
            parcel_id_field: parcel_id_field.to_string(),
            parcel_id_type: self.parcel_id_type,
            timeout,
            fields,
        })
    }
}

fn timeout_from_ms(ms: u64, what: &str) -> Result<Duration, ConfigError> {
    if ms == 0 || ms > MAX_TIMEOUT_MS {
        return Err(ConfigError::new(format!(
            "{what}: {ms} is outside 1..={MAX_TIMEOUT_MS} milliseconds"
        )));
    }
    Ok(Duration::from_millis(ms))
}

/// An `http(s)` URL whose path ends in `/FeatureServer/N` or `/MapServer/N`, without query or fragment.
fn parse_layer_url(raw: &str) -> Result<Url, String> {
    let trimmed = raw.trim().trim_end_matches('/');
    let url = Url::parse(trimmed).map_err(|e| format!("{raw:?} is not a URL ({e})"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!("{raw:?} is not an http(s) URL"));
    }
    if url.host_str().is_none() {
        return Err(format!("{raw:?} has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{raw:?} must be the layer itself, without ?query or #fragment"
        ));
    }
    let mut segments = url.path().rsplit('/');
    let layer = segments.next().unwrap_or_default();
    let service = segments.next().unwrap_or_default();
    let is_layer_id = !layer.is_empty() && layer.bytes().all(|b| b.is_ascii_digit());
    if !is_layer_id || (service != "FeatureServer" && service != "MapServer") {
        return Err(format!(
            "{raw:?} must end in /FeatureServer/<layer id> or /MapServer/<layer id>"
        ));
    }
    Ok(url)
}

/// Attribute names go into `where` clauses unquoted, so only identifier characters (and the dot of a qualified
/// name such as `TAD.Owner_Name`) are allowed.
fn check_attribute_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        || name.len() > 128
    {
        return Err(format!(
            "{name:?} is not a valid attribute name (letters, digits, '_' and '.', starting with a letter or '_')"
        ));
    }
    Ok(())
}

/// Two tables for the same county would make routing depend on file order: refuse them.
fn check_duplicates(counties: &[County]) -> Result<(), ConfigError> {
    let mut by_fips: HashMap<&str, usize> = HashMap::new();
    let mut by_name: HashMap<(StateCode, String), usize> = HashMap::new();
    for (i, c) in counties.iter().enumerate() {
        if let Some(f) = c.fips.as_deref() {
            if let Some(first) = by_fips.insert(f, i) {
                return Err(ConfigError::new(format!(
                    "county #{}: fips: {f} is already used by county #{}",
                    i + 1,
                    first + 1
                )));
            }
        }
        if let Some(name) = c.name_key() {
            if let Some(first) = by_name.insert((c.state, name), i) {
                return Err(ConfigError::new(format!(
                    "county #{}: county: {} ({}) is already configured by county #{}",
                    i + 1,
                    c.county.as_deref().unwrap_or_default(),
                    c.state,
                    first + 1
                )));
            }
        }
    }
    Ok(())
}

/// "Travis", "travis county", " TRAVIS  County " -> "travis".
pub fn county_name_key(name: &str) -> String {
    let words: Vec<String> = name.split_whitespace().map(str::to_lowercase).collect();
    let mut joined = words.join(" ");
    for suffix in [
        " county",
        " parish",
        " borough",
        " census area",
        " municipality",
    ] {
        if joined.len() > suffix.len() && joined.ends_with(suffix) {
            joined.truncate(joined.len() - suffix.len());
            break;
        }
    }
    joined
}

/// The two-digit state FIPS prefix of every county in a state (None for UM, which has no counties).
fn state_fips(state: StateCode) -> Option<&'static str> {
    const TABLE: [(&str, &str); 56] = [
        ("AL", "01"),
        ("AK", "02"),
        ("AZ", "04"),
        ("AR", "05"),
        ("CA", "06"),
        ("CO", "08"),
        ("CT", "09"),
        ("DE", "10"),
        ("DC", "11"),
        ("FL", "12"),
        ("GA", "13"),
        ("HI", "15"),
        ("ID", "16"),
        ("IL", "17"),
        ("IN", "18"),
        ("IA", "19"),
        ("KS", "20"),
        ("KY", "21"),
        ("LA", "22"),
        ("ME", "23"),
        ("MD", "24"),
        ("MA", "25"),
        ("MI", "26"),
        ("MN", "27"),
        ("MS", "28"),
        ("MO", "29"),
        ("MT", "30"),
        ("NE", "31"),
        ("NV", "32"),
        ("NH", "33"),
        ("NJ", "34"),
        ("NM", "35"),
        ("NY", "36"),
        ("NC", "37"),
        ("ND", "38"),
        ("OH", "39"),
        ("OK", "40"),
        ("OR", "41"),
        ("PA", "42"),
        ("RI", "44"),
        ("SC", "45"),
        ("SD", "46"),
        ("TN", "47"),
        ("TX", "48"),
        ("UT", "49"),
        ("VT", "50"),
        ("VA", "51"),
        ("WA", "53"),
        ("WV", "54"),
        ("WI", "55"),
        ("WY", "56"),
        ("AS", "60"),
        ("GU", "66"),
        ("MP", "69"),
        ("PR", "72"),
        ("VI", "78"),
    ];
    TABLE
        .iter()
        .find(|(code, _)| *code == state.as_str())
        .map(|(_, prefix)| *prefix)
}

/// ` at line L, column C (`the line`)` of byte `offset` of `text`: the line names the key.
fn place(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let said: String = text
        .lines()
        .nth(line - 1)
        .unwrap_or("")
        .trim()
        .chars()
        .take(80)
        .collect();
    format!(" at line {line}, column {column} (`{said}`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn county_names_match_with_or_without_suffix() {
        for (name, key) in [
            ("Travis", "travis"),
            ("  TRAVIS   County ", "travis"),
            ("St. Tammany Parish", "st. tammany"),
            ("County", "county"),
        ] {
            assert_eq!(county_name_key(name), key, "{name:?}");
        }
    }

    #[test]
    fn layer_urls_must_name_a_layer() {
        let services = "https://x.example/arcgis/rest/services/P";
        for layer in ["FeatureServer/0", "MapServer/12/"] {
            assert!(
                parse_layer_url(&format!("{services}/{layer}")).is_ok(),
                "{layer}"
            );
        }
        for layer in ["MapServer", "ImageServer/0"] {
            assert!(
                parse_layer_url(&format!("{services}/{layer}")).is_err(),
                "{layer}"
            );
        }
        for url in [
            "ftp://x.example/P/MapServer/0",
            "https://x.example/P/MapServer/0?f=json",
        ] {
            assert!(parse_layer_url(url).is_err(), "{url}");
        }
    }

    #[test]
    fn every_state_but_um_has_a_fips_prefix() {
        for s in StateCode::all() {
            assert_eq!(state_fips(s).is_some(), s.as_str() != "UM", "{s}");
        }
    }

    #[test]
    fn attribute_names_are_identifiers() {
        for name in ["PROP_ID", "TAD.Owner_Name", "_x1"] {
            assert!(check_attribute_name(name).is_ok(), "{name:?}");
        }
        for name in ["1abc", "a b", "a'--", ""] {
            assert!(check_attribute_name(name).is_err(), "{name:?}");
        }
    }
}
