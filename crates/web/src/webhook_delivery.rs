//! The webhook delivery worker inside `leadhub serve`: it fans stored events out to their
//! endpoints' deliveries, then drains the outbox (`webhook_deliveries`), each delivery in its own
//! task, at most `concurrency` at once and `PER_ENDPOINT` per endpoint, so an endpoint that hangs
//! holds its own deliveries and nobody else's. Attempts are recorded in batches, one write
//! transaction for all that ended meanwhile, so the worker seldom takes SQLite's one writer.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{watch, Notify, OnceCell, Semaphore};
use tokio::task::JoinHandle;

use leadhub_domain::mail::{Mailer, Message};
use leadhub_domain::webhook::signature::signature_header;
use leadhub_domain::webhook::{
    failing_limit, next_attempt, stored_excerpt, AttemptRecord, DeliveryStatus, DueDelivery,
    WebhookOutbox,
};
use leadhub_domain::Clock;

pub use crate::webhook_payload::Sources;
use crate::webhook_target::{literal_refused, PublicOnly};

/// A 2xx within this long is a success; anything slower is cut and retried.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);
/// Most of an answer's body read; what is stored is cut to 1 KiB.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;
/// Deliveries in flight to one endpoint.
pub const PER_ENDPOINT: usize = 4;
/// An event's body, made by the first of its deliveries in a claim to need it.
type Body = OnceCell<Result<String, String>>;
/// Event rows fanned out per transaction (each holds the events of one intake transaction).
const FAN_OUT_ROWS: i64 = 16;
/// How often one failing endpoint is checked against the five-day rule: each check is a write
/// transaction with two scans of its deliveries, and on SQLite it takes the one writer.
const FAILING_CHECK_EVERY: chrono::Duration = chrono::Duration::hours(1);
/// Endpoints whose last check is remembered before the stale ones are forgotten.
const FAILING_CHECKS_KEPT: usize = 1024;

#[derive(Clone)]
pub struct DeliverySettings {
    /// The fallback look for due deliveries when nothing woke the worker (events written by
    /// another process while the wake-up connection was down, retries due after a restart).
    pub poll: Duration,
    /// How long a claimed delivery stays this process's before it is due again (after a crash).
    pub hold: Duration,
    pub concurrency: usize,
    pub allow_private: bool,
    pub retry_scale: f64,
    /// `LEADHUB_EGRESS_PROXY`: deliveries go through it, and it checks the addresses.
    pub egress_proxy: Option<String>,
}

struct Deliverer {
    outbox: Arc<dyn WebhookOutbox>,
    sources: Sources,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    client: reqwest::Client,
    settings: DeliverySettings,
    in_flight: Mutex<HashMap<i64, usize>>,
    /// Attempts that ended and are not recorded yet: endpoint, delivery, how it ended.
    unrecorded: Mutex<Vec<(i64, i64, AttemptRecord)>>,
    /// Tells the recorder that `unrecorded` has something.
    to_record: Notify,
    /// Tells the claiming loop that attempts were recorded (slots are free, retries queued).
    recorded: Notify,
    /// When this process's failed attempts are due again, so the loop wakes for them.
    retries_due: Mutex<BTreeSet<DateTime<Utc>>>,
    /// When each failing endpoint was last checked against the five-day rule.
    failing_checked: Mutex<HashMap<i64, DateTime<Utc>>>,
}

/// Whether a failing endpoint is due a check against the five-day rule (at most one an hour:
/// the rule needs no finer grain); marks it checked when it is.
fn check_due(
    checked: &mut HashMap<i64, DateTime<Utc>>,
    endpoint_id: i64,
    now: DateTime<Utc>,
) -> bool {
    if checked
        .get(&endpoint_id)
        .is_some_and(|at| now - *at < FAILING_CHECK_EVERY)
    {
        return false;
    }
    if checked.len() >= FAILING_CHECKS_KEPT {
        checked.retain(|_, at| now - *at < FAILING_CHECK_EVERY);
    }
    checked.insert(endpoint_id, now);
    true
}

