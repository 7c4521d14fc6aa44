//! `ValidatedJson<T>`: the body read within the size limit and time, checked as JSON, read by
//! serde into `T`, then validated by `T`'s rules, every problem collected.
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt;
use schemars::schema::Schema as JsonSchemaNode;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use validator::Validate;

use leadhub_domain::error::{FieldError, LocPart};

use crate::error::ApiError;
use crate::extract::json_text::{check_json, is_object};
use crate::extract::problems::problems;

/// The whole body must arrive within this time (8 MiB at about 1.2 Mbit/s).
const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// A request body type: read by serde (its fields `Lax`, so reading never stops at a problem),
/// then validated; its schema is the operation's request body.
pub trait RequestBody: DeserializeOwned + Validate + JsonSchema + ApiComponent {
    /// Whether an empty body means `{}` (every field optional) rather than a missing body.
    const EMPTY_IS_OBJECT: bool = false;
    /// Whether a member `T` does not declare is a 422 naming it (contract 1: a PATCH body,
    /// where a change that would silently do nothing is an error) rather than ignored.
    const REFUSES_UNKNOWN: bool = false;
}

/// The validated body plus the body it came from.
pub struct ValidatedJson<T> {
    pub value: T,
    pub raw: RawBody,
}

/// A request's body as received, for what needs it whole (an Idempotency-Key's request hash).
pub struct RawBody {
    text: web::Bytes,
}

impl RawBody {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.text).unwrap_or(Value::Null)
    }
}

/// The largest body accepted, in bytes; registered as app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

impl<T: RequestBody + 'static> FromRequest for ValidatedJson<T> {
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
                .map_err(|_| ApiError::RequestTimeout)??
                .freeze();
            let value = read_body::<T>(&body).map_err(ApiError::Validation)?;
            Ok(ValidatedJson {
                value,
                raw: RawBody { text: body },
            })
        })
    }
}

/// A body's text as a valid `T`, or every problem with it.
pub fn read_body<T: RequestBody>(body: &[u8]) -> Result<T, Vec<FieldError>> {
    refuse_nul(body)?;
    let value: T = if T::EMPTY_IS_OBJECT && body.iter().all(u8::is_ascii_whitespace) {
        deserialize(b"{}")?
    } else {
        check_json(body)?;
        if !is_object(body) {
            return Err(vec![FieldError::new(
                vec![LocPart::from("body")],
                "model_attributes_type",
                "Input should be a valid dictionary or object to extract fields from",
            )]);
        }
        deserialize(body)?
    };
    let mut found = if T::REFUSES_UNKNOWN {
        unknown_members::<T>(body)
    } else {
        Vec::new()
    };
    if let Err(errors) = value.validate() {
        found.extend(problems::<T>(&errors, vec![LocPart::from("body")]));
    }
    if found.is_empty() {
        Ok(value)
    } else {
        Err(found)
    }
}

/// Each member of the body that `T`'s schema does not declare, as pydantic words an extra field
/// when extras are forbidden; also inside a declared member that is an object of declared
/// members (a bulk change's `set`), where a mistyped name would be as silently ignored.
fn unknown_members<T: RequestBody>(body: &[u8]) -> Vec<FieldError> {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let root = schemars::gen::SchemaSettings::openapi3()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut found = Vec::new();
    let none = schemars::Map::new();
    let known = root
        .schema
        .object
        .as_deref()
        .map_or(&none, |o| &o.properties);
    extra_members(
        &value,
        known,
        &root.definitions,
        &mut vec![LocPart::from("body")],
        &mut found,
    );
    found
}

/// The members of `value` (at `loc`) that are not among `known`, then those of each known member
/// whose own schema declares members.
fn extra_members(
    value: &Value,
    known: &schemars::Map<String, JsonSchemaNode>,
    definitions: &schemars::Map<String, JsonSchemaNode>,
    loc: &mut Vec<LocPart>,
    found: &mut Vec<FieldError>,
) {
    let Value::Object(members) = value else {
        return;
    };
    for (name, member) in members {
        loc.push(LocPart::from(name.as_str()));
        match known.get(name) {
            None => found.push(FieldError::new(
                loc.clone(),
                "extra_forbidden",
                "Extra inputs are not permitted",
            )),
            Some(declared) => {
                // A member read as a map of any names (no declared members) takes them all.
                if let Some(inner) = declared_members(declared, definitions) {
                    extra_members(member, inner, definitions, loc, found);
                }
            }
        }
        loc.pop();
    }
}

