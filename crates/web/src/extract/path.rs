//! Bad path and query parameters answer 422 in the FastAPI shape instead of actix's 404/400.
use actix_web::error::{PathError, QueryPayloadError};
use actix_web::HttpRequest;

use leadhub_domain::error::{FieldError, LocPart};

use crate::error::ApiError;

/// Names every path segment that is not a whole number (all our path ids are integers,
/// except tokens and batch ids, which are strings and cannot fail).
pub fn path_error_handler(_: PathError, req: &HttpRequest) -> actix_web::Error {
    let problems: Vec<FieldError> = req
        .match_info()
        .iter()
        .filter(|(_, value)| value.parse::<i64>().is_err())
        .map(|(name, _)| {
            FieldError::new(
                vec![LocPart::from("path"), LocPart::from(name)],
                "int_parsing",
                "Input should be a valid integer, unable to parse string as an integer",
            )
        })
        .collect();
    let problems = if problems.is_empty() {
        vec![FieldError::new(
            vec![LocPart::from("path")],
            "value_error",
            "Invalid path parameter",
        )]
    } else {
        problems
    };
    ApiError::Validation(problems).into()
}

pub fn query_error_handler(e: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::Validation(vec![FieldError::new(
        vec![LocPart::from("query")],
        "value_error",
        e.to_string(),
    )])
    .into()
}
