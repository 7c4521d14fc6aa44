//! A delivery's body, made at its first attempt: `{"type", "timestamp", "data"}`, `data` as the
//! API shows the lead, submission or batch then.
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use leadhub_api::submission_views::{BatchStatusView, LeadView, SubmissionStatusView};
use leadhub_domain::lead::record::LeadRepository;
use leadhub_domain::submission::SubmissionRepository;
use leadhub_domain::webhook::{split_subject, DueDelivery, EventPayloads};

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
        let (subject, extra) = split_subject(d.subject.as_deref().unwrap_or_default())?;
        let data = self.data(d, subject).await?;
        let mut body = json!({
            "type": d.event_type,
            "timestamp": leadhub_http::time::iso(d.occurred_at),
            "data": data,
        });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra) {
            body.extend(extra);
        }
        Ok(body.to_string())
    }
}

impl ApiPayloads {
    async fn data(&self, d: &DueDelivery, subject: &str) -> Result<Value, String> {
        let id = || {
            subject
                .parse::<i64>()
                .map_err(|_| format!("bad subject {subject:?}"))
        };
        let to_value = |v: Result<Value, serde_json::Error>| v.map_err(|e| e.to_string());
        let s = self;
        match d.event_type.as_str() {
            "lead.created" | "lead.updated" | "lead.enriched" => {
                let id = id()?;
                match s.leads.find_lead(id).await.map_err(|e| e.to_string())? {
                    Some(lead) if lead.team_id == Some(d.team_id) => {
                        to_value(serde_json::to_value(LeadView::from(lead)))
                    }
                    // Moved or claimed out since the event: its state now is another team's (or
                    // nobody's) to see, so this team hears only which lead it was.
                    Some(_) => Ok(json!({ "id": id })),
                    None => Ok(Value::Null),
                }
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
                    .find_batch(subject)
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
