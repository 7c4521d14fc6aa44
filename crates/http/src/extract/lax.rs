//! `Lax<T>`: one field of a request, read as pydantic's lax mode reads it. Reading it never
//! fails: a value of the wrong JSON type is kept as a `Mismatch`, which the `json_type` rule
//! reports with the field's other problems, so that one 422 names every problem (serde itself
//! stops at the first).
use std::fmt;
use std::marker::PhantomData;

use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use validator::{
    Validate, ValidateLength, ValidateRange, ValidateRequired, ValidationError, ValidationErrors,
};

/// A field as sent: absent, `null`, a value read laxly, or a value of the wrong type.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Lax<T> {
    /// The member was not sent (only fields marked `#[serde(default)]` tell this from `null`).
    #[default]
    Absent,
    Null,
    Given(T),
    Wrong(Mismatch),
}

/// Why a value could not be read as the field's type, in pydantic's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: &'static str,
    pub msg: &'static str,
}

impl<T> Lax<T> {
    /// The value, when one of the right type was given.
    pub fn value(&self) -> Option<&T> {
        match self {
            Lax::Given(v) => Some(v),
            _ => None,
        }
    }

    pub fn into_value(self) -> Option<T> {
        match self {
            Lax::Given(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the member was sent at all, even as `null` (PATCH: null clears, absent keeps).
    pub fn is_sent(&self) -> bool {
        !matches!(self, Lax::Absent)
    }
}

impl Lax<String> {
    /// The text, trimmed; blank counts as absent.
    pub fn text(&self) -> Option<&str> {
        self.value().map(String::as_str).filter(|t| !t.is_empty())
    }

    pub fn into_text(self) -> Option<String> {
        self.into_value().filter(|t| !t.is_empty())
    }
}

/// A type a `Lax` field can hold: how each JSON kind reads as it. Each reading defaults to the
/// type's own mismatch.
pub trait LaxValue: Sized {
    /// The problem with a value of another JSON type.
    const MISMATCH: Mismatch;

    fn from_str(_: &str) -> Result<Self, Mismatch> {
        Err(Self::MISMATCH)
    }
    fn from_i64(_: i64) -> Result<Self, Mismatch> {
        Err(Self::MISMATCH)
    }
    fn from_u64(_: u64) -> Result<Self, Mismatch> {
        Err(Self::MISMATCH)
    }
    fn from_f64(_: f64) -> Result<Self, Mismatch> {
        Err(Self::MISMATCH)
    }
    fn from_bool(_: bool) -> Result<Self, Mismatch> {
        Err(Self::MISMATCH)
    }
    fn from_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Result<Self, Mismatch>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(Self::MISMATCH))
    }
}

/// Text is trimmed; strings are never made from numbers.
impl LaxValue for String {
    const MISMATCH: Mismatch = Mismatch {
        kind: "string_type",
        msg: "Input should be a valid string",
    };

    fn from_str(s: &str) -> Result<Self, Mismatch> {
        Ok(s.trim().to_owned())
    }
}

const INT_FROM_FLOAT: Mismatch = Mismatch {
    kind: "int_from_float",
    msg: "Input should be a valid integer, got a number with a fractional part",
};

/// Integral numbers (3, 3.0) and integer strings ("3").
impl LaxValue for i64 {
    const MISMATCH: Mismatch = Mismatch {
        kind: "int_type",
        msg: "Input should be a valid integer",
    };

    fn from_str(s: &str) -> Result<Self, Mismatch> {
        s.trim().parse().map_err(|_| Mismatch {
            kind: "int_parsing",
            msg: "Input should be a valid integer, unable to parse string as an integer",
        })
    }
    fn from_i64(n: i64) -> Result<Self, Mismatch> {
        Ok(n)
    }
    fn from_u64(n: u64) -> Result<Self, Mismatch> {
        // Beyond i64 a whole number is read as a float, and is then too large to be exact.
        i64::try_from(n).map_err(|_| INT_FROM_FLOAT)
    }
    fn from_f64(f: f64) -> Result<Self, Mismatch> {
        // Below 2^53 every integral float converts exactly.
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            Ok(f as i64)
        } else {
            Err(INT_FROM_FLOAT)
        }
    }
}

