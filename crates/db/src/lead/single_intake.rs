//! Single submissions that arrive together are stored and processed together.
//!
//! Each single submission costs two write transactions of its own; with SQLite's one writer,
//! concurrent callers spend most of their time queueing for those commits. Here every admitted
//! single joins a queue, and a group runner takes everything queued so far through the batch
//! path: one write to store them verbatim, one lead transaction, bulk duplicate lookups.
//! Nobody waits for a group to fill: an idle service runs a lone submission at once, and
//! groups only grow while earlier ones are being written ("group commit").
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tracing::{Instrument, Span};

use leadhub_domain::submission::{
    ElementOutcome, SubmissionError, SubmissionRequest, SubmissionService,
};
use leadhub_domain::user::User;

use crate::{Backend, Database};

/// Groups written at once on PostgreSQL, where several commits overlap; few, so that groups
/// still form under load.
const GROUPS_IN_FLIGHT: usize = 4;
/// The largest group: the size of the largest batch the contract accepts.
const MAX_GROUP: usize = 1000;

type Reply = oneshot::Sender<Result<ElementOutcome, SubmissionError>>;

struct Queued {
    user_id: i64,
    request: SubmissionRequest,
    reply: Reply,
    /// The submitting request's span (its request id), for what the group logs.
    span: Span,
}

/// Submissions waiting for a group, and how many group runners are at work.
#[derive(Default)]
struct Queue {
    waiting: Vec<Queued>,
    runners: usize,
}

/// The queue of admitted single submissions. Cheap to share.
pub struct SingleIntake {
    service: Arc<SubmissionService>,
    queue: Arc<Mutex<Queue>>,
    /// The main runtime, whose blocking pool runs the groups.
    runtime: Handle,
    /// Groups written at once.
    runners: usize,
}

impl SingleIntake {
    /// Runs groups on the blocking pool of the current tokio runtime, which outlives the HTTP
    /// workers (they stop first on shutdown, and dropping the runtime waits for its blocking
    /// threads), so no admitted submission is left without an answer. Like `tokio::spawn`, it
    /// must be called inside a runtime; the service is always built inside one (`serve`, the
    /// CLI's commands and the tests all run under `block_on`).
    fn start(service: Arc<SubmissionService>, runners: usize) -> SingleIntake {
        SingleIntake {
            service,
            queue: Arc::default(),
            runtime: Handle::current(),
            runners: runners.max(1),
        }
    }

    /// Admits, stores and processes one submission; returns what became of it.
    pub async fn submit(
        &self,
        user: &User,
        request: SubmissionRequest,
    ) -> Result<ElementOutcome, SubmissionError> {
        self.service.admit_single(user, &request).await?;
        let (reply, answer) = oneshot::channel();
        let start_runner = {
            let mut queue = lock(&self.queue);
            queue.waiting.push(Queued {
                user_id: user.id,
                request,
                reply,
                span: Span::current(),
            });
            let start = queue.runners < self.runners;
            if start {
                queue.runners += 1;
            }
            start
        };
        if start_runner {
            let (service, queue, runtime) = (
                self.service.clone(),
                self.queue.clone(),
                self.runtime.clone(),
            );
            // Dropped, not awaited: the runner answers each caller itself.
            drop(
                self.runtime
                    .spawn_blocking(move || run_groups(&service, &queue, &runtime)),
            );
        }
        // A group that panicked drops its replies; its submissions are stored, and the caller
        // hears that something went wrong rather than waiting forever.
        answer.await.map_err(|_| stopped())?
    }
}

fn stopped() -> SubmissionError {
    SubmissionError::Unexpected(anyhow::anyhow!("the single-submission queue stopped"))
}

/// The queue stays usable after a group panicked: it holds only whole entries.
fn lock(queue: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

/// On a blocking thread: takes whatever is queued as a group and runs it, until the queue is
/// empty. The group's reads and writes run on this thread too (`blocking_here`), so a group
/// costs no hand-off between threads but the answers to its callers.
fn run_groups(service: &Arc<SubmissionService>, queue: &Mutex<Queue>, runtime: &Handle) {
    loop {
        let group: Vec<Queued> = {
            let mut queue = lock(queue);
            if queue.waiting.is_empty() {
                queue.runners -= 1;
                return;
            }
            let take = queue.waiting.len().min(MAX_GROUP);
            queue.waiting.drain(..take).collect()
        };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::blocking_here(|| runtime.block_on(run_group(service, group)))
        }));
        if ran.is_err() {
            tracing::error!("a single-submission group panicked; its callers were answered 500");
        }
    }
}

