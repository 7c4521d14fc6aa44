//! The web pages for people: sign-in, the dashboard, leads, businesses, API keys, teams and
//! invite acceptance. Server-rendered with tera; the templates, CSS and JS are compiled into the
//! binary (`web-assets/pages/`). Handlers call the domain services directly, like the API
//! handlers do. Every state change is a POST that
//! carries a CSRF token; GETs never change anything (not even spend a link's token).
use actix_web::{web, HttpResponse};
use serde::Deserialize;
use tera::Context;

/// A page group's routes, one a line: `GET "/teams/{id}" => show,` serves the handler for the
/// method and path.
macro_rules! routes {
    ($cfg:ident; $($method:ident $path:literal => $handler:path,)+) => {
        $(
            $cfg.route(
                $path,
                actix_web::web::method(actix_web::http::Method::$method).to($handler),
            );
        )+
    };
}

pub mod businesses;
pub mod charts;
pub mod cookies;
pub mod dashboard;
mod error_layout;
pub mod import;
pub mod invites;
pub mod keys;
pub mod lead;
pub mod lead_actions;
pub mod lead_bulk;
pub mod lead_edit;
pub mod lead_enrichment;
pub mod lead_tags;
pub mod lead_view;
pub mod lead_walk;
pub mod lead_workbook;
pub mod leads;
pub mod list;
pub mod map;
pub mod multipart;
pub mod nearby;
pub mod render;
pub mod saved_views;
pub mod session;
pub mod sign_in;
pub mod tags;
pub mod team_webhook_edits;
pub mod team_webhooks;
pub mod teams;
pub mod upload_columns;
pub mod upload_import;
pub mod uploads;

pub use error_layout::error_layout;
use leadhub_api::docs::{asset_files, static_file};
use render::PageError;
use session::Visitor;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(
        web::FormConfig::default()
            .limit(64 * 1024)
            .error_handler(|_, _| PageError::BadForm.into()),
    )
    .route("/assets/{file}", web::get().to(asset))
    .route("/favicon.ico", web::get().to(favicon))
    .configure(dashboard::configure)
    .configure(sign_in::configure)
    .configure(keys::configure)
    .configure(teams::configure)
    .configure(team_webhooks::configure)
    .configure(team_webhook_edits::configure)
    .configure(invites::configure)
    // Before the leads, whose `/leads/{id}` would take `/leads/import`.
    .configure(uploads::configure)
    .configure(map::configure)
    .configure(leads::configure)
    .configure(tags::configure)
    .configure(businesses::configure);
}

/// The pages' CSS and JS (`nosniff` comes with every response, from `security_headers`).
const FILES: [(&str, &str, &[u8]); 2] = asset_files!("pages":
    ("pages.css", "text/css; charset=utf-8"),
    ("pages.js", "text/javascript; charset=utf-8"),
);

async fn asset(file: web::Path<String>) -> HttpResponse {
    static_file(&file, &FILES, "public, max-age=3600").await
}

/// The site icon browsers ask every origin for (and `base.html` links): ours, cached for a day.
const FAVICON: [(&str, &str, &[u8]); 1] =
    asset_files!("pages": ("favicon.ico", "image/vnd.microsoft.icon"));

async fn favicon() -> HttpResponse {
    static_file("favicon.ico", &FAVICON, "public, max-age=86400").await
}

/// What every page's layout needs: who is signed in (and the token of the sign-out form).
pub fn base_context(visitor: Option<&Visitor>, nav: &str) -> Context {
    let mut context = Context::new();
    context.insert("nav", nav);
    if let Some(v) = visitor {
        context.insert("me_name", &v.user.display_name());
        context.insert("me_email", &v.user.email);
        context.insert("csrf", &v.csrf_token());
    }
    context
}

/// The `?done=...` of a redirect after a form, as a fixed sentence (never text from the URL).
#[derive(Deserialize)]
pub struct Done {
    pub done: Option<String>,
}

