//! The e-mail of new leads given in turn (docs/working-leads.md "New leads in turn"): queued
//! with the leads' write as one job (`LEADS_GIVEN_IN_TURN`), it tells each taker at once which
//! leads are theirs now, since a web form's lead is worth most in its first minutes; the
//! morning digest names them again among the leads given since yesterday.
use serde::Deserialize;

use crate::mail::{DueLine, LeadList, Message};

use super::digest::{FollowUpDigests, DIGEST_LISTED};

/// The job's payload: who was given which leads.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct GivenInTurn {
    pub given: Vec<GivenTo>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct GivenTo {
    pub user_id: i64,
    pub lead_ids: Vec<i64>,
}

impl FollowUpDigests {
    /// Sends each taker of `payload` one e-mail of their leads, those still theirs and open (a
    /// lead given on meanwhile is the new owner's news); none to a deactivated person, one who
    /// turned the e-mail of their leads off, or one left with none. Err: the first failure, so
    /// the queue retries the job (who was told already may be told twice: at least once).
    pub async fn tell_given(&self, payload: &serde_json::Value) -> Result<usize, String> {
        let job: GivenInTurn =
            serde_json::from_value(payload.clone()).map_err(|e| format!("bad payload: {e}"))?;
        let base = &self.public_url;
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
            let leads = person.given.first.into_iter().map(|l| DueLine {
                url: format!("{base}/leads/{}", l.id),
                address: l.address,
                owner: l.owner,
                status: l.status,
                follow_up_on: l.follow_up_on,
            });
            let message = Message::LeadsGiven {
                to: person.email,
                given: LeadList {
                    count: person.given.count,
                    leads: leads.collect(),
                    list_url: format!("{base}/leads?assignee=me&status=open&contacted=false"),
                },
                settings_url: format!("{base}/#digest"),
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
