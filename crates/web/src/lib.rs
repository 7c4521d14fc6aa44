//! The HTTP service and the `leadhub` binary's commands.
#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod config;
pub mod error;
pub mod extract;
pub mod import;
pub mod malloc;
pub mod middleware;
pub mod openapi;
pub mod pages;
pub mod routes;
pub mod single_intake;
pub mod telemetry;
pub mod time;
pub mod tokens;
pub mod worker;
