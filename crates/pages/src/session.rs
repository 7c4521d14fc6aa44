//! Browser sessions and CSRF protection for the pages (the design is written up in `docs/pages.md`).
//!
//! - `leadhub_session` holds the access token, `leadhub_refresh` the refresh token: both HttpOnly,
//!   SameSite=Lax, Path=/, Secure when the public URL is https. An expired access token is
//!   refreshed transparently with the refresh cookie.
//! - `leadhub_csrf` holds a random secret (HttpOnly too). A form carries
//!   `SHA-256("leadhub-csrf" | binding | secret)`, where the binding is the session's family id
//!   for signed-in forms and `public` for the sign-in and invite forms. A cross-site page can
//!   neither read the cookie nor guess the family id, so it cannot forge the token.
use actix_web::cookie::Cookie;
use actix_web::dev::Payload;
use actix_web::http::{Method, StatusCode};
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use tera::Context;

use leadhub_domain::auth::{AuthError, Credential};
use leadhub_domain::clock::UtcOffset;
use leadhub_domain::return_path::safe_return_path;
use leadhub_domain::secret::{hash_secret, hashes_match, TokenGenerator, ACCESS_TOKEN_PREFIX};
use leadhub_domain::session::{Session, REFRESH_TOKEN_DAYS};
use leadhub_domain::user::User;
use leadhub_http::state::AppState;
use leadhub_http::tokens::RandomTokens;

use crate::cookies::cookie;
pub use crate::cookies::{
    cleared_session_cookies, fresh_csrf_cookie, session_cookies, CSRF_COOKIE, REFRESH_COOKIE,
    SESSION_COOKIE, UTC_OFFSET_COOKIE,
};
use crate::error_layout::SignedIn;
use crate::render::{html, render, see_other, PageError};

/// The CSRF binding of forms shown before anyone is signed in.
pub const PUBLIC_BINDING: &str = "public";

/// A page with a form anyone may post (sign-in, invite): its context gets the public CSRF
/// token, and the response sets the CSRF cookie when the browser had none.
pub fn public_form_page(
    req: &HttpRequest,
    state: &AppState,
    status: StatusCode,
    template: &str,
    mut context: Context,
) -> Result<HttpResponse, PageError> {
    let csrf = Csrf::of(req);
    context.insert("public_csrf", &csrf.token(PUBLIC_BINDING));
    let mut response = html(status, render(template, &context)?);
    if let Some(c) = csrf.cookie(secure(state)) {
        response.add_cookie(&c).map_err(|_| PageError::Internal)?;
    }
    Ok(response)
}

/// Whether cookies get the `Secure` attribute: only when the service is reached over https.
pub fn secure(state: &AppState) -> bool {
    state.config.public_url.starts_with("https://")
}

/// The answer that starts a session (a spent sign-in link, an accepted invite): on to `to`, with
/// the session's cookies and a fresh CSRF secret.
pub fn signed_in(state: &AppState, session: &Session, to: &str) -> Result<HttpResponse, PageError> {
    let secure = secure(state);
    let mut response = see_other(to);
    for c in session_cookies(session, secure)
        .into_iter()
        .chain([fresh_csrf_cookie(secure)])
    {
        response.add_cookie(&c).map_err(|_| PageError::Internal)?;
    }
    Ok(response)
}

/// The browser's CSRF secret, or a new one to hand out with this answer.
#[derive(Clone)]
pub struct Csrf {
    secret: String,
    fresh: bool,
}

impl Csrf {
    pub fn of(req: &HttpRequest) -> Csrf {
        match req
            .cookie(CSRF_COOKIE)
            .map(|c| c.value().to_owned())
            .filter(|v| (20..=100).contains(&v.len()))
        {
            Some(secret) => Csrf {
                secret,
                fresh: false,
            },
            None => Csrf {
                secret: RandomTokens.secret(""),
                fresh: true,
            },
        }
    }

    /// The token forms carry for this binding.
    pub fn token(&self, binding: &str) -> String {
        hash_secret(&format!("leadhub-csrf\n{binding}\n{}", self.secret))
    }

