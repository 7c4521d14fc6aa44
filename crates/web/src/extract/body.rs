//! `ValidatedJson<T>`: the body read within the size limit, parsed as JSON, then read into `T`
//! with every problem collected.
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt;
use serde_json::Value;

use leadhub_domain::error::{FieldError, LocPart};

use crate::error::ApiError;

/// Deepest JSON nesting accepted; no request of this API needs more than a handful of levels,
/// and a bound keeps hostile documents from costing stack or time.
pub const MAX_DEPTH: usize = 32;

/// The whole body must arrive within this time (8 MiB at about 1.2 Mbit/s).
const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// A request body type read from a JSON value.
pub trait FromBody: Sized {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>>;

    /// Like `from_body`, with the body's text at hand, for types that keep parts of it exactly
    /// as sent (lead submissions are stored verbatim).
    fn from_body_text(value: &Value, _text: &[u8]) -> Result<Self, Vec<FieldError>> {
        Self::from_body(value)
    }

    /// A faster reading straight from the text, for large bodies of the usual shape; `None`
    /// whenever it could answer differently from `from_body_text` (which then reads the body).
    fn from_text(_text: &web::Bytes) -> Option<Result<Self, Vec<FieldError>>> {
        None
    }

    /// Whether an empty body means `{}` (every field optional) rather than a missing body.
    fn empty_is_object() -> bool {
        false
    }
}

/// The validated body plus the body it came from.
pub struct ValidatedJson<T> {
    pub value: T,
    pub raw: RawBody,
}

/// A request's body as received, for what needs it whole (an Idempotency-Key's request hash).
pub struct RawBody {
    /// The parsed body; `None` when `FromBody::from_text` read it without parsing it whole.
    json: Option<Value>,
    text: web::Bytes,
}

impl RawBody {
    /// The body as JSON (parsed now if it was read straight from its text).
    pub fn json(&self) -> Value {
        match &self.json {
            Some(json) => json.clone(),
            None => serde_json::from_slice(&self.text).unwrap_or(Value::Null),
        }
    }
}

/// The largest body accepted, in bytes; registered as app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

impl<T: FromBody + 'static> FromRequest for ValidatedJson<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let limit = req
            .app_data::<web::Data<BodyLimit>>()
            .map(|l| l.0)
            .unwrap_or(8 << 20);
        let declared = req
            .headers()
            .get(actix_web::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|n| n > limit) {
                return Err(ApiError::PayloadTooLarge);
            }
            let read = async {
                let mut body = web::BytesMut::new();
                while let Some(chunk) = payload.next().await {
                    let chunk = chunk.map_err(|e| match e {
                        actix_web::error::PayloadError::Overflow => ApiError::PayloadTooLarge,
                        _ => ApiError::Validation(vec![FieldError::new(
                            vec![LocPart::from("body")],
                            "json_invalid",
                            "The request body could not be read",
                        )]),
                    })?;
                    if body.len() + chunk.len() > limit {
                        return Err(ApiError::PayloadTooLarge);
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(body)
            };
            // actix bounds the time to send headers, not the body: a trickling body would
            // otherwise hold a worker's connection slot indefinitely.
            let body = tokio::time::timeout(BODY_READ_TIMEOUT, read)
                .await
                .map_err(|_| ApiError::RequestTimeout)??;
            let body = body.freeze();
            if let Some(read) = T::from_text(&body) {
                let value = read.map_err(ApiError::Validation)?;
                return Ok(ValidatedJson {
                    value,
                    raw: RawBody {
                        json: None,
                        text: body,
                    },
                });
            }
            let json = if T::empty_is_object() && body.iter().all(u8::is_ascii_whitespace) {
                Value::Object(serde_json::Map::new())
            } else {
                parse_json_body(&body).map_err(ApiError::Validation)?
            };
            let value = T::from_body_text(&json, &body).map_err(ApiError::Validation)?;
            Ok(ValidatedJson {
                value,
                raw: RawBody {
                    json: Some(json),
                    text: body,
                },
            })
        })
    }
}

/// Parses a body into JSON, answering FastAPI's shapes: an empty body is a missing body,
/// malformed JSON is `json_invalid` at its byte offset.
pub fn parse_json_body(body: &[u8]) -> Result<Value, Vec<FieldError>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(vec![FieldError::new(
            vec![LocPart::from("body")],
            "missing",
            "Field required",
        )]);
    }
    let json: Value = serde_json::from_slice(body).map_err(|e| {
        let offset = byte_offset(body, e.line(), e.column());
        vec![FieldError::new(
            vec![LocPart::from("body"), LocPart::Index(offset)],
            "json_invalid",
            format!("JSON decode error: {}", describe(&e)),
        )]
    })?;
    if depth(&json) > MAX_DEPTH {
        return Err(vec![FieldError::new(
            vec![LocPart::from("body")],
            "json_invalid",
            format!("JSON nested deeper than {MAX_DEPTH} levels"),
        )]);
    }
    Ok(json)
}

/// serde_json's message without its " at line L column C" tail (the offset says where).
fn describe(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.find(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// serde_json reports 1-based line and column; FastAPI reports a byte offset.
fn byte_offset(body: &[u8], line: usize, column: usize) -> usize {
    let line_start: usize = body
        .split(|b| *b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    (line_start + column.saturating_sub(1)).min(body.len())
}

/// How deeply `value` nests: 0 for a scalar, 1 for a flat array or object.
pub fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_points_at_the_byte() {
        let e = parse_json_body(b"{\n  \"a\": 1,\n  \"b\": }").unwrap_err();
        assert_eq!(e[0].kind, "json_invalid");
        assert_eq!(e[0].loc[1], LocPart::Index(19));
    }

    #[test]
    fn empty_body_is_missing() {
        let e = parse_json_body(b"  ").unwrap_err();
        assert_eq!(e[0].kind, "missing");
        assert_eq!(e[0].loc, vec![LocPart::from("body")]);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(40) + &"]".repeat(40);
        let e = parse_json_body(deep.as_bytes()).unwrap_err();
        assert_eq!(e[0].kind, "json_invalid");
        assert!(parse_json_body(b"{\"a\":[{\"b\":1}]}").is_ok());
    }
}
