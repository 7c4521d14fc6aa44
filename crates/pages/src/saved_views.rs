//! Saved views of the leads list, a person's own or kept for a team: the list's filters kept
//! under a name and shown beside the list's own views (`SavedViews`; docs/working-leads.md "The
//! pages").
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use leadhub_domain::error::ServiceError;
use leadhub_domain::lead::saved_views::ListedView;
use leadhub_domain::team::{permits, TeamAction};

use crate::id_of;
use crate::leads::FILTERS;
use crate::list::{PageFilters, TeamChoice};
use crate::render::{problems_text, see_other, PageError};
use crate::session::{Posted, Visitor};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        POST "/leads/views" => save,
        POST "/leads/views/{id}/delete" => delete,
    }
}

/// A view as the list shows it.
#[derive(Serialize)]
pub struct ViewLink {
    id: i64,
    name: String,
    /// The list's query, without `?`.
    query: String,
    /// The team it is kept for (its name), or None: the visitor's own.
    team: Option<String>,
    /// Whether the visitor may delete it (its × shows).
    may_delete: bool,
}

/// The visitor's views and their teams', by name; `teams` are the visitor's, to name them.
pub async fn views_of(visitor: &Visitor, teams: &[TeamChoice]) -> Result<Vec<ViewLink>, PageError> {
    let views = visitor.state.saved_views.of(&visitor.user).await?;
    // Two teams of one name are told apart by their id, as in the team pickers.
    let team_name = |id: i64| {
        let id = id.to_string();
        let Some(team) = teams.iter().find(|t| t.id == id) else {
            return "a team".to_owned();
        };
        if teams.iter().filter(|t| t.name == team.name).count() > 1 {
            format!("{} (#{id})", team.name)
        } else {
            team.name.clone()
        }
    };
    Ok(views
        .into_iter()
        .map(|ListedView { view, may_change }| ViewLink {
            id: view.id,
            team: view.team_id.map(team_name),
            name: view.name,
            query: view.query,
            may_delete: may_change,
        })
        .collect())
}

/// The active teams the visitor may keep a view for (the permission table's `ShareViews`),
/// among those they are in: the views shown are those of one's own teams, so a platform admin
/// is not offered a team whose view they would never see.
pub fn share_choices(teams: &[TeamChoice]) -> Vec<&TeamChoice> {
    let may_share = |t: &TeamChoice| t.actor.is_some_and(|a| permits(a, TeamAction::ShareViews));
    teams
        .iter()
        .filter(|t| t.active && t.member && may_share(t))
        .collect()
}

/// "Save this list as a view": its name, and the list's filters as the page wrote them.
#[derive(Deserialize)]
struct SaveForm {
    name: String,
    #[serde(default)]
    query: String,
    /// The team to keep it for; blank: the visitor's own.
    #[serde(default)]
    team_id: String,
}

/// A delete button: the list it was pressed on, to go back to.
#[derive(Deserialize)]
struct DeleteForm {
    #[serde(default)]
    back: String,
}

async fn save(Posted { visitor, form }: Posted<SaveForm>) -> Result<HttpResponse, PageError> {
    // Only the list's own filters are kept, in the list's order: what the view shows is what
    // `/leads` with them shows.
    let filters = PageFilters::of(&form.query, &FILTERS);
    let query = filters.query_string();
    let team_id = match form.team_id.trim() {
        "" => None,
        team => Some(id_of(team, "Team")?),
    };
    let views = &visitor.state.saved_views;
    match views.save(&visitor.user, &form.name, &query, team_id).await {
        Ok(_) => Ok(visitor.finish(see_other(&filters.link("/leads", "done", "view-saved")))),
        Err(ServiceError::Invalid(problems)) => Err(PageError::Refused {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            title: "The view was not saved",
            text: format!("{}.", problems_text(&problems)),
            back: format!("/leads?{query}"),
        }),
        Err(e) => Err(e.into()),
    }
}

async fn delete(
    id: web::Path<String>,
    Posted { visitor, form }: Posted<DeleteForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "View")?;
    let views = &visitor.state.saved_views;
    views.delete(&visitor.user, id).await?;
    let back = PageFilters::of(&form.back, &FILTERS);
    Ok(visitor.finish(see_other(&back.link("/leads", "done", "view-deleted"))))
}
