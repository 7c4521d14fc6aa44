//! What every operation's description shares: the error answers (`ApiError`'s
//! `ApiErrorComponent` in error.rs documents them from here), the `{"detail": ...}` messages, and answers written out
//! before they are sent.
use std::collections::BTreeMap;
use std::marker::PhantomData;

use actix_web::body::BoxBody;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, Responder};
use apistos::paths::{MediaType, Response, Responses};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::schema::{ArrayValidation, InstanceType, SchemaObject, SubschemaValidation};
use schemars::JsonSchema;
use serde::Serialize;

use leadhub_domain::error::FieldError;

/// Every non-2xx answer except 422.
#[derive(Serialize, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong, for a person.
    pub detail: String,
}

/// One validation problem (FastAPI's shape): how the domain's `FieldError` is sent.
#[derive(JsonSchema)]
pub struct ValidationProblem {
    /// Where: "body", "query", "path" or "header", then field names and zero-based array
    /// indexes, e.g. ["body", "leads", 3, "state"].
    #[schemars(schema_with = "loc_schema")]
    pub loc: Vec<serde_json::Value>,
    pub msg: String,
    /// pydantic's word for the kind of problem, e.g. `missing`, `string_type`, `enum`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// An array of field names (strings) and indexes (integers).
fn loc_schema(generator: &mut SchemaGenerator) -> schemars::schema::Schema {
    let step = SchemaObject {
        subschemas: Some(Box::new(SubschemaValidation {
            any_of: Some(vec![
                generator.subschema_for::<String>(),
                generator.subschema_for::<u64>(),
            ]),
            ..Default::default()
        })),
        ..Default::default()
    };
    SchemaObject {
        instance_type: Some(InstanceType::Array.into()),
        array: Some(Box::new(ArrayValidation {
            items: Some(schemars::schema::Schema::Object(step).into()),
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

/// A 422 answer: every problem found, not just the first.
#[derive(Serialize, JsonSchema)]
pub struct ValidationErrorBody<'a> {
    #[schemars(with = "Vec<ValidationProblem>")]
    pub detail: &'a [FieldError],
}

/// A success that only says what was done, e.g. `{"detail": "API key revoked"}`.
#[derive(Serialize, JsonSchema, apistos::ApiComponent)]
pub struct Detail {
    pub detail: String,
}

impl Detail {
    pub fn new(detail: &str) -> Detail {
        Detail {
            detail: detail.to_owned(),
        }
    }
}

/// The error answers an operation may document (each operation names its own with
/// `error_code`), with their bodies.
pub(crate) const ERRORS: [(u16, &str); 12] = [
    (
        301,
        "A lead merged into another: `Location` and `merged_into` name the surviving lead",
    ),
    (401, "Missing, invalid or expired credential"),
    (
        403,
        "Not allowed: not a member (or not an owner or admin) of the team, or the team is inactive",
    ),
    (404, "No such thing the caller may see"),
    (
        409,
        "A conflict: already done, or still being done by a request with the same \
         Idempotency-Key, or another lead already is the property (its id in `lead_id`)",
    ),
    (410, "Used, revoked or expired"),
    (
        412,
        "If-Match names a version the lead no longer has: read it again",
    ),
    (413, "Request body too large"),
    (
        422,
        "Validation failure: every problem listed, each with its location",
    ),
    (
        429,
        "Rate limit exceeded; Retry-After says when to try again",
    ),
    (500, "Internal server error"),
    (
        503,
        "Not ready: the database is unreachable or migrations are pending",
    ),
];

/// The error bodies' schemas, for the document's components: an operation whose errors are
/// typed (`refusals::Answer`) references them without registering them itself.
pub fn error_body_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
    vec![
        error_schema::<ErrorBody>(),
        error_schema::<ValidationErrorBody<'static>>(),
    ]
}

/// An error body's schema, whole: apistos registers only the body type itself, so what it
/// nests must be written inside it rather than referenced.
fn error_schema<T: JsonSchema>() -> (String, ReferenceOr<Schema>) {
    let mut settings = SchemaSettings::openapi3();
    settings.inline_subschemas = true;
    let root = settings.into_generator().into_root_schema_for::<T>();
    (
        T::schema_name(),
        ReferenceOr::Object(Schema::Object(root.schema)),
    )
}

pub(crate) fn body_of(status: u16) -> (String, ReferenceOr<Schema>) {
    if status == 422 {
        error_schema::<ValidationErrorBody<'static>>()
    } else {
        error_schema::<ErrorBody>()
    }
}

/// A response of JSON shaped as the component schema `name`.
pub(crate) fn json_response(description: &str, name: &str) -> Response {
    Response {
        description: description.to_owned(),
        content: BTreeMap::from([(
            "application/json".to_owned(),
            MediaType {
                schema: Some(ReferenceOr::Reference {
                    _ref: format!("#/components/schemas/{name}"),
                }),
                ..Default::default()
            },
        )]),
        ..Default::default()
    }
}

/// A JSON answer written out already (a batch's answer is serialised once, straight from its
/// results; a replayed answer is the very text first sent), documented as a `T`.
pub struct WrittenJson<T> {
    response: HttpResponse,
    shape: PhantomData<T>,
}

impl<T> WrittenJson<T> {
    pub fn new(response: HttpResponse) -> Self {
        WrittenJson {
            response,
            shape: PhantomData,
        }
    }
}

impl<T> Responder for WrittenJson<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        self.response
    }
}

impl<T: ApiComponent> ApiComponent for WrittenJson<T> {
    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        T::child_schemas()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        T::schema()
    }
}

/// A JSON answer with a status other than 200, documented as such.
pub struct JsonWithStatus<T, const STATUS: u16>(pub T);

impl<T: Serialize, const STATUS: u16> Responder for JsonWithStatus<T, STATUS> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        let status = StatusCode::from_u16(STATUS).unwrap_or(StatusCode::OK);
        HttpResponse::build(status).json(self.0)
    }
}

impl<T: ApiComponent, const STATUS: u16> ApiComponent for JsonWithStatus<T, STATUS> {
    fn child_schemas() -> Vec<(String, ReferenceOr<Schema>)> {
        T::child_schemas()
    }

    fn schema() -> Option<(String, ReferenceOr<Schema>)> {
        T::schema()
    }

    fn responses(_: Option<String>) -> Option<Responses> {
        let (name, _) = T::schema()?;
        Some(Responses {
            responses: BTreeMap::from([(
                STATUS.to_string(),
                ReferenceOr::Object(json_response("", &name)),
            )]),
            ..Default::default()
        })
    }
}
