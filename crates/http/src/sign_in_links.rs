//! Sign-in links are sent in the background, so a request for one returns in the same time
//! whether or not the address has an account: looking the user up, storing the link and
//! handing the e-mail over happen after the answer (no account enumeration by timing).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, Notify, Semaphore};

use leadhub_domain::identity::IdentityProvider;

/// Requests waiting at most; beyond that a request is dropped (the person asks again), so a
/// flood cannot grow memory without bound.
const QUEUE: usize = 1024;
/// Links sent at the same time (a slow mail server does not hold the others back).
const SENT_AT_ONCE: usize = 8;

/// An address that asked for a sign-in link, and the page to return to after it.
type Request = (String, Option<String>);

/// The queue of addresses that asked for a sign-in link. Cheap to share.
pub struct SignInLinks {
    queue: mpsc::Sender<Request>,
    progress: Arc<Progress>,
}

/// Requests queued or being sent, and a wake-up for whoever waits for none.
#[derive(Default)]
struct Progress {
    pending: AtomicUsize,
    idle: Notify,
}

impl SignInLinks {
    /// Starts the sender on the current tokio runtime (the process's main one, which outlives
    /// the HTTP workers); like `tokio::spawn`, it must be called inside a runtime.
    pub fn start(identity: Arc<dyn IdentityProvider>) -> SignInLinks {
        let (queue, requests) = mpsc::channel(QUEUE);
        let progress = Arc::new(Progress::default());
        tokio::spawn(send_links(identity, requests, progress.clone()));
        SignInLinks { queue, progress }
    }

    /// Queues a link for `email` (leading to `return_to` once spent); returns at once, whatever
    /// the address.
    pub fn request(&self, email: &str, return_to: Option<&str>) {
        self.progress.pending.fetch_add(1, Ordering::SeqCst);
        let request = (email.to_owned(), return_to.map(str::to_owned));
        if self.queue.try_send(request).is_err() {
            self.progress.done();
            tracing::warn!("sign-in link requests queue full; one dropped");
        }
    }

    /// Returns once every request queued so far was handled (tests, and shutdown).
    pub async fn idle(&self) {
        loop {
            let woken = self.progress.idle.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.progress.pending.load(Ordering::SeqCst) == 0 {
                return;
            }
            woken.await;
        }
    }
}

impl Progress {
    fn done(&self) {
        if self.pending.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.idle.notify_waiters();
        }
    }
}

async fn send_links(
    identity: Arc<dyn IdentityProvider>,
    mut requests: mpsc::Receiver<Request>,
    progress: Arc<Progress>,
) {
    let sending = Arc::new(Semaphore::new(SENT_AT_ONCE));
    while let Some((email, return_to)) = requests.recv().await {
        let Ok(permit) = sending.clone().acquire_owned().await else {
            return;
        };
        let (identity, progress) = (identity.clone(), progress.clone());
        tokio::spawn(async move {
            if let Err(e) = identity.send_sign_in_link(&email, return_to).await {
                tracing::error!(error = %e, "sign-in link not sent");
            }
            progress.done();
            drop(permit);
        });
    }
}
