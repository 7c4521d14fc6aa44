//! `Caller`: the authenticated user behind `Authorization: Bearer <credential>`.
use std::collections::BTreeMap;
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::http::header::HeaderMap;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use apistos::security::{Http, SecurityScheme, SecurityType};
use apistos::ApiComponent;
use futures_util::future::LocalBoxFuture;

use leadhub_domain::auth;

use crate::error::ApiError;
use crate::state::AppState;

pub struct Caller(pub auth::Caller);

impl Deref for Caller {
    type Target = auth::Caller;
    fn deref(&self) -> &auth::Caller {
        &self.0
    }
}

/// What the rate-limit middleware already learned about the request's credential, so that a
/// request is authenticated once (see `middleware::rate_limit`).
#[derive(Clone)]
pub enum Authenticated {
    Caller(Box<auth::Caller>),
    /// The credential is unknown, revoked or expired: a 401.
    Rejected,
}

/// The credential as sent, when the header is a well-formed Bearer header.
pub fn bearer_credential(headers: &HeaderMap) -> Option<String> {
    let value = headers
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
        let known = req.extensions().get::<Authenticated>().cloned();
        if let Some(known) = known {
            return Box::pin(async move {
                match known {
                    Authenticated::Caller(caller) => Ok(Caller(*caller)),
                    Authenticated::Rejected => Err(ApiError::Unauthorized),
                }
            });
        }
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let credential = bearer_credential(req.headers());
        Box::pin(async move {
            let state = state.ok_or(ApiError::Internal)?;
            let credential = credential.ok_or(ApiError::Unauthorized)?;
            let caller = state.auth.authenticate(&credential).await?;
            Ok(Caller(caller))
        })
    }
}

/// The operation needs the Bearer scheme.
impl ApiComponent for Caller {
    no_schema!();

    fn securities() -> BTreeMap<String, SecurityScheme> {
        BTreeMap::from([(
            BEARER.to_owned(),
            SecurityScheme {
                _type: SecurityType::Http(Http {
                    scheme: "bearer".to_owned(),
                    bearer_format: None,
                }),
                description: Some(
                    "An API key (`lhk_...`) or an access token (`lha_...`).".to_owned(),
                ),
                extensions: Default::default(),
            },
        )])
    }

    fn security_requirement_name() -> Option<String> {
        Some(BEARER.to_owned())
    }
}

/// The security scheme's name in the document.
const BEARER: &str = "bearer";
