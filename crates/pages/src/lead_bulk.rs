//! POST /leads/bulk: the list's bulk action bar (a plain form, so it works without
//! JavaScript): the ticked leads (`lead-{id}` checkboxes) and one action, applied by the API's
//! bulk change (one transaction, all or nothing), then back to the same filtered list. Its
//! "Share out" button gives the leads to the ticked people in turn (`share_out`), as one change,
//! the people with the fewest open leads first; its outcome buttons ("Log a contact on the
//! ticked leads") log the same contact on each, with its note and next day. Each of them takes
//! every lead of the list instead of the ticked ones when "every lead of this list" is ticked.
use std::collections::{BTreeSet, HashMap};

use actix_web::HttpResponse;

use chrono::NaiveDate;
use leadhub_api::leads::LeadQuery;
use leadhub_domain::error::LocPart;
use leadhub_domain::lead::record::LeadFilter;

use leadhub_domain::lead::work::tags::tags_of_field;
use leadhub_domain::lead::work::{
    follow_up_day, BulkSet, ContactOutcome, LeadStatus, LeadWorkError, TagEdit, BULK_MAX_IDS,
    FOLLOW_UP_RULE,
};

use crate::leads::{listed, FILTERS};
use crate::list::PageFilters;
use crate::render::{see_other, PageError};
use crate::session::{Posted, Visitor};

/// What the bar's fields beside its action hold: the follow-up day (None when the field holds
/// no valid day) and the tags (empty when none is valid).
#[derive(Default)]
struct Beside {
    day: Option<NaiveDate>,
    tags: BTreeSet<String>,
}

/// The actions of the bar, as the form's `action` values name them; `follow-up` sets the day
/// given beside it, `add-tag` and `remove-tag` the tags.
fn bulk_set(action: &str, my_id: &str, beside: Beside) -> Option<BulkSet> {
    let Beside { day, tags } = beside;
    let tags_given = (!tags.is_empty()).then_some(tags);
    let mut set = BulkSet::default();
    match action.split_once(':') {
        Some(("status", word)) => set.status = Some(LeadStatus::parse(word)?),
        Some(("team", id)) => set.team_id = Some(id.parse().ok()?),
        Some(("assign", user)) if !user.is_empty() => set.assignee = Some(Some(user.to_owned())),
        _ => match action {
            "assign-me" => set.assignee = Some(Some(my_id.to_owned())),
            "assign-none" => set.assignee = Some(None),
            "archive" => set.archived = Some(true),
            "restore" => set.archived = Some(false),
            "follow-up" => set.follow_up = Some(Some(day?)),
            "follow-up-none" => set.follow_up = Some(None),
            "do-not-call" => set.do_not_call = Some(true),
            "may-call" => set.do_not_call = Some(false),
            "add-tag" => set.tags = Some(TagEdit::adding(tags_given?)),
            "remove-tag" => set.tags = Some(TagEdit::removing(tags_given?)),
            _ => return None,
        },
    }
    Some(set)
}

/// The contact an outcome button logs on each ticked lead (`contact`), with what was said
/// (`contact_note`) and the next follow-up day (`contact_follow_up`; empty leaves each lead's
/// day); the reason it cannot be logged otherwise.
fn bulk_contact(form: &HashMap<String, String>, word: &str) -> Result<BulkSet, String> {
    let outcome = ContactOutcome::parse(word)
        .ok_or_else(|| "Choose how the contact went with one of its buttons.".to_owned())?;
    let follow_up = match form.get("contact_follow_up").map(|d| d.trim()) {
        None | Some("") => None,
        Some(day) => Some(Some(follow_up_day(day).ok_or_else(|| {
            format!("Give the next follow-up day as a calendar day: {FOLLOW_UP_RULE}.")
        })?)),
    };
    Ok(BulkSet {
        contact: Some(outcome),
        note: form.get("contact_note").cloned(),
        follow_up,
        ..BulkSet::default()
    })
}

