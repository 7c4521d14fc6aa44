//! An event's subject: what it is about (a lead's or submission's id, a batch id), and, for a
//! person's change of a lead, the members its delivery adds to the body beside `data`
//! (`changes`, a merge's `merged_id`). They exist only at the moment of the change, and the
//! subject is the one thing an event row carries to its delivery: `id#{json object}`.
use serde_json::{Map, Value};

/// Members a subject adds to the delivery's body, beside `type`, `timestamp` and `data`.
pub type BodyMembers = Map<String, Value>;

/// The subject of an event about `id` that adds `members` to its body (none: the plain id).
pub fn event_subject(id: i64, members: BodyMembers) -> String {
    if members.is_empty() {
        id.to_string()
    } else {
        format!("{id}#{}", Value::Object(members))
    }
}

/// A subject and the members it adds, if any; an error for members that are no JSON object.
pub fn split_subject(subject: &str) -> Result<(&str, Option<BodyMembers>), String> {
    match subject.split_once('#') {
        None => Ok((subject, None)),
        Some((id, extra)) => match serde_json::from_str(extra) {
            Ok(Value::Object(members)) => Ok((id, Some(members))),
            _ => Err(format!("bad subject {subject:?}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_ride_after_the_id_and_come_back() {
        assert_eq!(event_subject(7, Map::new()), "7");
        let mut members = Map::new();
        members.insert("merged_id".into(), Value::from(9));
        let subject = event_subject(7, members.clone());
        assert_eq!(subject, r#"7#{"merged_id":9}"#);
        assert_eq!(split_subject(&subject), Ok(("7", Some(members))));
        assert_eq!(split_subject("bat_1"), Ok(("bat_1", None)));
        assert!(split_subject("7#[1]").is_err());
    }
}
