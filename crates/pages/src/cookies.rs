//! The session and CSRF cookies of the pages (what they hold: session.rs and `docs/pages.md`).
//! Apart from session.rs so the page renderer can clear them without importing the session.
use actix_web::cookie::time::Duration as CookieDuration;
use actix_web::cookie::{Cookie, SameSite};

use leadhub_domain::secret::TokenGenerator;
use leadhub_domain::session::{Session, REFRESH_TOKEN_DAYS};
use leadhub_http::tokens::RandomTokens;

pub const SESSION_COOKIE: &str = "leadhub_session";
pub const REFRESH_COOKIE: &str = "leadhub_refresh";
pub const CSRF_COOKIE: &str = "leadhub_csrf";
/// Minutes east of UTC where the person is, written by `pages.js` from the browser's clock:
/// the pages count "today" (follow-ups due, contacts logged) by it.
pub const UTC_OFFSET_COOKIE: &str = "leadhub_utc_offset";

pub(crate) fn cookie(
    name: &'static str,
    value: String,
    max_age: i64,
    secure: bool,
) -> Cookie<'static> {
    Cookie::build(name, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::seconds(max_age))
        .finish()
}

/// The two cookies of a new or refreshed session.
pub fn session_cookies(session: &Session, secure: bool) -> Vec<Cookie<'static>> {
    vec![
        cookie(
            SESSION_COOKIE,
            session.access_token.clone(),
            session.expires_in,
            secure,
        ),
        cookie(
            REFRESH_COOKIE,
            session.refresh_token.clone(),
            REFRESH_TOKEN_DAYS * 24 * 3600,
            secure,
        ),
    ]
}

/// Cookies that make the browser forget the session.
pub fn cleared_session_cookies(secure: bool) -> Vec<Cookie<'static>> {
    [SESSION_COOKIE, REFRESH_COOKIE]
        .into_iter()
        .map(|name| cookie(name, String::new(), 0, secure))
        .collect()
}

/// A fresh CSRF secret cookie (given at sign-in and sign-out, so a secret never outlives a session).
pub fn fresh_csrf_cookie(secure: bool) -> Cookie<'static> {
    cookie(
        CSRF_COOKIE,
        RandomTokens.secret(""),
        REFRESH_TOKEN_DAYS * 24 * 3600,
        secure,
    )
}
