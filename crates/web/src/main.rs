//! `leadhub`: one binary that migrates, serves and administers. Only wiring lives here.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

use leadhub_http::config::Config;
use leadhub_web::cli::{self, Cli};
use leadhub_web::telemetry;

/// How long the exit waits for database handles held by threads that are not joined (actix's).
const SETTLE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("leadhub: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    // A command other than `serve` says what it did on stdout or stderr; its INFO lines (the mail
    // transport chosen, ...) are noise unless RUST_LOG asks for them.
    let serving = matches!(cli.command, None | Some(cli::Command::Serve));
    let filter = if serving || std::env::var("RUST_LOG").is_ok_and(|v| !v.trim().is_empty()) {
        config.log_filter.as_str()
    } else {
        "warn"
    };
    if let Err(e) = telemetry::init(filter, &config.log_format) {
        eprintln!("leadhub: configuration error: {e}");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("leadhub: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(cli::run(cli, config));
    // Dropping the runtime drops its tasks and joins its threads; `settle` waits out the rest
    // (handles on actix's threads, r2d2's jobs): no thread is in libpq when OpenSSL is freed.
    drop(runtime);
    if let Err(e) = leadhub_db::settle(SETTLE_PATIENCE) {
        eprintln!("leadhub: warning: {e}");
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("leadhub: {e:#}");
            ExitCode::FAILURE
        }
    }
}