/// Any number, and numeric strings.
impl LaxValue for f64 {
    const MISMATCH: Mismatch = Mismatch {
        kind: "float_type",
        msg: "Input should be a valid number",
    };

    fn from_str(s: &str) -> Result<Self, Mismatch> {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or(Mismatch {
                kind: "float_parsing",
                msg: "Input should be a valid number, unable to parse string as a number",
            })
    }
    fn from_i64(n: i64) -> Result<Self, Mismatch> {
        Ok(n as f64)
    }
    fn from_u64(n: u64) -> Result<Self, Mismatch> {
        Ok(n as f64)
    }
    fn from_f64(f: f64) -> Result<Self, Mismatch> {
        Ok(f)
    }
}

/// `true`, `false`, and those words as strings, in any case.
impl LaxValue for bool {
    const MISMATCH: Mismatch = Mismatch {
        kind: "bool_type",
        msg: "Input should be a valid boolean",
    };

    fn from_str(s: &str) -> Result<Self, Mismatch> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if s.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(Self::MISMATCH)
        }
    }
    fn from_bool(b: bool) -> Result<Self, Mismatch> {
        Ok(b)
    }
}

/// A JSON array; each element reads itself (and keeps its own problems).
impl<E: DeserializeOwned> LaxValue for Vec<E> {
    const MISMATCH: Mismatch = Mismatch {
        kind: "list_type",
        msg: "Input should be a valid list",
    };

    fn from_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Result<Self, Mismatch>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element::<E>()? {
            items.push(item);
        }
        Ok(Ok(items))
    }
}

impl<'de, T: LaxValue> Deserialize<'de> for Lax<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through `deserialize_option`, a missing member reads as `null` (serde's derive asks
        // for one that way), and JSON `null` arrives as `visit_none`.
        deserializer.deserialize_option(LaxVisitor(PhantomData))
    }
}

struct LaxVisitor<T>(PhantomData<T>);

impl<T> LaxVisitor<T> {
    fn read(read: Result<T, Mismatch>) -> Lax<T> {
        match read {
            Ok(v) => Lax::Given(v),
            Err(m) => Lax::Wrong(m),
        }
    }
}

