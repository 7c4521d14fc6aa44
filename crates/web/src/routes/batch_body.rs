//! Reading `POST /api/v1/submissions/batch` bodies: up to 1000 leads, each read as a single
//! submission would be, every problem of every element collected.
//!
//! Two readings give the same answer. The usual body (an object with a `leads` array of
//! 1 to 1000 elements, no repeated key, no deep nesting) is read straight from its text: each
//! element parsed on its own, on two threads, without a tree of the whole body. Anything else
//! goes the generic way (the body parsed whole, then read), which also words every problem
//! with the shape.
use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::submission::SubmissionRequest;
use leadhub_domain::two_threads::in_chunks_on_two_threads;

use crate::extract::{depth, Fields, FromBody, MAX_DEPTH};
use crate::routes::lead_body::{read_lead, MAX_BATCH};

/// `POST /api/v1/submissions/batch`.
pub struct BatchSubmission {
    pub leads: Vec<SubmissionRequest>,
    pub process_immediately: bool,
    pub team_id: Option<i64>,
}

impl FromBody for BatchSubmission {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        Self::read(value, None)
    }

    fn from_body_text(value: &Value, text: &[u8]) -> Result<Self, Vec<FieldError>> {
        Self::read(value, Some(text))
    }

    fn from_text(text: &[u8]) -> Option<Result<Self, Vec<FieldError>>> {
        Self::read_fast(text)
    }
}

/// The batch body's `leads` as the texts of its elements, exactly as sent.
#[derive(serde::Deserialize)]
struct RawLeads<'a> {
    #[serde(borrow)]
    leads: Vec<&'a RawValue>,
}

