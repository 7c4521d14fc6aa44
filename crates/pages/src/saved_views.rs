//! A person's saved views of the leads list: the list's filters kept under a name and shown
//! beside the list's own views (`SavedViews`; docs/working-leads.md "The pages").
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use leadhub_domain::error::ServiceError;
use leadhub_domain::lead::saved_views::SavedView;

use crate::id_of;
use crate::leads::FILTERS;
use crate::list::PageFilters;
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
}

impl From<SavedView> for ViewLink {
    fn from(view: SavedView) -> Self {
        ViewLink {
            id: view.id,
            name: view.name,
            query: view.query,
        }
    }
}

/// The visitor's views, by name.
pub async fn views_of(visitor: &Visitor) -> Result<Vec<ViewLink>, PageError> {
    let views = visitor.state.saved_views.of(&visitor.user).await?;
    Ok(views.into_iter().map(ViewLink::from).collect())
}

/// "Save this list as a view": its name, and the list's filters as the page wrote them.
#[derive(Deserialize)]
struct SaveForm {
    name: String,
    #[serde(default)]
    query: String,
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
    let views = &visitor.state.saved_views;
    match views.save(&visitor.user, &form.name, &query).await {
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
