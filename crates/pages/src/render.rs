//! Page rendering: the tera templates compiled into the binary (autoescaped), the headers every
//! page gets, and `PageError`, which answers with an HTML page instead of the API's JSON.
use std::sync::LazyLock;

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, HttpResponseBuilder, ResponseError};
use chrono::{DateTime, Utc};
use tera::{Context, Tera};

use leadhub_domain::auth::AuthError;
use leadhub_domain::clock::UtcOffset;
use leadhub_domain::error::{FieldError, LocPart, ServiceError};
use leadhub_domain::team::TeamError;

use crate::cookies::cleared_session_cookies;
use crate::error_layout::ErrorMessage;

macro_rules! page_templates {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../../web-assets/pages/", $name)))),*]
    };
}

const TEMPLATES: [(&str, &str); 28] = page_templates!(
    "base.html",
    "message.html",
    "sign_in.html",
    "sign_in_link.html",
    "api_keys.html",
    "api_key_created.html",
    "teams.html",
    "team.html",
    "confirm.html",
    "forms.html",
    "team_webhooks.html",
    "webhook_created.html",
    "invite.html",
    "leads.html",
    "lead.html",
    "lead_edit.html",
    "upload_form.html",
    "upload.html",
    "upload_columns.html",
    "uploads.html",
    "pager.html",
    "filter_team.html",
    "filter_actions.html",
    "list.html",
    "charts.html",
    "dashboard.html",
    "businesses.html",
    "tags.html",
);

// Parsed once. A parse error is a programming error the unit test below catches; it still answers
// a 500 page rather than panicking.
static TERA: LazyLock<Result<Tera, String>> =
    LazyLock::new(|| leadhub_mail::html_templates(TEMPLATES));

/// Renders a template to HTML.
pub fn render(name: &str, context: &Context) -> Result<String, PageError> {
    let tera = TERA.as_ref().map_err(|e| {
        tracing::error!(error = %e, "page templates do not parse");
        PageError::Internal
    })?;
    tera.render(name, context).map_err(|e| {
        tracing::error!(template = name, error = ?e, "page not rendered");
        PageError::Internal
    })
}

/// The headers of every page: never cached (a new API key is on one), no framing, no referrer
/// (the sign-in and invite URLs carry tokens), and scripts and styles from this origin only.
pub fn page_headers(builder: &mut HttpResponseBuilder) -> &mut HttpResponseBuilder {
    builder
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ))
}

/// An Excel workbook's media type, for `attachment`.
pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A file to download (`file_name`, of `content_type`), never cached; `nosniff` comes with every
/// response (`security_headers`).
pub fn attachment(content_type: &str, file_name: &str) -> HttpResponseBuilder {
    let mut builder = HttpResponse::Ok();
    builder
        .content_type(content_type)
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}\""),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    builder
}

/// An HTML answer with the given status.
pub fn html(status: StatusCode, body: String) -> HttpResponse {
    page_headers(&mut HttpResponse::build(status)).body(body)
}

/// The one of `items` that `wanted` picks, or the 404 naming `what`: the services answer lists of
/// what the person may see, so one missing from its list is "not found" like one that never was.
pub fn found_in<T>(
    items: Vec<T>,
    wanted: impl FnMut(&T) -> bool,
    what: &str,
) -> Result<T, PageError> {
    items
        .into_iter()
        .find(wanted)
        .ok_or_else(|| PageError::NotFound(what.to_owned()))
}

/// A 303 to another page (after a form: Post/Redirect/Get).
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// "31 Jan 2026 11:04" on the person's clock (`Visitor::offset`); "31 Jan 2026 17:04 UTC" where
/// their browser has not said (or they are at UTC).
pub fn when(at: DateTime<Utc>, offset: UtcOffset) -> String {
    let shown = offset.local(at).format("%-d %b %Y %H:%M");
    if offset == UtcOffset::default() {
        format!("{shown} UTC")
    } else {
        shown.to_string()
    }
}

