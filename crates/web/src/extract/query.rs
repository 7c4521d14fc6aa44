//! `ValidatedQuery<T>`: query parameters read with every problem collected (`loc` = ["query", name]).
use std::collections::HashMap;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::{ready, Ready};

use leadhub_domain::error::{FieldError, LocPart};

use crate::error::ApiError;

pub trait FromQuery: Sized {
    fn from_query(q: &QueryFields) -> Result<Self, Vec<FieldError>>;
}

pub struct ValidatedQuery<T>(pub T);

impl<T: FromQuery> FromRequest for ValidatedQuery<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let fields = QueryFields::parse(req.query_string());
        ready(
            T::from_query(&fields)
                .map(ValidatedQuery)
                .map_err(ApiError::Validation),
        )
    }
}

/// Decoded query parameters; a repeated name keeps its last value.
pub struct QueryFields {
    values: HashMap<String, String>,
}

impl QueryFields {
    pub fn parse(query: &str) -> Self {
        let values = url_decode_pairs(query);
        QueryFields { values }
    }

    fn loc(name: &str) -> Vec<LocPart> {
        vec![LocPart::from("query"), LocPart::from(name)]
    }

    /// A trimmed, non-blank value.
    pub fn string(&self, name: &str) -> Option<String> {
        self.values
            .get(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    pub fn int_in(
        &self,
        name: &str,
        min: i64,
        max: i64,
        problems: &mut Vec<FieldError>,
    ) -> Option<i64> {
        let raw = self.string(name)?;
        match raw.parse::<i64>() {
            Err(_) => {
                problems.push(FieldError::new(
                    Self::loc(name),
                    "int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer",
                ));
                None
            }
            Ok(v) if v < min => {
                problems.push(FieldError::new(
                    Self::loc(name),
                    "greater_than_equal",
                    format!("Input should be greater than or equal to {min}"),
                ));
                None
            }
            Ok(v) if v > max => {
                problems.push(FieldError::new(
                    Self::loc(name),
                    "less_than_equal",
                    format!("Input should be less than or equal to {max}"),
                ));
                None
            }
            Ok(v) => Some(v),
        }
    }

    /// A value from a closed list (case-insensitive); answers the canonical spelling.
    pub fn enum_value(
        &self,
        name: &str,
        allowed: &[&'static str],
        problems: &mut Vec<FieldError>,
    ) -> Option<&'static str> {
        let raw = self.string(name)?;
        let found = allowed
            .iter()
            .find(|a| a.eq_ignore_ascii_case(&raw))
            .copied();
        if found.is_none() {
            problems.push(FieldError::new(
                Self::loc(name),
                "enum",
                super::fields::enum_message(allowed),
            ));
        }
        found
    }

    pub fn timestamp(
        &self,
        name: &str,
        problems: &mut Vec<FieldError>,
    ) -> Option<chrono::DateTime<chrono::Utc>> {
        let raw = self.string(name)?;
        let parsed = chrono::DateTime::parse_from_rfc3339(&raw)
            .map(|d| d.with_timezone(&chrono::Utc))
            .ok()
            .or_else(|| {
                chrono::NaiveDate::parse_from_str(&raw, "%Y-%m-%d")
                    .ok()
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
                    .map(|d| d.and_utc())
            });
        if parsed.is_none() {
            problems.push(FieldError::new(
                Self::loc(name),
                "datetime_from_date_parsing",
                "Input should be a valid datetime or date (ISO 8601)",
            ));
        }
        parsed
    }
}

/// `limit` (1..=500, default 50) and `offset` (>= 0, default 0), as every list takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub limit: i64,
    pub offset: i64,
}

pub const MAX_PAGE: i64 = 500;

impl Paging {
    pub fn read(q: &QueryFields, problems: &mut Vec<FieldError>) -> Paging {
        Paging {
            limit: q.int_in("limit", 1, MAX_PAGE, problems).unwrap_or(50),
            offset: q.int_in("offset", 0, i64::MAX / 2, problems).unwrap_or(0),
        }
    }
}

fn url_decode_pairs(query: &str) -> HashMap<String, String> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// application/x-www-form-urlencoded decoding: `+` is a space, `%XX` a byte; invalid
/// escapes are kept as written and invalid UTF-8 is replaced rather than refused.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_pairs() {
        let q = QueryFields::parse("city=San+Antonio&q=a%26b&x=%zz&limit=5");
        assert_eq!(q.string("city").unwrap(), "San Antonio");
        assert_eq!(q.string("q").unwrap(), "a&b");
        assert_eq!(q.string("x").unwrap(), "%zz");
        let mut p = Vec::new();
        assert_eq!(Paging::read(&q, &mut p).limit, 5);
        assert!(p.is_empty());
    }

    #[test]
    fn paging_bounds() {
        for bad in ["limit=0", "limit=501", "limit=abc", "offset=-1"] {
            let mut p = Vec::new();
            Paging::read(&QueryFields::parse(bad), &mut p);
            assert_eq!(p.len(), 1, "{bad}");
            assert_eq!(p[0].loc[0], LocPart::from("query"));
        }
    }
}