/// Writes one group, then answers it: right here when none of its leads is to be enriched,
/// else in a task of its own, so that the next group's write never waits on a geocoder.
/// Nothing one submission carries can fail the group's store (teams and users are never
/// deleted, and the verbatim text is just text), and `SubmissionService` already isolates one
/// lead's failed write from its neighbours; an error here is the database's, and every member
/// hears of it. Re-running members alone would store them twice.
async fn run_group(service: &Arc<SubmissionService>, group: Vec<Queued>) {
    let span = group_span(&group);
    let (work, replies): (Vec<_>, Vec<_>) = group
        .into_iter()
        .map(|q| ((q.user_id, q.request), q.reply))
        .unzip();
    let fresh = match service.write_singles(work).instrument(span.clone()).await {
        Ok(fresh) => fresh,
        Err(e) => return answer(replies, Err(e)),
    };
    if fresh.enriches() {
        let service = service.clone();
        // Dropped, not awaited: the task answers each caller itself.
        drop(tokio::spawn(
            async move {
                answer(replies, service.answer_singles(fresh).await);
            }
            .instrument(span),
        ));
    } else {
        answer(
            replies,
            service.answer_singles(fresh).instrument(span).await,
        );
    }
}

/// Groups numbered for the log, so that a request's lines can be joined to its group's.
static GROUPS: AtomicU64 = AtomicU64::new(1);

/// The span a group's work logs in: a lone submission's own request span (its request id), or
/// a span of the group, whose number each member's request logs.
fn group_span(group: &[Queued]) -> Span {
    if let [lone] = group {
        return lone.span.clone();
    }
    let number = GROUPS.fetch_add(1, Ordering::Relaxed);
    for member in group {
        member
            .span
            .in_scope(|| tracing::debug!(group = number, "processed with its group"));
    }
    tracing::info_span!(parent: None, "single_group", group = number, members = group.len())
}

/// Sends each member of a group its outcome, or the group's error.
fn answer(replies: Vec<Reply>, outcomes: Result<Vec<ElementOutcome>, SubmissionError>) {
    match outcomes {
        Ok(outcomes) => {
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                // A caller that went away still has its submission stored and processed.
                let _ = reply.send(Ok(outcome));
            }
        }
        Err(e) => {
            tracing::error!(error = %e, members = replies.len(), "single-submission group failed");
            let message = format!("{e:#}");
            for reply in replies {
                let _ = reply.send(Err(SubmissionError::Unexpected(anyhow::anyhow!(
                    message.clone()
                ))));
            }
        }
    }
}

impl Database {
    /// The single-submission queue of `service` over this database, with as many group runners
    /// as `intake_runners` says (`Database::set_intake_runners`, else this backend's default).
    /// Like `tokio::spawn`, it must be called inside a runtime.
    pub fn single_intake(&self, service: Arc<SubmissionService>) -> SingleIntake {
        SingleIntake::start(service, self.intake_runners())
    }

    /// Groups written at once: as configured, else one on SQLite and `GROUPS_IN_FLIGHT` on
    /// PostgreSQL. SQLite has one writer: a second group would only wait for its turn,
    /// splitting the queue into smaller groups (CPU per submission 110 -> 200 µs with four). A
    /// group holds its runner only while it is written (`run_group`), never while it is
    /// enriched.
    pub fn intake_runners(&self) -> usize {
        match (self.intake_runners, self.backend()) {
            (Some(n), _) => n,
            (None, Backend::Sqlite) => 1,
            (None, Backend::Postgres) => GROUPS_IN_FLIGHT,
        }
    }

    /// Sets how many single-submission groups are written at once, instead of the backend's
    /// default.
    pub fn set_intake_runners(&mut self, runners: usize) {
        self.intake_runners = Some(runners.max(1));
    }
}
