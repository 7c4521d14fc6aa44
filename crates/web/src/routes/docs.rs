//! The interactive docs at `/docs` (Swagger UI reading `/openapi.json`, which apistos serves),
//! from assets inside the binary: they work with no network.
use actix_web::http::header;
use actix_web::{web, HttpResponse};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/docs", web::get().to(index))
        .route("/docs/{file}", web::get().to(asset));
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