/// Starts the worker; it looks whenever `wakeups` changes (events written), and takes no new
/// delivery once `stopped` turns true.
pub fn start(
    outbox: Arc<dyn WebhookOutbox>,
    sources: Sources,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    settings: DeliverySettings,
    wakeups: watch::Receiver<u64>,
    stopped: watch::Receiver<bool>,
) -> anyhow::Result<JoinHandle<()>> {
    let mut client = crate::egress::client_builder(settings.egress_proxy.as_deref())?
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(SEND_TIMEOUT)
        .user_agent(concat!("leadhub-webhooks/", env!("CARGO_PKG_VERSION")));
    // Behind the operator's proxy the proxy resolves the endpoint's host (and ours would refuse
    // a proxy on a private address): IP literals are still checked before sending.
    if !settings.allow_private && settings.egress_proxy.is_none() {
        client = client.dns_resolver(Arc::new(PublicOnly));
    }
    let deliverer = Arc::new(Deliverer {
        outbox,
        sources,
        clock,
        mailer,
        client: client.build()?,
        settings,
        in_flight: Mutex::new(HashMap::new()),
        unrecorded: Mutex::new(Vec::new()),
        to_record: Notify::new(),
        recorded: Notify::new(),
        retries_due: Mutex::new(BTreeSet::new()),
        failing_checked: Mutex::new(HashMap::new()),
    });
    let recorder = tokio::spawn(deliverer.clone().record_forever());
    Ok(tokio::spawn(async move {
        deliverer.clone().run(wakeups, stopped).await;
        recorder.abort();
        // What ended before the stop is recorded now rather than sent again after its hold.
        deliverer.record().await;
    }))
}

impl Deliverer {
    async fn run(
        self: Arc<Self>,
        mut wakeups: watch::Receiver<u64>,
        mut stopped: watch::Receiver<bool>,
    ) {
        let slots = Arc::new(Semaphore::new(self.settings.concurrency.max(1)));
        // Event rows are looked for when woken for them (or at the fallback look), not at every
        // claim: on SQLite each look takes the writer.
        let mut events_written = true;
        while !*stopped.borrow() {
            if events_written {
                // Marked seen before looking, so events written meanwhile wake the next wait.
                wakeups.borrow_and_update();
                self.fan_out().await;
            }
            let started = self.round(&slots).await;
            events_written = wakeups.has_changed().unwrap_or(false);
            if started == 0 && !events_written {
                let wait = self.until_next_retry().min(self.settings.poll);
                tokio::select! {
                    _ = tokio::time::sleep(wait) => events_written = wait == self.settings.poll,
                    _ = wakeups.changed() => events_written = true,
                    _ = self.recorded.notified() => {}
                    _ = stopped.changed() => {}
                }
            }
        }
    }

    /// Fans stored events out to deliveries until none are left.
    async fn fan_out(&self) {
        loop {
            match self.outbox.fan_out(FAN_OUT_ROWS).await {
                Ok(rows) if rows as i64 == FAN_OUT_ROWS => continue,
                Ok(_) => return,
                Err(e) => {
                    tracing::error!(error = %e, "cannot fan webhook events out to deliveries");
                    return;
                }
            }
        }
    }

    /// How long until the earliest retry of this process's failed attempts is due.
    fn until_next_retry(&self) -> Duration {
        let now = self.clock.now();
        let mut due = self.retries_due.lock().unwrap_or_else(|e| e.into_inner());
        while due.first().is_some_and(|t| *t <= now) {
            due.pop_first();
        }
        due.first()
            .and_then(|t| (*t - now).to_std().ok())
            .unwrap_or(Duration::MAX)
    }

    /// Records ended attempts whenever there are some, all that ended meanwhile at once.
    async fn record_forever(self: Arc<Self>) {
        loop {
            self.to_record.notified().await;
            self.record().await;
        }
    }

