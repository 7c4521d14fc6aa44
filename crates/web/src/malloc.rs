//! The service's glibc malloc settings, applied by starting the process again with them.
//!
//! glibc reads its malloc settings only from the environment at start-up (`mallopt` would need
//! `unsafe`, which the workspace forbids), so `leadhub` starts itself again (same pid, arguments
//! and descriptors) with whichever of these the operator did not set:
//!
//! - `MALLOC_ARENA_MAX=8`: glibc gives busy threads arenas of their own (up to 8 per core, 16
//!   here) and keeps what they free in each. The server's threads come and go (tokio's blocking
//!   pools, one per HTTP worker and one for the jobs), and under a steady soak its RSS crept from
//!   60 to 110 MB in 8 minutes with 16 arenas. Two arenas kept it near 50 MB, but then threads
//!   working side by side often share an arena and queue on its lock: a batch's request thread
//!   reads and normalises leads while a database thread writes them, and with two arenas the
//!   batch of 1000 ran in one of two modes, about 20 or 26 ms, by the luck of the arenas its
//!   threads drew (docs/performance.md). Eight arenas keep those threads apart (the batch at
//!   1.6-1.9x its floor in every run instead of 1.6-2.1x) for a heap about 12 MB larger in
//!   the first minutes of a soak and in the same range after 15 (runs 11 and 13: 48.5 MB at 6
//!   minutes, 54.7 MB at 15, rising ever more slowly), with 9% more throughput.
//! - `GLIBC_TUNABLES` with a 64 MB trim threshold, 16 MB top pad and 16 MB mmap threshold:
//!   by default glibc hands memory back to the kernel as soon as a megabyte or so is free at the
//!   top of a heap, and serves blocks over 128 KB to 32 MB with their own mappings, so every
//!   batch of 1000 leads faulted its few megabytes back in, page by page (costly in a VM). Kept
//!   for reuse instead, the batch benchmark went from 2.23x to 2.03x its floor (4 alternating
//!   pairs, all four better); what it costs in RSS is in docs/performance.md ("Soak", run 9).
//!
//! The intake benchmark applies the same settings to itself, so its figures are the binary's.

const ARENAS: (&str, &str) = ("MALLOC_ARENA_MAX", "8");
const TUNABLES: (&str, &str) = (
    "GLIBC_TUNABLES",
    "glibc.malloc.trim_threshold=67108864:glibc.malloc.top_pad=16777216:\
     glibc.malloc.mmap_threshold=16777216",
);

/// Starts this process again with the service's malloc settings, unless every one of them is
/// already in the environment. Returns only when nothing was to be done or `exec` failed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn use_service_malloc_settings() {
    use std::os::unix::process::CommandExt;
    let missing: Vec<(&str, &str)> = [ARENAS, TUNABLES]
        .into_iter()
        .filter(|(name, _)| std::env::var_os(name).is_none())
        .collect();
    if missing.is_empty() {
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
    let failed = command.args(args).envs(missing).exec();
    // exec returns only when it failed (say the binary was replaced on disk): run as we are.
    eprintln!("leadhub: running with glibc's default malloc settings ({failed})");
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn use_service_malloc_settings() {}