    /// Whether a posted token is the one for this binding; a secret made for this very request
    /// (no cookie came with it) never matches.
    pub fn verify(&self, binding: &str, presented: &str) -> bool {
        !self.fresh && hashes_match(&self.token(binding), presented.trim())
    }

    /// The cookie to set when the secret is new.
    pub fn cookie(&self, secure: bool) -> Option<Cookie<'static>> {
        self.fresh.then(|| {
            cookie(
                CSRF_COOKIE,
                self.secret.clone(),
                REFRESH_TOKEN_DAYS * 24 * 3600,
                secure,
            )
        })
    }

    /// Refuses a form whose token is missing or wrong.
    pub fn check(&self, binding: &str, presented: &str) -> Result<(), PageError> {
        if self.verify(binding, presented) {
            Ok(())
        } else {
            Err(PageError::Csrf)
        }
    }
}

/// A signed-in person, with the cookies the answer must set (a transparent refresh, a new CSRF
/// secret). Extracting it from a request without a live session redirects to `/sign-in`.
#[derive(Clone)]
pub struct Visitor {
    pub state: web::Data<AppState>,
    pub user: User,
    pub family_id: String,
    pub csrf: Csrf,
    pub cookies: Vec<Cookie<'static>>,
    /// Where the person's day begins (`UTC_OFFSET_COOKIE`, which `pages.js` keeps); UTC
    /// until their browser has said.
    pub offset: UtcOffset,
}

impl Visitor {
    /// Today as the pages count follow-up days: the person's own day.
    pub fn today(&self) -> chrono::NaiveDate {
        self.offset.day_at(self.state.clock.now()).date
    }

    /// Renders `template` as the visitor's page, with the pending cookies.
    pub fn page(
        &self,
        status: StatusCode,
        template: &str,
        context: &Context,
    ) -> Result<HttpResponse, PageError> {
        Ok(self.finish(html(status, render(template, context)?)))
    }

    /// The token for this session's forms.
    pub fn csrf_token(&self) -> String {
        self.csrf.token(&self.family_id)
    }

    /// Refuses a form that does not carry this session's token.
    pub fn check_csrf(&self, presented: &str) -> Result<(), PageError> {
        self.csrf.check(&self.family_id, presented)
    }

    /// Adds the pending cookies to an answer.
    pub fn finish(&self, mut response: HttpResponse) -> HttpResponse {
        for c in &self.cookies {
            if let Err(e) = response.add_cookie(c) {
                tracing::error!(error = %e, "cookie not set");
            }
        }
        response
    }