/// Orders the people leads are shared among by the open leads they work (of those the visitor
/// sees), fewest first, then by id: a share-out of a few leads goes to whoever has least to do.
async fn fewest_open_first(visitor: &Visitor, people: &mut [String]) -> Result<(), PageError> {
    let state = &visitor.state;
    let everything = LeadFilter::default();
    let visible = state
        .submissions
        .visible_filter(&visitor.user, everything)
        .await?;
    let load = state.dashboard.open_by_owner(visible).await?;
    let open: HashMap<String, i64> = state
        .teams
        .teammates(&visitor.user)
        .await?
        .into_iter()
        .map(|m| {
            let open = load.get(&Some(m.user_internal_id)).copied().unwrap_or(0);
            (m.user_id, open)
        })
        .collect();
    people.sort_by_cached_key(|p| (open.get(p).copied().unwrap_or(0), p.clone()));
    Ok(())
}

/// Every lead of the list the form came from (`back`), read as the page read it, when the form
/// says how many it showed (`whole_list`): a bulk change reaches only leads the person saw
/// counted, so a list that has grown or shrunk since is refused, as is one past a bulk change's
/// limit (`refuse` says why to the person).
async fn whole_list(
    visitor: &Visitor,
    back: &PageFilters,
    shown: &str,
    refuse: impl Fn(String) -> PageError,
) -> Result<Vec<i64>, PageError> {
    let shown: i64 = shown.parse().map_err(|_| PageError::BadForm)?;
    let query = back.read::<LeadQuery>().map_err(|_| PageError::BadForm)?;
    let limit = BULK_MAX_IDS as i64;
    let (leads, total) = listed(visitor, &query, limit, 0).await?;
    if total > limit {
        return Err(refuse(format!(
            "This list holds {total} leads; one change takes at most {limit}. Narrow the list \
             with a filter first."
        )));
    }
    if total != shown {
        return Err(refuse(format!(
            "The list holds {total} leads now, not the {shown} it showed: look at it again \
             before changing them all."
        )));
    }
    Ok(leads.iter().map(|l| l.id).collect())
}

