//! Wakes idle job workers when a job is queued, and the webhook delivery worker when events are
//! written: at once within this process, and on PostgreSQL in every process through
//! LISTEN/NOTIFY. Workers still look now and then, for work due later and for a wake-up lost
//! while the listening connection was down.
use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use diesel::{QueryResult, RunQueryDsl};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_postgres::AsyncMessage;

use leadhub_domain::error::with_causes;

use crate::pool::connection::one_line;
use crate::{Database, DbConnection};

/// What a worker waits for: each kind has its own PostgreSQL channel, so events do not send the
/// job workers looking for jobs.
#[derive(Clone, Copy)]
pub(crate) enum Work {
    Jobs = 0,
    WebhookEvents = 1,
}

const KINDS: [Work; 2] = [Work::Jobs, Work::WebhookEvents];

impl Work {
    fn channel(self) -> &'static str {
        match self {
            Work::Jobs => "leadhub_jobs",
            Work::WebhookEvents => "leadhub_webhooks",
        }
    }
}

/// How long a lost listening connection waits before connecting again.
const RECONNECT_AFTER: Duration = Duration::from_secs(2);

thread_local! {
    /// The kinds of work the write running on this thread announced, for `Database::write` to
    /// wake this process's workers once it returns.
    static ANNOUNCED: Cell<[bool; 2]> = const { Cell::new([false; 2]) };
}

pub(crate) struct JobSignal {
    counters: [watch::Sender<u64>; 2],
    /// Where to LISTEN (PostgreSQL only).
    postgres_url: Option<String>,
}

impl JobSignal {
    pub(crate) fn new(postgres_url: Option<String>) -> JobSignal {
        JobSignal {
            counters: [watch::Sender::new(0), watch::Sender::new(0)],
            postgres_url,
        }
    }

    fn wake(&self, work: Work) {
        self.counters[work as usize].send_modify(|n| *n = n.wrapping_add(1));
    }

    fn subscribe(&self, work: Work) -> watch::Receiver<u64> {
        self.counters[work as usize].subscribe()
    }

    /// Wakes this process's workers for what the write just run on this thread announced (after
    /// its commit; a rolled-back write wakes them for nothing, which costs one look).
    pub(crate) fn wake_announced(&self) {
        let announced = ANNOUNCED.with(|a| a.replace([false; 2]));
        for work in KINDS.into_iter().filter(|w| announced[*w as usize]) {
            self.wake(work);
        }
    }
}

/// In the transaction that writes work due now: PostgreSQL notifies every listening process when
/// the transaction commits, and never if it rolls back; this process's workers are woken by
/// `Database::write` once the write returns.
pub(crate) fn announce(conn: &mut DbConnection, work: Work) -> QueryResult<()> {
    if let DbConnection::Postgres(_) = conn {
        diesel::sql_query(format!("NOTIFY {}", work.channel())).execute(conn)?;
    }
    ANNOUNCED.with(|a| {
        let mut kinds = a.get();
        kinds[work as usize] = true;
        a.set(kinds);
    });
    Ok(())
}

impl Database {
    /// Changes whenever a job may have been queued; a worker marks it seen before it looks for
    /// jobs, so a job queued in between still wakes it.
    pub fn job_wakeups(&self) -> watch::Receiver<u64> {
        self.job_signal.subscribe(Work::Jobs)
    }

    /// Changes whenever webhook events or deliveries may have been written; like `job_wakeups`.
    pub fn webhook_wakeups(&self) -> watch::Receiver<u64> {
        self.job_signal.subscribe(Work::WebhookEvents)
    }

    /// On PostgreSQL, starts listening for jobs queued by any process (this one included); the
    /// task reconnects when its connection drops and runs until aborted. SQLite has one process.
    pub fn listen_for_jobs(&self) -> Option<JoinHandle<()>> {
        let url = self.job_signal.postgres_url.clone()?;
        let signal = self.job_signal.clone();
        Some(tokio::spawn(async move {
            // Told once an outage, and again when it is over: not every few seconds.
            let mut lost = false;
            loop {
                if let Err(e) = listen(&url, &signal, &mut lost).await {
                    if !std::mem::replace(&mut lost, true) {
                        let error = one_line(&with_causes(&e));
                        tracing::warn!(%error, "job wake-up connection lost; workers poll until it is back");
                    }
                }
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        }))
    }
}

async fn listen(
    url: &str,
    signal: &Arc<JobSignal>,
    lost: &mut bool,
) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    if std::mem::replace(lost, false) {
        tracing::warn!("job wake-up connection back");
    }
    // The connection object does the socket's work: it must be polled for LISTEN to complete.
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    let statement = KINDS.map(|w| format!("LISTEN {};", w.channel())).join(" ");
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
    for work in KINDS {
        signal.wake(work);
    }
    // `client` stays alive meanwhile: the server closes the session once it is dropped.
    while let Some(message) = messages.next().await {
        if let AsyncMessage::Notification(n) = message? {
            if let Some(work) = KINDS.into_iter().find(|w| w.channel() == n.channel()) {
                signal.wake(work);
            }
        }
    }
    Ok(())
}
