//! Reading `POST /api/v1/submissions/batch` bodies: up to 1000 leads, each read as a single
//! submission would be, every problem of every element collected.
//!
//! Two readings give the same answer. The usual body (an object with a `leads` array of
//! 1 to 1000 elements, no repeated key, no deep nesting) is read straight from its text: each
//! element parsed on its own, without a tree of the whole body. Anything else goes the
//! generic way (the body parsed whole, then read), which also words every problem with the
//! shape.
//!
//! A usual body processed now, with no problem in the batch's own fields, is not even read
//! here: its elements are split out (`UnreadElements`) and read one by one as the store takes
//! them (`ElementReader`), so that the first leads are written while the last are still being
//! read. An element that the straight reading cannot answer for (too deep, a number out of
//! range, a team of its own) stops that reading; the body is then read whole and processed as
//! any other.
use std::borrow::Cow;
use std::ops::Range;

use actix_web::web::Bytes;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_domain::submission::SubmissionRequest;
use leadhub_domain::two_threads::in_chunks_on_two_threads;

use crate::extract::{depth, parse_json_body, Fields, FromBody, MAX_DEPTH};
use crate::routes::lead_body::{read_lead, MAX_BATCH};

/// `POST /api/v1/submissions/batch`.
pub struct BatchSubmission {
    pub elements: BatchElements,
    pub process_immediately: bool,
    pub team_id: Option<i64>,
}

/// A batch's elements, read or not yet.
pub enum BatchElements {
    /// Every element read, and valid.
    Read(Vec<SubmissionRequest>),
    /// To be read as the store takes them (see the module's comment).
    Unread(UnreadElements),
}

/// A batch body's elements, not read yet: where each one's text lies in the body.
pub struct UnreadElements {
    body: Bytes,
    spans: Vec<Range<usize>>,
}

impl FromBody for BatchSubmission {
    fn from_body(value: &Value) -> Result<Self, Vec<FieldError>> {
        Self::read(value, None)
    }

    fn from_body_text(value: &Value, text: &[u8]) -> Result<Self, Vec<FieldError>> {
        Self::read(value, Some(text))
    }

    fn from_text(text: &Bytes) -> Option<Result<Self, Vec<FieldError>>> {
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
        let (batch, leads) = Self::read_generic(value, text)?;
        Ok(Self::of(batch, BatchElements::Read(leads)))
    }

    /// The batch's own fields and every element, or every problem, read from the body parsed
    /// whole.
    fn read_generic(
        value: &Value,
        text: Option<&[u8]>,
    ) -> Result<(BatchFields, Vec<SubmissionRequest>), Vec<FieldError>> {
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
        if problems.is_empty() {
            Ok((batch, leads))
        } else {
            Err(problems)
        }
    }

    /// The reading straight from the text; `None` for any body the generic reading might
    /// answer differently.
    fn read_fast(text: &Bytes) -> Option<Result<Self, Vec<FieldError>>> {
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
        if problems.is_empty() && batch.process_immediately {
            // Each element's place in the body: serde_json borrows every RawValue from `text`.
            let start = text.as_ptr() as usize;
            let spans = elements
                .iter()
                .map(|e| {
                    let at = (e.get().as_ptr() as usize).checked_sub(start)?;
                    Some(at..at + e.get().len())
                })
                .collect::<Option<Vec<_>>>()?;
            let unread = UnreadElements {
                body: text.clone(),
                spans,
            };
            return Some(Ok(Self::of(batch, BatchElements::Unread(unread))));
        }
        let mut leads = Vec::with_capacity(elements.len());
        for part in in_chunks_on_two_threads(&elements, |offset, part| {
            let mut read = ReadLeads::new(part.len());
            for (i, text) in part.iter().enumerate() {
                let item = parse_element(text.get())?;
                read.element(offset + i, &item, Some(text.get()), batch.team_id);
            }
            Some((read.leads, read.problems))
        }) {
            let (part, part_problems) = part?;
            leads.extend(part);
            problems.extend(part_problems);
        }
        Some(if problems.is_empty() {
            Ok(Self::of(batch, BatchElements::Read(leads)))
        } else {
            Err(problems)
        })
    }

