//! The contacts logged on leads, summed up for a list's page or a lead's page: read from the
//! `contact_logged` timeline entries through the timeline's `(lead_id, id)` index.
use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::lead::work::{kind, ContactOutcome, ContactSummary};

use crate::schema::lead_activity;
use crate::sql::time::from_db;
use crate::{ReadConnection, IN_LIST_CHUNK};

/// Each of `lead_ids`' contacts summed up; a lead without any is left out.
pub(crate) fn contact_summaries(
    conn: &mut ReadConnection<'_>,
    lead_ids: &[i64],
) -> QueryResult<HashMap<i64, ContactSummary>> {
    let mut entries: HashMap<i64, Vec<_>> = HashMap::new();
    for chunk in lead_ids.chunks(IN_LIST_CHUNK) {
        let rows: Vec<(i64, i64, String, NaiveDateTime)> = conn.load(
            lead_activity::table
                .filter(lead_activity::lead_id.eq_any(chunk.to_vec()))
                .filter(lead_activity::kind.eq(kind::CONTACT_LOGGED))
                .select((
                    lead_activity::lead_id,
                    lead_activity::id,
                    lead_activity::detail,
                    lead_activity::created_at,
                )),
        )?;
        for (lead_id, id, detail, at) in rows {
            entries
                .entry(lead_id)
                .or_default()
                .push((from_db(at), id, outcome_of(&detail)));
        }
    }
    Ok(entries
        .into_iter()
        .filter_map(|(lead_id, e)| Some((lead_id, ContactSummary::of(e)?)))
        .collect())
}

/// The outcome a `contact_logged` entry's detail (`{"outcome": "..."}`) names.
fn outcome_of(detail: &str) -> Option<ContactOutcome> {
    let detail: serde_json::Value = serde_json::from_str(detail).ok()?;
    ContactOutcome::parse(detail.get("outcome")?.as_str()?)
}
