//! The interactive docs at `/docs` (Swagger UI reading `/openapi.json`, which apistos serves),
//! from assets inside the binary: they work with no network.
use actix_web::http::header;
use actix_web::{web, HttpResponse};

use crate::not_found;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/docs", web::get().to(index))
        .route("/docs/{file}", web::get().to(asset));
}

async fn index() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(include_str!("../../../web-assets/docs/index.html"))
}

/// Swagger UI's files, and ours (`init.js`, the contrast fixes in `overrides.css`).
const FILES: [(&str, &str, &[u8]); 5] = asset_files!("docs":
    ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    ("swagger-ui.css", "text/css; charset=utf-8"),
    ("overrides.css", "text/css; charset=utf-8"),
    ("init.js", "text/javascript; charset=utf-8"),
    ("favicon-32x32.png", "image/png"),
);

async fn asset(file: web::Path<String>) -> HttpResponse {
    static_file(&file, &FILES, "public, max-age=86400").await
}

/// (name, content type, bytes) of files in `web-assets/<folder>`, compiled into the binary. The
/// path is read from the file that calls the macro, which sits in `crates/<crate>/src/`.
#[macro_export]
macro_rules! asset_files {
    ($folder:literal: $(($name:literal, $content_type:literal)),* $(,)?) => {
        [$((
            $name,
            $content_type,
            include_bytes!(concat!("../../../web-assets/", $folder, "/", $name)),
        )),*]
    };
}
pub use asset_files;

/// The file called `name` among `files` with its Cache-Control, or the JSON 404.
pub async fn static_file(
    name: &str,
    files: &[(&str, &str, &'static [u8])],
    cache_control: &'static str,
) -> HttpResponse {
    match files.iter().find(|(file, _, _)| *file == name) {
        Some((_, content_type, body)) => HttpResponse::Ok()
            .content_type(*content_type)
            .insert_header((header::CACHE_CONTROL, cache_control))
            .body(*body),
        None => not_found().await,
    }
}
