//! `/tags`: the tags on the leads the person sees, with how many carry each (each a link to
//! those leads), and one tag renamed or taken off all of them: "storm2026" and "storm 2026" made
//! one tag again. The API's `LeadWorkService::tag_counts` and `retag`, so both refuse alike.
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use leadhub_domain::lead::work::{LeadWorkError, TagCount, TAG_LIST_MAX};

use crate::lead_view::{tag_link, TagLink};
use crate::render::{problems_text, see_other, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, Done};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/tags" => list,
        POST "/tags/rename" => rename,
        POST "/tags/remove" => remove,
    }
}

/// One row of the page: the tag, the list of its leads, and how many they are.
#[derive(Serialize)]
struct TagLine {
    #[serde(flatten)]
    link: TagLink,
    count: i64,
}

/// A rename's form: the tag, and its new name.
#[derive(Deserialize)]
struct RenameForm {
    from: String,
    to: String,
}

/// A removal's form.
#[derive(Deserialize)]
struct RemoveForm {
    tag: String,
}

async fn list(visitor: Visitor, done: web::Query<Done>) -> Result<HttpResponse, PageError> {
    let work = &visitor.state.lead_work;
    let counts = work
        .tag_counts(&visitor.user, None)
        .await
        .map_err(refused)?;
    let mut context = base_context(Some(&visitor), "leads");
    context.insert("tags", &lines(counts));
    context.insert("tag_list_max", &TAG_LIST_MAX);
    context.insert("notice", &done.notice());
    visitor.page(StatusCode::OK, "tags.html", &context)
}

fn lines(counts: Vec<TagCount>) -> Vec<TagLine> {
    counts
        .into_iter()
        .map(|count| TagLine {
            link: tag_link(&count.tag),
            count: count.leads,
        })
        .collect()
}

async fn rename(Posted { visitor, form }: Posted<RenameForm>) -> Result<HttpResponse, PageError> {
    let work = &visitor.state.lead_work;
    work.retag(&visitor.user, None, &form.from, Some(&form.to))
        .await
        .map_err(refused)?;
    Ok(visitor.finish(see_other("/tags?done=tag-renamed")))
}

async fn remove(Posted { visitor, form }: Posted<RemoveForm>) -> Result<HttpResponse, PageError> {
    let work = &visitor.state.lead_work;
    work.retag(&visitor.user, None, &form.tag, None)
        .await
        .map_err(refused)?;
    Ok(visitor.finish(see_other("/tags?done=tag-removed-everywhere")))
}

/// A refusal as a page that leads back to the tags.
fn refused(e: LeadWorkError) -> PageError {
    let refusal = |status, text: String| PageError::Refused {
        status,
        title: "The tag was not changed",
        text,
        back: "/tags".into(),
    };
    match e {
        LeadWorkError::Invalid(problems) => refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{}. Nothing was changed.", problems_text(&problems)),
        ),
        LeadWorkError::Conflict { detail, .. } => refusal(StatusCode::CONFLICT, detail),
        LeadWorkError::NotFound(thing) => PageError::NotFound(thing.into()),
        LeadWorkError::Forbidden(reason) => PageError::Forbidden(reason),
        LeadWorkError::Unexpected(cause) => PageError::unexpected(cause),
        // Neither is said of a tag: no version is named, and merged leads are not listed.
        other @ (LeadWorkError::PreconditionFailed | LeadWorkError::Merged(_)) => {
            refusal(StatusCode::CONFLICT, other.to_string())
        }
    }
}