/// A JSON object's members in order, each value still as text.
struct RawMembers<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for RawMembers<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = RawMembers<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(RawMembers(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// The batch's own fields, and the problems with them.
struct BatchFields {
    process_immediately: bool,
    team_id: Option<i64>,
}

impl BatchFields {
    fn read(fields: &Fields<'_>, problems: &mut Vec<FieldError>) -> Self {
        let process_immediately = fields
            .opt_bool("process_immediately", problems)
            .unwrap_or(true);
        let team_id = fields.opt_int("team_id", problems);
        BatchFields {
            process_immediately,
            team_id,
        }
    }
}

impl BatchSubmission {
    /// The generic reading, from the body parsed whole (and its text, for each element's own).
    fn read(value: &Value, text: Option<&[u8]>) -> Result<Self, Vec<FieldError>> {
        let mut problems = Vec::new();
        let fields = Fields::of(value, vec![LocPart::from("body")], &mut problems)
            .ok_or_else(|| problems.clone())?;
        let batch = BatchFields::read(&fields, &mut problems);
        let mut leads = Vec::new();
        if let Some(items) = fields.array("leads", 1, MAX_BATCH, &mut problems) {
            // Each element's own text, when the body reads as such (a repeated "leads" key
            // would not): else each element is written out from its value.
            let raw: Option<Vec<&RawValue>> = text
                .and_then(|t| serde_json::from_slice::<RawLeads>(t).ok())
                .map(|r| r.leads)
                .filter(|r| r.len() == items.len());
            let elements: Vec<(&Value, Option<&str>)> = items
                .iter()
                .enumerate()
                .map(|(i, item)| (item, raw.as_ref().and_then(|r| r.get(i)).map(|r| r.get())))
                .collect();
            // A large batch is read on two threads; problems keep element order.
            for (part, part_problems) in in_chunks_on_two_threads(&elements, |offset, part| {
                let mut read = ReadLeads::new(part.len());
                for (i, (item, raw)) in part.iter().enumerate() {
                    read.element(offset + i, item, *raw, batch.team_id);
                }
                (read.leads, read.problems)
            }) {
                leads.extend(part);
                problems.extend(part_problems);
            }
        }
        Self::answer(batch, leads, problems)
    }

    /// The reading straight from the text; `None` for any body the generic reading might
    /// answer differently.
    fn read_fast(text: &[u8]) -> Option<Result<Self, Vec<FieldError>>> {
        let RawMembers(members) = serde_json::from_slice(text).ok()?;
        let mut names = std::collections::HashSet::new();
        let mut own = Map::new();
        let mut elements = None;
        for (name, value) in members {
            // A repeated key: the generic reading decides which one counts.
            if !names.insert(name.clone()) {
                return None;
            }
            if name == "leads" {
                elements = Some(serde_json::from_str::<Vec<&RawValue>>(value.get()).ok()?);
                continue;
            }
            // Every other member is parsed, so the body is refused for the same reasons as
            // by the generic reading (an invalid escape inside an unknown member, say).
            let value: Value = serde_json::from_str(value.get()).ok()?;
            // The body nests one level above its members.
            if 1 + depth(&value) > MAX_DEPTH {
                return None;
            }
            if name == "team_id" || name == "process_immediately" {
                own.insert(name.into_owned(), value);
            }
        }
        let elements = elements?;
        if elements.is_empty() || elements.len() > MAX_BATCH {
            return None;
        }
        let own = Value::Object(own);
        let mut problems = Vec::new();
        let fields = Fields::of(&own, vec![LocPart::from("body")], &mut problems)?;
        let batch = BatchFields::read(&fields, &mut problems);
        let mut leads = Vec::with_capacity(elements.len());
        for part in in_chunks_on_two_threads(&elements, |offset, part| {
            let mut read = ReadLeads::new(part.len());
            for (i, text) in part.iter().enumerate() {
                let item: Value = serde_json::from_str(text.get()).ok()?;
                // The body and its "leads" array nest two levels above each element.
                if 2 + depth(&item) > MAX_DEPTH {
                    return None;
                }
                read.element(offset + i, &item, Some(text.get()), batch.team_id);
            }
            Some((read.leads, read.problems))
        }) {
            let (part, part_problems) = part?;
            leads.extend(part);
            problems.extend(part_problems);
        }
        Some(Self::answer(batch, leads, problems))
    }

    fn answer(
        batch: BatchFields,
        leads: Vec<SubmissionRequest>,
        problems: Vec<FieldError>,
    ) -> Result<Self, Vec<FieldError>> {
        if problems.is_empty() {
            Ok(BatchSubmission {
                leads,
                process_immediately: batch.process_immediately,
                team_id: batch.team_id,
            })
        } else {
            Err(problems)
        }
    }
}

/// Batch elements read so far: the leads, and the problems found, in element order.
struct ReadLeads {
    leads: Vec<SubmissionRequest>,
    problems: Vec<FieldError>,
}

impl ReadLeads {
    fn new(capacity: usize) -> Self {
        ReadLeads {
            leads: Vec::with_capacity(capacity),
            problems: Vec::new(),
        }
    }

    /// Reads element `index` (`raw`: its text as sent, when known).
    fn element(&mut self, index: usize, item: &Value, raw: Option<&str>, team_id: Option<i64>) {
        let base = vec![
            LocPart::from("body"),
            LocPart::from("leads"),
            LocPart::Index(index),
        ];
        if let Some(mut lead) = read_lead(item, raw, base, &mut self.problems) {
            // An element's own team_id overrides the batch's.
            lead.team_id = lead.team_id.or(team_id);
            self.leads.push(lead);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Read = Result<BatchSubmission, Vec<FieldError>>;

    fn both(text: &str) -> (Option<Read>, Read) {
        let value: Value = serde_json::from_str(text).unwrap();
        (
            BatchSubmission::read_fast(text.as_bytes()),
            BatchSubmission::read(&value, Some(text.as_bytes())),
        )
    }

    fn problems(r: &Read) -> Vec<(String, String)> {
        match r {
            Ok(_) => Vec::new(),
            Err(p) => p
                .iter()
                .map(|e| (format!("{:?}", e.loc), e.kind.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_usual_body_reads_alike_both_ways() {
        let text = r#"{"team_id": null, "process_immediately": "false", "leads": [
            {"address": "1 Main St", "state": "tx", "bedrooms": "3"},
            {"address": "2 Main St", "team_id": 7, "latitude": 30.1, "longitude": -97.7}]}"#;
        let (fast, generic) = both(text);
        let (fast, generic) = (fast.unwrap().ok().unwrap(), generic.ok().unwrap());
        assert_eq!(fast.process_immediately, generic.process_immediately);
        assert_eq!(fast.team_id, generic.team_id);
        assert_eq!(fast.leads.len(), 2);
        for (a, b) in fast.leads.iter().zip(&generic.leads) {
            assert_eq!(a.fields, b.fields);
            assert_eq!(a.team_id, b.team_id);
            assert_eq!(a.raw_json, b.raw_json);
        }
    }

    #[test]
    fn problems_are_the_same_both_ways() {
        let bad: Vec<String> = (0..100)
            .map(|i| match i % 3 {
                0 => format!(r#"{{"address": "{i} Main St", "bedrooms": "many"}}"#),
                1 => format!(r#"{{"address": {i}, "email_1": 5}}"#),
                _ => "[1, 2]".to_owned(),
            })
            .collect();
        let text = format!(r#"{{"team_id": "x", "leads": [{}]}}"#, bad.join(","));
        let (fast, generic) = both(&text);
        let fast = fast.unwrap();
        assert!(fast.is_err());
        assert_eq!(problems(&fast), problems(&generic));
    }

    #[test]
    fn other_shapes_go_the_generic_way() {
        for text in [
            r#"{"leads": []}"#,
            r#"{"leads": [{"address": "1 Main St"}], "leads": [{"address": "2 Main St"}]}"#,
            r#"{"leads": {"address": "1 Main St"}}"#,
            r#"[{"address": "1 Main St"}]"#,
            r#"[[{"address": "1 Main St"}], 5]"#,
            r#"{"team_id": 1}"#,
        ] {
            assert!(
                BatchSubmission::read_fast(text.as_bytes()).is_none(),
                "{text}"
            );
        }
        let deep = format!(
            r#"{{"leads": [{{"a": {}1{}}}]}}"#,
            "[".repeat(30),
            "]".repeat(30)
        );
        assert!(BatchSubmission::read_fast(deep.as_bytes()).is_none());
        let too_many = format!(r#"{{"leads": [{}]}}"#, vec!["{}"; MAX_BATCH + 1].join(","));
        assert!(BatchSubmission::read_fast(too_many.as_bytes()).is_none());
    }
}
