//! Single submissions that arrive together are stored and processed together.
//!
//! Each single submission costs two write transactions of its own; with SQLite's one writer,
//! concurrent callers spend most of their time queueing for those commits. Here every admitted
//! single joins a queue, and a group runner takes everything queued so far through the batch
//! path: one write to store them verbatim, one lead transaction, bulk duplicate lookups.
//! Nobody waits for a group to fill: an idle service runs a lone submission at once, and
//! groups only grow while earlier ones are being written ("group commit").
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Semaphore};

use leadhub_domain::submission::{
    ElementOutcome, SubmissionError, SubmissionRequest, SubmissionService,
};
use leadhub_domain::user::User;

/// Groups written at once. More than one, so that a group waiting on a slow geocoder does not
/// hold up every single submission behind it; few, so that groups still form under load.
const GROUPS_IN_FLIGHT: usize = 4;
/// The largest group: the size of the largest batch the contract accepts.
const MAX_GROUP: usize = 1000;

type Reply = oneshot::Sender<Result<ElementOutcome, SubmissionError>>;

struct Queued {
    user_id: i64,
    request: SubmissionRequest,
    reply: Reply,
}

/// The queue of admitted single submissions. Cheap to share.
pub struct SingleIntake {
    service: Arc<SubmissionService>,
    queue: mpsc::UnboundedSender<Queued>,
}

impl SingleIntake {
    /// Starts the group runner on the current tokio runtime, which outlives the HTTP workers
    /// (they stop first on shutdown), so no admitted submission is left without an answer.
    /// Like `tokio::spawn`, it must be called inside a runtime; the service is always built
    /// inside one (`serve`, the CLI's commands and the tests all run under `block_on`).
    pub fn start(service: Arc<SubmissionService>) -> SingleIntake {
        let (queue, receiver) = mpsc::unbounded_channel();
        tokio::spawn(run_groups(service.clone(), receiver));
        SingleIntake { service, queue }
    }

    /// Admits, stores and processes one submission; returns what became of it.
    pub async fn submit(
        &self,
        user: &User,
        request: SubmissionRequest,
    ) -> Result<ElementOutcome, SubmissionError> {
        self.service.admit_single(user, &request).await?;
        let (reply, answer) = oneshot::channel();
        self.queue
            .send(Queued {
                user_id: user.id,
                request,
                reply,
            })
            .map_err(|_| stopped())?;
        // A runner that died mid-group (a panic) drops its replies; its submissions are
        // stored, and the caller hears that something went wrong rather than waiting forever.
        answer.await.map_err(|_| stopped())?
    }
}

fn stopped() -> SubmissionError {
    SubmissionError::Unexpected(anyhow::anyhow!("the single-submission queue stopped"))
}

/// Takes whatever is queued whenever a group may start, until every sender is gone.
async fn run_groups(service: Arc<SubmissionService>, mut queue: mpsc::UnboundedReceiver<Queued>) {
    let slots = Arc::new(Semaphore::new(GROUPS_IN_FLIGHT));
    while let Some(first) = queue.recv().await {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        // Everything that queued while the slots were busy goes in this group.
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        let service = service.clone();
        tokio::spawn(async move {
            run_group(&service, group).await;
            drop(slot);
        });
    }
}

/// Runs one group. Nothing one submission carries can fail the group's store (teams and users
/// are never deleted, and the verbatim text is just text), and `SubmissionService` already
/// isolates one lead's failed write from its neighbours; an error here is the database's, and
/// every member hears of it. Re-running members alone would store them twice.
async fn run_group(service: &SubmissionService, group: Vec<Queued>) {
    let (work, replies): (Vec<_>, Vec<_>) = group
        .into_iter()
        .map(|q| ((q.user_id, q.request), q.reply))
        .unzip();
    match service.submit_singles(work).await {
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
