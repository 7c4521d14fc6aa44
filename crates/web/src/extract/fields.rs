//! Reading a JSON object field by field while collecting every problem, in pydantic's words,
//! so one 422 lists all of them (serde stops at the first).
use serde_json::{Map, Value};

use leadhub_domain::error::{FieldError, LocPart};

/// The fields of one JSON object at `base` (e.g. ["body", "leads", 3]).
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    base: Vec<LocPart>,
}

fn too_long(max: usize) -> String {
    format!("String should have at most {max} characters")
}

impl<'a> Fields<'a> {
    /// None (with a problem noted) when `value` is not an object.
    pub fn of(
        value: &'a Value,
        base: Vec<LocPart>,
        problems: &mut Vec<FieldError>,
    ) -> Option<Self> {
        match value {
            Value::Object(map) => Some(Fields { map, base }),
            _ => {
                problems.push(FieldError::new(
                    base,
                    "model_attributes_type",
                    "Input should be a valid dictionary or object to extract fields from",
                ));
                None
            }
        }
    }

    pub fn loc(&self, name: &str) -> Vec<LocPart> {
        let mut loc = self.base.clone();
        loc.push(LocPart::from(name));
        loc
    }

    /// Whether the field is present at all, even as null (PATCH: null clears, absent keeps).
    pub fn has(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// The raw value, treating JSON null as absent.
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// An optional string: absent, null, empty or all-blank are all "absent"; text is trimmed
    /// (inner whitespace is the domain's business). Longer than `max` characters is `too_long`.
    pub fn opt_string(
        &self,
        name: &str,
        max: usize,
        problems: &mut Vec<FieldError>,
    ) -> Option<String> {
        match self.raw(name)? {
            Value::String(s) => {
                let t = s.trim();
                if t.is_empty() {
                    None
                // A string has at least as many bytes as characters: count only when it may
                // be too long.
                } else if t.len() > max && t.chars().count() > max {
                    problems.push(FieldError::new(self.loc(name), "too_long", too_long(max)));
                    None
                } else {
                    Some(t.to_owned())
                }
            }
            _ => {
                problems.push(FieldError::new(
                    self.loc(name),
                    "string_type",
                    "Input should be a valid string",
                ));
                None
            }
        }
    }

    /// A required string of `min..=max` characters after trimming.
    pub fn string(
        &self,
        name: &str,
        min: usize,
        max: usize,
        problems: &mut Vec<FieldError>,
    ) -> Option<String> {
        if self.raw(name).is_none() {
            problems.push(FieldError::new(self.loc(name), "missing", "Field required"));
            return None;
        }
        let before = problems.len();
        let value = self.opt_string(name, max, problems);
        // Blank (None without a problem) or present but short: both are too short. A short
        // value once slipped through without a problem and gave a 422 with an empty list.
        let short = match &value {
            None => problems.len() == before,
            Some(v) => v.chars().count() < min,
        };
        if short {
            problems.push(FieldError::new(
                self.loc(name),
                "too_short",
                format!(
                    "String should have at least {min} character{}",
                    if min == 1 { "" } else { "s" }
                ),
            ));
            return None;
        }
        value
    }

    /// An optional integer; integral floats and integer strings are accepted (pydantic's lax mode).
    pub fn opt_int(&self, name: &str, problems: &mut Vec<FieldError>) -> Option<i64> {
        let value = self.raw(name)?;
        let parsed = match value {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            }),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        if parsed.is_none() {
            let (kind, msg) = match value {
                Value::Number(_) => (
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                ),
                Value::String(_) => (
                    "int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer",
                ),
                _ => ("int_type", "Input should be a valid integer"),
            };
            problems.push(FieldError::new(self.loc(name), kind, msg));
        }
        parsed
    }

    /// An optional integer within `min..=max`.
    pub fn opt_int_in(
        &self,
        name: &str,
        min: i64,
        max: i64,
        problems: &mut Vec<FieldError>,
    ) -> Option<i64> {
        let v = self.opt_int(name, problems)?;
        self.check_range(name, v as f64, min as f64, max as f64, problems)
            .then_some(v)
    }

