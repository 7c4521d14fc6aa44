//! The lead page's map (`LEADHUB_MAP_TILES`): drawn only when configured, its tiles fetched
//! through our own origin, and a blank tile (never an error) when the tile server is down.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use leadhub_http::map_tiles::MAX_TILE_BYTES;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_pages::batch;
use crate::pages::{sign_in, Browser};

backend_tests!(the_map_shows_tiles_through_our_origin);

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot really a picture";

/// A hostile tile: a script that would run from our origin if it were served as it comes.
const SVG: &str =
    r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>"#;

/// A tile server on 127.0.0.1 that answers every request with `PNG`, except `/16/0/0.png` with an
/// image far larger than a tile, `/16/0/1.png` with an SVG, `/16/0/2.png` with a redirect to a
/// good tile and `/16/0/3.png` with HTML; returns its address and how many requests it has had.
async fn tile_server() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut request = [0u8; 2048];
            let n = socket.read(&mut request).await.unwrap_or(0);
            let request = String::from_utf8_lossy(&request[..n]).into_owned();
            let (status, content_type, body) = match request.split(' ').nth(1) {
                Some("/16/0/0.png") => ("200 OK", "image/png", vec![0u8; MAX_TILE_BYTES + 1]),
                Some("/16/0/1.png") => ("200 OK", "image/svg+xml", SVG.as_bytes().to_vec()),
                Some("/16/0/2.png") => (
                    "302 Found\r\nLocation: /16/14974/26982.png",
                    "image/png",
                    Vec::new(),
                ),
                Some("/16/0/3.png") => ("200 OK", "text/html", b"<h1>hi</h1>".to_vec()),
                _ => ("200 OK", "image/png; charset=binary", PNG.to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
        }
    });
    (format!("http://{address}"), requests)
}

async fn the_map_shows_tiles_through_our_origin(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    batch(
        &app,
        &alice,
        vec![
            json!({"address": "1 Congress Ave", "city": "Austin", "state": "TX",
                    "zip_code": "78701", "latitude": 30.2672, "longitude": -97.7431}),
        ],
    )
    .await;
    let (_, list) = app.get("/api/v1/leads", &alice.key).await;
    let lead = format!("/leads/{}", list["items"][0]["id"]);

    // Not configured: no map, and the tile route serves nothing but the blank tile.
    let mut b = sign_in(&app, "alice@example.com").await;
    let page = b.get(&lead).await;
    assert!(page.body.contains("Open in OpenStreetMap"));
    assert!(!page.body.contains("id=\"lead-map\""));

    let (tiles, requests) = tile_server().await;
    let app = app
        .restart()
        .env(
            "LEADHUB_MAP_TILES",
            &format!("{tiles}/{{z}}/{{x}}/{{y}}.png"),
        )
        .build()
        .await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let page = b.get(&lead).await;
    assert!(page.body.contains("id=\"lead-map\""), "{}", page.body);
    assert!(
        page.body.contains("href=\"/map-tiles/16/14974/26982\""),
        "{}",
        page.body
    );
    // The page's policy still allows images from this origin only.
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("img-src 'self' data:;"), "{csp}");
    let tile = b.get("/map-tiles/16/14974/26982").await;
    assert_eq!(tile.status, StatusCode::OK);
    assert_eq!(tile.headers["content-type"], "image/png");
    assert!(tile.body.ends_with("not really a picture"));
    // Seen again: the kept tile, without asking the tile server.
    let asked = requests.load(Ordering::SeqCst);
    let again = b.get("/map-tiles/16/14974/26982").await;
    assert!(again.body.ends_with("not really a picture"));
    assert_eq!(requests.load(Ordering::SeqCst), asked);
    // Far larger than a tile: not read on, the blank tile instead.
    let huge = b.get("/map-tiles/16/0/0").await;
    assert_eq!(huge.status, StatusCode::OK);
    assert_eq!(huge.headers["content-type"], "image/svg+xml");
    assert_eq!(requests.load(Ordering::SeqCst), asked + 1);
    // Only PNG, JPEG and WebP pass; a redirect is not followed (one request each): anything else
    // is the blank tile, never kept.
    for path in [
        "/map-tiles/16/0/1",
        "/map-tiles/16/0/2",
        "/map-tiles/16/0/3",
    ] {
        let before = requests.load(Ordering::SeqCst);
        let other = b.get(path).await;
        assert_eq!(other.status, StatusCode::OK, "{path}");
        assert_eq!(other.headers["content-type"], "image/svg+xml", "{path}");
        assert_eq!(other.headers["cache-control"], "no-store", "{path}");
        assert!(!other.body.contains("script"), "{path}: {}", other.body);
        assert!(!other.body.contains("not really a picture"), "{path}");
        assert_eq!(requests.load(Ordering::SeqCst), before + 1, "{path}");
    }
    // Signed out, or a tile outside the world: the blank tile, and nothing fetched for them.
    let stranger = Browser::new(&app).get("/map-tiles/16/14974/26982").await;
    assert_eq!(stranger.headers["content-type"], "image/svg+xml");
    let outside = b.get("/map-tiles/2/9/9").await;
    assert_eq!(outside.headers["content-type"], "image/svg+xml");

    // The tile server down (nothing listens on port 9): still a 200 with the blank tile.
    let app = app
        .restart()
        .env("LEADHUB_MAP_TILES", "http://127.0.0.1:9/{z}/{x}/{y}.png")
        .build()
        .await;
    let mut b = sign_in(&app, "alice@example.com").await;
    assert!(b.get(&lead).await.body.contains("id=\"lead-map\""));
    let down = b.get("/map-tiles/16/14974/26982").await;
    assert_eq!(down.status, StatusCode::OK);
    assert_eq!(down.headers["content-type"], "image/svg+xml");
}
