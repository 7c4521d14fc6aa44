//! Every `Lax` field of a request carries the `json_type` rule (issue 30). `Lax` keeps a value of
//! the wrong JSON type as `Wrong` so that one 422 can name every problem; a field without the rule
//! would read such a value as absent and the request would be answered as if it were not sent.
//! Reads this crate's sources: a field is a line `name: Lax<..>,` (or `pub name: ...`), its rules
//! the attribute lines right above it, or a hand-written `Validate` calling `json_type(&self.name)`.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// `name: Type,` with an optional `pub` / `pub(crate)`: a struct field on one line, as its name
/// and type.
fn field(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    let line = line
        .strip_prefix("pub(crate) ")
        .or_else(|| line.strip_prefix("pub "))
        .unwrap_or(line);
    let (name, ty) = line.split_once(": ")?;
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    (is_name && ty.ends_with(',')).then_some((name, ty))
}

/// The attribute lines (and doc comments) directly above line `at`.
fn attributes_above<'a>(lines: &[&'a str], at: usize) -> Vec<&'a str> {
    let mut above = Vec::new();
    for line in lines[..at].iter().rev() {
        let t = line.trim();
        if t.is_empty() || t.ends_with('{') || field(t).is_some() {
            break;
        }
        above.push(t);
    }
    above
}

/// How many `Lax` fields `text` has, and `file:line field` of each without `json_type` among its
/// attributes or called on it by a hand-written `Validate` in the same file.
fn fields_without_rule(file: &str, text: &str) -> (usize, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut fields, mut missing) = (0, Vec::new());
    for (at, line) in lines.iter().enumerate() {
        let Some((name, ty)) = field(line) else {
            continue;
        };
        if !ty.starts_with("Lax<") {
            continue;
        }
        fields += 1;
        let by_hand = text.contains(&format!("json_type(&self.{name})"));
        let by_attribute = attributes_above(&lines, at)
            .iter()
            .any(|a| a.contains("\"json_type\""));
        if !by_hand && !by_attribute {
            missing.push(format!("{file}:{} {}", at + 1, line.trim()));
        }
    }
    (fields, missing)
}

/// The `.rs` files below `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

#[test]
fn every_lax_field_has_its_json_type_rule() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (mut fields, mut missing) = (0, Vec::new());
    for path in sources(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        let (found, without) = fields_without_rule(&name, &text);
        fields += found;
        missing.extend(without);
    }
    // 123 when written: far fewer means the scan no longer recognises the fields.
    assert!(fields > 100, "the scan found only {fields} Lax fields");
    assert!(
        missing.is_empty(),
        "Lax fields without json_type:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_field_without_the_rule_is_found() {
    let text = "struct Body {\n    #[validate(custom(function = \"json_type\"))]\n    pub a: Lax<String>,\n    /// b\n    #[validate(length(max = 3))]\n    pub b: Lax<String>,\n    #[validate(\n        custom(function = \"json_type\"),\n        length(max = 255),\n    )]\n    c: Lax<i64>,\n    d: Lax<bool>,\n}\nfn validate(&self) { json_type(&self.d) }\n";
    let (fields, missing) = fields_without_rule("x.rs", text);
    assert_eq!(fields, 4);
    assert_eq!(missing, ["x.rs:6 pub b: Lax<String>,"]);
}
