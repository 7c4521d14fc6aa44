//! `Caller`: the authenticated user behind `Authorization: Bearer <credential>`.
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;

use leadhub_domain::auth;

use crate::app::AppState;
use crate::error::ApiError;

pub struct Caller(pub auth::Caller);

impl Deref for Caller {
    type Target = auth::Caller;
    fn deref(&self) -> &auth::Caller {
        &self.0
    }
}

/// The credential as sent, when the header is a well-formed Bearer header.
fn bearer(req: &HttpRequest) -> Option<String> {
    let value = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, credential) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credential.trim().to_owned())
        .filter(|c| !c.is_empty())
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let credential = bearer(req);
        Box::pin(async move {
            let state = state.ok_or(ApiError::Internal)?;
            let credential = credential.ok_or(ApiError::Unauthorized)?;
            let caller = state.auth.authenticate(&credential).await?;
            Ok(Caller(caller))
        })
    }
}