    async fn record(&self) {
        let records =
            std::mem::take(&mut *self.unrecorded.lock().unwrap_or_else(|e| e.into_inner()));
        if records.is_empty() {
            return;
        }
        let failing: HashSet<i64> = records
            .iter()
            .filter(|(_, _, r)| r.status != DeliveryStatus::Delivered)
            .map(|(endpoint_id, _, _)| *endpoint_id)
            .collect();
        let retries: Vec<DateTime<Utc>> = records
            .iter()
            .filter_map(|(_, _, r)| r.next_attempt_at)
            .collect();
        let records = records.into_iter().map(|(_, d, r)| (d, r)).collect();
        if let Err(e) = self.outbox.record_attempts(records).await {
            tracing::error!(error = %e, "webhook attempts not recorded; they are sent again after their hold");
        }
        self.retries_due
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(retries);
        self.recorded.notify_one();
        let now = self.clock.now();
        for endpoint_id in failing {
            let due = check_due(
                &mut self
                    .failing_checked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()),
                endpoint_id,
                now,
            );
            if due {
                self.turn_off_if_failing(endpoint_id, now).await;
            }
        }
    }

    /// Claims what is due and starts it; returns how many deliveries it started.
    async fn round(self: &Arc<Self>, slots: &Arc<Semaphore>) -> usize {
        let free = slots.available_permits();
        if free == 0 {
            return 0;
        }
        let now = self.clock.now();
        let hold =
            chrono::Duration::from_std(self.settings.hold).unwrap_or(chrono::Duration::minutes(1));
        let claimed = match self
            .outbox
            .claim_due(now, now + hold, free as i64, self.busy())
            .await
        {
            Ok(list) => list,
            Err(e) => {
                tracing::error!(error = %e, "cannot claim webhook deliveries");
                return 0;
            }
        };
        let mut started = 0;
        let mut excess = Vec::new();
        // An event's deliveries to several endpoints make its payload once.
        let mut bodies: HashMap<String, Arc<Body>> = HashMap::new();
        for delivery in claimed {
            // Past its endpoint's share a delivery goes back, so one endpoint never takes every slot.
            if !self.enter(delivery.endpoint_id) {
                excess.push(delivery.id);
                continue;
            }
            let Ok(slot) = slots.clone().acquire_owned().await else {
                break;
            };
            started += 1;
            let me = self.clone();
            let body = bodies.entry(delivery.event_id.clone()).or_default().clone();
            tokio::spawn(async move {
                let endpoint = delivery.endpoint_id;
                me.deliver(delivery, &body).await;
                me.leave(endpoint);
                drop(slot);
            });
        }
        if !excess.is_empty() {
            if let Err(e) = self.outbox.release(excess, now).await {
                tracing::warn!(error = %e, "claimed webhook deliveries not handed back; due after their hold");
            }
        }
        started
    }

    /// Endpoints with their full share in flight.
    fn busy(&self) -> Vec<i64> {
        let counts = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        counts
            .iter()
            .filter(|(_, n)| **n >= PER_ENDPOINT)
            .map(|(id, _)| *id)
            .collect()
    }

    fn enter(&self, endpoint_id: i64) -> bool {
        let mut counts = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts.entry(endpoint_id).or_default();
        if *n >= PER_ENDPOINT {
            return false;
        }
        *n += 1;
        true
    }

    fn leave(&self, endpoint_id: i64) {
        let mut counts = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.get_mut(&endpoint_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&endpoint_id);
            }
        }
    }

    async fn deliver(&self, d: DueDelivery, shared: &Body) {
        let made = d.payload.is_none();
        let body = match &d.payload {
            Some(p) => Ok(p.clone()),
            None => shared
                .get_or_init(|| self.sources.payload(&d))
                .await
                .clone()
                .map_err(|e| (None, e)),
        };
        let attempts = d.attempts + 1;
        let (result, body) = match body {
            Ok(body) => (self.send(&d, &body).await, Some(body)),
            Err(failed) => (Err(failed), None),
        };
        let now = self.clock.now();
        let record = match result {
            Ok(status) => AttemptRecord {
                status: DeliveryStatus::Delivered,
                attempts,
                last_status: Some(status),
                last_error: None,
                next_attempt_at: None,
                delivered_at: Some(now),
                // Kept only for a retry, which must send the same body.
                payload: None,
            },
            Err((status, error)) => {
                let next = next_attempt(attempts, now, self.settings.retry_scale);
                tracing::warn!(delivery = d.id, attempts, error = %error, "webhook delivery failed");
                AttemptRecord {
                    status: if next.is_some() {
                        DeliveryStatus::Pending
                    } else {
                        DeliveryStatus::Failed
                    },
                    attempts,
                    last_status: status,
                    last_error: Some(stored_excerpt(&error)),
                    next_attempt_at: next,
                    delivered_at: None,
                    payload: body.filter(|_| made),
                }
            }
        };
        self.unrecorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((d.endpoint_id, d.id, record));
        self.to_record.notify_one();
    }

    /// Turns off an endpoint that has failed every delivery for `failing_limit`, and tells its
    /// team's owner.
    async fn turn_off_if_failing(&self, endpoint_id: i64, now: DateTime<Utc>) {
        let off = self
            .outbox
            .deactivate_if_failing(endpoint_id, now - failing_limit(), now)
            .await;
        let off = match off {
            Ok(Some(off)) => off,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, endpoint_id, "cannot check whether the endpoint keeps failing");
                return;
            }
        };
        tracing::warn!(
            endpoint_id,
            "webhook endpoint turned off: every delivery failed for days"
        );
        let Some(to) = off.owner_email else {
            return;
        };
        let message = Message::WebhookDeactivated {
            to,
            team_name: off.team_name,
            url: off.url,
            failing_since: off.failing_since,
        };
        if let Err(e) = self.mailer.send(&message).await {
            tracing::warn!(error = %e, endpoint_id, "owner not told of the turned-off endpoint");
        }
    }

    /// One POST; the status of a 2xx, or the status (if any) and what went wrong.
    async fn send(&self, d: &DueDelivery, body: &str) -> Result<i32, (Option<i32>, String)> {
        let url = reqwest::Url::parse(&d.url).map_err(|e| (None, format!("bad URL: {e}")))?;
        if !self.settings.allow_private {
            if let Some(refused) = literal_refused(&url) {
                return Err((None, refused));
            }
        }
        let timestamp = self.clock.now().timestamp();
        let secrets: Vec<&str> = d.secrets.iter().map(String::as_str).collect();
        let signature = signature_header(&secrets, &d.event_id, timestamp, body.as_bytes());
        let request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &d.event_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body.to_owned());
        let exchange = async {
            let mut response = request.send().await.map_err(|e| (None, describe(&e)))?;
            let status = i32::from(response.status().as_u16());
            let mut read = Vec::new();
            while read.len() < MAX_RESPONSE_BYTES {
                match response.chunk().await {
                    Ok(Some(chunk)) => read.extend_from_slice(&chunk),
                    _ => break,
                }
            }
            read.truncate(MAX_RESPONSE_BYTES);
            if response.status().is_success() {
                Ok(status)
            } else {
                let text = plain(&String::from_utf8_lossy(&read));
                Err((Some(status), format!("HTTP {status}: {text}")))
            }
        };
        match tokio::time::timeout(SEND_TIMEOUT, exchange).await {
            Ok(done) => done,
            Err(_) => Err((
                None,
                format!("no answer within {} s", SEND_TIMEOUT.as_secs()),
            )),
        }
    }
}

