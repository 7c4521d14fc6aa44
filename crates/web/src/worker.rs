//! Background workers: `LEADHUB_WORKERS` tasks inside `leadhub serve` that take jobs from the
//! database queue. A worker keeps its job's lease alive with heartbeats; on shutdown it finishes
//! the job in hand (within a bounded time) and takes no new one; whatever is left stays queued.
use std::sync::Arc;
use std::time::Duration;

use chrono::Duration as ChronoDuration;
use rand::Rng;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::Instrument;

use leadhub_domain::jobs::{retry_delay, Job, JobQueue, ENRICH_LEAD, PROCESS_SUBMISSIONS};
use leadhub_domain::lead::enrichment_retry::{EnrichmentRetries, NextStep};
use leadhub_domain::lead::work::digest::{FollowUpDigests, FOLLOW_UP_DIGEST};
use leadhub_domain::lead::work::given_mail::LEADS_GIVEN_IN_TURN;
use leadhub_domain::submission::{PendingWork, SubmissionService};
use leadhub_domain::upload::IMPORT_UPLOAD;
use leadhub_domain::Clock;
use leadhub_pages::upload_import::UploadImports;

#[derive(Clone)]
pub struct WorkerSettings {
    pub count: usize,
    pub lease: Duration,
    /// How long an idle worker waits for a wake-up before it looks for due jobs anyway.
    pub poll: Duration,
    /// Changes when a job may have been queued (`Database::job_wakeups`).
    pub wakeups: watch::Receiver<u64>,
}

pub struct Workers {
    stop: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
    /// The task that turns other processes' notifications into wake-ups (PostgreSQL).
    listener: Option<JoinHandle<()>>,
}

/// What the workers run jobs with: the queue, the services the jobs call, the clock.
#[derive(Clone)]
pub struct JobServices {
    pub queue: Arc<dyn JobQueue>,
    pub submissions: Arc<SubmissionService>,
    pub uploads: Arc<UploadImports>,
    pub enrichment: Arc<EnrichmentRetries>,
    pub digests: Arc<FollowUpDigests>,
    pub clock: Arc<dyn Clock>,
}

struct Worker {
    name: String,
    services: JobServices,
    settings: WorkerSettings,
}

/// How a job's run ended.
enum Handled {
    /// Its handler recorded what becomes of it (enrichment: retry, postpone or give up).
    Settled,
    /// Done, or failed with this reason (retried by `retry_delay` up to `max_attempts`).
    Finished(Result<(), String>),
}

/// Starts `settings.count` workers named after this process, so a job's `locked_by` says who;
/// `listener` is stopped with them.
pub fn start(
    services: JobServices,
    settings: WorkerSettings,
    listener: Option<JoinHandle<()>>,
) -> Workers {
    let (stop, stopped) = watch::channel(false);
    let tag: u32 = rand::rng().random();
    let handles = (0..settings.count)
        .map(|n| {
            let worker = Worker {
                name: format!("pid{}-{tag:08x}-w{n}", std::process::id()),
                services: services.clone(),
                settings: settings.clone(),
            };
            tokio::spawn(worker.run(stopped.clone()))
        })
        .collect();
    Workers {
        stop,
        handles,
        listener,
    }
}

impl Workers {
    /// Adds a background task that stops when the workers are told to.
    pub fn add(&mut self, start: impl FnOnce(watch::Receiver<bool>) -> JoinHandle<()>) {
        self.handles.push(start(self.stop.subscribe()));
    }

    /// Asks the workers to stop without waiting (for places that cannot await).
    pub fn signal_stop(&self) {
        let _ = self.stop.send(true);
        if let Some(listener) = &self.listener {
            listener.abort();
        }
    }

    /// Asks every worker to stop after its current job and waits up to `grace` for them.
    pub async fn shutdown(self, grace: Duration) {
        self.signal_stop();
        let all = futures_util::future::join_all(self.handles);
        if tokio::time::timeout(grace, all).await.is_err() {
            // Their jobs' leases expire and another worker takes them up later.
            tracing::warn!("workers still busy after the grace period; their jobs stay queued");
        }
    }
}

