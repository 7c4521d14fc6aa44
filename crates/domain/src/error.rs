//! Validation problems as data. The web layer renders them in the FastAPI 422 shape;
//! the domain only says where (`loc`), what (`msg`) and which kind (`kind`, pydantic's words).
use serde::Serialize;

use crate::store::store_errors_are_unexpected;

/// The error of the services whose only refusals are these (submissions, businesses).
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

store_errors_are_unexpected!(ServiceError);

/// One segment of a location: a field name or a zero-based array index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LocPart {
    Field(String),
    Index(usize),
}

impl From<&str> for LocPart {
    fn from(s: &str) -> Self {
        LocPart::Field(s.to_owned())
    }
}

impl From<String> for LocPart {
    fn from(s: String) -> Self {
        LocPart::Field(s)
    }
}

impl From<usize> for LocPart {
    fn from(i: usize) -> Self {
        LocPart::Index(i)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub loc: Vec<LocPart>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: String,
}

impl FieldError {
    pub fn new(loc: Vec<LocPart>, kind: &str, msg: impl Into<String>) -> Self {
        FieldError {
            loc,
            msg: msg.into(),
            kind: kind.to_owned(),
        }
    }

    /// A problem with a body field: `loc` = ["body", ...path].
    pub fn body(path: &[LocPart], kind: &str, msg: impl Into<String>) -> Self {
        let mut loc = vec![LocPart::from("body")];
        loc.extend_from_slice(path);
        FieldError::new(loc, kind, msg)
    }

    /// A PATCH that names nothing to change (`{}`): refused rather than answered as done, the
    /// same words for every resource.
    pub fn nothing_to_change() -> Self {
        FieldError::body(&[], "missing", "Give at least one field to change")
    }
}

/// An error with its causes, `a: b: c`: the causes say what actually failed (refused, reset,
/// DNS, the server's own message), where many errors' own text says only "error sending
/// request" or "db error".
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
