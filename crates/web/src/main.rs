//! `leadhub`: one binary that migrates, serves and administers. Only wiring lives here.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

use leadhub_web::cli::{self, Cli};
use leadhub_web::config::Config;
use leadhub_web::telemetry;

fn main() -> ExitCode {
    limit_malloc_arenas();
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

/// glibc's malloc gives busy threads arenas of their own (up to 8 per core) and keeps what they
/// free in each. The server's threads come and go (tokio's blocking pools, one per HTTP worker
/// and one for the jobs), and under a steady soak its RSS crept from 60 to 110 MB in 8 minutes
/// on SQLite; with two arenas it stayed near 50 MB (docs/performance.md, "Soak"). glibc reads
/// the setting only from the environment at start-up, so the process starts itself again with
/// `MALLOC_ARENA_MAX=2` (same pid, arguments and descriptors), unless the operator set it.
/// mimalloc was tried instead and held 270-290 MB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(exe);
    if let Some(name) = args.next() {
        command.arg0(name);
    }
    let failed = command.args(args).env("MALLOC_ARENA_MAX", "2").exec();
    // exec returns only when it failed (say the binary was replaced on disk): run as we are.
    eprintln!("leadhub: running with glibc's default malloc arenas ({failed})");
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}
