//! Working down a list: a lead opened from `/leads` carries the list it came from (`in`: the
//! list's filters and order as a query string; `at`: the lead's place in it, from 0), so its page
//! links the previous and the next lead of that list and the list's page it stands on. The lead
//! page's forms carry the two along, so saving a status or a note keeps the way on.
//!
//! The place is a position, not a bookmark: working a lead can take it out of the list (a lead
//! given away leaves "Nobody works them") or move it within it (an order by last change). The
//! page therefore reads the leads around the place and finds the open lead among them: found,
//! its neighbours are the previous and next; gone, the lead now at its place is the next one.
use serde::{Deserialize, Serialize};

use leadhub_api::leads::LeadQuery;

use crate::leads::{listed, FILTERS};
use crate::list::{PageFilters, PAGE_SIZE};
use crate::render::PageError;
use crate::session::Visitor;

/// The walk's two query parameters, as they come (anything unreadable: no walk).
#[derive(Deserialize, Default)]
pub struct Walk {
    #[serde(rename = "in")]
    list: Option<String>,
    at: Option<String>,
}

/// Places beyond this are not walked (a made-up `at` cannot make an offset overflow).
const FURTHEST: i64 = 1_000_000_000;

impl Walk {
    /// The list's filters (only the list's own names, so nothing else rides along) and the place.
    fn place(&self) -> Option<(PageFilters, i64)> {
        let at = self.at.as_deref()?.trim().parse::<i64>().ok()?;
        let filters = PageFilters::of(self.list.as_deref()?, &FILTERS);
        (0..=FURTHEST).contains(&at).then_some((filters, at))
    }

    /// The walk as query parameters to append to a URL that has a query already (`&in=..&at=..`),
    /// or "" when there is none.
    pub fn and(&self) -> String {
        self.with('&')
    }

    /// The walk as a URL's whole query (`?in=..&at=..`), or "" when there is none.
    pub fn suffix(&self) -> String {
        self.with('?')
    }

    fn with(&self, lead: char) -> String {
        self.place()
            .map(|(filters, at)| format!("{lead}{}", query(&filters.query_string(), at)))
            .unwrap_or_default()
    }
}

/// The query parameters of the lead at `at` in the list `list` (a list page's query string).
pub fn query(list: &str, at: i64) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("in", list)
        .append_pair("at", &at.to_string())
        .finish()
}

/// What the lead page shows of the walk.
#[derive(Serialize)]
pub struct WalkView {
    /// The walk's parameters for the page's own forms and links.
    pub query: String,
    /// The list's page on which the lead stands.
    pub back: String,
    /// The lead's place from 1, None when working it took it out of the list.
    pub position: Option<i64>,
    pub total: i64,
    pub previous: Option<String>,
    pub next: Option<String>,
}

/// The walk around lead `id` (None without a walk, or with filters the list would refuse).
pub async fn around(
    visitor: &Visitor,
    id: i64,
    walk: &Walk,
) -> Result<Option<WalkView>, PageError> {
    let Some((filters, at)) = walk.place() else {
        return Ok(None);
    };
    let Ok(lead_query) = filters.read::<LeadQuery>() else {
        return Ok(None);
    };
    // The places at-1 to at+2: enough for the open lead where it was, one up or one down.
    let start = (at - 1).max(0);
    let (leads, total) = listed(visitor, &lead_query, at + 3 - start, start).await?;
    let ids: Vec<i64> = leads.iter().map(|l| l.id).collect();
    Ok(Some(view(
        &filters.query_string(),
        at,
        start,
        &ids,
        id,
        total,
    )))
}

/// The walk of lead `id` at place `at` of `list`, given the ids from place `start` on.
fn view(list: &str, at: i64, start: i64, ids: &[i64], id: i64, total: i64) -> WalkView {
    // Found where it was, one up or one down: its neighbours. Gone from the list, or moved
    // farther (a contact in the call order sends a lead to the end): the lead now at its place
    // is the next one.
    let found = ids
        .iter()
        .position(|l| *l == id)
        .filter(|i| (start + *i as i64 - at).abs() <= 1);
    let (previous, next) = match found {
        Some(i) => (i.checked_sub(1), Some(i + 1)),
        None => (
            (at - start).checked_sub(1).map(|p| p as usize),
            Some((at - start) as usize),
        ),
    };
    let link = |i: Option<usize>| {
        let i = i?;
        let lead = ids.get(i)?;
        Some(format!("/leads/{lead}?{}", query(list, start + i as i64)))
    };
    let here = found.map_or(at, |i| start + i as i64);
    let page = here / PAGE_SIZE * PAGE_SIZE;
    let back = match (list.is_empty(), page) {
        (true, 0) => "/leads".to_owned(),
        (true, _) => format!("/leads?offset={page}"),
        (false, 0) => format!("/leads?{list}"),
        (false, _) => format!("/leads?{list}&offset={page}"),
    };
    WalkView {
        query: query(list, here),
        back,
        position: found.map(|i| start + i as i64 + 1),
        total,
        previous: link(previous),
        next: link(next),
    }
}