pub fn when_opt(at: Option<DateTime<Utc>>, offset: UtcOffset) -> Option<String> {
    at.map(|at| when(at, offset))
}

/// The problems of a form as one sentence: "first name: Field required for a new account".
pub fn problems_text(problems: &[FieldError]) -> String {
    problems
        .iter()
        .map(|p| match p.loc.last() {
            Some(LocPart::Field(field)) => format!("{}: {}", field.replace('_', " "), p.msg),
            _ => p.msg.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a page could not be shown; each answers with an HTML page.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("not signed in")]
    SignedOut,
    /// Signed out on a page (a GET of this same-origin path): sign-in returns to it.
    #[error("not signed in")]
    SignInFirst(String),
    #[error("CSRF token missing or wrong")]
    Csrf,
    #[error("bad form")]
    BadForm,
    #[error("{0} not found")]
    NotFound(String),
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("gone: {0}")]
    Gone(String),
    #[error("storage full")]
    StorageFull,
    #[error("database read-only")]
    DatabaseReadOnly,
    #[error("database unreachable")]
    DatabaseUnreachable,
    /// A form the domain refused (a conflict, a stale version, a value it cannot take): the
    /// reason, and a link back to where the person was.
    #[error("refused: {text}")]
    Refused {
        status: StatusCode,
        title: &'static str,
        text: String,
        back: String,
    },
    #[error("internal error")]
    Internal,
}

impl PageError {
    pub fn unexpected(cause: anyhow::Error) -> PageError {
        if leadhub_domain::store::is_storage_full(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "storage full; request refused"
            );
            return PageError::StorageFull;
        }
        if leadhub_domain::store::is_database_read_only(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "database read-only; request refused"
            );
            return PageError::DatabaseReadOnly;
        }
        if leadhub_domain::store::is_database_unreachable(&cause) {
            tracing::error!(
                error = format!("{cause:#}"),
                "no database connection; request refused"
            );
            return PageError::DatabaseUnreachable;
        }
        tracing::error!(error = format!("{cause:#}"), "unexpected error");
        PageError::Internal
    }

    fn title_and_text(&self) -> (&'static str, String) {
        match self {
            PageError::SignedOut | PageError::SignInFirst(_) => {
                ("Signed out", "Please sign in.".into())
            }
            PageError::Csrf => (
                "This form could not be accepted",
                "The form was missing its security token or the token did not match your \
                 session (perhaps it came from another site, or you signed in again since \
                 the page was loaded). Nothing was changed. Go back, reload the page and try again."
                    .into(),
            ),
            PageError::BadForm => (
                "This form could not be read",
                "Nothing was changed. Go back, reload the page and try again.".into(),
            ),
            PageError::NotFound(thing) => ("Not found", format!("{thing} not found.")),
            PageError::Forbidden(reason) => ("Not allowed", format!("{reason}.")),
            PageError::Gone(reason) => ("This link no longer works", format!("{reason}.")),
            PageError::StorageFull => (
                "Storage full",
                "The service's storage is full, so nothing was saved. Please try again later."
                    .into(),
            ),
            PageError::DatabaseUnreachable => (
                "The service is unavailable",
                "The service cannot reach its database right now, so nothing was done. Please \
                 try again in a moment."
                    .into(),
            ),
            PageError::DatabaseReadOnly => (
                "Saving is not possible right now",
                "The service's database is read-only, so nothing was saved. Please try again later."
                    .into(),
            ),
            PageError::Refused { title, text, .. } => (title, text.clone()),
            PageError::Internal => (
                "Something went wrong",
                "An unexpected error occurred; it has been logged. Please try again.".into(),
            ),
        }
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::SignedOut | PageError::SignInFirst(_) => StatusCode::SEE_OTHER,
            PageError::Csrf | PageError::Forbidden(_) => StatusCode::FORBIDDEN,
            PageError::BadForm => StatusCode::BAD_REQUEST,
            PageError::NotFound(_) => StatusCode::NOT_FOUND,
            PageError::Gone(_) => StatusCode::GONE,
            PageError::StorageFull => StatusCode::INSUFFICIENT_STORAGE,
            PageError::DatabaseReadOnly | PageError::DatabaseUnreachable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            PageError::Refused { status, .. } => *status,
            PageError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let sign_in = match self {
            PageError::SignedOut => Some("/sign-in".to_owned()),
            PageError::SignInFirst(next) => Some(format!(
                "/sign-in?next={}",
                form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>()
            )),
            _ => None,
        };
        if let Some(sign_in) = sign_in {
            // The session cookies, if any, are dead: drop them on the way to the sign-in page.
            let mut response = see_other(&sign_in);
            for c in cleared_session_cookies(false) {
                if let Err(e) = response.add_cookie(&c) {
                    tracing::error!(error = %e, "cookie not cleared");
                }
            }
            return response;
        }
        let (title, text) = self.title_and_text();
        let mut context = Context::new();
        context.insert("title", title);
        context.insert("text", &text);
        context.insert("is_error", &true);
        if let PageError::Refused { back, .. } = self {
            context.insert("link_href", back);
            context.insert("link_text", "Back");
        }
        let mut response = match render("message.html", &context) {
            Ok(body) => html(self.status_code(), body),
            Err(_) => {
                return HttpResponse::build(self.status_code())
                    .content_type("text/plain; charset=utf-8")
                    .body(format!("{title}\n\n{text}\n"))
            }
        };
        // For `error_layout` to render again with the navigation when someone is signed in.
        response.extensions_mut().insert(ErrorMessage(context));
        response
    }
}

