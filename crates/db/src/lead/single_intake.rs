//! Single submissions that arrive together are stored and processed together.
//!
//! Each single submission costs two write transactions of its own; with SQLite's one writer,
//! concurrent callers spend most of their time queueing for those commits. Here every admitted
//! single joins a queue, and a group runner takes everything queued so far through the batch
//! path: one write to store them verbatim, one lead transaction, bulk duplicate lookups.
//! Nobody waits for a group to fill: an idle service runs a lone submission at once, and
//! groups only grow while earlier ones are being written ("group commit").
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tracing::{Instrument, Span};

use leadhub_domain::submission::{
    ElementOutcome, SubmissionError, SubmissionRequest, SubmissionService,
};
use leadhub_domain::user::User;

use crate::lead::change_groups::copy_of_fault;
use crate::pool::group_commit::{GroupCommit, Member};
use crate::{Backend, Database};

/// Groups written at once on PostgreSQL, where several commits overlap; few, so that groups
/// still form under load.
const GROUPS_IN_FLIGHT: usize = 4;
/// The largest group: the size of the largest batch the contract accepts.
const MAX_GROUP: usize = 1000;

type Answer = Result<ElementOutcome, SubmissionError>;
type Reply = oneshot::Sender<Answer>;

struct Queued {
    user_id: i64,
    request: SubmissionRequest,
    /// The submitting request's span (its request id), for what the group logs.
    span: Span,
}

/// The queue of admitted single submissions. Cheap to share.
pub struct SingleIntake {
    service: Arc<SubmissionService>,
    queue: Arc<GroupCommit<Queued, Answer>>,
    /// The main runtime, whose blocking pool runs the groups.
    runtime: Handle,
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
            queue: Arc::new(GroupCommit::new("single-submission", MAX_GROUP, runners)),
            runtime: Handle::current(),
        }
    }

    /// Admits, stores and processes one submission; returns what became of it.
    pub async fn submit(
        &self,
        user: &User,
        request: SubmissionRequest,
    ) -> Result<ElementOutcome, SubmissionError> {
        self.service.admit_single(user, &request).await?;
        let queued = Queued {
            user_id: user.id,
            request,
            span: Span::current(),
        };
        // A group that panicked drops its replies; its submissions are stored, and the caller
        // hears that something went wrong rather than waiting forever.
        self.queue
            .submit(queued, &self.runtime, || self.group_writer())
            .await
            .map_err(|_| stopped())?
    }

    /// A runner's group writer, on its blocking thread. The group's reads and writes run on
    /// that thread too (`blocking_here`), so a group costs no hand-off between threads but the
    /// answers to its callers.
    fn group_writer(&self) -> impl FnMut(Vec<Member<Queued, Answer>>) + Send + 'static {
        let (service, runtime) = (self.service.clone(), self.runtime.clone());
        move |group| crate::blocking_here(|| runtime.block_on(run_group(&service, group)))
    }
}

fn stopped() -> SubmissionError {
    SubmissionError::Unexpected(anyhow::anyhow!("the single-submission queue stopped"))
}

/// Writes one group, then answers it: right here when none of its leads is to be enriched,
/// else in a task of its own, so that the next group's write never waits on a geocoder.
/// Nothing one submission carries can fail the group's store (teams and users are never
/// deleted, and the verbatim text is just text), and `SubmissionService` already isolates one
/// lead's failed write from its neighbours; an error here is the database's, and every member
/// hears of it. Re-running members alone would store them twice.
async fn run_group(service: &Arc<SubmissionService>, group: Vec<Member<Queued, Answer>>) {
    let span = group_span(&group);
    let (work, replies): (Vec<_>, Vec<_>) = group
        .into_iter()
        .map(|(q, reply)| ((q.user_id, q.request), reply))
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
fn group_span(group: &[Member<Queued, Answer>]) -> Span {
    if let [(lone, _)] = group {
        return lone.span.clone();
    }
    let number = GROUPS.fetch_add(1, Ordering::Relaxed);
    for (member, _) in group {
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
            for reply in replies {
                let _ = reply.send(Err(copy_for_member(&e)));
            }
        }
    }
}

/// The group's error for one of its members, for what it is: a full storage answers 507, a
/// read-only database 503, a refusal its own status.
fn copy_for_member(error: &SubmissionError) -> SubmissionError {
    match error {
        SubmissionError::Forbidden(why) => SubmissionError::Forbidden(why.clone()),
        SubmissionError::NotFound(what) => SubmissionError::NotFound(what),
        SubmissionError::Invalid(fields) => SubmissionError::Invalid(fields.clone()),
        SubmissionError::Unexpected(cause) => SubmissionError::Unexpected(copy_of_fault(cause)),
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
