//! The ArcGIS REST `query` operation: building the two kinds of request, reading the answer, retrying what is
//! worth retrying. Response shapes are the ones recorded in `shared/fixtures/arcgis`.

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use leadhub_domain::enrich::{said, EnrichError};
use leadhub_domain::error::with_causes;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::ParcelIdType;

/// Longest parcel id accepted; real ones are 6 to 20 characters.
const MAX_PARCEL_ID_LEN: usize = 64;
/// The backoff stops doubling here, whatever `retries` says (jitter adds up to as much again).
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Why a parcel number was not turned into a `where` clause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnsafeParcelId {
    #[error("parcel number is empty")]
    Empty,
    #[error("parcel number is longer than {MAX_PARCEL_ID_LEN} characters")]
    TooLong,
    #[error("parcel number has a character outside letters, digits, space, - . / _ and '")]
    Character,
    #[error("parcel number is not a whole number, as this layer's parcel-id field needs")]
    NotNumeric,
}

/// `FIELD='value'` with single quotes doubled, or `FIELD=123` for a numeric field. The value is limited to a small
/// set of characters first: quoting alone is not trusted with whatever a lead form sent.
pub fn parcel_where(
    field: &str,
    kind: ParcelIdType,
    value: &str,
) -> Result<String, UnsafeParcelId> {
    let value = value.trim();
    if value.is_empty() {
        return Err(UnsafeParcelId::Empty);
    }
    if value.chars().count() > MAX_PARCEL_ID_LEN {
        return Err(UnsafeParcelId::TooLong);
    }
    match kind {
        ParcelIdType::String => {
            let safe = value.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '.' | '/' | '_' | '\'')
            });
            if !safe {
                return Err(UnsafeParcelId::Character);
            }
            Ok(format!("{field}='{}'", value.replace('\'', "''")))
        }
        ParcelIdType::Number => {
            if !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err(UnsafeParcelId::NotNumeric);
            }
            // Leading zeros would make some servers read the literal as octal or a string; drop them.
            let digits = value.trim_start_matches('0');
            Ok(format!(
                "{field}={}",
                if digits.is_empty() { "0" } else { digits }
            ))
        }
    }
}

/// Query parameters for a lookup by parcel id.
pub fn where_params(where_clause: String) -> Vec<(&'static str, String)> {
    vec![
        ("where", where_clause),
        ("outFields", "*".into()),
        ("returnGeometry", "false".into()),
        ("f", "json".into()),
    ]
}

/// Query parameters for a point-in-parcel lookup. ArcGIS wants x,y = longitude,latitude, and the layer is often in
/// a state-plane projection, so the point's WGS 84 reference is always sent.
pub fn point_params(latitude: f64, longitude: f64) -> Vec<(&'static str, String)> {
    vec![
        ("geometry", format!("{longitude},{latitude}")),
        ("geometryType", "esriGeometryPoint".into()),
        ("inSR", "4326".into()),
        ("spatialRel", "esriSpatialRelIntersects".into()),
        ("outFields", "*".into()),
        ("returnGeometry", "false".into()),
        ("f", "json".into()),
    ]
}

/// The parts of a query answer this adapter reads.
#[derive(Debug, Deserialize)]
struct QueryResponse {
    features: Option<Vec<Feature>>,
    error: Option<ArcgisError>,
}

#[derive(Debug, Deserialize)]
struct Feature {
    #[serde(default)]
    attributes: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
struct ArcgisError {
    code: Option<i64>,
    message: Option<String>,
    #[serde(default)]
    details: Vec<Value>,
}

/// How one attempt went wrong: what a warning may say (in words), then the cause for the log.
#[derive(Debug)]
pub(crate) enum AttemptError {
    Timeout,
    /// A 5xx (as an HTTP status or as the `error.code` inside a 200): worth another try.
    Retryable(String, String),
    /// Anything else: trying again would get the same answer.
    Fatal(String, String),
}

impl AttemptError {
    /// The full cause, for the log only (it may quote the layer's own error text).
    pub(crate) fn cause(&self) -> &str {
        match self {
            AttemptError::Timeout => "no answer in time",
            AttemptError::Retryable(_, cause) | AttemptError::Fatal(_, cause) => cause,
        }
    }

