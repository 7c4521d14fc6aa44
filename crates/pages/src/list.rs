//! What the list pages (`/leads`, `/businesses`) share: the filters of the URL (a GET form),
//! read as the API reads its query; the page's offset and its links; the team choices.
use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use serde::Serialize;
use tera::Context;

use leadhub_domain::team::Actor;
use leadhub_http::extract::{read_query, RequestQuery};

use crate::base_context;
use crate::render::{problems_text, PageError};
use crate::session::Visitor;

/// Rows on one page.
pub const PAGE_SIZE: i64 = 50;

/// The filters of a page's URL: known names with a non-blank value, in the order the page
/// names them, and the offset of the page.
pub struct PageFilters {
    names: &'static [&'static str],
    given: Vec<(&'static str, String)>,
    pub offset: i64,
}

impl PageFilters {
    pub fn of(query: &str, names: &'static [&'static str]) -> PageFilters {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let value = |name: &str| {
            pairs
                .iter()
                .rev()
                .find(|(n, v)| n == name && !v.trim().is_empty())
                .map(|(_, v)| v.trim().to_owned())
        };
        PageFilters {
            names,
            given: names
                .iter()
                .filter_map(|name| value(name).map(|v| (*name, v)))
                .collect(),
            offset: value("offset")
                .and_then(|o| o.parse::<i64>().ok())
                .filter(|o| *o >= 0)
                .unwrap_or(0),
        }
    }

    /// The filters as a query string (no offset): the base of the page links and the export.
    pub fn query_string(&self) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.given.iter().map(|(n, v)| (*n, v.as_str())))
            .finish()
    }

    /// `path` with the filters and `name`=`value` after them: another page of the list, or the
    /// list again after a form, with its `done` notice.
    pub fn link(&self, path: &str, name: &str, value: &str) -> String {
        let query = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.given.iter().map(|(n, v)| (*n, v.as_str())))
            .append_pair(name, value)
            .finish();
        format!("{path}?{query}")
    }

    /// The filters but `name` as a query string: a link that removes that filter.
    pub fn query_string_without(&self, name: &str) -> String {
        self.query_string_where(|n, _| n != name)
    }

    /// How many of the filters given `count` counts (given each one's name).
    pub fn given_count(&self, count: impl Fn(&str) -> bool) -> usize {
        self.given.iter().filter(|(name, _)| count(name)).count()
    }

    /// The query string of the filters `keep` keeps (given each one's name and value).
    pub fn query_string_where(&self, keep: impl Fn(&str, &str) -> bool) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(
                self.given
                    .iter()
                    .filter(|(n, v)| keep(n, v))
                    .map(|(n, v)| (*n, v.as_str())),
            )
            .finish()
    }

    /// The filters read as the API reads them, or the problems with them as one sentence.
    pub fn read<T: RequestQuery>(&self) -> Result<T, String> {
        read_query::<T>(&self.query_string()).map_err(|p| problems_text(&p))
    }

    /// Puts the form's values (`f`, every filter, "" when not given), `filtered` (a filter
    /// besides the order is given) and `query` into the page's context.
    pub fn insert_form(&self, context: &mut Context) {
        let chosen: HashMap<&str, &str> = self
            .names
            .iter()
            .map(|name| {
                let given = self.given.iter().find(|(n, _)| n == name);
                (*name, given.map_or("", |(_, v)| v.as_str()))
            })
            .collect();
        context.insert("f", &chosen);
        // An order alone narrows nothing: the list still shows every lead.
        let filtered = self.given.iter().any(|(name, _)| *name != "sort");
        context.insert("filtered", &filtered);
        context.insert("query", &self.query_string());
    }

    /// Puts the count and the paging of `total` matches into the context: `total`, `first` and
    /// `last` (when this page has rows), and the links `previous` and `next` to `path` with the
    /// same filters.
    pub fn insert_page(&self, context: &mut Context, path: &str, total: i64) {
        let link = |offset: i64| self.link(path, "offset", &offset.to_string());
        context.insert("total", &total);
        if self.offset < total {
            context.insert("first", &(self.offset + 1));
            context.insert("last", &(self.offset + PAGE_SIZE).min(total));
        }
        let (previous, next) = neighbours(self.offset, PAGE_SIZE, total);
        if let Some(offset) = previous {
            context.insert("previous", &link(offset));
        }
        if let Some(offset) = next {
            context.insert("next", &link(offset));
        }
    }
}

