//! The JSON API: its routes, grouped by resource, with their request and response shapes.
//! Handlers stay thin: extract, call a service, map the result.
use actix_web::http::Method;
use actix_web::{FromRequest, Handler, HttpResponse, Responder};
use apistos::PathItemDefinition;
use serde_json::json;

/// A resource's routes, one a line: `GET "/api/teams/{id}" => get_team,` serves the handler
/// for the method and path (see `Api::route`).
macro_rules! routes {
    ($api:ident; $($method:ident $path:literal => $handler:path,)+) => {
        $(
            $api.route(actix_web::http::Method::$method, $path, $handler);
        )+
    };
}

pub mod auth;
pub mod batch_body;
pub mod business_views;
pub mod businesses;
pub mod docs;
pub mod enrichment_views;
pub mod health;
mod idempotency;
pub mod invites;
pub mod keys;
pub mod lead_body;
pub mod lead_export;
pub mod lead_merge;
pub mod lead_work;
pub mod lead_work_views;
pub mod leads;
pub mod page;
pub mod submission_views;
pub mod submissions;
pub mod tags;
pub mod team_views;
pub mod teams;
pub mod webhook_views;
pub mod webhooks;

/// The API's routes, as registered: apistos documents each one from its handler's
/// `#[api_operation]` and extractors; the list is kept so that a test can hold the routes
/// served against the document (`served`).
pub struct Api<'a, 'b> {
    cfg: &'a mut apistos::web::ServiceConfig<'b>,
    served: Vec<(Method, &'static str)>,
}

impl<'a, 'b> Api<'a, 'b> {
    pub fn new(cfg: &'a mut apistos::web::ServiceConfig<'b>) -> Self {
        Api {
            cfg,
            served: Vec::new(),
        }
    }

    /// Serves `handler` for `method` on `path`.
    pub fn route<F, Args>(&mut self, method: Method, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
        F::Future: PathItemDefinition,
    {
        self.served.push((method.clone(), path));
        self.cfg
            .route(path, apistos::web::method(method).to(handler));
        self
    }
}

/// Every operation of the API (and the health routes).
pub fn api(api: &mut Api) {
    health::routes(api);
    keys::routes(api);
    submissions::routes(api);
    leads::routes(api);
    lead_merge::routes(api);
    lead_work::routes(api);
    tags::routes(api);
    businesses::routes(api);
    auth::routes(api);
    teams::routes(api);
    invites::routes(api);
    webhooks::routes(api);
}

/// Every (method, path) `api` serves.
pub fn served() -> Vec<(Method, &'static str)> {
    let mut served = Vec::new();
    let _ = actix_web::App::new().configure(|cfg| {
        let mut cfg = apistos::web::ServiceConfig::from(cfg);
        let mut routes = Api::new(&mut cfg);
        api(&mut routes);
        served = routes.served;
    });
    served
}

/// Unknown routes (and files) answer JSON like every other error.
pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(json!({ "detail": "Not found" }))
}
