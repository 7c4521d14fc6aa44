//! The HTTP service and the `leadhub` binary's commands.
#![forbid(unsafe_code)]

/// Every binary that links the service (the `leadhub` binary, its tests and benchmarks) allocates
/// through one allocator, chosen by measurement (docs/performance.md, "Allocator").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

pub mod app;
pub mod cli;
pub mod config;
pub mod error;
pub mod extract;
pub mod import;
pub mod lead_export;
pub mod map_tiles;
pub mod middleware;
pub mod openapi;
pub mod operator_cli;
pub mod pages;
pub mod routes;
pub mod sign_in_links;
pub mod state;
pub mod telemetry;
pub mod time;
pub mod tokens;
pub mod upload_import;
pub mod webhook_payload;
pub mod worker;
