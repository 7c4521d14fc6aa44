//! Tiles for `/map-tiles`, fetched from `LEADHUB_MAP_TILES` with a cap on what one tile may
//! hold, and kept in memory for a day (bounded by bytes), as tile servers' usage policies ask:
//! a lead page seen twice costs the tile server nothing the second time. A tile is served from our
//! own origin, so only raster images pass (an SVG could carry a script), redirects are not
//! followed, and the request goes out as the webhooks do (`leadhub_webhooks::egress`: no proxy from the
//! environment, or `LEADHUB_EGRESS_PROXY`).
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use anyhow::{bail, Context};
use quick_cache::sync::Cache;
use quick_cache::Weighter;

/// A tile server that has not answered by then is treated as down.
const FETCH_TIMEOUT: Duration = Duration::from_secs(4);
/// Map tiles are tens of kilobytes; anything far larger is not a tile, and is not read on.
pub const MAX_TILE_BYTES: usize = 512 * 1024;
/// What the kept tiles may hold together.
const KEPT_BYTES: u64 = 32 * 1024 * 1024;
/// The image types a tile may have; anything else is not served from our origin.
pub const TILE_TYPES: [&str; 3] = ["image/png", "image/jpeg", "image/webp"];
/// As long as browsers are told to keep a tile (`max-age`).
pub const KEEP_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// A fetched tile.
#[derive(Debug)]
pub struct Tile {
    pub content_type: String,
    pub bytes: Bytes,
    fetched: Instant,
}

/// Weighs a kept tile by the bytes it holds.
#[derive(Clone)]
struct TileBytes;

impl Weighter<String, Arc<Tile>> for TileBytes {
    fn weight(&self, url: &String, tile: &Arc<Tile>) -> u64 {
        (url.len() + tile.content_type.len() + tile.bytes.len()) as u64
    }
}

/// The tile server (`LEADHUB_MAP_TILES`), its client and the tiles fetched lately, by URL.
pub struct MapTiles {
    template: String,
    client: reqwest::Client,
    kept: Cache<String, Arc<Tile>, TileBytes>,
}

impl MapTiles {
    /// `template` is a tile URL with `{z}`, `{x}` and `{y}`; `proxy` the operator's egress proxy.
    pub fn new(template: &str, user_agent: &str, proxy: Option<&str>) -> anyhow::Result<MapTiles> {
        let client = leadhub_webhooks::egress::client_builder(proxy)?
            .redirect(reqwest::redirect::Policy::none())
            .timeout(FETCH_TIMEOUT)
            .user_agent(user_agent)
            .build()?;
        Ok(MapTiles {
            template: template.to_owned(),
            client,
            kept: Cache::with_weighter(1024, KEPT_BYTES, TileBytes),
        })
    }

    /// Tile (`z`, `x`, `y`): the kept one while it is fresh, else fetched (and kept).
    pub async fn get(&self, z: u32, x: u32, y: u32) -> anyhow::Result<Arc<Tile>> {
        let url = self
            .template
            .replace("{z}", &z.to_string())
            .replace("{x}", &x.to_string())
            .replace("{y}", &y.to_string());
        if let Some(tile) = self
            .kept
            .get(&url)
            .filter(|t| t.fetched.elapsed() < KEEP_FOR)
        {
            return Ok(tile);
        }
        let tile = Arc::new(self.fetch(&url).await?);
        self.kept.insert(url, tile.clone());
        Ok(tile)
    }

    /// Fetches a PNG, JPEG or WebP image, reading no more than `MAX_TILE_BYTES` of it. A redirect
    /// (3xx) is not followed: it fails as any other non-2xx does.
    async fn fetch(&self, url: &str) -> anyhow::Result<Tile> {
        let mut response = self.client.get(url).send().await?;
        if !response.status().is_success() {
            bail!("HTTP {}", response.status().as_u16());
        }
        let given = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let Some(content_type) = tile_type(given) else {
            bail!("not a PNG, JPEG or WebP image: {given:?}");
        };
        let content_type = content_type.to_owned();
        if let Some(length) = response.content_length() {
            if length > MAX_TILE_BYTES as u64 {
                bail!("a tile of {length} bytes");
            }
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.context("reading the tile")? {
            if body.len() + chunk.len() > MAX_TILE_BYTES {
                bail!("a tile of more than {MAX_TILE_BYTES} bytes");
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Tile {
            content_type,
            bytes: Bytes::from(body),
            fetched: Instant::now(),
        })
    }
}

/// The allowed image type a `Content-Type` header names (parameters and case ignored).
fn tile_type(header: &str) -> Option<&'static str> {
    let essence = header.split(';').next().unwrap_or("").trim();
    TILE_TYPES
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(essence))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_raster_images_are_tiles() {
        assert_eq!(tile_type("image/png"), Some("image/png"));
        assert_eq!(tile_type("IMAGE/JPEG; charset=binary"), Some("image/jpeg"));
        assert_eq!(tile_type(" image/webp "), Some("image/webp"));
        for other in [
            "image/svg+xml",
            "text/html",
            "image/png+xml",
            "image/gif",
            "",
            "image",
        ] {
            assert_eq!(tile_type(other), None, "{other}");
        }
    }
}
