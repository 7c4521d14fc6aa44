//! What the JSON API (`leadhub-api`) and the pages (`leadhub-pages`) share: the state every
//! handler reads (`AppState`) and what it holds (the configuration, the metrics, the sign-in link
//! sender, the map tiles), the extractors, how failures reach clients, and the error schemas the
//! OpenAPI document gives them.

pub mod config;
pub mod error;
pub mod extract;
pub mod map_tiles;
pub mod metrics;
pub mod refusals;
pub mod schemas;
pub mod sign_in_links;
pub mod state;
pub mod time;
pub mod tokens;
