//! Field rules that validator does not have built in, worded as pydantic words them.
use std::borrow::Cow;

use validator::ValidationError;

use leadhub_domain::business::model::invalid_phone_message;
use leadhub_domain::lead::work::{
    follow_up_day, parse_tag, tags_of_field, TagProblem, FOLLOW_UP_RULE, TAGS_PER_LEAD,
};
use leadhub_domain::parse::{normalize_phone, StateCode};

use crate::extract::lax::Lax;

/// A value from a closed list, compared case-insensitively (blank counts as absent).
pub fn one_of(field: &Lax<String>, allowed: &[&str]) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if !allowed.iter().any(|a| a.eq_ignore_ascii_case(text)) => {
            Err(ValidationError::new("enum").with_message(Cow::Owned(enum_message(allowed))))
        }
        _ => Ok(()),
    }
}

/// `one_of` for a body field that also carries `length(max = 255)`: longer text is only too
/// long, as pydantic reports a value that fails its string type's constraint.
pub fn one_of_text(field: &Lax<String>, allowed: &[&str]) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if text.chars().count() > MAX_ENUM_TEXT => Ok(()),
        _ => one_of(field, allowed),
    }
}

/// A follow-up day: `YYYY-MM-DD` within `FOLLOW_UP_YEARS` (blank counts as absent: it clears).
pub fn follow_up_date(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if follow_up_day(text).is_none() => Err(ValidationError::new("date_parsing")
            .with_message(Cow::Owned(format!("Input should be {FOLLOW_UP_RULE}")))),
        _ => Ok(()),
    }
}

/// The tags a list keeps (`tags_of_field`: commas or semicolons between them, each at most 40
/// characters, at most as many as a lead carries; blank counts as absent).
pub fn tag_words(field: &Lax<String>) -> Result<(), ValidationError> {
    let refusal = match field.text().map(tags_of_field) {
        Some(Err(reason)) => reason,
        Some(Ok(tags)) if tags.len() > TAGS_PER_LEAD => {
            format!("A lead carries at most {TAGS_PER_LEAD} tags: name fewer")
        }
        _ => return Ok(()),
    };
    Err(ValidationError::new("value_error")
        .with_message(Cow::Owned(format!("Value error, {refusal}"))))
}

/// One tag named in a body (`parse_tag`); a blank one is refused: it names no tag.
pub fn a_tag(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.value().map(|given| parse_tag(given)) {
        Some(Err(problem)) => Err(tag_error(problem, None)),
        _ => Ok(()),
    }
}

/// A list of tags, each one by `parse_tag` (a blank one is refused too: it names nothing).
pub fn tag_list(field: &Lax<Vec<String>>) -> Result<(), ValidationError> {
    let tags = field.value().map(Vec::as_slice).unwrap_or_default();
    for (i, tag) in tags.iter().enumerate() {
        if let Err(problem) = parse_tag(tag) {
            return Err(tag_error(problem, Some(i)));
        }
    }
    Ok(())
}

/// A tag's problem; `index`: its place in a list of tags.
fn tag_error(problem: TagProblem, index: Option<usize>) -> ValidationError {
    let place = index.map(|i| format!("tag {i}: ")).unwrap_or_default();
    ValidationError::new("value_error").with_message(Cow::Owned(format!(
        "Value error, {place}{}",
        problem.message()
    )))
}

/// The length rule of enum fields in bodies.
const MAX_ENUM_TEXT: usize = 255;

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

/// A US state, DC or territory code, any case.
pub fn state_code(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if StateCode::parse(text).is_none() => Err(ValidationError::new("value_error")
            .with_message(Cow::Owned(format!(
                "Value error, {text:?} is not a US state, DC or territory code"
            )))),
        _ => Ok(()),
    }
}

/// A phone number by the leads' rule (libphonenumber's metadata): a business phone that is not
/// one is refused rather than stored as given. Text over the length limit is only too long.
pub fn phone_number(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if text.chars().count() <= MAX_ENUM_TEXT && normalize_phone(text).is_none() => {
            Err(
                ValidationError::new("value_error").with_message(Cow::Owned(format!(
                    "Value error, {}",
                    invalid_phone_message(text)
                ))),
            )
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_messages_read_as_pydantic_words_them() {
        assert_eq!(enum_message(&["a"]), "Input should be 'a'");
        assert_eq!(
            enum_message(&["a", "b", "c"]),
            "Input should be 'a', 'b' or 'c'"
        );
        assert!(one_of(&Lax::Given("B".into()), &["a", "b"]).is_ok());
        assert!(one_of(&Lax::Given(String::new()), &["a"]).is_ok());
        assert!(one_of(&Lax::Given("x".into()), &["a"]).is_err());
    }
}
