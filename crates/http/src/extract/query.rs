//! `ValidatedQuery<T>`: query parameters decoded as `application/x-www-form-urlencoded`, read
//! by serde into `T`, then validated, every problem collected (`loc` = ["query", name]).
use std::collections::HashMap;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use apistos::paths::{Parameter, RequestBody};
use apistos::ApiComponent;
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use futures_util::future::{ready, Ready};
use schemars::JsonSchema;
use serde::de::value::MapDeserializer;
use serde::de::DeserializeOwned;
use validator::{Validate, ValidationError, ValidationErrors};

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::error::{FieldError, LocPart};

use crate::error::ApiError;
use crate::extract::lax::{json_type, Lax};
use crate::extract::problems::problems;

/// A query parameters type: read by serde (its fields `Lax`), then validated; its schema gives
/// the operation's query parameters.
pub trait RequestQuery: DeserializeOwned + Validate + JsonSchema + ApiComponent {}

pub struct ValidatedQuery<T>(pub T);

impl<T: RequestQuery> FromRequest for ValidatedQuery<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            read_query(req.query_string())
                .map(ValidatedQuery)
                .map_err(ApiError::Validation),
        )
    }
}

/// A query string as a valid `T`, or every problem with it. A repeated name keeps its last
/// value; `+` is a space, `%XX` a byte; invalid escapes are kept as written and invalid UTF-8
/// is replaced rather than refused.
pub fn read_query<T: RequestQuery>(query: &str) -> Result<T, Vec<FieldError>> {
    let values: HashMap<String, String> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    refuse_nul(&values)?;
    let value = T::deserialize(MapDeserializer::<_, serde::de::value::Error>::new(
        values.into_iter(),
    ))
    .map_err(|e| {
        vec![FieldError::new(
            vec![LocPart::from("query")],
            "value_error",
            e.to_string(),
        )]
    })?;
    value
        .validate()
        .map_err(|errors| problems::<T>(&errors, vec![LocPart::from("query")]))?;
    Ok(value)
}

/// Refuses NUL in any parameter, as bodies do (`extract::body::refuse_nul`).
fn refuse_nul(values: &HashMap<String, String>) -> Result<(), Vec<FieldError>> {
    let mut names: Vec<&str> = values
        .iter()
        .filter(|(name, value)| name.contains('\0') || value.contains('\0'))
        .map(|(name, _)| name.as_str())
        .collect();
    names.sort_unstable();
    let problems: Vec<FieldError> = names
        .into_iter()
        .map(|name| {
            FieldError::new(
                vec![LocPart::from("query"), LocPart::from(name)],
                "value_error",
                "Value error, text must not contain NUL characters",
            )
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The operation's query parameters: one per field of `T`.
impl<T: RequestQuery> ApiComponent for ValidatedQuery<T> {
    fn required() -> bool {
        false
    }

    no_schema!();

    fn request_body() -> Option<RequestBody> {
        None
    }

    fn parameters() -> Vec<Parameter> {
        <web::Query<T> as ApiComponent>::parameters()
    }
}

/// Most items one page may hold.
pub const MAX_PAGE: i64 = 500;

/// A page of a list: what `limit` and `offset` come to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub limit: i64,
    pub offset: i64,
}

impl Paging {
    /// `limit` defaults to 50, `offset` to 0.
    pub fn of(limit: &Lax<i64>, offset: &Lax<i64>) -> Paging {
        Paging {
            limit: limit.value().copied().unwrap_or(50),
            offset: offset.value().copied().unwrap_or(0),
        }
    }
}

/// The `limit` and `offset` of a list query: a query of its own, or flattened into one
/// (`#[serde(flatten)]`).
#[derive(serde::Deserialize, Validate, JsonSchema, apistos::ApiComponent)]
pub struct PageQuery {
    /// 1..=500, default 50.
    #[validate(custom(function = "json_type"), range(min = 1, max = 500))]
    pub limit: Lax<i64>,
    /// Default 0.
    #[validate(
        custom(function = "json_type"),
        range(min = 0, max = 4611686018427387903i64)
    )]
    pub offset: Lax<i64>,
}

impl RequestQuery for PageQuery {}

impl PageQuery {
    pub fn paging(&self) -> Paging {
        Paging::of(&self.limit, &self.offset)
    }
}

/// The problems of a query's flattened parts, each at the top level as its parameters are.
pub fn flat_problems(
    parts: impl IntoIterator<Item = Result<(), ValidationErrors>>,
) -> Result<(), ValidationErrors> {
    let mut all = ValidationErrors::new();
    for errors in parts.into_iter().filter_map(Result::err) {
        all.errors_mut().extend(errors.into_errors());
    }
    if all.is_empty() {
        Ok(())
    } else {
        Err(all)
    }
}

/// An ISO 8601 date or timestamp, as lists filter by creation time; one without an offset is
/// UTC's (`timestamp_on`).
pub fn timestamp(text: &str) -> Option<DateTime<Utc>> {
    timestamp_on(text, UtcOffset::default())
}