/// An answer's text as the team reads it in `last_error`: one line of visible text, control
/// characters (terminal escapes, NUL, line breaks) and invisible direction or width marks turned
/// into single spaces. `stored_excerpt` then bounds it to 1 KiB.
fn plain(text: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || c.is_whitespace()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    };
    text.split(hidden)
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A transport error with its causes, which say what actually failed (refused, timed out).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The delivery worker of `state`'s database and configuration (`LEADHUB_WEBHOOK_*`).
pub fn start_for(
    state: &actix_web::web::Data<crate::app::AppState>,
    stopped: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let db = state.db.clone();
    let settings = DeliverySettings {
        poll: Duration::from_millis(state.config.job_poll_ms),
        // The job lease, plus the longest an attempt may take.
        hold: Duration::from_secs(state.config.job_lease_secs) + SEND_TIMEOUT,
        concurrency: 32,
        allow_private: state.config.webhook_allow_private,
        retry_scale: state.config.webhook_retry_scale,
        egress_proxy: state.config.egress_proxy.clone(),
    };
    let sources = Sources {
        leads: Arc::new(db.clone()),
        submissions: Arc::new(db.clone()),
    };
    let mailer = state.teams.mailer.clone();
    let wakeups = db.webhook_wakeups();
    match start(
        Arc::new(db),
        sources,
        state.clock.clone(),
        mailer,
        settings,
        wakeups,
        stopped,
    ) {
        Ok(handle) => handle,
        Err(e) => {
            tracing::error!(error = %e, "webhook delivery worker not started");
            tokio::spawn(async {})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reaches_the_team_plain_and_bounded() {
        let answer = format!(
            "<h1>Denied</h1>\r\n\x1b[31mred\x1b[0m\0nul\u{202e}evil\tend{}",
            "é".repeat(4000)
        );
        let stored = stored_excerpt(&format!("HTTP 403: {}", plain(&answer)));
        assert!(stored.len() <= 1024, "{}", stored.len());
        assert!(
            stored.starts_with("HTTP 403: <h1>Denied</h1> [31mred [0m nul evil end"),
            "{stored}"
        );
        assert!(!stored.chars().any(|c| c.is_control() || c == '\u{202e}'));
        assert_eq!(plain(" \n "), "");
    }

    #[test]
    fn a_failing_endpoint_is_checked_at_most_once_an_hour() {
        let mut checked = HashMap::new();
        let t0 = Utc::now();
        assert!(check_due(&mut checked, 1, t0));
        assert!(check_due(&mut checked, 2, t0));
        assert!(!check_due(
            &mut checked,
            1,
            t0 + chrono::Duration::minutes(59)
        ));
        assert!(check_due(
            &mut checked,
            1,
            t0 + chrono::Duration::minutes(60)
        ));
        // Full: the stale entries go, the fresh one stays.
        let later = t0 + chrono::Duration::minutes(61);
        for id in 3..=FAILING_CHECKS_KEPT as i64 {
            checked.insert(id, t0);
        }
        assert!(check_due(&mut checked, 5000, later));
        assert_eq!(
            checked.keys().copied().collect::<BTreeSet<_>>(),
            BTreeSet::from([1, 5000])
        );
    }
}