    /// An optional finite number; numeric strings are accepted (pydantic's lax mode).
    pub fn opt_float(&self, name: &str, problems: &mut Vec<FieldError>) -> Option<f64> {
        let value = self.raw(name)?;
        let parsed = match value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            _ => None,
        };
        if parsed.is_none() {
            let (kind, msg) = match value {
                Value::String(_) => (
                    "float_parsing",
                    "Input should be a valid number, unable to parse string as a number",
                ),
                _ => ("float_type", "Input should be a valid number"),
            };
            problems.push(FieldError::new(self.loc(name), kind, msg));
        }
        parsed
    }

    pub fn opt_float_in(
        &self,
        name: &str,
        min: f64,
        max: f64,
        problems: &mut Vec<FieldError>,
    ) -> Option<f64> {
        let v = self.opt_float(name, problems)?;
        self.check_range(name, v, min, max, problems).then_some(v)
    }

    fn check_range(
        &self,
        name: &str,
        v: f64,
        min: f64,
        max: f64,
        problems: &mut Vec<FieldError>,
    ) -> bool {
        if v < min {
            problems.push(FieldError::new(
                self.loc(name),
                "greater_than_equal",
                format!("Input should be greater than or equal to {min}"),
            ));
            false
        } else if v > max {
            problems.push(FieldError::new(
                self.loc(name),
                "less_than_equal",
                format!("Input should be less than or equal to {max}"),
            ));
            false
        } else {
            true
        }
    }

    pub fn opt_bool(&self, name: &str, problems: &mut Vec<FieldError>) -> Option<bool> {
        match self.raw(name)? {
            Value::Bool(b) => Some(*b),
            Value::String(s)
                if matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "false") =>
            {
                Some(s.trim().eq_ignore_ascii_case("true"))
            }
            _ => {
                problems.push(FieldError::new(
                    self.loc(name),
                    "bool_type",
                    "Input should be a valid boolean",
                ));
                None
            }
        }
    }

    /// A required array of `min..=max` elements.
    pub fn array(
        &self,
        name: &str,
        min: usize,
        max: usize,
        problems: &mut Vec<FieldError>,
    ) -> Option<&'a Vec<Value>> {
        let Some(value) = self.raw(name) else {
            problems.push(FieldError::new(self.loc(name), "missing", "Field required"));
            return None;
        };
        let Value::Array(items) = value else {
            problems.push(FieldError::new(
                self.loc(name),
                "list_type",
                "Input should be a valid list",
            ));
            return None;
        };
        if items.len() < min {
            problems.push(FieldError::new(
                self.loc(name),
                "too_short",
                format!(
                    "List should have at least {min} item{} after validation, not {}",
                    if min == 1 { "" } else { "s" },
                    items.len()
                ),
            ));
            return None;
        }
        if items.len() > max {
            problems.push(FieldError::new(
                self.loc(name),
                "too_long",
                format!(
                    "List should have at most {max} items after validation, not {}",
                    items.len()
                ),
            ));
            return None;
        }
        Some(items)
    }

    /// A value from a closed list, compared case-insensitively; answers the canonical spelling.
    pub fn opt_enum(
        &self,
        name: &str,
        allowed: &[&'static str],
        problems: &mut Vec<FieldError>,
    ) -> Option<&'static str> {
        let given = self.opt_string(name, 255, problems)?;
        let found = allowed
            .iter()
            .find(|a| a.eq_ignore_ascii_case(&given))
            .copied();
        if found.is_none() {
            problems.push(FieldError::new(
                self.loc(name),
                "enum",
                enum_message(allowed),
            ));
        }
        found
    }
}

/// pydantic's wording: "Input should be 'a', 'b' or 'c'".
pub fn enum_message(allowed: &[&str]) -> String {
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("Input should be {} or {last}", rest.join(", "))
        }
        Some((only, _)) => format!("Input should be {only}"),
        None => "Input should be one of the allowed values".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_required_string_is_a_problem() {
        // Found by the property suite (tests/fuzz_bodies.rs): this once failed with no problem.
        let body = serde_json::json!({"email": "ab", "blank": "  "});
        let mut problems = Vec::new();
        let fields = Fields::of(&body, vec![LocPart::from("body")], &mut problems);
        let fields = fields.unwrap_or_else(|| panic!("an object: {problems:?}"));
        assert_eq!(fields.string("email", 3, 320, &mut problems), None);
        assert_eq!(fields.string("blank", 1, 10, &mut problems), None);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().all(|p| p.kind == "too_short"));
        let mut none = Vec::new();
        assert_eq!(
            fields.string("email", 2, 320, &mut none).as_deref(),
            Some("ab")
        );
        assert!(none.is_empty());
    }
}