    fn of(batch: BatchFields, elements: BatchElements) -> Self {
        BatchSubmission {
            elements,
            process_immediately: batch.process_immediately,
            team_id: batch.team_id,
        }
    }
}

impl UnreadElements {
    /// How many elements the batch has (1 to 1000).
    pub fn count(&self) -> usize {
        self.spans.len()
    }

    /// Reads the elements one by one, in order.
    pub fn reader(&self) -> ElementReader<'_> {
        ElementReader {
            unread: self,
            next: 0,
            read_whole: false,
        }
    }

    /// The generic reading of the whole body, for when the straight one stopped: every
    /// element, or every problem.
    pub fn read_whole(&self) -> Result<Vec<SubmissionRequest>, Vec<FieldError>> {
        let value = parse_json_body(&self.body)?;
        BatchSubmission::read_generic(&value, Some(&self.body)).map(|(_, leads)| leads)
    }
}

/// Reads unread elements in order: each one read, or its problems. An element the straight
/// reading cannot answer for ends the reading (it yields no problems, then nothing more), and
/// the body must then be read whole (`read_whole`).
pub struct ElementReader<'a> {
    unread: &'a UnreadElements,
    next: usize,
    read_whole: bool,
}

impl ElementReader<'_> {
    /// Whether an element stopped this reading: the body must be read whole.
    pub fn must_read_whole(&self) -> bool {
        self.read_whole
    }

    /// Element `index`, read from its text, or `None` when only the generic reading can
    /// answer for it.
    fn read(index: usize, text: &[u8]) -> Option<Result<SubmissionRequest, Vec<FieldError>>> {
        let text = std::str::from_utf8(text).ok()?;
        let item = parse_element(text)?;
        let mut read = ReadLeads::new(1);
        read.element(index, &item, Some(text), None);
        match read.leads.pop() {
            // A team of its own is checked before anything is stored: only the whole
            // reading's path does that.
            Some(lead) if lead.team_id.is_some() => None,
            Some(lead) => Some(Ok(lead)),
            None if read.problems.is_empty() => None,
            None => Some(Err(read.problems)),
        }
    }
}

impl Iterator for ElementReader<'_> {
    type Item = Result<SubmissionRequest, Vec<FieldError>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.read_whole {
            return None;
        }
        let index = self.next;
        let span = self.unread.spans.get(index)?.clone();
        self.next += 1;
        let body: &[u8] = &self.unread.body;
        match body.get(span).and_then(|text| Self::read(index, text)) {
            Some(read) => Some(read),
            None => {
                self.read_whole = true;
                Some(Err(Vec::new()))
            }
        }
    }
}