impl From<AuthError> for PageError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Unauthorized => PageError::SignedOut,
            AuthError::NotFound(thing) => PageError::NotFound(thing.into()),
            AuthError::Gone(reason) => PageError::Gone(reason),
            AuthError::Conflict(reason) => PageError::Forbidden(reason),
            AuthError::Invalid(_) => PageError::BadForm,
            AuthError::Unexpected(cause) => PageError::unexpected(cause),
        }
    }
}

/// A lead, business or webhook the person may not see is "not found", like one that does not exist.
impl From<ServiceError> for PageError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::NotFound(thing) => PageError::NotFound(thing.into()),
            ServiceError::Forbidden(reason) => PageError::Forbidden(reason),
            ServiceError::Invalid(_) => PageError::BadForm,
            ServiceError::Unexpected(cause) => PageError::unexpected(cause),
        }
    }
}

impl From<TeamError> for PageError {
    fn from(e: TeamError) -> Self {
        match e {
            TeamError::NotFound(thing) => PageError::NotFound(thing.into()),
            TeamError::Forbidden(reason) => PageError::Forbidden(reason),
            TeamError::Gone(reason) => PageError::Gone(reason),
            TeamError::Conflict(reason) => PageError::Forbidden(reason),
            TeamError::Invalid(_) => PageError::BadForm,
            TeamError::TooManyEmails(_) => {
                PageError::Forbidden("Too many e-mails to this address; try again later".into())
            }
            TeamError::Unexpected(cause) => PageError::unexpected(cause),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse() {
        assert!(TERA.as_ref().is_ok(), "{:?}", TERA.as_ref().err());
    }

    #[test]
    fn times_are_shown_on_the_persons_clock_and_marked_utc_where_it_is_unknown() {
        let at = "2026-12-05T06:32:00Z".parse::<DateTime<Utc>>().unwrap();
        let offset = |minutes| UtcOffset::from_minutes(minutes).unwrap();
        assert_eq!(when(at, UtcOffset::default()), "5 Dec 2026 06:32 UTC");
        assert_eq!(when(at, offset(-480)), "4 Dec 2026 22:32");
        assert_eq!(when(at, offset(330)), "5 Dec 2026 12:02");
        assert_eq!(when_opt(None, offset(60)), None);
    }
}
