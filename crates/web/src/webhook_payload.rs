//! A delivery's body, made at its first attempt: `{"type", "timestamp", "data"}`, `data` as the
//! API shows the lead, submission or batch then.
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use leadhub_domain::lead::record::LeadRepository;
use leadhub_domain::submission::SubmissionRepository;
use leadhub_domain::webhook::{DueDelivery, EventPayloads};

use crate::routes::submission_views::{BatchStatusView, LeadView, SubmissionStatusView};

/// `EventPayloads` through the API's own views, so a delivery shows what a GET would.
#[derive(Clone)]
pub struct ApiPayloads {
    pub leads: Arc<dyn LeadRepository>,
    pub submissions: Arc<dyn SubmissionRepository>,
}

#[async_trait]
impl EventPayloads for ApiPayloads {
    /// `{"type", "timestamp", "data"}`, `data` as the API shows the lead, submission or batch now.
    async fn payload(&self, d: &DueDelivery) -> Result<String, String> {
        let data = self.data(d).await?;
        Ok(json!({
            "type": d.event_type,
            "timestamp": crate::time::iso(d.occurred_at),
            "data": data,
        })
        .to_string())
    }
}

impl ApiPayloads {
    async fn data(&self, d: &DueDelivery) -> Result<Value, String> {
        let given = d.subject.clone().unwrap_or_default();
        // A person's change of a lead names the lead, then (after a space) its changes.
        let (subject, changes) = match given.split_once(' ') {
            Some((id, changes)) => (id.to_owned(), serde_json::from_str::<Value>(changes).ok()),
            None => (given, None),
        };
        let id = || {
            subject
                .parse::<i64>()
                .map_err(|_| format!("bad subject {subject:?}"))
        };
        let to_value = |v: Result<Value, serde_json::Error>| v.map_err(|e| e.to_string());
        let s = self;
        match d.event_type.as_str() {
            "lead.created" | "lead.updated" | "lead.enriched" => {
                let mut data = match s.leads.find_lead(id()?).await.map_err(|e| e.to_string())? {
                    Some(lead) => to_value(serde_json::to_value(LeadView::from(lead)))?,
                    None => Value::Null,
                };
                if let (Value::Object(fields), Some(changes)) = (&mut data, changes) {
                    fields.insert("changes".to_owned(), changes);
                }
                Ok(data)
            }
            "submission.failed" => {
                match s
                    .submissions
                    .find_submission(id()?)
                    .await
                    .map_err(|e| e.to_string())?
                {
                    Some(found) => {
                        to_value(serde_json::to_value(SubmissionStatusView::from(&found)))
                    }
                    None => Ok(Value::Null),
                }
            }
            "batch.completed" => {
                match s
                    .submissions
                    .find_batch(&subject)
                    .await
                    .map_err(|e| e.to_string())?
                {
                    Some(found) => to_value(serde_json::to_value(BatchStatusView::from(&found))),
                    None => Ok(Value::Null),
                }
            }
            other => Err(format!("no payload for {other:?}")),
        }
    }
}
