//! The rules that reject a submission (422) rather than warn: contract section 3.1.
use crate::error::{FieldError, LocPart};
use crate::lead::fields::{max_len, LeadFields, PHONE_TYPES, PROPERTY_TYPES, STRING_FIELDS};
use crate::parse::StateCode;

fn at(base: &[LocPart], field: &str) -> Vec<LocPart> {
    let mut loc = base.to_vec();
    loc.push(LocPart::from(field));
    loc
}

fn one_of(allowed: &[&str]) -> String {
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("Input should be {} or {last}", rest.join(", "))
        }
        _ => format!("Input should be {}", quoted.join("")),
    }
}

/// Every problem with one lead's values; `base` is where the lead sits (["body"] or
/// ["body", "leads", i]).
pub fn validate_lead(lead: &LeadFields, base: &[LocPart]) -> Vec<FieldError> {
    let mut problems = Vec::new();
    for name in STRING_FIELDS {
        if let Some(Some(value)) = lead.string_field(name) {
            let max = max_len(name);
            if value.chars().count() > max {
                problems.push(FieldError::new(
                    at(base, name),
                    "too_long",
                    format!("String should have at most {max} characters"),
                ));
            }
        }
    }
    for name in ["state", "mail_state"] {
        if let Some(Some(value)) = lead.string_field(name) {
            if StateCode::parse(value).is_none() {
                problems.push(FieldError::new(
                    at(base, name),
                    "value_error",
                    format!("Value error, {value:?} is not a US state, DC or territory code"),
                ));
            }
        }
    }
    for (name, allowed) in [
        ("primary_phone_type", &PHONE_TYPES[..]),
        ("property_type", &PROPERTY_TYPES[..]),
    ] {
        if let Some(Some(value)) = lead.string_field(name) {
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(value)) {
                problems.push(FieldError::new(at(base, name), "enum", one_of(allowed)));
            }
        }
    }
    if let Some(b) = lead.bedrooms {
        if b < 0 {
            problems.push(FieldError::new(
                at(base, "bedrooms"),
                "greater_than_equal",
                "Input should be greater than or equal to 0",
            ));
        } else if b > 100 {
            problems.push(FieldError::new(
                at(base, "bedrooms"),
                "less_than_equal",
                "Input should be less than or equal to 100",
            ));
        }
    }
    for (name, value, limit) in [
        ("latitude", lead.latitude, 90.0),
        ("longitude", lead.longitude, 180.0),
    ] {
        if let Some(v) = value {
            if v < -limit {
                problems.push(FieldError::new(
                    at(base, name),
                    "greater_than_equal",
                    format!("Input should be greater than or equal to -{limit}"),
                ));
            } else if v > limit {
                problems.push(FieldError::new(
                    at(base, name),
                    "less_than_equal",
                    format!("Input should be less than or equal to {limit}"),
                ));
            }
        }
    }
    match (lead.latitude, lead.longitude) {
        (Some(_), None) => problems.push(FieldError::new(
            at(base, "longitude"),
            "missing",
            "longitude is required when latitude is given",
        )),
        (None, Some(_)) => problems.push(FieldError::new(
            at(base, "latitude"),
            "missing",
            "latitude is required when longitude is given",
        )),
        _ => {}
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Vec<LocPart> {
        vec![LocPart::from("body")]
    }

    #[test]
    fn a_clean_lead_passes() {
        let lead = LeadFields {
            state: Some("tx".into()),
            mail_state: Some("PR".into()),
            primary_phone_type: Some("Mobile".into()),
            property_type: Some("VACANT_LAND".into()),
            bedrooms: Some(0),
            latitude: Some(-90.0),
            longitude: Some(180.0),
            ..LeadFields::default()
        };
        assert!(validate_lead(&lead, &body()).is_empty());
    }

    #[test]
    fn every_problem_is_reported() {
        let lead = LeadFields {
            state: Some("XX".into()),
            mail_state: Some("Texas".into()),
            primary_phone_type: Some("fax".into()),
            property_type: Some("castle".into()),
            bedrooms: Some(101),
            latitude: Some(91.0),
            project_description: Some("x".repeat(5001)),
            city: Some("y".repeat(256)),
            related_url: Some("z".repeat(2048)),
            ..LeadFields::default()
        };
        let problems = validate_lead(
            &lead,
            &[
                LocPart::from("body"),
                LocPart::from("leads"),
                LocPart::Index(3),
            ],
        );
        let kinds: Vec<(&str, String)> = problems
            .iter()
            .map(|p| (p.kind.as_str(), format!("{:?}", p.loc.last())))
            .collect();
        assert_eq!(problems.len(), 9, "{kinds:?}");
        assert_eq!(
            problems[0].loc[..3],
            [
                LocPart::from("body"),
                LocPart::from("leads"),
                LocPart::Index(3)
            ]
        );
    }
}
