//! The e-mail of new leads given in turn (docs/working-leads.md "New leads in turn"): queued
//! with the leads' write as one job (`LEADS_GIVEN_IN_TURN`), it tells each taker at once which
//! leads are theirs now, since a web form's lead is worth most in its first minutes; the
//! morning digest names them again among the leads given since yesterday.
use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::jobs::NewJob;
use crate::mail::Message;

use super::digest::{FollowUpDigests, DIGEST_LISTED, NOT_CONTACTED_YET};

/// The job of one write's e-mails; its payload is a `GivenInTurn`.
pub const LEADS_GIVEN_IN_TURN: &str = "leads_given_in_turn";

/// The job's payload: who was given which leads,
/// `{"given": [{"user_id": N, "lead_ids": [N, ...]}, ...]}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GivenInTurn {
    pub given: Vec<GivenTo>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GivenTo {
    pub user_id: i64,
    pub lead_ids: Vec<i64>,
}

impl GivenInTurn {
    /// The job that sends these e-mails, to run at once.
    pub fn job(&self, now: DateTime<Utc>) -> NewJob {
        let given: Vec<serde_json::Value> = self
            .given
            .iter()
            .map(|to| serde_json::json!({"user_id": to.user_id, "lead_ids": to.lead_ids}))
            .collect();
        NewJob::now(
            LEADS_GIVEN_IN_TURN,
            serde_json::json!({ "given": given }),
            now,
        )
    }
}

impl FollowUpDigests {
    /// Sends each taker of `payload` one e-mail of their leads, those still theirs and open (a
    /// lead given on meanwhile is the new owner's news); none to a deactivated person, one who
    /// turned the e-mail of their leads off, or one left with none. Err: the first failure, so
    /// the queue retries the job (who was told already may be told twice: at least once).
    pub async fn tell_given(&self, payload: &serde_json::Value) -> Result<usize, String> {
        let job: GivenInTurn =
            serde_json::from_value(payload.clone()).map_err(|e| format!("bad payload: {e}"))?;
        let mut sent = 0;
        for to in job.given {
            let person = self
                .digests
                .given_in_turn(to.user_id, to.lead_ids, DIGEST_LISTED)
                .await
                .map_err(|e| e.to_string())?;
            let Some(person) = person.filter(|p| p.given.count > 0) else {
                continue;
            };
            let message = Message::LeadsGiven {
                to: person.email,
                given: self.lead_list(person.given, NOT_CONTACTED_YET),
                settings_url: self.settings_url(),
            };
            self.mailer
                .send(&message)
                .await
                .map_err(|e| e.to_string())?;
            sent += 1;
        }
        Ok(sent)
    }
}
