//! The lead page's tags: add some (one field, commas between several) and take one off. Each is
//! the PATCH's `add_tags` / `remove_tags`, so the page and the API refuse alike.
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use leadhub_domain::error::FieldError;
use leadhub_domain::lead::work::tags::tags_of_field;
use leadhub_domain::lead::work::{LeadPatch, LeadWorkError, TagEdit};

use crate::id_of;
use crate::lead::refused;
use crate::lead_walk::Walk;
use crate::render::{see_other, PageError};
use crate::session::{Posted, Visitor};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        POST "/leads/{id}/tags" => add,
        POST "/leads/{id}/tags/remove" => remove,
    }
}

/// The add form's field: one tag, or several with commas or semicolons between them.
#[derive(Deserialize)]
struct AddForm {
    tags: String,
}

/// The remove button's tag.
#[derive(Deserialize)]
struct RemoveForm {
    tag: String,
}

async fn add(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<AddForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let tags = tags_of_field(&form.tags).map_err(|problem| {
        let problem = FieldError::body(&["tags".into()], "value_error", problem);
        refused(LeadWorkError::Invalid(vec![problem]), id, &walk)
    })?;
    if tags.is_empty() {
        return Ok(visitor.finish(back(id, "tags-unchanged", &walk)));
    }
    change(visitor, id, TagEdit::adding(tags), "tags-added", &walk).await
}

async fn remove(
    id: web::Path<String>,
    walk: web::Query<Walk>,
    Posted { visitor, form }: Posted<RemoveForm>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Lead")?;
    let tag = leadhub_domain::lead::work::parse_tag(&form.tag).map_err(|_| PageError::BadForm)?;
    change(visitor, id, TagEdit::removing([tag]), "tag-removed", &walk).await
}

async fn change(
    visitor: Visitor,
    id: i64,
    edit: TagEdit,
    done: &str,
    walk: &Walk,
) -> Result<HttpResponse, PageError> {
    let patch = LeadPatch {
        tags: Some(edit),
        ..LeadPatch::default()
    };
    let work = &visitor.state.lead_work;
    work.edit(&visitor.user, id, patch, None)
        .await
        .map_err(|e| refused(e, id, walk))?;
    Ok(visitor.finish(back(id, done, walk)))
}

fn back(id: i64, done: &str, walk: &Walk) -> HttpResponse {
    see_other(&format!("/leads/{id}?done={done}{}#tags", walk.and()))
}
