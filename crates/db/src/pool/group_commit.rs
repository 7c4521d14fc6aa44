//! Group commit: callers queue items behind a mutex, and a runner on a blocking thread takes
//! everything queued so far as one group, writes it, and answers each member through its own
//! channel. Nobody waits for a group to fill: a lone item is written at once, and groups grow
//! only while earlier ones are being written.
//!
//! What a group is and how it is written (and why grouping pays there) belongs to each user:
//! `lead::single_intake` (single submissions through the batch path) and `lead::change_groups`
//! (lead changes in one SQLite transaction). This module holds what they share: the queue, how
//! many runners work at once, the largest group, and that a panic never wedges the queue.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::runtime::Handle;
use tokio::sync::oneshot;

/// A queued item and where its answer goes. The group's writer must answer every member it is
/// given, right away or later from a task of its own; a member it drops hears `QueueStopped`.
pub(crate) type Member<T, A> = (T, oneshot::Sender<A>);

/// An item's answer never came: the group it was in panicked, or the runtime shut down first.
/// Each user turns it into its own `Unexpected` error (a 500).
#[derive(Debug, PartialEq)]
pub(crate) struct QueueStopped;

/// A group-commit queue of items `T`, each answered with an `A`. Shared behind an `Arc`.
pub(crate) struct GroupCommit<T, A> {
    waiting: Mutex<Waiting<T, A>>,
    /// The most members one group takes; the rest wait for the next.
    max_group: usize,
    /// The most runners at work at once.
    max_runners: usize,
    /// What the groups are, for the log ("single-submission", "lead change").
    name: &'static str,
}

/// Items waiting for a group, and how many runners are at work.
struct Waiting<T, A> {
    members: Vec<Member<T, A>>,
    runners: usize,
}

impl<T: Send + 'static, A: Send + 'static> GroupCommit<T, A> {
    pub(crate) fn new(name: &'static str, max_group: usize, max_runners: usize) -> Self {
        GroupCommit {
            waiting: Mutex::new(Waiting {
                members: Vec::new(),
                runners: 0,
            }),
            max_group: max_group.max(1),
            max_runners: max_runners.max(1),
            name,
        }
    }

    /// The queue stays usable after a group panicked: it holds only whole entries.
    fn lock(&self) -> MutexGuard<'_, Waiting<T, A>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item` and waits for its answer. When fewer runners than allowed are at work,
    /// starts one on `runtime`'s blocking pool with the group writer `writer()` builds (called
    /// only then); the runner writes group after group until the queue is empty. The blocking
    /// pool is one a runtime waits for when it shuts down, so no item that was written is left
    /// without its answer.
    pub(crate) async fn submit<W>(
        self: &Arc<Self>,
        item: T,
        runtime: &Handle,
        writer: impl FnOnce() -> W,
    ) -> Result<A, QueueStopped>
    where
        W: FnMut(Vec<Member<T, A>>) + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut waiting = self.lock();
            waiting.members.push((item, reply));
            let start = waiting.runners < self.max_runners;
            if start {
                waiting.runners += 1;
            }
            start
        };
        if start {
            let runner = Stopped {
                queue: self.clone(),
                counted: true,
            };
            let write = writer();
            // Dropped, not awaited: the runner answers each caller itself.
            drop(runtime.spawn_blocking(move || runner.run(write)));
        }
        // A group that panicked drops its replies: the caller hears so rather than waiting
        // forever.
        answer.await.map_err(|_| QueueStopped)
    }
}

/// A runner's place in the count: however the runner ends (a panic that escaped it, or a
/// runtime that shut down before running it), the next item can start a runner.
struct Stopped<T, A> {
    queue: Arc<GroupCommit<T, A>>,
    /// Whether this runner still counts among `Waiting::runners`.
    counted: bool,
}

impl<T, A> Drop for Stopped<T, A> {
    fn drop(&mut self) {
        if self.counted {
            let mut waiting = self
                .queue
                .waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            waiting.runners -= 1;
        }
    }
}

