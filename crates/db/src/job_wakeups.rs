//! Wakes idle job workers when a job is queued, and the webhook delivery worker when events are
//! written: at once within this process, and on PostgreSQL in every process through
//! LISTEN/NOTIFY. Workers still look now and then, for work due later and for a wake-up lost
//! while the listening connection was down.
use std::sync::Arc;
use std::time::Duration;

use diesel::{QueryResult, RunQueryDsl};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_postgres::AsyncMessage;

use crate::{Database, DbConnection};

/// The PostgreSQL notification channel of queued jobs.
const CHANNEL: &str = "leadhub_jobs";
/// The PostgreSQL notification channel of written webhook events.
const WEBHOOK_CHANNEL: &str = "leadhub_webhooks";

/// How long a lost listening connection waits before connecting again.
const RECONNECT_AFTER: Duration = Duration::from_secs(2);

pub(crate) struct JobSignal {
    queued: watch::Sender<u64>,
    events: watch::Sender<u64>,
    /// Where to LISTEN (PostgreSQL only).
    postgres_url: Option<String>,
}

impl JobSignal {
    pub(crate) fn new(postgres_url: Option<String>) -> JobSignal {
        JobSignal {
            queued: watch::Sender::new(0),
            events: watch::Sender::new(0),
            postgres_url,
        }
    }

    fn wake(&self) {
        self.queued.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub(crate) fn wake_webhooks(&self) {
        self.events.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// In the transaction that queues a job due now: PostgreSQL delivers the notification to every
/// listening process when the transaction commits, and never if it rolls back.
pub(crate) fn notify_on_commit(conn: &mut DbConnection) -> QueryResult<()> {
    if let DbConnection::Postgres(_) = conn {
        diesel::sql_query(format!("NOTIFY {CHANNEL}")).execute(conn)?;
    }
    Ok(())
}

/// The same for webhook events (or a delivery put back in the outbox), on their own channel so
/// that they do not send the job workers looking for jobs.
pub(crate) fn notify_events_on_commit(conn: &mut DbConnection) -> QueryResult<()> {
    if let DbConnection::Postgres(_) = conn {
        diesel::sql_query(format!("NOTIFY {WEBHOOK_CHANNEL}")).execute(conn)?;
    }
    Ok(())
}

impl Database {
    /// Changes whenever a job may have been queued; a worker marks it seen before it looks for
    /// jobs, so a job queued in between still wakes it.
    pub fn job_wakeups(&self) -> watch::Receiver<u64> {
        self.job_signal.queued.subscribe()
    }

    /// Changes whenever webhook events or deliveries may have been written; like `job_wakeups`.
    pub fn webhook_wakeups(&self) -> watch::Receiver<u64> {
        self.job_signal.events.subscribe()
    }

    /// Wakes this process's delivery worker after a commit that wrote a delivery due now.
    pub(crate) fn webhooks_written(&self) {
        self.job_signal.wake_webhooks();
    }

    /// Wakes this process's workers after a commit that queued a job due now.
    pub(crate) fn jobs_queued(&self) {
        self.job_signal.wake();
    }

    /// On PostgreSQL, starts listening for jobs queued by any process (this one included); the
    /// task reconnects when its connection drops and runs until aborted. SQLite has one process.
    pub fn listen_for_jobs(&self) -> Option<JoinHandle<()>> {
        let url = self.job_signal.postgres_url.clone()?;
        let signal = self.job_signal.clone();
        Some(tokio::spawn(async move {
            loop {
                if let Err(e) = listen(&url, &signal).await {
                    tracing::warn!(error = %e, "job wake-up connection lost; workers poll until it is back");
                }
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        }))
    }
}

async fn listen(url: &str, signal: &Arc<JobSignal>) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    // The connection object does the socket's work: it must be polled for LISTEN to complete.
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    let statement = format!("LISTEN {CHANNEL}; LISTEN {WEBHOOK_CHANNEL}");
    let listening = client.batch_execute(&statement);
    tokio::pin!(listening);
    loop {
        tokio::select! {
            done = &mut listening => { done?; break; }
            message = messages.next() => match message {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
        }
    }
    // Work queued while no connection listened wakes nobody: look once now.
    signal.wake();
    signal.wake_webhooks();
    // `client` stays alive meanwhile: the server closes the session once it is dropped.
    while let Some(message) = messages.next().await {
        if let AsyncMessage::Notification(n) = message? {
            if n.channel() == WEBHOOK_CHANNEL {
                signal.wake_webhooks();
            } else {
                signal.wake();
            }
        }
    }
    Ok(())
}
