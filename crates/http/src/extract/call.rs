//! `Call<P>`: what almost every operation extracts, the app's state, the caller and the ids its
//! path names, as one argument.
use std::collections::BTreeMap;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use apistos::paths::Parameter;
use apistos::security::SecurityScheme;
use apistos::ApiComponent;
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use leadhub_domain::user::User;

use crate::extract::Caller;
use crate::state::AppState;

/// The state, the caller and the path's ids (none, an `i64`, or a tuple), extracted and refused
/// exactly as the three arguments `web::Data<AppState>, Caller, web::Path<P>` are, and
/// documented as them: the path's parameters and the Bearer scheme.
pub struct Call<P: PathIds = ()> {
    pub state: web::Data<AppState>,
    pub caller: Caller,
    pub path: P,
}

impl<P: PathIds> Call<P> {
    /// Who calls: what every service is handed to check permissions against.
    pub fn user(&self) -> &User {
        &self.caller.user
    }
}

/// The ids a route's path names, documented as apistos documents a `web::Path` of them.
pub trait PathIds: DeserializeOwned + 'static {
    fn parameters() -> Vec<Parameter>;
}

/// A route without ids.
impl PathIds for () {
    fn parameters() -> Vec<Parameter> {
        Vec::new()
    }
}

macro_rules! path_ids {
    ($($ids:ty),+) => {
        $(
            impl PathIds for $ids {
                fn parameters() -> Vec<Parameter> {
                    web::Path::<$ids>::parameters()
                }
            }
        )+
    };
}

path_ids!(i64, (i64, i64), (i64, String), (i64, i64, i64));

impl<P: PathIds> FromRequest for Call<P> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // actix's own tuple extractor, so that a request refused on several counts answers the
        // same first refusal as with the three arguments.
        let parts = <(web::Data<AppState>, Caller, web::Path<P>)>::from_request(req, payload);
        Box::pin(async move {
            let (state, caller, path) = parts.await?;
            Ok(Call {
                state,
                caller,
                path: path.into_inner(),
            })
        })
    }
}

impl<P: PathIds> ApiComponent for Call<P> {
    no_schema!();

    fn request_body() -> Option<apistos::paths::RequestBody> {
        None
    }

    fn securities() -> BTreeMap<String, SecurityScheme> {
        Caller::securities()
    }

    fn security_requirement_name() -> Option<String> {
        Caller::security_requirement_name()
    }

    fn parameters() -> Vec<Parameter> {
        P::parameters()
    }
}
