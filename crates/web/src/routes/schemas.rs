//! Shapes shared by every route's OpenAPI description: the error bodies.
use serde::Serialize;
use utoipa::ToSchema;

/// Every non-2xx answer except 422.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, for a person.
    #[schema(example = "Invalid or expired API key")]
    pub detail: String,
}

/// One validation problem (FastAPI's shape).
#[derive(Serialize, ToSchema)]
pub struct ValidationProblem {
    /// Where: "body", "query" or "path", then field names and zero-based array indexes.
    #[schema(value_type = Vec<serde_json::Value>, example = json!(["body", "leads", 3, "state"]))]
    pub loc: Vec<serde_json::Value>,
    pub msg: String,
    /// pydantic's word for the kind of problem, e.g. `missing`, `string_type`, `enum`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: String,
}

/// A 422 answer: every problem found, not just the first.
#[derive(Serialize, ToSchema)]
pub struct ValidationErrorBody {
    pub detail: Vec<ValidationProblem>,
}
