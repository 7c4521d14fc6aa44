//! validator's errors in the contract's words: the one place where a rule's failure becomes a
//! FastAPI 422 item (`loc`, `msg`, pydantic's `type`), in field order.
use std::borrow::Cow;

use schemars::gen::SchemaSettings;
use schemars::schema::{RootSchema, Schema, SchemaObject, SingleOrVec};
use schemars::JsonSchema;
use serde_json::Value;
use validator::{ValidationError, ValidationErrors, ValidationErrorsKind};

use leadhub_domain::error::{FieldError, LocPart};

/// Where validator puts a problem of a whole object (`schema` rules, and element rules).
const WHOLE: &str = "__all__";
/// The parameter that names the field a whole-object problem belongs to.
pub const FIELD_PARAM: &str = "field";

/// Every problem of a `T` read at `base` (["body"], ["query"], ["body", "leads", 3], ...):
/// objects in the order of their fields as `T` declares them, list elements in index order.
pub fn problems<T: JsonSchema>(errors: &ValidationErrors, base: Vec<LocPart>) -> Vec<FieldError> {
    let schema = SchemaSettings::openapi3()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut out = Vec::new();
    object_problems(errors, &schema.schema, &schema, &mut base.clone(), &mut out);
    out
}

fn object_problems(
    errors: &ValidationErrors,
    object: &SchemaObject,
    root: &RootSchema,
    loc: &mut Vec<LocPart>,
    out: &mut Vec<FieldError>,
) {
    let whole: &[ValidationError] = match errors.errors().get(WHOLE) {
        Some(ValidationErrorsKind::Field(whole)) => whole,
        _ => &[],
    };
    let field_of = |e: &ValidationError| {
        e.params
            .get(FIELD_PARAM)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    for e in whole.iter().filter(|e| field_of(e).is_none()) {
        out.push(item(e, loc.clone()));
    }
    let declared: Vec<&str> = object
        .object
        .as_ref()
        .map(|o| o.properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    // Fields the schema does not list (there should be none) come last, by name.
    let mut unlisted: Vec<&str> = errors
        .errors()
        .keys()
        .map(|k| k.as_ref())
        .filter(|k| *k != WHOLE && !declared.contains(k))
        .collect();
    unlisted.sort_unstable();
    for name in declared.iter().chain(&unlisted) {
        loc.push(LocPart::from(*name));
        if let Some(kind) = errors.errors().get(*name) {
            let field = property(object, name, root);
            field_problems(kind, field.as_ref(), root, loc, out);
        }
        for e in whole
            .iter()
            .filter(|e| field_of(e).as_deref() == Some(*name))
        {
            out.push(item(e, loc.clone()));
        }
        loc.pop();
    }
}

fn field_problems(
    kind: &ValidationErrorsKind,
    field: Option<&SchemaObject>,
    root: &RootSchema,
    loc: &mut Vec<LocPart>,
    out: &mut Vec<FieldError>,
) {
    let empty = SchemaObject::default();
    match kind {
        ValidationErrorsKind::Field(errors) => {
            out.extend(errors.iter().map(|e| item(e, loc.clone())));
        }
        ValidationErrorsKind::Struct(errors) => {
            object_problems(errors, field.unwrap_or(&empty), root, loc, out);
        }
        ValidationErrorsKind::List(elements) => {
            let element = field.and_then(|f| items(f, root));
            for (index, errors) in elements {
                loc.push(LocPart::Index(*index));
                object_problems(errors, element.as_ref().unwrap_or(&empty), root, loc, out);
                loc.pop();
            }
        }
    }
}

/// The schema of `object`'s property `name`, references followed.
fn property(object: &SchemaObject, name: &str, root: &RootSchema) -> Option<SchemaObject> {
    let schema = object.object.as_ref()?.properties.get(name)?;
    resolve(schema, root)
}

/// The schema of a list's elements, references followed.
fn items(list: &SchemaObject, root: &RootSchema) -> Option<SchemaObject> {
    match list.array.as_ref()?.items.as_ref()? {
        SingleOrVec::Single(schema) => resolve(schema, root),
        SingleOrVec::Vec(_) => None,
    }
}

fn resolve(schema: &Schema, root: &RootSchema) -> Option<SchemaObject> {
    let Schema::Object(object) = schema else {
        return None;
    };
    match &object.reference {
        Some(reference) => {
            let name = reference.rsplit('/').next()?;
            resolve(root.definitions.get(name)?, root)
        }
        None => Some(object.clone()),
    }
}

/// One problem: validator's own rules worded as pydantic words them; every other code is
/// already a pydantic type, with its message.
fn item(e: &ValidationError, loc: Vec<LocPart>) -> FieldError {
    let (kind, msg): (&str, Cow<str>) = match e.code.as_ref() {
        "required" => ("missing", "Field required".into()),
        "length" => length(e),
        "range" => range(e),
        code => (
            code,
            e.message.clone().unwrap_or_else(|| code.to_owned().into()),
        ),
    };
    FieldError::new(loc, kind, msg)
}

fn param(e: &ValidationError, name: &str) -> Option<f64> {
    e.params.get(name).and_then(Value::as_f64)
}

/// A bound as pydantic prints it: integral bounds without a fraction.
fn bound(e: &ValidationError, name: &str) -> String {
    let v = param(e, name).unwrap_or_default();
    format!("{v}")
}

fn length(e: &ValidationError) -> (&'static str, Cow<'static, str>) {
    let (size, what) = match e.params.get("value") {
        Some(Value::Array(items)) => (items.len(), None),
        Some(Value::String(text)) => (text.chars().count(), Some("character")),
        _ => (0, Some("character")),
    };
    let min = param(e, "min").filter(|min| (size as f64) < *min);
    match (min, what) {
        (Some(min), Some(unit)) => (
            "too_short",
            format!("String should have at least {min} {unit}{}", plural(min)).into(),
        ),
        (Some(min), None) => (
            "too_short",
            format!(
                "List should have at least {min} item{} after validation, not {size}",
                plural(min)
            )
            .into(),
        ),
        (None, Some(_)) => (
            "too_long",
            format!("String should have at most {} characters", bound(e, "max")).into(),
        ),
        (None, None) => (
            "too_long",
            format!(
                "List should have at most {} items after validation, not {size}",
                bound(e, "max")
            )
            .into(),
        ),
    }
}

fn plural(n: f64) -> &'static str {
    if n == 1.0 {
        ""
    } else {
        "s"
    }
}

fn range(e: &ValidationError) -> (&'static str, Cow<'static, str>) {
    let value = param(e, "value");
    match (value, param(e, "min")) {
        (Some(v), Some(min)) if v < min => (
            "greater_than_equal",
            format!(
                "Input should be greater than or equal to {}",
                bound(e, "min")
            )
            .into(),
        ),
        _ => (
            "less_than_equal",
            format!("Input should be less than or equal to {}", bound(e, "max")).into(),
        ),
    }
}
