//! Layer attributes -> the contract's `appraisal` object (section 4.2).

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};
use strum::IntoEnumIterator;

use crate::config::{AppraisalKey, ValueKind};

/// Builds `{source, account_id, ..., legal_description, raw}`: every key present, null where the layer has no
/// usable value, numbers as JSON numbers, `raw` the attributes untouched.
pub(crate) fn appraisal_object(
    source: &str,
    fields: &BTreeMap<AppraisalKey, Vec<String>>,
    attributes: Map<String, Value>,
) -> Value {
    let mut out = Map::new();
    out.insert("source".into(), Value::String(source.to_string()));
    for key in AppraisalKey::iter() {
        let value = match fields.get(&key) {
            Some(names) => read(key.kind(), names, &attributes),
            None => Value::Null,
        };
        out.insert(key.as_str().into(), value);
    }
    out.insert("raw".into(), Value::Object(attributes));
    Value::Object(out)
}

fn read(kind: ValueKind, names: &[String], attributes: &Map<String, Value>) -> Value {
    match kind {
        ValueKind::Text => {
            let parts: Vec<String> = names
                .iter()
                .filter_map(|n| attribute(attributes, n).and_then(text))
                .collect();
            if parts.is_empty() {
                Value::Null
            } else {
                Value::String(parts.join(", "))
            }
        }
        ValueKind::Number => names
            .first()
            .and_then(|n| attribute(attributes, n))
            .and_then(number)
            .map_or(Value::Null, Value::Number),
        ValueKind::Year => names
            .first()
            .and_then(|n| attribute(attributes, n))
            .and_then(number)
            .and_then(|n| n.as_f64())
            // 0, 9999 and the like are "unknown" placeholders on many rolls.
            .filter(|y| y.fract() == 0.0 && (1600.0..=2200.0).contains(y))
            .map_or(Value::Null, |y| Value::from(y as i64)),
    }
}

/// The attribute by its exact name, else case-insensitively (MapServer and FeatureServer copies of one layer do
/// not always agree on case).
fn attribute<'a>(attributes: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    attributes.get(name).or_else(|| {
        attributes
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

/// A string with its whitespace runs collapsed, or a number written out; None when empty.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => {
            let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
            (!s.is_empty()).then_some(s)
        }
        Value::Number(n) => Some(match integral(n.as_f64()?) {
            Some(i) => i.to_string(),
            None => n.to_string(),
        }),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// A JSON number, or a numeric string coerced ("812,500", "$812500.00", " 0.16 "); whole values become integers.
fn number(v: &Value) -> Option<Number> {
    let f = match v {
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                return Some(n.clone());
            }
            n.as_f64()?
        }
        Value::String(s) => {
            let cleaned: String = s
                .chars()
                .filter(|c| !c.is_whitespace() && *c != ',' && *c != '$')
                .collect();
            if cleaned.is_empty() {
                return None;
            }
            cleaned.parse::<f64>().ok()?
        }
        _ => return None,
    };
    if !f.is_finite() {
        return None;
    }
    match integral(f) {
        Some(i) => Some(Number::from(i)),
        None => Number::from_f64(f),
    }
}

/// `Some(i)` when `f` is a whole number that an i64 (and a JavaScript double) holds exactly.
fn integral(f: f64) -> Option<i64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    (f.fract() == 0.0 && f.abs() <= LIMIT).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_coerced() {
        assert_eq!(number(&json!("812,500")), Some(Number::from(812500)));
        assert_eq!(number(&json!("$812500.00")), Some(Number::from(812500)));
        assert_eq!(number(&json!(795000.0)), Some(Number::from(795000)));
        assert_eq!(number(&json!(" 0.1612 ")), Number::from_f64(0.1612));
        assert_eq!(number(&json!("")), None);
        assert_eq!(number(&json!("n/a")), None);
        assert_eq!(number(&json!(null)), None);
    }

    #[test]
    fn text_is_trimmed_and_numbers_written_out() {
        assert_eq!(
            text(&json!("  1407 W 9TH ST  TX ")),
            Some("1407 W 9TH ST TX".into())
        );
        assert_eq!(text(&json!(102345)), Some("102345".into()));
        assert_eq!(text(&json!(102345.0)), Some("102345".into()));
        assert_eq!(text(&json!("   ")), None);
    }

    #[test]
    fn years_reject_placeholders() {
        let attrs = json!({"Y": 0, "Z": "1938", "W": 1938.5});
        let Value::Object(attrs) = attrs else {
            unreachable!()
        };
        assert_eq!(read(ValueKind::Year, &["Y".into()], &attrs), Value::Null);
        assert_eq!(read(ValueKind::Year, &["Z".into()], &attrs), json!(1938));
        assert_eq!(read(ValueKind::Year, &["W".into()], &attrs), Value::Null);
        assert_eq!(
            read(ValueKind::Year, &["missing".into()], &attrs),
            Value::Null
        );
    }

    #[test]
    fn text_keys_join_several_attributes_and_match_case_insensitively() {
        let Value::Object(attrs) =
            json!({"Owner_Addr": "PO BOX 1", "OWNER_CITY": "FORT WORTH", "Owner_Zip": ""})
        else {
            unreachable!()
        };
        let names = vec!["Owner_Addr".into(), "Owner_City".into(), "Owner_Zip".into()];
        assert_eq!(
            read(ValueKind::Text, &names, &attrs),
            json!("PO BOX 1, FORT WORTH")
        );
    }
}
