//! The job queue and the wake-ups that tell idle workers there is work.

pub(crate) mod gauges;
pub(crate) mod job_wakeups;
pub(crate) mod jobs;
