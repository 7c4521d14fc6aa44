//! POST /leads/bulk: the list's bulk action bar (a plain form, so it works without
//! JavaScript): the ticked leads (`lead-{id}` checkboxes) and one action, applied by the API's
//! bulk change (one transaction, all or nothing), then back to the same filtered list.
use std::collections::HashMap;

use actix_web::HttpResponse;

use leadhub_domain::error::LocPart;
use leadhub_domain::lead::work::{BulkSet, LeadStatus, LeadWorkError};

use crate::leads::FILTERS;
use crate::list::PageFilters;
use crate::render::{see_other, PageError};
use crate::session::Posted;

/// The actions of the bar, as the form's `action` values name them.
fn bulk_set(action: &str, my_id: &str) -> Option<BulkSet> {
    let mut set = BulkSet::default();
    match action.split_once(':') {
        Some(("status", word)) => set.status = Some(LeadStatus::parse(word)?),
        Some(("team", id)) => set.team_id = Some(id.parse().ok()?),
        _ => match action {
            "assign-me" => set.assignee = Some(Some(my_id.to_owned())),
            "assign-none" => set.assignee = Some(None),
            "archive" => set.archived = Some(true),
            "restore" => set.archived = Some(false),
            _ => return None,
        },
    }
    Some(set)
}

pub async fn bulk(
    Posted { visitor, form }: Posted<HashMap<String, String>>,
) -> Result<HttpResponse, PageError> {
    let back = PageFilters::of(form.get("back").map_or("", String::as_str), &FILTERS);
    let list = format!("/leads?{}", back.query_string());
    let mut ids: Vec<i64> = form
        .keys()
        .filter_map(|k| k.strip_prefix("lead-")?.parse().ok())
        .collect();
    ids.sort_unstable();
    let refuse = |text: String| PageError::Refused {
        status: actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        title: "These leads were not changed",
        text,
        back: list.clone(),
    };
    if ids.is_empty() {
        return Err(refuse(
            "No lead was ticked: tick the leads to change first.".into(),
        ));
    }
    let action = form.get("action").map_or("", String::as_str);
    let set = bulk_set(action, &visitor.user.user_id)
        .ok_or_else(|| refuse("Choose what to do with the ticked leads.".into()))?;
    match visitor
        .state
        .lead_work
        .bulk(&visitor.user, &ids, &set)
        .await
    {
        Ok(_) => {
            let sep = if list.ends_with('?') { "" } else { "&" };
            Ok(visitor.finish(see_other(&format!("{list}{sep}done=bulk"))))
        }
        Err(LeadWorkError::Invalid(problems)) => {
            let named: Vec<String> = problems
                .iter()
                .map(|p| match p.loc.last() {
                    Some(LocPart::Index(i)) => match ids.get(*i) {
                        Some(id) => format!("lead {id}: {}", p.msg),
                        None => p.msg.clone(),
                    },
                    _ => p.msg.clone(),
                })
                .collect();
            Err(refuse(format!(
                "Nothing was changed (all or none): {}.",
                named.join("; ")
            )))
        }
        Err(LeadWorkError::Unexpected(cause)) => Err(PageError::unexpected(cause)),
        Err(other) => Err(refuse(format!("Nothing was changed: {other}."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_of_the_bar_reads_as_its_change() {
        let me = "usr_me";
        assert_eq!(
            bulk_set("status:won", me).unwrap().status,
            Some(LeadStatus::Won)
        );
        assert_eq!(bulk_set("team:7", me).unwrap().team_id, Some(7));
        assert_eq!(
            bulk_set("assign-me", me).unwrap().assignee,
            Some(Some(me.to_owned()))
        );
        assert_eq!(bulk_set("assign-none", me).unwrap().assignee, Some(None));
        assert_eq!(bulk_set("archive", me).unwrap().archived, Some(true));
        assert_eq!(bulk_set("restore", me).unwrap().archived, Some(false));
        for bad in ["", "status:done", "team:x", "delete"] {
            assert!(bulk_set(bad, me).is_none(), "{bad}");
        }
    }
}