impl Done {
    pub fn notice(&self) -> Option<&'static str> {
        Some(match self.done.as_deref()? {
            "created" => "Team created.",
            "role" => "Role changed.",
            "removed" => "Member removed.",
            "left" => "You left the team.",
            "invited" => "Invite sent.",
            "resent" => "A new invite was sent; the previous link no longer works.",
            "invite-not-mailed" => {
                "The invite was saved, but its e-mail could not be sent. Try \"Resend\" later."
            }
            "invite-revoked" => "Invite revoked.",
            "takes-new-leads" => "New leads of the team now come to this member in turn.",
            "no-new-leads" => "No more new leads in turn for this member; the leads they have stay theirs.",
            "deactivated" => "Team deactivated.",
            "joined" => "Welcome! You joined the team.",
            "key-revoked" => "API key revoked.",
            "digest-on" => "You will get an e-mail on the days you have follow-ups due, and one when your team gives you new leads in turn.",
            "digest-off" => "You will get no more e-mail of follow-ups due or of new leads given to you.",
            "webhook-test" => "A test event was queued for the endpoint.",
            "webhook-retried" => "The delivery was queued to be sent again.",
            "webhook-disabled" => "Endpoint disabled: nothing is sent to it until it is enabled.",
            "webhook-enabled" => "Endpoint enabled.",
            "webhook-deleted" => "Webhook endpoint deleted.",
            "signed-out" => "You are signed out.",
            "enriched" => "Enrichment ran again; the lead below shows what it found.",
            "saved" => "Status and owner saved.",
            "saved-then-next" => "Saved. This is the next lead in the list.",
            "edited" => "Lead saved.",
            "unchanged" => "Nothing was changed: the form held the lead's values.",
            "note-added" => "Note added.",
            "contact-logged" => "Contact logged.",
            "contact-logged-then-next" => "Contact logged. This is the next lead in the list.",
            "note-deleted" => "Note deleted; the timeline keeps that it was there.",
            "claimed" => "Lead claimed: it belongs to your team now.",
            "moved" => "Lead moved to the other team.",
            "archived" => "Lead archived: it left lists, exports and the dashboard.",
            "restored" => "Lead restored.",
            "do-not-call" => "Marked do not call: the call lists leave this lead out.",
            "may-call" => "The do-not-call mark is off: the lead is in the call lists again.",
            "number-not-to-call" => "Number taken off the lead, and off the team's other leads with it: no list or submission will add it back.",
            "number-may-call" => "The number may be called again; edit the lead to put it back among its phones.",
            "tags-added" => "Tags added.",
            "tag-removed" => "Tag taken off.",
            "tags-unchanged" => "No tag was given: nothing was changed.",
            "view-saved" => "View saved: it is among your views above the list.",
            "view-deleted" => "View deleted.",
            "tag-renamed" => "Tag renamed on every lead that carried it.",
            "tag-removed-everywhere" => "Tag taken off every lead that carried it.",
            "merged" => "Leads merged: this is the lead that was kept.",
            "merged-away" => "The lead you opened was merged into this one.",
            "bulk" => "The selected leads were changed.",
            "shared" => "Leads shared out: each person ticked got their share in turn (the team page shows everyone's open leads).",
            "discarded" => "Upload discarded: nothing of it was imported.",
            _ => return None,
        })
    }
}

/// The fields of a button's form: none besides its CSRF token.
#[derive(Deserialize)]
pub struct Button {}

/// A path segment that must be a number; anything else is a page that does not exist.
pub fn id_of(segment: &str, thing: &str) -> Result<i64, PageError> {
    segment
        .parse()
        .map_err(|_| PageError::NotFound(thing.to_owned()))
}

/// The ids in `/teams/{team}/.../{item}`: the team's, then the item's (`thing` names it).
pub fn team_item(team: &str, item: &str, thing: &str) -> Result<(i64, i64), PageError> {
    Ok((id_of(team, "Team")?, id_of(item, thing)?))
}
