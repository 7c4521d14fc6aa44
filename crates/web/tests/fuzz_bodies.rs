//! Property-based fuzzing of the JSON request path with proptest (the coverage-guided twin is
//! `fuzz/fuzz_targets/json_body.rs`; see docs/fuzzing.md): arbitrary bytes, bytes near valid
//! JSON, and arbitrary JSON values (built around the real field names, so the rules get past the
//! first check) through the checks of `support/request_bodies.rs`, which the twin shares.
//!
//! `PROPTEST_CASES` raises the case count (scripts/fuzz.sh runs this with thousands).
#![allow(clippy::unwrap_used)]

mod support {
    pub mod request_bodies;
}

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use leadhub_domain::lead::fields::STRING_FIELDS;
use support::request_bodies::check_then_read;

const OTHER_FIELDS: [&str; 22] = [
    "leads",
    "businesses",
    "team_id",
    "process_immediately",
    "bedrooms",
    "latitude",
    "longitude",
    "name",
    "description",
    "role",
    "email",
    "token",
    "refresh_token",
    "expires_in_days",
    "first_name",
    "last_name",
    "status",
    "relationship_type",
    "industry",
    "skip_duplicates",
    "auto_categorize",
    "rating",
];

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(STRING_FIELDS.to_vec()).prop_map(str::to_owned),
        3 => proptest::sample::select(OTHER_FIELDS.to_vec()).prop_map(str::to_owned),
        1 => ".{0,12}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        proptest::sample::select(vec![-1.0, 0.0, 0.5, 5.0, 5.1, 90.0, -180.5, 1e300, -1e-300])
            .prop_map(|f: f64| json!(f)),
        ".{0,40}".prop_map(Value::String),
        proptest::sample::select(vec![
            "",
            " ",
            "TX",
            "tx",
            "78701",
            "78701-1234",
            "(512) 555-0100",
            "+1 512 555 0100",
            "a@example.com",
            "mobile",
            "admin",
            "member",
            "owner",
            "prospect",
            "lead_buyer",
            "active",
            "2026-01-31",
            "01/31/2026",
            "1.5 acres",
            "https://example.com/x",
            "lhk_x",
            "lha_x",
            "lhr_x",
            "residential",
            "\u{0}",
            "\u{202e}",
            "é",
            "🏠",
        ])
        .prop_map(|s: &str| Value::String(s.to_owned())),
        "[0-9]{1,25}".prop_map(Value::String),
        proptest::collection::vec(any::<char>(), 250..300)
            .prop_map(|c| Value::String(c.into_iter().collect())),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((field_name(), inner), 0..10)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A body shaped like a request: an object of known fields, leads/businesses lists of objects.
fn request_like() -> impl Strategy<Value = Value> {
    let element = || {
        proptest::collection::vec((field_name(), scalar()), 0..12)
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>()))
    };
    (
        proptest::collection::vec((field_name(), scalar()), 0..12),
        proptest::option::of(proptest::collection::vec(element(), 0..5)),
        proptest::option::of(proptest::collection::vec(element(), 0..5)),
    )
        .prop_map(|(pairs, leads, businesses)| {
            let mut map: Map<String, Value> = pairs.into_iter().collect();
            if let Some(leads) = leads {
                map.insert("leads".into(), Value::Array(leads));
            }
            if let Some(businesses) = businesses {
                map.insert("businesses".into(), Value::Array(businesses));
            }
            Value::Object(map)
        })
}

/// Bytes near valid JSON: a serialised request with a few bytes replaced, inserted or cut.
fn mangled_json() -> impl Strategy<Value = Vec<u8>> {
    (
        request_like(),
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..4),
    )
        .prop_map(|(value, edits)| {
            let mut bytes = serde_json::to_vec(&value).unwrap();
            for (at, byte, op) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match op {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    _ => {
                        bytes.truncate(i);
                    }
                }
            }
            bytes
        })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        check_then_read(&bytes);
    }

    #[test]
    fn nearly_valid_json_never_panics(bytes in mangled_json()) {
        check_then_read(&bytes);
    }

    #[test]
    fn arbitrary_json_values_never_panic(value in json_value()) {
        check_then_read(&serde_json::to_vec(&value).unwrap());
    }

    #[test]
    fn request_shaped_values_never_panic(value in request_like()) {
        check_then_read(&serde_json::to_vec(&value).unwrap());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed(depth in 1usize..3000, open in "[\\[{]") {
        let opener = if open == "[" { "[" } else { "{\"a\":" };
        let closer = if open == "[" { "]" } else { "}" };
        let text = format!("{}1{}", opener.repeat(depth), closer.repeat(depth));
        check_then_read(text.as_bytes());
    }
}
