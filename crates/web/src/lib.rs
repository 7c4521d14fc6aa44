//! The composition root: the HTTP service assembled from the API (`leadhub-api`), the pages
//! (`leadhub-pages`) and the middleware, its job workers, and the `leadhub` binary's commands.
#![forbid(unsafe_code)]

/// Every binary that links the service (the `leadhub` binary, its tests and benchmarks) allocates
/// through one allocator, chosen by measurement (docs/performance.md, "Allocator").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

pub mod app;
pub mod cli;
pub mod import;
pub mod middleware;
pub mod openapi;
pub mod operator_cli;
pub mod telemetry;
pub mod webhook_payload;
pub mod worker;