pub async fn bulk(
    Posted { visitor, form }: Posted<HashMap<String, String>>,
) -> Result<HttpResponse, PageError> {
    let back = PageFilters::of(form.get("back").map_or("", String::as_str), &FILTERS);
    let list = format!("/leads?{}", back.query_string());
    let refuse = |text: String| PageError::Refused {
        status: actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        title: "These leads were not changed",
        text,
        back: list.clone(),
    };
    let mut ids: Vec<i64> = match form.get("whole_list") {
        Some(shown) => whole_list(&visitor, &back, shown, refuse).await?,
        None => form
            .keys()
            .filter_map(|k| k.strip_prefix("lead-")?.parse().ok())
            .collect(),
    };
    ids.sort_unstable();
    if ids.is_empty() {
        return Err(refuse(
            "No lead was ticked: tick the leads to change first.".into(),
        ));
    }
    let work = &visitor.state.lead_work;
    let shared = form.contains_key("share_out");
    let outcome = if shared {
        // "Share out": the ticked people (`share:{user id}` boxes), each given the next lead.
        let mut people: Vec<String> = form
            .keys()
            .filter_map(|k| k.strip_prefix("share:"))
            .map(str::to_owned)
            .collect();
        if people.is_empty() {
            return Err(refuse("No one was ticked to share the leads among.".into()));
        }
        fewest_open_first(&visitor, &mut people).await?;
        work.share_out(&visitor.user, &ids, &people).await
    } else if let Some(word) = form.get("contact") {
        let set = bulk_contact(&form, word).map_err(refuse)?;
        work.bulk(&visitor.user, &ids, &set).await
    } else {
        let action = form.get("action").map_or("", String::as_str);
        let day = form.get("follow_up").and_then(|d| follow_up_day(d));
        if action == "follow-up" && day.is_none() {
            return Err(refuse(format!(
                "Give the follow-up day beside the action: {FOLLOW_UP_RULE}."
            )));
        }
        let mut tags = BTreeSet::new();
        if matches!(action, "add-tag" | "remove-tag") {
            tags = tags_of_field(form.get("tag").map_or("", String::as_str))
                .map_err(|problem| refuse(format!("{problem}.")))?;
            if tags.is_empty() {
                return Err(refuse("Give the tag beside the action.".into()));
            }
        }
        let set = bulk_set(action, &visitor.user.user_id, Beside { day, tags })
            .ok_or_else(|| refuse("Choose what to do with the ticked leads.".into()))?;
        work.bulk(&visitor.user, &ids, &set).await
    };
    match outcome {
        Ok(_) => {
            let done = if shared { "shared" } else { "bulk" };
            Ok(visitor.finish(see_other(&back.link("/leads", "done", done))))
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
    fn an_outcome_button_reads_as_a_contact_with_its_note_and_day() {
        let form = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let set = bulk_contact(
            &form(&[
                ("contact_note", "Sent the offer"),
                ("contact_follow_up", "2026-12-11"),
            ]),
            "emailed",
        )
        .unwrap();
        assert_eq!(set.contact, Some(ContactOutcome::Emailed));
        assert_eq!(set.note.as_deref(), Some("Sent the offer"));
        assert_eq!(set.follow_up, Some(follow_up_day("2026-12-11")));
        let set = bulk_contact(&form(&[("contact_follow_up", " ")]), "no_answer").unwrap();
        assert_eq!(set.follow_up, None, "an empty day leaves each lead's day");
        assert!(bulk_contact(&form(&[]), "called").is_err());
        assert!(bulk_contact(&form(&[("contact_follow_up", "12/11/2026")]), "reached").is_err());
    }

    #[test]
    fn each_action_of_the_bar_reads_as_its_change() {
        let me = "usr_me";
        let set = |action: &str| bulk_set(action, me, Beside::default());
        assert_eq!(set("status:won").unwrap().status, Some(LeadStatus::Won));
        assert_eq!(set("team:7").unwrap().team_id, Some(7));
        assert_eq!(
            set("assign-me").unwrap().assignee,
            Some(Some(me.to_owned()))
        );
        assert_eq!(set("assign-none").unwrap().assignee, Some(None));
        assert_eq!(
            set("assign:usr_ann").unwrap().assignee,
            Some(Some("usr_ann".to_owned()))
        );
        assert_eq!(set("archive").unwrap().archived, Some(true));
        assert_eq!(set("restore").unwrap().archived, Some(false));
        assert_eq!(set("do-not-call").unwrap().do_not_call, Some(true));
        assert_eq!(set("may-call").unwrap().do_not_call, Some(false));
        assert_eq!(set("follow-up-none").unwrap().follow_up, Some(None));
        let day = follow_up_day("2026-12-07");
        let beside = Beside {
            day,
            ..Beside::default()
        };
        assert_eq!(
            bulk_set("follow-up", me, beside).unwrap().follow_up,
            Some(day)
        );
        let tagged = |action: &str| {
            let tags = BTreeSet::from(["hot".to_owned()]);
            let beside = Beside {
                tags: tags.clone(),
                ..Beside::default()
            };
            (bulk_set(action, me, beside).unwrap().tags, tags)
        };
        let (set_tags, tags) = tagged("add-tag");
        assert_eq!(set_tags, Some(TagEdit::adding(tags)));
        let (set_tags, tags) = tagged("remove-tag");
        assert_eq!(set_tags.unwrap().remove, tags);
        for bad in [
            "",
            "status:done",
            "team:x",
            "assign:",
            "delete",
            "follow-up",
            "add-tag",
            "remove-tag",
        ] {
            assert!(set(bad).is_none(), "{bad}");
        }
    }
}
