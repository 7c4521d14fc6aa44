//! The lead page's map, when `LEADHUB_MAP_TILES` names a tile server: an inline SVG of the
//! tiles around the lead (zoom 16) with a marker, drawn on the server, so it needs no script.
//! Tiles come through `/map-tiles/{z}/{x}/{y}` on our own origin: the CSP keeps `img-src 'self'`,
//! and a tile the server cannot fetch (network off, tile server down) is answered with a blank
//! image, so the browser never logs a failed load.
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;

use leadhub_domain::secret::ACCESS_TOKEN_PREFIX;
use leadhub_http::map_tiles::KEEP_FOR;
use leadhub_http::state::AppState;

use crate::session::SESSION_COOKIE;

/// Close enough to see the street and its neighbours.
const ZOOM: u32 = 16;
const TILE: f64 = 256.0;
/// The map's size in pixels.
const WIDTH: f64 = 512.0;
const HEIGHT: f64 = 256.0;
/// What a tile that could not be fetched is replaced with.
const BLANK_TILE: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"/>"#;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/map-tiles/{z}/{x}/{y}", web::get().to(tile));
}

#[derive(Serialize, Debug, PartialEq)]
pub struct MapTile {
    href: String,
    x: f64,
    y: f64,
}

/// What the template draws: the SVG's view box, its tiles and the marker.
#[derive(Serialize, Debug)]
pub struct MapView {
    view_box: String,
    tiles: Vec<MapTile>,
    marker_x: f64,
    marker_y: f64,
    host: String,
}

/// The position of a coordinate in pixels of the whole world map at `ZOOM` (Web Mercator).
fn world_pixels(latitude: f64, longitude: f64) -> (f64, f64) {
    let size = TILE * f64::from(1u32 << ZOOM);
    let lat = latitude.clamp(-85.0511, 85.0511).to_radians();
    let x = (longitude + 180.0) / 360.0 * size;
    let y = (1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * size;
    (x, y)
}

/// The map around a coordinate, when tiles are configured.
pub fn view(tiles: Option<&str>, latitude: f64, longitude: f64) -> Option<MapView> {
    let template = tiles?;
    let (px, py) = world_pixels(latitude, longitude);
    let last = i64::from((1u32 << ZOOM) - 1);
    let index = |pixels: f64| ((pixels / TILE).floor() as i64).clamp(0, last);
    let (x0, x1) = (index(px - WIDTH / 2.0), index(px + WIDTH / 2.0 - 1.0));
    let (y0, y1) = (index(py - HEIGHT / 2.0), index(py + HEIGHT / 2.0 - 1.0));
    // Coordinates relative to the top-left tile keep the numbers small.
    let (ox, oy) = (x0 as f64 * TILE, y0 as f64 * TILE);
    let tiles = (y0..=y1)
        .flat_map(|ty| (x0..=x1).map(move |tx| (tx, ty)))
        .map(|(tx, ty)| MapTile {
            href: format!("/map-tiles/{ZOOM}/{tx}/{ty}"),
            x: tx as f64 * TILE - ox,
            y: ty as f64 * TILE - oy,
        })
        .collect();
    let (mx, my) = ((px - ox).round(), (py - oy).round());
    Some(MapView {
        view_box: format!(
            "{} {} {WIDTH} {HEIGHT}",
            mx - WIDTH / 2.0,
            my - HEIGHT / 2.0
        ),
        tiles,
        marker_x: mx,
        marker_y: my,
        host: host_of(template),
    })
}

fn host_of(template: &str) -> String {
    let rest = template.split_once("://").map_or(template, |(_, r)| r);
    rest.split('/').next().unwrap_or_default().to_owned()
}

fn blank() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(BLANK_TILE)
}

/// GET /map-tiles/{z}/{x}/{y}: one tile from `LEADHUB_MAP_TILES`, for signed-in people only (the
/// access cookie is checked without a refresh, so that the map's parallel tile requests never
/// race to rotate the refresh token); anything else gets the blank tile.
async fn tile(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(u32, u32, u32)>,
) -> HttpResponse {
    let (z, x, y) = path.into_inner();
    let Some(tiles) = state.map_tiles.as_deref() else {
        return blank();
    };
    if z > 19 || x >= (1 << z) || y >= (1 << z) {
        return blank();
    }
    let signed_in = match req
        .cookie(SESSION_COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|v| v.starts_with(ACCESS_TOKEN_PREFIX))
    {
        Some(token) => state.auth.authenticate(&token).await.is_ok(),
        None => false,
    };
    if !signed_in {
        return blank();
    }
    match tiles.get(z, x, y).await {
        Ok(tile) => HttpResponse::Ok()
            .content_type(tile.content_type.as_str())
            .insert_header((
                header::CACHE_CONTROL,
                format!("private, max-age={}", KEEP_FOR.as_secs()),
            ))
            .body(tile.bytes.clone()),
        Err(e) => {
            tracing::debug!(error = %e, "map tile not fetched");
            blank()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_sits_in_the_middle_of_the_view_over_its_tiles() {
        let map = view(
            Some("https://tile.example/{z}/{x}/{y}.png"),
            30.2672,
            -97.7431,
        )
        .unwrap();
        assert_eq!(map.host, "tile.example");
        // Austin at zoom 16 is in tile x 14974, y 26982 (the slippy-map formula).
        assert!(
            map.tiles
                .iter()
                .any(|t| t.href == "/map-tiles/16/14974/26982"),
            "{:?}",
            map.tiles
        );
        let corner: Vec<f64> = map
            .view_box
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(
            (corner[0] + WIDTH / 2.0, corner[1] + HEIGHT / 2.0),
            (map.marker_x, map.marker_y)
        );
        // The tiles cover the whole view.
        let covers = |px: f64, py: f64| {
            map.tiles
                .iter()
                .any(|t| (t.x..t.x + TILE).contains(&px) && (t.y..t.y + TILE).contains(&py))
        };
        assert!(covers(corner[0], corner[1]));
        assert!(covers(corner[0] + WIDTH - 1.0, corner[1] + HEIGHT - 1.0));
        assert!(view(None, 30.0, -97.0).is_none());
    }
}