/// Queues each UTC hour's job of e-mails of follow-ups due (it sends to the people whose day
/// has reached the digest hour), looking every `every` (the job poll): a clock read, and one
/// write an hour, the first time the hour is seen.
pub async fn queue_digests(
    digests: Arc<FollowUpDigests>,
    every: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let mut queued = None;
    while !*stopped.borrow() {
        if let Some(hour) = digests.due_hour().filter(|h| queued != Some(*h)) {
            match digests.queue(hour).await {
                Ok(first) => {
                    queued = Some(hour);
                    if first {
                        tracing::info!(%hour, "follow-up e-mails queued");
                    }
                }
                Err(e) => tracing::error!(error = %e, "follow-up e-mails not queued; trying again"),
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stopped.changed() => {}
        }
    }
}

impl Worker {
    async fn run(self, mut stopped: watch::Receiver<bool>) {
        tracing::info!(worker = %self.name, "worker started");
        let mut wakeups = self.settings.wakeups.clone();
        while !*stopped.borrow() {
            // Seen before looking, so a job queued while this worker looks still wakes it.
            wakeups.borrow_and_update();
            let now = self.services.clock.now();
            let lease = ChronoDuration::from_std(self.settings.lease)
                .unwrap_or(ChronoDuration::seconds(60));
            match self
                .services
                .queue
                .claim(&self.name, now, now - lease)
                .await
            {
                Ok(Some(job)) => self.work(job).await,
                Ok(None) => {
                    tokio::select! {
                        _ = tokio::time::sleep(self.settings.poll) => {}
                        _ = wakeups.changed() => {}
                        _ = stopped.changed() => {}
                    }
                }
                Err(e) => {
                    tracing::error!(worker = %self.name, error = %e, "cannot claim jobs");
                    tokio::time::sleep(self.settings.poll * 10).await;
                }
            }
        }
        tracing::info!(worker = %self.name, "worker stopped");
    }

    async fn work(&self, job: Job) {
        // The span follows the future, never a thread: a guard from `Span::enter` held across an
        // await stays entered on whichever thread the task left, and tracing-subscriber's
        // registry panicked on it under load ("tried to clone a span that already closed").
        let span =
            tracing::info_span!("job", id = job.id, kind = %job.kind, attempt = job.attempts);
        self.work_in_span(job).instrument(span).await;
    }

    async fn work_in_span(&self, job: Job) {
        let heartbeat = self.heartbeat(job.id);
        let result = self.handle(&job).await;
        heartbeat.abort();
        let now = self.services.clock.now();
        let recorded = match result {
            Handled::Settled => Ok(()),
            Handled::Finished(Ok(())) => self.services.queue.complete(job.id, now).await,
            Handled::Finished(Err(error)) => {
                let retry_at =
                    (job.attempts < job.max_attempts).then(|| now + retry_delay(job.attempts));
                if retry_at.is_none() {
                    tracing::error!(error = %error, "job failed for the last time; it is kept as dead");
                } else {
                    tracing::warn!(error = %error, "job failed; it will be retried");
                }
                self.services
                    .queue
                    .fail(job.id, &error, retry_at, now)
                    .await
            }
        };
        if let Err(e) = recorded {
            tracing::error!(error = %e, "job outcome not recorded; its lease will expire and it runs again");
        }
    }

    /// Renews the lease at a third of its length while the job runs.
    fn heartbeat(&self, job_id: i64) -> JoinHandle<()> {
        let queue = self.services.queue.clone();
        let clock = self.services.clock.clone();
        let name = self.name.clone();
        let every = self.settings.lease / 3;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = queue.heartbeat(job_id, &name, clock.now()).await {
                    tracing::warn!(error = %e, "heartbeat failed");
                }
            }
        })
    }

    async fn handle(&self, job: &Job) -> Handled {
        Handled::Finished(match job.kind.as_str() {
            PROCESS_SUBMISSIONS => {
                let work: Result<PendingWork, _> = serde_json::from_value(job.payload.clone());
                match work {
                    Ok(work) => self
                        .services
                        .submissions
                        .process_pending(work)
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(format!("bad payload: {e}")),
                }
            }
            ENRICH_LEAD => return self.retry_enrichment(job).await,
            IMPORT_UPLOAD => self.services.uploads.run(job).await,
            FOLLOW_UP_DIGEST => self.services.digests.send().await.map(|run| {
                tracing::info!(sent = run.sent, "follow-up e-mails sent");
            }),
            LEADS_GIVEN_IN_TURN => self
                .services
                .digests
                .tell_given(&job.payload)
                .await
                .map(|sent| tracing::info!(sent, "e-mails of leads given in turn sent")),
            other => Err(format!("unknown job kind {other:?}")),
        })
    }

    /// One round of an enrichment retry, settled by its own rules (`lead::enrichment_retry`).
    async fn retry_enrichment(&self, job: &Job) -> Handled {
        let ids: Option<Vec<i64>> = job
            .payload
            .get("lead_ids")
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        let Some(ids) = ids else {
            return Handled::Finished(Err("bad payload: no lead_ids".to_owned()));
        };
        // Never a plain failure: a round the database failed still waits, and is settled below
        // by the enrichment schedule like any other.
        let round = self.services.submissions.retry_enrichment(ids).await;
        let waiting = round.still_waiting.len();
        let reason = round.reason.clone().unwrap_or_default();
        let jitter: f64 = rand::rng().random();
        match self.services.enrichment.settle(job, round, jitter).await {
            Ok(NextStep::Done) => {}
            Ok(NextStep::Postpone(at)) => {
                tracing::info!(waiting, %reason, next_try = %at, "enrichment paused; postponed without spending an attempt")
            }
            Ok(NextStep::Retry(at)) => {
                tracing::info!(waiting, %reason, next_try = %at, "enrichment still waits; retried later")
            }
            Ok(NextStep::GiveUp) => {
                tracing::warn!(waiting, %reason, "enrichment retries gave up; the leads are marked gave_up")
            }
            Err(e) => {
                tracing::error!(error = %e, "enrichment round not recorded; its lease will expire and it runs again")
            }
        }
        Handled::Settled
    }
}
