//! `/sign-in` (ask for a link; open a link), `/sign-in/link` (spend it), `/sign-out`.
//! The link's GET only shows a button: mail scanners prefetch links, so only the POST spends it.
//! A `next` (the page asked for while signed out, a same-origin path only) rides along through
//! the form, the e-mailed link and its button, and is where the spent link lands; without one,
//! the dashboard.
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use leadhub_domain::auth::AuthError;
use leadhub_domain::return_path::safe_return_path;
use leadhub_http::state::AppState;

use crate::render::{html, render, see_other, PageError};
use crate::session::{
    cleared_session_cookies, fresh_csrf_cookie, public_form_page, secure, signed_in, PublicForm,
    Visitor,
};
use crate::{base_context, Done};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/sign-in" => show,
        POST "/sign-in" => request_link,
        POST "/sign-in/link" => spend_link,
        POST "/sign-out" => sign_out,
    }
}

#[derive(Deserialize)]
pub struct SignInQuery {
    token: Option<String>,
    done: Option<String>,
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct EmailForm {
    #[serde(default)]
    email: String,
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct LinkForm {
    #[serde(default)]
    token: String,
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct SignOutForm {
    #[serde(default)]
    csrf: String,
}

/// The page to land on after sign-in, when `next` is a safe same-origin path.
fn return_path(next: &Option<String>) -> Option<&str> {
    next.as_deref().and_then(safe_return_path)
}

/// What the e-mail form shows besides its field.
struct EmailFormText<'a> {
    notice: Option<&'a str>,
    error: Option<&'a str>,
    next: Option<&'a str>,
}

/// The e-mail form, optionally with a notice or an error, and the status to answer with.
fn email_form(
    req: &HttpRequest,
    state: &AppState,
    status: StatusCode,
    text: EmailFormText<'_>,
    email: &str,
) -> Result<HttpResponse, PageError> {
    let mut context = base_context(None, "sign-in");
    context.insert("notice", &text.notice);
    context.insert("error", &text.error);
    context.insert("next", &text.next);
    context.insert("email", email);
    public_form_page(req, state, status, "sign_in.html", context)
}

/// GET /sign-in: the e-mail form, or, with `?token=`, the button that spends the link.
pub async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<SignInQuery>,
) -> Result<HttpResponse, PageError> {
    let Some(token) = query
        .token
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        let notice = Done {
            done: query.done.clone(),
        }
        .notice();
        let text = EmailFormText {
            notice,
            error: None,
            next: return_path(&query.next),
        };
        return email_form(&req, &state, StatusCode::OK, text, "");
    };
    let mut context = base_context(None, "sign-in");
    context.insert("token", token);
    context.insert("next", &return_path(&query.next));
    public_form_page(&req, &state, StatusCode::OK, "sign_in_link.html", context)
}

/// POST /sign-in: e-mails a link to a known address; the answer is the same, in the same time,
/// for any address.
pub async fn request_link(
    req: HttpRequest,
    state: web::Data<AppState>,
    PublicForm(form): PublicForm<EmailForm>,
) -> Result<HttpResponse, PageError> {
    let email = form.email.trim();
    if email.is_empty() || email.len() > 320 || !email.contains('@') {
        let text = EmailFormText {
            notice: None,
            error: Some("Enter your e-mail address, like ada@example.com."),
            next: return_path(&form.next),
        };
        return email_form(&req, &state, StatusCode::UNPROCESSABLE_ENTITY, text, email);
    }
    state.sign_in_links.request(email, return_path(&form.next));
    let mut context = base_context(None, "sign-in");
    context.insert("title", "Check your e-mail");
    context.insert(
        "text",
        &format!(
            "If {email} belongs to an account, a sign-in link is on its way. \
             The link works once, for 15 minutes."
        ),
    );
    context.insert("link_href", "/sign-in");
    context.insert("link_text", "Send another link");
    Ok(html(StatusCode::OK, render("message.html", &context)?))
}

/// POST /sign-in/link: spends the link's token, starts a session, and goes to `next` (or the
/// dashboard).
pub async fn spend_link(
    req: HttpRequest,
    state: web::Data<AppState>,
    PublicForm(form): PublicForm<LinkForm>,
) -> Result<HttpResponse, PageError> {
    match state
        .auth
        .identity()
        .verify_sign_in_link(form.token.trim())
        .await
    {
        Ok((_, session)) => signed_in(&state, &session, return_path(&form.next).unwrap_or("/")),
        Err(AuthError::Gone(_)) => {
            let text = EmailFormText {
                notice: None,
                error: Some(
                    "This sign-in link was already used or has expired. \
                     Enter your e-mail address to get a new one.",
                ),
                next: return_path(&form.next),
            };
            email_form(&req, &state, StatusCode::GONE, text, "")
        }
        Err(e) => Err(e.into()),
    }
}

/// POST /sign-out: ends the session (all its tokens) and forgets the cookies. Only a form with
/// the session's CSRF token does: a request without a live session (a cross-site POST carries
/// no SameSite=Lax cookie) changes nothing, so another site cannot sign a person out.
pub async fn sign_out(
    state: web::Data<AppState>,
    visitor: Option<Visitor>,
    form: web::Form<SignOutForm>,
) -> Result<HttpResponse, PageError> {
    let Some(visitor) = visitor else {
        return Ok(see_other("/sign-in"));
    };
    visitor.check_csrf(&form.csrf)?;
    state
        .auth
        .identity()
        .end_session(&visitor.family_id)
        .await?;
    let secure = secure(&state);
    let mut response = see_other("/sign-in?done=signed-out");
    for c in cleared_session_cookies(secure)
        .into_iter()
        .chain([fresh_csrf_cookie(secure)])
    {
        response.add_cookie(&c).map_err(|_| PageError::Internal)?;
    }
    Ok(response)
}