    async fn resolve(req: HttpRequest) -> Result<Visitor, PageError> {
        let state = req
            .app_data::<web::Data<AppState>>()
            .cloned()
            .ok_or(PageError::Internal)?;
        let secure = secure(&state);
        let mut cookies = Vec::new();
        let mut caller = None;
        // Only an access token is accepted from the cookie, never an API key.
        if let Some(access) = req
            .cookie(SESSION_COOKIE)
            .map(|c| c.value().to_owned())
            .filter(|v| v.starts_with(ACCESS_TOKEN_PREFIX))
        {
            match state.auth.authenticate(&access).await {
                Ok(c) => caller = Some(c),
                Err(AuthError::Unauthorized) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if caller.is_none() {
            if let Some(refresh) = req.cookie(REFRESH_COOKIE).map(|c| c.value().to_owned()) {
                match state.auth.refresh(&refresh).await {
                    Ok(session) => {
                        caller = Some(state.auth.authenticate(&session.access_token).await?);
                        cookies.extend(session_cookies(&session, secure));
                    }
                    Err(AuthError::Unauthorized) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let caller = caller.ok_or_else(|| signed_out(&req))?;
        let Credential::AccessToken { family_id, .. } = caller.credential else {
            return Err(signed_out(&req));
        };
        let csrf = Csrf::of(&req);
        cookies.extend(csrf.cookie(secure));
        let offset = utc_offset(&req);
        let user = caller.user;
        if let Some(said) = offset.filter(|o| user.utc_offset != Some(*o)) {
            // Kept for the e-mail of follow-ups due, which goes at the hour of the person's day.
            // A page is still shown when it cannot be kept: the next page tries again.
            if let Err(e) = state.follow_up_digests.set_offset(user.id, said).await {
                tracing::warn!(error = %e, "the person's offset from UTC not kept");
            }
        }
        let visitor = Visitor {
            state,
            user,
            family_id,
            csrf,
            cookies,
            offset: offset.unwrap_or_default(),
        };
        req.extensions_mut().insert(SignedIn(visitor.clone()));
        Ok(visitor)
    }
}

/// The offset the browser sent (minutes east of UTC); None without one, or for one no place has.
pub(crate) fn utc_offset(req: &HttpRequest) -> Option<UtcOffset> {
    req.cookie(UTC_OFFSET_COOKIE)
        .and_then(|c| c.value().parse().ok())
        .and_then(UtcOffset::from_minutes)
}

/// Signed out: a page (a GET) is asked for again after sign-in; a form post is not (its
/// fields are lost anyway), nor the dashboard, where sign-in lands by default.
fn signed_out(req: &HttpRequest) -> PageError {
    let wanted = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str())
        .filter(|p| *p != "/")
        .and_then(safe_return_path);
    match wanted {
        Some(path) if req.method() == Method::GET => PageError::SignInFirst(path.to_owned()),
        _ => PageError::SignedOut,
    }
}

impl FromRequest for Visitor {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, PageError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(Visitor::resolve(req.clone()))
    }
}

/// A posted form: its CSRF token beside the fields `F` names.
#[derive(serde::Deserialize)]
struct TokenAnd<F> {
    #[serde(default)]
    csrf: String,
    #[serde(flatten)]
    fields: F,
}

/// Reads a posted form: a field holding NUL refuses the whole form, as the API refuses such a
/// body (PostgreSQL cannot store NUL, and no field has a use for it). The form's size limit and
/// its refusal page are the pages' `FormConfig`.
async fn read_form<F: DeserializeOwned>(
    form: impl std::future::Future<Output = Result<web::Form<Vec<(String, String)>>, actix_web::Error>>,
) -> Result<TokenAnd<F>, actix_web::Error> {
    let pairs = form.await?.into_inner();
    if pairs
        .iter()
        .any(|(k, v)| k.contains('\0') || v.contains('\0'))
    {
        return Err(PageError::BadForm.into());
    }
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    serde_urlencoded::from_str(&body).map_err(|_| PageError::BadForm.into())
}

/// A form posted without a session (asking for or spending a sign-in link, accepting an
/// invite), its CSRF token (bound to `PUBLIC_BINDING`) already checked.
pub struct PublicForm<F>(pub F);

impl<F: DeserializeOwned + 'static> FromRequest for PublicForm<F> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let csrf = Csrf::of(req);
        let form = web::Form::<Vec<(String, String)>>::from_request(req, payload);
        Box::pin(async move {
            let form: TokenAnd<F> = read_form(form).await?;
            csrf.check(PUBLIC_BINDING, &form.csrf)?;
            Ok(PublicForm(form.fields))
        })
    }
}

/// A form posted by a signed-in visitor, its CSRF token already checked.
pub struct Posted<F> {
    pub visitor: Visitor,
    pub form: F,
}

impl<F: DeserializeOwned + 'static> FromRequest for Posted<F> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let visitor = Visitor::resolve(req.clone());
        let form = web::Form::<Vec<(String, String)>>::from_request(req, payload);
        Box::pin(async move {
            // The visitor first, as when both were handler arguments: signed-out posts redirect.
            let visitor = visitor.await?;
            let form: TokenAnd<F> = read_form(form).await?;
            visitor.check_csrf(&form.csrf)?;
            Ok(Posted {
                visitor,
                form: form.fields,
            })
        })
    }
}