    /// What the warning says: `source`, then what happened in words.
    pub(crate) fn for_people(self, source: &str, within: Duration) -> EnrichError {
        match self {
            AttemptError::Timeout => EnrichError::Timeout {
                provider: source.to_owned(),
                within,
            },
            AttemptError::Retryable(what, _) | AttemptError::Fatal(what, _) => {
                EnrichError::failed(source, &what)
            }
        }
    }
}

/// How to call one layer.
pub(crate) struct CallPolicy {
    pub timeout: Duration,
    pub retries: u32,
    pub retry_backoff: Duration,
}

/// Runs a query with retries for timeouts and 5xx; the attributes of the first feature, `None` for no feature.
pub(crate) async fn query(
    client: &reqwest::Client,
    url: &str,
    params: &[(&'static str, String)],
    policy: &CallPolicy,
) -> Result<Option<Map<String, Value>>, AttemptError> {
    let backoff = ExponentialBuilder::new()
        .with_min_delay(policy.retry_backoff)
        .with_factor(2.0)
        .with_max_delay(MAX_BACKOFF)
        .with_max_times(policy.retries as usize)
        .with_jitter();
    (|| query_once(client, url, params, policy.timeout))
        .retry(backoff)
        .when(|e| !matches!(e, AttemptError::Fatal(..)))
        .notify(|e, backoff| {
            tracing::debug!(
                url,
                error = e.cause(),
                backoff_ms = u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                "appraisal query failed; retrying"
            );
        })
        .await
}

async fn query_once(
    client: &reqwest::Client,
    url: &str,
    params: &[(&'static str, String)],
    timeout: Duration,
) -> Result<Option<Map<String, Value>>, AttemptError> {
    let response = client
        .get(url)
        .query(params)
        .timeout(timeout)
        .send()
        .await
        .map_err(transport_error)?;
    let status = response.status();
    if status.is_server_error() {
        let what = said::trouble(status.as_u16());
        return Err(AttemptError::Retryable(what, format!("HTTP {status}")));
    }
    if !status.is_success() {
        let what = said::refused(status.as_u16());
        return Err(AttemptError::Fatal(what, format!("HTTP {status}")));
    }
    let body = response.bytes().await.map_err(transport_error)?;
    parse_answer(&body)
}

fn transport_error(e: reqwest::Error) -> AttemptError {
    if e.is_timeout() {
        AttemptError::Timeout
    } else {
        // Connection refused, TLS, DNS: not in the retry policy (timeouts and 5xx only). `without_url` keeps the
        // query string, which carries lead data, out of the message.
        let e = e.without_url();
        let msg = format!("request failed: {}", with_causes(&e));
        AttemptError::Fatal(said::UNREACHABLE.into(), msg)
    }
}

fn parse_answer(body: &[u8]) -> Result<Option<Map<String, Value>>, AttemptError> {
    let answer: QueryResponse = serde_json::from_slice(body).map_err(|e| {
        AttemptError::Fatal(
            said::UNREADABLE.into(),
            format!("malformed ArcGIS response: {e}"),
        )
    })?;
    if let Some(err) = answer.error {
        let code = err.code.unwrap_or_default();
        let mut msg = format!(
            "ArcGIS error {code}: {}",
            err.message.as_deref().unwrap_or("no message")
        );
        let details: Vec<String> = err
            .details
            .iter()
            .filter_map(|d| d.as_str().map(str::to_string))
            .filter(|d| !d.is_empty())
            .collect();
        if !details.is_empty() {
            msg.push_str(&format!(" ({})", details.join("; ")));
        }
        return Err(if code >= 500 {
            AttemptError::Retryable(format!("answered with an error (ArcGIS {code})"), msg)
        } else {
            AttemptError::Fatal(format!("refused the request (ArcGIS {code})"), msg)
        });
    }
    let Some(features) = answer.features else {
        return Err(AttemptError::Fatal(
            said::UNREADABLE.into(),
            "malformed ArcGIS response: neither features nor error".into(),
        ));
    };
    if features.len() > 1 {
        // A point on a shared boundary, or stacked condo records: the contract has one appraisal per lead, and
        // the first is what the layer ranks first.
        tracing::debug!(
            count = features.len(),
            "several parcels matched; using the first"
        );
    }
    Ok(features
        .into_iter()
        .next()
        .map(|f| f.attributes.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_clauses_quote_and_refuse() {
        use ParcelIdType::{Number, String as Text};
        use UnsafeParcelId::{Character, Empty, NotNumeric, TooLong};
        for (field, kind, value, clause) in [
            ("PROP_ID", Text, " 102345 ", "PROP_ID='102345'"),
            ("geo_id", Text, "O'BRIEN-1", "geo_id='O''BRIEN-1'"),
            ("P", Number, "00102345", "P=102345"),
        ] {
            assert_eq!(parcel_where(field, kind, value), Ok(clause.to_owned()));
        }
        let too_long = "1".repeat(65);
        for (kind, value, why) in [
            (Text, "1' OR '1'='1", Character),
            (Text, "1;--", Character),
            (Text, "%", Character),
            (Text, "  ", Empty),
            (Text, too_long.as_str(), TooLong),
            (Number, "12A", NotNumeric),
        ] {
            assert_eq!(parcel_where("P", kind, value), Err(why), "{value:?}");
        }
    }

    #[test]
    fn the_escape_keeps_the_literal_closed() {
        // Whatever passes the filter, the clause has exactly one unescaped quote pair around the value.
        let w = parcel_where("F", ParcelIdType::String, "a'b''c'").unwrap_or_default();
        let inner = &w["F='".len()..w.len() - 1];
        assert!(inner.replace("''", "").find('\'').is_none(), "{w}");
    }

    #[test]
    fn point_params_put_longitude_first() {
        let p = point_params(30.2781, -97.7583);
        assert!(p.contains(&("geometry", "-97.7583,30.2781".to_string())));
        assert!(p.contains(&("inSR", "4326".to_string())));
    }

    #[test]
    fn error_objects_fail_and_5xx_codes_are_retryable() {
        let e = parse_answer(br#"{"error":{"code":400,"message":"Bad","details":["x"]}}"#);
        assert!(matches!(e, Err(AttemptError::Fatal(_, m)) if m == "ArcGIS error 400: Bad (x)"));
        let e = parse_answer(br#"{"error":{"code":504,"message":"Gateway"}}"#);
        assert!(matches!(e, Err(AttemptError::Retryable(..))));
        assert!(matches!(parse_answer(b"{}"), Err(AttemptError::Fatal(..))));
        assert!(matches!(parse_answer(br#"{"features":[]}"#), Ok(None)));
    }
}