impl<'de, T: LaxValue> Visitor<'de> for LaxVisitor<T> {
    type Value = Lax<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_none<E>(self) -> Result<Lax<T>, E> {
        Ok(Lax::Null)
    }
    fn visit_unit<E>(self) -> Result<Lax<T>, E> {
        Ok(Lax::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Lax<T>, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Lax<T>, E> {
        Ok(Self::read(T::from_bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Lax<T>, E> {
        Ok(Self::read(T::from_i64(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Lax<T>, E> {
        Ok(Self::read(T::from_u64(n)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Lax<T>, E> {
        Ok(Self::read(T::from_f64(f)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Lax<T>, E> {
        Ok(Self::read(T::from_str(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Lax<T>, A::Error> {
        Ok(Self::read(T::from_seq(seq)?))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lax<T>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Lax::Wrong(T::MISMATCH))
    }
}

/// As the value, or `null`: validator records a failing field's value with its problem.
impl<T: Serialize> Serialize for Lax<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Lax::Given(v) => v.serialize(serializer),
            _ => serializer.serialize_none(),
        }
    }
}

/// Documented as `T`, nullable: absent and `null` mean the same for every field but the few
/// marked otherwise.
impl<T: JsonSchema> JsonSchema for Lax<T> {
    fn is_referenceable() -> bool {
        false
    }

    fn schema_name() -> String {
        Option::<T>::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Option::<T>::json_schema(generator)
    }

    fn _schemars_private_non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::_schemars_private_non_optional_json_schema(generator)
    }

    fn _schemars_private_is_option() -> bool {
        true
    }
}

/// `length(...)`: characters of the trimmed text.
impl ValidateLength<u64> for Lax<String> {
    fn length(&self) -> Option<u64> {
        self.value().map(|t| t.chars().count() as u64)
    }
}

/// `length(...)`: elements of a list.
impl<E> ValidateLength<u64> for Lax<Vec<E>> {
    fn length(&self) -> Option<u64> {
        self.value().map(|items| items.len() as u64)
    }
}

macro_rules! lax_range {
    ($($t:ty),*) => {$(
        /// `range(...)`: checked only on a value of the right type.
        impl ValidateRange<$t> for Lax<$t> {
            fn greater_than(&self, max: $t) -> Option<bool> {
                self.value().map(|v| *v > max)
            }
            fn less_than(&self, min: $t) -> Option<bool> {
                self.value().map(|v| *v < min)
            }
        }
    )*};
}

lax_range!(i64, f64);

/// `required`: sent, and not `null` (a value of the wrong type is its own problem).
impl<T> ValidateRequired for Lax<T> {
    fn is_some(&self) -> bool {
        !matches!(self, Lax::Absent | Lax::Null)
    }
}

/// `nested`: a list of request elements validates each one.
impl<T: Validate> Validate for Lax<T> {
    fn validate(&self) -> Result<(), ValidationErrors> {
        match self {
            Lax::Given(v) => v.validate(),
            _ => Ok(()),
        }
    }
}

/// The rule every field carries: a value of the wrong JSON type is a problem of its own.
pub fn json_type<T>(field: &Lax<T>) -> Result<(), ValidationError> {
    match field {
        Lax::Wrong(m) => Err(ValidationError::new(m.kind).with_message(m.msg.into())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        text: Lax<String>,
        int: Lax<i64>,
        #[serde(default)]
        number: Lax<f64>,
        #[serde(default)]
        flag: Lax<bool>,
        #[serde(default)]
        list: Lax<Vec<i64>>,
    }

    fn probe(json: &str) -> Probe {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
    }

    #[test]
    fn numbers_read_as_pydantic_lax_mode_does() {
        for (json, int) in [
            ("3", 3),
            ("3.0", 3),
            ("\" 3 \"", 3),
            ("-9e14", -900_000_000_000_000),
        ] {
            assert_eq!(
                probe(&format!(r#"{{"int": {json}}}"#)).int,
                Lax::Given(int),
                "{json}"
            );
        }
        for (json, kind) in [
            ("3.5", "int_from_float"),
            ("1e16", "int_from_float"),
            ("18446744073709551615", "int_from_float"),
            ("\"3.0\"", "int_parsing"),
            ("true", "int_type"),
            ("[3]", "int_type"),
            ("{\"a\": 3}", "int_type"),
        ] {
            let read = probe(&format!(r#"{{"int": {json}}}"#)).int;
            assert!(
                matches!(read, Lax::Wrong(m) if m.kind == kind),
                "{json}: {read:?}"
            );
        }
        assert_eq!(
            probe(r#"{"int": 1, "number": "2.5"}"#).number,
            Lax::Given(2.5)
        );
        assert!(
            matches!(probe(r#"{"int": 1, "number": "inf"}"#).number, Lax::Wrong(m) if m.kind == "float_parsing")
        );
    }

    #[test]
    fn strings_are_trimmed_and_never_made_from_numbers() {
        let read = probe(r#"{"text": "  a b  ", "int": null}"#);
        assert_eq!(read.text.text(), Some("a b"));
        assert_eq!(read.int, Lax::Null);
        assert_eq!(probe(r#"{"text": "   "}"#).text.text(), None);
        assert!(matches!(probe(r#"{"text": 5}"#).text, Lax::Wrong(m) if m.kind == "string_type"));
        assert_eq!(probe("{}").text, Lax::Absent);
        assert_eq!(
            probe("{}").int,
            Lax::Null,
            "a missing member without a default reads as null"
        );
    }

    #[test]
    fn booleans_and_lists() {
        assert_eq!(probe(r#"{"flag": "FALSE"}"#).flag, Lax::Given(false));
        assert!(matches!(probe(r#"{"flag": 1}"#).flag, Lax::Wrong(m) if m.kind == "bool_type"));
        assert_eq!(probe(r#"{"list": [1, 2]}"#).list, Lax::Given(vec![1, 2]));
        assert!(
            matches!(probe(r#"{"list": {"a": [1]}}"#).list, Lax::Wrong(m) if m.kind == "list_type")
        );
    }
}
