//! Logs go to stderr (stdout carries only what a command is asked to print), as text or JSON;
//! coloured only when stderr is a terminal, so files and pipes get no escape codes.
use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use leadhub_http::config::LogFormat;

/// Refuses a filter it cannot read (`RUST_LOG`), rather than logging by another one.
pub fn init(filter: &str, format: &LogFormat) -> Result<(), String> {
    let filter = EnvFilter::try_new(filter)
        .map_err(|e| format!("RUST_LOG: {filter:?} is not a log filter ({e})"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    // A second init (tests) is harmless: the first subscriber stays.
    let _ = match format {
        LogFormat::Json => builder.json().with_current_span(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
    Ok(())
}