/// An ISO 8601 timestamp with its offset (`Z`, `+02:00`) is that instant. A date (`2026-12-03`:
/// its midnight) or a date and time without an offset (`2026-12-03T14:00:00`, as Python's
/// `isoformat()` writes one; a space for the `T`, seconds and their fractions optional) is read
/// on the clock at `offset`.
pub fn timestamp_on(text: &str, offset: UtcOffset) -> Option<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.to_utc());
    }
    let wall_clock = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    .or_else(|| {
        let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
        Some(day.and_time(NaiveTime::MIN))
    });
    wall_clock.map(|local| offset.instant(local))
}

/// The rule of a timestamp parameter.
pub fn iso_timestamp(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if timestamp(text).is_none() => {
            Err(ValidationError::new("datetime_from_date_parsing")
                .with_message("Input should be a valid datetime or date (ISO 8601)".into()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::lax::json_type;
    use serde::Deserialize;

    #[test]
    fn a_timestamp_without_an_offset_is_read_on_the_given_clock() {
        let utc = |text: &str| timestamp(text).map(|t| t.to_rfc3339());
        let chicago = UtcOffset::from_minutes(-360).unwrap();
        let there = |text: &str| timestamp_on(text, chicago).map(|t| t.to_rfc3339());
        let at = |rfc3339: &str| Some(rfc3339.to_owned());
        // With an offset: that instant, wherever the reader is.
        for text in [
            "2026-12-03T14:00:00Z",
            "2026-12-03T08:00:00-06:00",
            "2026-12-03 14:00:00Z",
        ] {
            assert_eq!(utc(text), at("2026-12-03T14:00:00+00:00"), "{text}");
            assert_eq!(there(text), at("2026-12-03T14:00:00+00:00"), "{text}");
        }
        // Without one: the wall clock's reading, UTC's for the API.
        for text in [
            "2026-12-03T14:00:00",
            "2026-12-03T14:00:00.000",
            "2026-12-03 14:00:00",
            "2026-12-03T14:00",
            "2026-12-03 14:00",
        ] {
            assert_eq!(utc(text), at("2026-12-03T14:00:00+00:00"), "{text}");
            assert_eq!(there(text), at("2026-12-03T20:00:00+00:00"), "{text}");
        }
        assert_eq!(
            utc("2026-12-03T14:00:00.000123"),
            at("2026-12-03T14:00:00.000123+00:00")
        );
        assert_eq!(utc("2026-12-03"), at("2026-12-03T00:00:00+00:00"));
        assert_eq!(there("2026-12-03"), at("2026-12-03T06:00:00+00:00"));
        for text in [
            "2026-12-32",
            "2026-12-03T25:00",
            "3 Dec 2026",
            "2026-12-03T",
            "",
            "now",
        ] {
            assert_eq!(utc(text), None, "{text}");
        }
    }

    #[derive(Deserialize, Validate, JsonSchema, apistos::ApiComponent)]
    struct Probe {
        #[validate(custom(function = "json_type"))]
        city: Lax<String>,
        #[validate(custom(function = "json_type"))]
        q: Lax<String>,
        #[validate(custom(function = "json_type"))]
        x: Lax<String>,
        #[validate(custom(function = "json_type"), range(min = 1, max = 500))]
        limit: Lax<i64>,
        #[validate(custom(function = "json_type"), range(min = 0))]
        offset: Lax<i64>,
    }

    impl RequestQuery for Probe {}

    #[test]
    fn decodes_pairs() {
        let q: Probe = read_query("city=San+Antonio&q=a%26b&x=%zz&limit=5&limit=7").unwrap();
        assert_eq!(q.city.text(), Some("San Antonio"));
        assert_eq!(q.q.text(), Some("a&b"));
        assert_eq!(q.x.text(), Some("%zz"));
        assert_eq!(
            Paging::of(&q.limit, &q.offset),
            Paging {
                limit: 7,
                offset: 0
            }
        );
    }

    #[test]
    fn paging_bounds() {
        for (bad, kind) in [
            ("limit=0", "greater_than_equal"),
            ("limit=501", "less_than_equal"),
            ("limit=abc", "int_parsing"),
            ("offset=-1", "greater_than_equal"),
        ] {
            let p = read_query::<Probe>(bad).err().unwrap();
            assert_eq!(p.len(), 1, "{bad}");
            assert_eq!(p[0].loc[0], LocPart::from("query"));
            assert_eq!(p[0].kind, kind, "{bad}");
        }
        let p = read_query::<Probe>("offset=x&limit=0").err().unwrap();
        let names: Vec<_> = p.iter().map(|p| p.loc[1].clone()).collect();
        assert_eq!(
            names,
            [LocPart::from("limit"), LocPart::from("offset")],
            "field order"
        );
    }

    #[test]
    fn nul_is_refused() {
        let p = read_query::<Probe>("q=%00&city=a%00").err().unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[0].loc,
            vec![LocPart::from("query"), LocPart::from("city")]
        );
    }
}