impl<T: Send + 'static, A: Send + 'static> Stopped<T, A> {
    /// On a blocking thread: takes whatever is queued as a group and writes it, until the queue
    /// is empty. A group that panics loses its answers alone; the runner goes on with the next.
    fn run(mut self, mut write: impl FnMut(Vec<Member<T, A>>)) {
        loop {
            let group: Vec<Member<T, A>> = {
                let mut waiting = self.queue.lock();
                if waiting.members.is_empty() {
                    // Under the lock items are queued under: one queued after this starts a
                    // runner of its own.
                    waiting.runners -= 1;
                    self.counted = false;
                    return;
                }
                let take = waiting.members.len().min(self.queue.max_group);
                waiting.members.drain(..take).collect()
            };
            if catch_unwind(AssertUnwindSafe(|| write(group))).is_err() {
                tracing::error!(
                    "a {} group panicked; its callers were answered 500",
                    self.queue.name
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use tokio::task::JoinHandle;

    use super::*;

    type Queue = GroupCommit<u32, u32>;

    /// Waits until `ready` holds of the queue's state.
    async fn until(queue: &Queue, ready: impl Fn(&Waiting<u32, u32>) -> bool) {
        while !ready(&queue.lock()) {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }

    /// A writer that answers each item with ten times it, records the groups it is given, holds
    /// the group of item 0 until `gate` opens, and panics on a group holding item 13.
    fn writer(
        groups: Arc<Mutex<Vec<Vec<u32>>>>,
        gate: mpsc::Receiver<()>,
    ) -> impl FnMut(Vec<Member<u32, u32>>) + Send + 'static {
        let gate = Mutex::new(gate);
        move |group| {
            let items: Vec<u32> = group.iter().map(|(item, _)| *item).collect();
            groups.lock().unwrap().push(items.clone());
            if items.contains(&0) {
                gate.lock().unwrap().recv().unwrap();
            }
            assert!(!items.contains(&13), "item 13 fails its group");
            for (item, reply) in group {
                let _ = reply.send(item * 10);
            }
        }
    }

    /// Item 0 submitted with a fresh writer, once its runner holds it (the gate shut).
    async fn held_first(
        queue: &Arc<Queue>,
        groups: &Arc<Mutex<Vec<Vec<u32>>>>,
    ) -> (JoinHandle<Result<u32, QueueStopped>>, mpsc::Sender<()>) {
        let (open, gate) = mpsc::channel();
        let write = writer(groups.clone(), gate);
        let shared = queue.clone();
        let first =
            tokio::spawn(async move { shared.submit(0, &Handle::current(), || write).await });
        until(queue, |w| w.members.is_empty() && w.runners == 1).await;
        (first, open)
    }

    /// `item` submitted behind a runner at work, once it is queued (in this order).
    async fn queued_behind(queue: &Arc<Queue>, item: u32) -> JoinHandle<Result<u32, QueueStopped>> {
        let queued = queue.lock().members.len();
        let shared = queue.clone();
        let submitted = tokio::spawn(async move {
            let no_second_runner = || -> fn(Vec<Member<u32, u32>>) { unreachable!("one runner") };
            shared
                .submit(item, &Handle::current(), no_second_runner)
                .await
        });
        until(queue, |w| w.members.len() == queued + 1).await;
        submitted
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn callers_queued_together_are_written_in_groups_and_get_their_own_answers() {
        let queue = Arc::new(Queue::new("test", 4, 1));
        let groups = Arc::default();
        let (first, open) = held_first(&queue, &groups).await;
        let mut rest = Vec::new();
        for item in 1..=10 {
            rest.push((item, queued_behind(&queue, item).await));
        }
        open.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Ok(0));
        for (item, answer) in rest {
            assert_eq!(answer.await.unwrap(), Ok(item * 10));
        }
        assert_eq!(
            *groups.lock().unwrap(),
            vec![vec![0], vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9, 10]]
        );
        until(&queue, |w| w.runners == 0).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_group_that_panics_loses_its_answers_alone() {
        let queue = Arc::new(Queue::new("test", 1, 1));
        let groups = Arc::default();
        let (first, open) = held_first(&queue, &groups).await;
        // Behind the held group: 13's group panics, and the runner goes on with 14's.
        let failed = queued_behind(&queue, 13).await;
        let next = queued_behind(&queue, 14).await;
        open.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Ok(0));
        assert_eq!(failed.await.unwrap(), Err(QueueStopped));
        assert_eq!(next.await.unwrap(), Ok(140));
        until(&queue, |w| w.runners == 0).await;
        // A caller after the panic starts a runner of its own and is answered.
        let (_, gate) = mpsc::channel();
        let again = queue
            .submit(7, &Handle::current(), || writer(groups.clone(), gate))
            .await;
        assert_eq!(again, Ok(70));
        assert_eq!(
            *groups.lock().unwrap(),
            vec![vec![0], vec![13], vec![14], vec![7]]
        );
    }
}
