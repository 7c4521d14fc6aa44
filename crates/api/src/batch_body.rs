//! `POST /api/v1/submissions/batch` bodies: up to 1000 leads, each read as a single submission
//! is (its own JSON text kept verbatim), every problem of every element collected before
//! anything is stored.
use serde::Deserialize;
use validator::Validate;

use leadhub_domain::submission::SubmissionRequest;
use leadhub_http::extract::{json_type, Lax, RequestBody};

use crate::lead_body::SubmittedLead;

/// Most leads one batch may carry.
pub const MAX_BATCH: usize = 1000;

/// A batch of leads.
#[derive(Deserialize, Validate, schemars::JsonSchema, apistos::ApiComponent)]
pub struct BatchSubmission {
    /// true (default): answer after every stage ran; false: answer at once, every element
    /// `pending`.
    #[validate(custom(function = "json_type"))]
    #[schemars(default = "processed_now")]
    pub process_immediately: Lax<bool>,
    /// Applies to every element; an element's own team_id overrides it.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
    #[validate(
        custom(function = "json_type"),
        required,
        length(min = 1, max = 1000),
        nested
    )]
    pub leads: Lax<Vec<SubmittedLead>>,
}

fn processed_now() -> bool {
    true
}

impl RequestBody for BatchSubmission {}

impl BatchSubmission {
    /// Whether the leads are processed before the answer (else by the job queue's workers).
    pub fn process_immediately(&self) -> bool {
        self.process_immediately.value().copied().unwrap_or(true)
    }

    pub fn team_id(&self) -> Option<i64> {
        self.team_id.value().copied()
    }

    /// The submissions of a batch that passed validation, in element order.
    pub fn into_requests(self) -> Vec<SubmissionRequest> {
        let team_id = self.team_id();
        self.leads
            .into_value()
            .unwrap_or_default()
            .into_iter()
            .map(|lead| lead.into_request(team_id))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::error::{FieldError, LocPart};
    use leadhub_http::extract::read_body;

    fn read(text: &str) -> Result<BatchSubmission, Vec<FieldError>> {
        read_body(text.as_bytes())
    }

    fn locs(problems: &[FieldError]) -> Vec<Vec<LocPart>> {
        problems.iter().map(|p| p.loc.clone()).collect()
    }

    fn at(path: &[LocPart]) -> Vec<LocPart> {
        let mut loc = vec![LocPart::from("body")];
        loc.extend_from_slice(path);
        loc
    }

    #[test]
    fn elements_keep_their_text_and_take_the_batch_team() {
        let first = r#"{"address": "1 Main St", "state": "tx", "bedrooms": "3"}"#;
        let second =
            r#"{ "address" : "2 Main St", "team_id": 7, "latitude": 30.1, "longitude": -97.7 }"#;
        let text = format!(
            r#"{{"team_id": "2", "process_immediately": "false", "leads": [{first}, {second}]}}"#
        );
        let batch = read(&text).unwrap();
        assert!(!batch.process_immediately());
        let requests = batch.into_requests();
        assert_eq!(requests[0].raw_json, first);
        assert_eq!(requests[1].raw_json, second);
        assert_eq!(requests[0].team_id, Some(2));
        assert_eq!(requests[1].team_id, Some(7));
        assert_eq!(requests[0].fields.bedrooms, Some(3));
    }

    #[test]
    fn every_problem_of_every_element_in_order() {
        let elements: Vec<String> = (0..100)
            .map(|i| match i % 3 {
                0 => format!(r#"{{"address": "{i} Main St", "bedrooms": "many"}}"#),
                1 => format!(r#"{{"address": {i}, "email_1": 5}}"#),
                _ => "[1, 2]".to_owned(),
            })
            .collect();
        let text = format!(r#"{{"team_id": "x", "leads": [{}]}}"#, elements.join(","));
        let problems = read(&text).err().unwrap();
        let mut expected = vec![at(&["team_id".into()])];
        for i in 0..100 {
            let element = [LocPart::from("leads"), LocPart::Index(i)];
            match i % 3 {
                0 => expected.push(at(&[
                    element[0].clone(),
                    element[1].clone(),
                    "bedrooms".into(),
                ])),
                1 => {
                    expected.push(at(&[
                        element[0].clone(),
                        element[1].clone(),
                        "address".into(),
                    ]));
                    expected.push(at(&[
                        element[0].clone(),
                        element[1].clone(),
                        "email_1".into(),
                    ]));
                }
                _ => expected.push(at(&element)),
            }
        }
        assert_eq!(locs(&problems), expected);
    }

    #[test]
    fn list_bounds() {
        let empty = read(r#"{"leads": []}"#).err().unwrap();
        assert_eq!(
            (locs(&empty), empty[0].kind.as_str()),
            (vec![at(&["leads".into()])], "too_short")
        );
        let many = format!(r#"{{"leads": [{}]}}"#, vec!["{}"; MAX_BATCH + 1].join(","));
        let many = read(&many).err().unwrap();
        assert_eq!(many.len(), 1);
        assert_eq!(many[0].kind, "too_long");
        assert_eq!(
            many[0].msg,
            "List should have at most 1000 items after validation, not 1001"
        );
        for (text, kind) in [
            (r#"{"team_id": 1}"#, "missing"),
            (r#"{"leads": null}"#, "missing"),
            (r#"{"leads": {"address": "1 Main St"}}"#, "list_type"),
        ] {
            let problems = read(text).err().unwrap();
            assert_eq!(problems[0].kind, kind, "{text}");
        }
    }

    #[test]
    fn a_repeated_leads_member_counts_as_its_last() {
        let batch =
            read(r#"{"leads": [{"address": "1 Main St"}], "leads": [{"address": "2 Main St"}]}"#)
                .unwrap()
                .into_requests();
        assert_eq!(batch.len(), 1);
        assert_eq!(batch[0].fields.address.as_deref(), Some("2 Main St"));
    }

    #[test]
    fn shapes_other_than_an_object_are_refused() {
        for text in [r#"[{"address": "1 Main St"}]"#, "5", r#""leads""#] {
            let problems = read(text).err().unwrap();
            assert_eq!(problems[0].kind, "model_attributes_type", "{text}");
        }
    }
}
