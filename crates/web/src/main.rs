//! `leadhub`: one binary that migrates, serves and administers. Only wiring lives here.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

use leadhub_web::cli::{self, Cli};
use leadhub_web::config::Config;
use leadhub_web::telemetry;

fn main() -> ExitCode {
    leadhub_web::malloc::use_service_malloc_settings();
    let cli = Cli::parse();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("leadhub: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(&config.log_filter, &config.log_format);
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
    match runtime.block_on(cli::run(cli, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("leadhub: {e:#}");
            ExitCode::FAILURE
        }
    }
}