#[cfg(test)]
mod tests {
    use super::{query, view, Walk};

    fn walk(list: &str, at: &str) -> Walk {
        Walk {
            list: Some(list.to_owned()),
            at: Some(at.to_owned()),
        }
    }

    #[test]
    fn the_open_lead_has_its_neighbours() {
        let v = view("assignee=me", 5, 4, &[10, 11, 12, 13], 11, 40);
        assert_eq!(v.position, Some(6));
        assert_eq!(
            v.previous.as_deref(),
            Some("/leads/10?in=assignee%3Dme&at=4")
        );
        assert_eq!(v.next.as_deref(), Some("/leads/12?in=assignee%3Dme&at=6"));
        assert_eq!(v.back, "/leads?assignee=me");
        assert_eq!(v.query, "in=assignee%3Dme&at=5");
    }

    #[test]
    fn a_lead_that_left_its_place_is_followed_by_the_one_now_there() {
        // Lead 11 stood at place 5; working it took it out, and lead 12 moved up to 5.
        let v = view("assignee=none", 5, 4, &[10, 12, 13], 11, 39);
        assert_eq!(v.position, None);
        assert_eq!(
            v.previous.as_deref(),
            Some("/leads/10?in=assignee%3Dnone&at=4")
        );
        assert_eq!(v.next.as_deref(), Some("/leads/12?in=assignee%3Dnone&at=5"));
        // Lead 10 stood first of three; a contact in the call order sent it to the end, two
        // places down: moved away as well.
        let moved = view("sort=last_contact_at", 0, 0, &[11, 12, 10], 10, 3);
        assert_eq!((moved.position, moved.previous), (None, None));
        assert_eq!(
            moved.next.as_deref(),
            Some("/leads/11?in=sort%3Dlast_contact_at&at=0")
        );
    }

    #[test]
    fn a_lead_one_down_or_up_is_still_found() {
        let down = view("", 5, 4, &[10, 12, 11, 13], 11, 40);
        assert_eq!(down.position, Some(7));
        assert_eq!(down.next.as_deref(), Some("/leads/13?in=&at=7"));
        let up = view("", 5, 4, &[11, 10, 12, 13], 11, 40);
        assert_eq!(up.position, Some(5));
        assert_eq!(up.previous, None);
        assert_eq!(up.next.as_deref(), Some("/leads/10?in=&at=5"));
    }

    #[test]
    fn the_ends_of_the_list_and_its_pages() {
        let first = view("", 0, 0, &[10, 11, 12], 10, 3);
        assert_eq!((first.previous, first.position), (None, Some(1)));
        let last = view("city=austin", 2, 1, &[11, 12], 12, 3);
        assert_eq!(last.next, None);
        let far = view("city=austin", 120, 119, &[1, 2, 3, 4], 2, 400);
        assert_eq!(far.back, "/leads?city=austin&offset=100");
        assert_eq!(view("", 60, 59, &[1, 2], 2, 61).back, "/leads?offset=50");
    }

    #[test]
    fn only_the_lists_filters_and_a_sane_place_are_walked() {
        assert_eq!(
            walk("status=new&evil=1", "3").and(),
            "&in=status%3Dnew&at=3"
        );
        assert_eq!(walk("status=new", "-1").and(), "");
        assert_eq!(walk("status=new", "9999999999999").and(), "");
        assert_eq!(walk("status=new", "x").and(), "");
        assert_eq!(Walk::default().and(), "");
        assert_eq!(walk("", "0").suffix(), "?in=&at=0");
        assert_eq!(Walk::default().suffix(), "");
        assert_eq!(query("q=a b&sort=city", 0), "in=q%3Da+b%26sort%3Dcity&at=0");
    }
}