/// The members `schema` declares, through a `$ref` (alone or as the one `allOf` schemars writes
/// beside a description or default); None when it declares none.
fn declared_members<'a>(
    schema: &'a JsonSchemaNode,
    definitions: &'a schemars::Map<String, JsonSchemaNode>,
) -> Option<&'a schemars::Map<String, JsonSchemaNode>> {
    let JsonSchemaNode::Object(object) = schema else {
        return None;
    };
    if let Some(reference) = &object.reference {
        let name = reference.rsplit('/').next()?;
        return declared_members(definitions.get(name)?, definitions);
    }
    if let Some([only]) = object
        .subschemas
        .as_deref()
        .and_then(|s| s.all_of.as_deref())
    {
        return declared_members(only, definitions);
    }
    object
        .object
        .as_deref()
        .map(|o| &o.properties)
        .filter(|members| !members.is_empty())
}

/// Reads checked JSON text into `T`. serde's derive refuses a repeated member, which JSON
/// parsers take as the last one given: such a body is read from its parsed value, written out
/// again (so a batch's elements are then stored as written out, not as sent).
fn deserialize<T: DeserializeOwned>(body: &[u8]) -> Result<T, Vec<FieldError>> {
    serde_json::from_slice(body)
        .or_else(|_| {
            let value: Value = serde_json::from_slice(body)?;
            serde_json::from_slice(&serde_json::to_vec(&value)?)
        })
        .map_err(|e: serde_json::Error| {
            vec![FieldError::new(
                vec![LocPart::from("body")],
                "json_invalid",
                format!("JSON decode error: {e}"),
            )]
        })
}

/// Refuses a body with a NUL character in any string (PostgreSQL cannot store one, and no
/// field has a use for it). JSON can only write NUL as the escape `\u0000`, so bodies without
/// that text are passed at the cost of one scan; the others are parsed to name each field.
pub fn refuse_nul(body: &[u8]) -> Result<(), Vec<FieldError>> {
    const ESCAPE: &[u8] = b"\\u0000";
    if !body.windows(ESCAPE.len()).any(|w| w == ESCAPE) {
        return Ok(());
    }
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        // The parser words a malformed body's problem itself.
        return Ok(());
    };
    let mut problems = Vec::new();
    nul_fields(&json, &mut vec![LocPart::from("body")], &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn nul_fields(value: &Value, loc: &mut Vec<LocPart>, problems: &mut Vec<FieldError>) {
    let nul = |text: &str| text.contains('\0');
    match value {
        Value::String(text) if nul(text) => problems.push(FieldError::new(
            loc.clone(),
            "value_error",
            "Value error, text must not contain NUL characters",
        )),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                loc.push(LocPart::Index(i));
                nul_fields(item, loc, problems);
                loc.pop();
            }
        }
        Value::Object(map) => {
            for (name, item) in map {
                loc.push(LocPart::from(name.as_str()));
                if nul(name) {
                    problems.push(FieldError::new(
                        loc.clone(),
                        "value_error",
                        "Value error, names must not contain NUL characters",
                    ));
                } else {
                    nul_fields(item, loc, problems);
                }
                loc.pop();
            }
        }
        _ => {}
    }
}

/// The operation's request body: `T`'s schema (optional when an empty body is allowed).
impl<T: RequestBody> ApiComponent for ValidatedJson<T> {
    fn required() -> bool {
        !T::EMPTY_IS_OBJECT
    }

    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        T::child_schemas()
    }

    fn raw_schema() -> Option<ReferenceOr<Schema>> {
        T::raw_schema()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        T::schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_refused_wherever_it_stands() {
        let e = refuse_nul(br#"{"a": "x\u0000", "b": [1, {"c": "\u0000"}], "d": "\\u0000"}"#)
            .unwrap_err();
        let locs: Vec<_> = e.iter().map(|p| p.loc.clone()).collect();
        assert_eq!(
            locs,
            vec![
                vec![LocPart::from("body"), LocPart::from("a")],
                vec![
                    LocPart::from("body"),
                    LocPart::from("b"),
                    LocPart::Index(1),
                    LocPart::from("c")
                ],
            ]
        );
        assert!(refuse_nul(br#"{"d": "\\u0000 is only text"}"#).is_ok());
        assert!(refuse_nul(br#"{"d": "\u0001"}"#).is_ok());
    }
}
