//! `/invite/{token}`: what the invite offers (the GET never spends it), and accepting it, which
//! creates the account when needed, signs the person in and opens the team page.
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use leadhub_domain::auth::AuthError;
use leadhub_domain::team::TeamError;
use leadhub_http::state::AppState;

use crate::base_context;
use crate::render::{problems_text, when, PageError};
use crate::session::utc_offset;
use crate::session::{public_form_page, signed_in, PublicForm};

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/invite/{token}" => show,
        POST "/invite/{token}" => accept,
    }
}

#[derive(Deserialize)]
pub struct AcceptForm {
    #[serde(default)]
    first_name: String,
    #[serde(default)]
    last_name: String,
}

/// An unknown or spent invite link, as a page.
fn unusable(e: TeamError) -> PageError {
    match e {
        TeamError::NotFound(_) => PageError::NotFound(
            "This invite link is not valid. Check that you copied the whole link".into(),
        ),
        TeamError::Gone(_) => PageError::Gone(
            "This invite was already used, revoked or has expired. \
             Ask the person who invited you to send a new one"
                .into(),
        ),
        other => other.into(),
    }
}

async fn invite_page(
    req: &HttpRequest,
    state: &AppState,
    token: &str,
    status: StatusCode,
    error: Option<&str>,
    typed: (&str, &str),
) -> Result<HttpResponse, PageError> {
    let details = state.teams.invite_info(token).await.map_err(unusable)?;
    // An address that already has an account joins as that account: no names to ask for.
    let has_account = match state.auth.find_user_by_email(&details.invite.email).await {
        Ok(_) => true,
        Err(AuthError::NotFound(_)) => false,
        Err(e) => return Err(e.into()),
    };
    let mut context = base_context(None, "invite");
    context.insert("token", token);
    context.insert("team_name", &details.team_name);
    context.insert("team_description", &details.team_description);
    context.insert("team_is_active", &details.team_is_active);
    context.insert("email", &details.invite.email);
    context.insert("role", details.invite.role.as_str());
    context.insert("inviter", &details.invite.invited_by_name);
    context.insert(
        "expires",
        &when(
            details.invite.expires_at,
            utc_offset(req).unwrap_or_default(),
        ),
    );
    context.insert("has_account", &has_account);
    context.insert("error", &error);
    context.insert("first_name", typed.0);
    context.insert("last_name", typed.1);
    public_form_page(req, state, status, "invite.html", context)
}

pub async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    invite_page(&req, &state, &token, StatusCode::OK, None, ("", "")).await
}

pub async fn accept(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    PublicForm(form): PublicForm<AcceptForm>,
) -> Result<HttpResponse, PageError> {
    let first = Some(form.first_name.as_str()).filter(|s| !s.trim().is_empty());
    let last = Some(form.last_name.as_str()).filter(|s| !s.trim().is_empty());
    match state.teams.accept(&token, first, last).await {
        Ok(accepted) => {
            let joined = format!("/teams/{}?done=joined", accepted.team_id);
            signed_in(&state, &accepted.session, &joined)
        }
        Err(TeamError::Invalid(problems)) => {
            let message = problems_text(&problems);
            invite_page(
                &req,
                &state,
                &token,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(&message),
                (&form.first_name, &form.last_name),
            )
            .await
        }
        Err(TeamError::Forbidden(reason)) => Err(PageError::Forbidden(reason)),
        Err(e) => Err(unusable(e)),
    }
}
