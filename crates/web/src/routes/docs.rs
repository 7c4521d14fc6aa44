//! `/openapi.json` and the interactive docs at `/docs`, served from assets inside the binary.
use actix_web::http::header;
use actix_web::{web, HttpResponse};

use crate::openapi::openapi_json;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.json", web::get().to(spec))
        .route("/docs", web::get().to(index))
        .route("/docs/{file}", web::get().to(asset));
}

async fn spec() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(openapi_json())
}

async fn index() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(include_str!("../../../../web-assets/docs/index.html"))
}

async fn asset(file: web::Path<String>) -> HttpResponse {
    let (content_type, body): (&str, &'static [u8]) = match file.as_str() {
        "swagger-ui-bundle.js" => (
            "text/javascript; charset=utf-8",
            include_bytes!("../../../../web-assets/docs/swagger-ui-bundle.js"),
        ),
        "swagger-ui.css" => (
            "text/css; charset=utf-8",
            include_bytes!("../../../../web-assets/docs/swagger-ui.css"),
        ),
        "init.js" => (
            "text/javascript; charset=utf-8",
            include_bytes!("../../../../web-assets/docs/init.js"),
        ),
        "favicon-32x32.png" => (
            "image/png",
            include_bytes!("../../../../web-assets/docs/favicon-32x32.png"),
        ),
        _ => {
            return HttpResponse::NotFound().json(serde_json::json!({ "detail": "Not found" }));
        }
    };
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(body)
}
