//! Bad path and query parameters answer 422 in the FastAPI shape instead of actix's 404/400.
use actix_web::error::{PathError, QueryPayloadError};
use actix_web::{FromRequest, HttpRequest};
use apistos::paths::Parameter;
use apistos::ApiComponent;

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

/// A text path parameter (a batch id, a token): the route's one parameter, refused with 422
/// when it holds NUL, as bodies and queries are.
pub struct PathText(pub String);

impl FromRequest for PathText {
    type Error = actix_web::Error;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let name = req
            .match_info()
            .iter()
            .next()
            .map(|(name, _)| name.to_owned())
            .unwrap_or_default();
        let path = actix_web::web::Path::<String>::from_request(req, payload);
        Box::pin(async move {
            let value = path.await?.into_inner();
            if value.contains('\0') {
                return Err(ApiError::Validation(vec![FieldError::new(
                    vec![LocPart::from("path"), LocPart::from(name)],
                    "value_error",
                    "Value error, text must not contain NUL characters",
                )])
                .into());
            }
            Ok(PathText(value))
        })
    }
}

/// One text path parameter (apistos names it from the route's path).
impl ApiComponent for PathText {
    no_schema!();

    fn parameters() -> Vec<Parameter> {
        <actix_web::web::Path<String> as ApiComponent>::parameters()
    }
}