/// An element's value parsed from its text; `None` when the straight reading cannot answer for
/// it (the parser refuses it, or it nests too deeply), so that only the whole reading does.
fn parse_element(text: &str) -> Option<Value> {
    let item: Value = serde_json::from_str(text).ok()?;
    // The body and its "leads" array nest two levels above each element.
    (2 + depth(&item) <= MAX_DEPTH).then_some(item)
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

    /// A reading: the batch's own fields, and its elements or every problem.
    type Read = Result<(bool, Option<i64>, Vec<SubmissionRequest>), Vec<FieldError>>;

    /// Reads the elements left unread, as the store would take them: every element, or every
    /// problem; `None` when the reading stopped for the body to be read whole.
    fn finish(read: Result<BatchSubmission, Vec<FieldError>>) -> Option<Read> {
        let b = match read {
            Ok(b) => b,
            Err(problems) => return Some(Err(problems)),
        };
        let leads = match b.elements {
            BatchElements::Read(leads) => leads,
            BatchElements::Unread(unread) => {
                let mut reader = unread.reader();
                let (mut leads, mut problems) = (Vec::new(), Vec::new());
                for element in &mut reader {
                    match element {
                        Ok(lead) => leads.push(lead),
                        Err(p) => problems.extend(p),
                    }
                }
                if reader.must_read_whole() {
                    return None;
                }
                if !problems.is_empty() {
                    return Some(Err(problems));
                }
                leads
            }
        };
        Some(Ok((b.process_immediately, b.team_id, leads)))
    }

    fn both(text: &str) -> (Option<Read>, Read) {
        let value: Value = serde_json::from_str(text).unwrap();
        let body = Bytes::copy_from_slice(text.as_bytes());
        let generic = BatchSubmission::read(&value, Some(text.as_bytes()));
        (
            BatchSubmission::read_fast(&body).and_then(finish),
            finish(generic).expect("the generic reading reads every element"),
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
        assert_eq!(fast.0, generic.0);
        assert_eq!(fast.1, generic.1);
        assert_eq!(fast.2.len(), 2);
        for (a, b) in fast.2.iter().zip(&generic.2) {
            assert_eq!(a.fields, b.fields);
            assert_eq!(a.team_id, b.team_id);
            assert_eq!(a.raw_json, b.raw_json);
        }
    }

    fn bad_elements() -> String {
        let bad: Vec<String> = (0..100)
            .map(|i| match i % 3 {
                0 => format!(r#"{{"address": "{i} Main St", "bedrooms": "many"}}"#),
                1 => format!(r#"{{"address": {i}, "email_1": 5}}"#),
                _ => "[1, 2]".to_owned(),
            })
            .collect();
        bad.join(",")
    }

    #[test]
    fn problems_are_the_same_both_ways() {
        // With a problem in the batch's own fields too (elements read at once), and without
        // (elements read as the store would take them).
        for own in [r#""team_id": "x", "#, ""] {
            let text = format!(r#"{{{own}"leads": [{}]}}"#, bad_elements());
            let (fast, generic) = both(&text);
            let fast = fast.unwrap();
            assert!(fast.is_err());
            assert_eq!(problems(&fast), problems(&generic), "{own}");
        }
    }

    #[test]
    fn only_batches_processed_now_are_left_unread() {
        let unread = |text: &str| {
            let body = Bytes::copy_from_slice(text.as_bytes());
            matches!(
                BatchSubmission::read_fast(&body),
                Some(Ok(BatchSubmission {
                    elements: BatchElements::Unread(_),
                    ..
                }))
            )
        };
        assert!(unread(r#"{"leads": [{"address": "1 Main St"}]}"#));
        assert!(unread(
            r#"{"team_id": 3, "process_immediately": true, "leads": [{"address": "1 Main St"}]}"#
        ));
        assert!(!unread(
            r#"{"process_immediately": false, "leads": [{"address": "1 Main St"}]}"#
        ));
    }

    #[test]
    fn elements_only_the_whole_reading_answers_for_stop_the_straight_one() {
        for element in [
            // A team of its own: checked before anything is stored.
            r#"{"address": "2 Main St", "team_id": 7}"#,
            // Out of serde_json's range, which skipping over it does not see.
            r#"{"address": "2 Main St", "latitude": 1e400}"#,
        ] {
            let text = format!(r#"{{"leads": [{{"address": "1 Main St"}}, {element}]}}"#);
            let body = Bytes::copy_from_slice(text.as_bytes());
            let Some(Ok(BatchSubmission {
                elements: BatchElements::Unread(unread),
                ..
            })) = BatchSubmission::read_fast(&body)
            else {
                panic!("left unread: {element}");
            };
            let mut reader = unread.reader();
            assert!(reader.next().is_some_and(|first| first.is_ok()));
            assert!(reader.next().is_some_and(|second| second.is_err()));
            assert!(reader.must_read_whole(), "{element}");
            assert!(reader.next().is_none());
            // What the whole reading answers: the team's element read, the other refused.
            let whole = unread.read_whole();
            assert_eq!(whole.is_ok(), element.contains("team_id"), "{element}");
        }
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
            let body = Bytes::copy_from_slice(text.as_bytes());
            assert!(BatchSubmission::read_fast(&body).is_none(), "{text}");
        }
        let deep = format!(
            r#"{{"leads": [{{"a": {}1{}}}]}}"#,
            "[".repeat(30),
            "]".repeat(30)
        );
        let (fast, _) = both(&deep);
        assert!(fast.is_none(), "a deep element stops the straight reading");
        let too_many = format!(r#"{{"leads": [{}]}}"#, vec!["{}"; MAX_BATCH + 1].join(","));
        let body = Bytes::copy_from_slice(too_many.as_bytes());
        assert!(BatchSubmission::read_fast(&body).is_none());
    }
}