/// The offsets of the pages before and after the page of `size` rows at `offset`, of `total`.
/// Page URLs are typed by people, so any offset may come: one past the end goes back to the
/// last page, and none overflows.
pub fn neighbours(offset: i64, size: i64, total: i64) -> (Option<i64>, Option<i64>) {
    let last_page = (total - 1).max(0) / size * size;
    let previous = match offset {
        0 => None,
        _ if offset >= total => Some(last_page),
        _ => Some((offset - size).max(0)),
    };
    let next = Some(offset.saturating_add(size)).filter(|n| *n < total);
    (previous, next)
}

/// A list page whose filters cannot be used: a 422 naming the problems above the form.
pub fn refuse(context: &mut Context, problems: &str) -> StatusCode {
    context.insert(
        "error",
        &format!("These filters cannot be used: {problems}."),
    );
    StatusCode::UNPROCESSABLE_ENTITY
}

/// A team in a form's team menu.
#[derive(Serialize)]
pub struct TeamChoice {
    pub id: String,
    pub name: String,
    /// Whether the team is active: a page that read all the teams once picks the active ones
    /// from them (not shown).
    #[serde(skip)]
    pub active: bool,
    /// Who the visitor is there (not shown): what the permission table lets them do in it.
    #[serde(skip)]
    pub actor: Option<Actor>,
    /// Whether the visitor is a member (not shown); a platform admin is listed every team.
    #[serde(skip)]
    pub member: bool,
}

/// The visitor's teams for a team menu, only the active ones when `active_only`.
pub async fn team_choices(
    visitor: &Visitor,
    active_only: bool,
) -> Result<Vec<TeamChoice>, PageError> {
    Ok(visitor
        .state
        .teams
        .list(&visitor.user)
        .await?
        .into_iter()
        .filter(|t| t.team.is_active || !active_only)
        .map(|t| TeamChoice {
            actor: Actor::of(&visitor.user, t.my_role),
            member: t.my_role.is_some(),
            id: t.team.id.to_string(),
            name: t.team.name,
            active: t.team.is_active,
        })
        .collect())
}

/// The start of a list page at `path` (`/leads`): its filters from the URL, a context with
/// the navigation, the user's teams for the team filter, the form's values and `list_path`,
/// and those teams (all of them, read once) for the rest of the page.
pub async fn start(
    visitor: &Visitor,
    req: &HttpRequest,
    names: &'static [&'static str],
    path: &'static str,
) -> Result<(PageFilters, Context, Vec<TeamChoice>), PageError> {
    let filters = PageFilters::of(req.query_string(), names);
    let mut context = base_context(Some(visitor), path.trim_start_matches('/'));
    let teams = team_choices(visitor, false).await?;
    context.insert("teams", &teams);
    context.insert("list_path", path);
    filters.insert_form(&mut context);
    Ok((filters, context, teams))
}

#[cfg(test)]
mod tests {
    use super::{neighbours, PageFilters};

    #[test]
    fn neighbours_of_any_offset() {
        assert_eq!(neighbours(0, 50, 0), (None, None));
        assert_eq!(neighbours(0, 50, 57), (None, Some(50)));
        assert_eq!(neighbours(50, 50, 57), (Some(0), None));
        assert_eq!(neighbours(57, 50, 120), (Some(7), Some(107)));
        assert_eq!(neighbours(57, 50, 57), (Some(50), None));
        assert_eq!(neighbours(i64::MAX, 50, 57), (Some(50), None));
        assert_eq!(neighbours(i64::MAX, 50, 0), (Some(0), None));
    }

    const NAMES: [&str; 4] = ["q", "team_id", "state", "city"];

    #[test]
    fn keeps_known_non_blank_filters_in_order() {
        let f = PageFilters::of(
            "city=&state=TX&q=main+st&bogus=1&offset=50&team_id=+",
            &NAMES,
        );
        assert_eq!(f.query_string(), "q=main+st&state=TX");
        assert_eq!(f.offset, 50);
        assert_eq!(PageFilters::of("offset=-3", &NAMES).offset, 0);
        assert_eq!(
            PageFilters::of("q=main&state=TX&city=Austin", &NAMES).query_string_without("state"),
            "q=main&city=Austin"
        );
    }
}
