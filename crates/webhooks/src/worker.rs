//! The webhook delivery worker inside `leadhub serve`: it fans stored events out to their
//! endpoints' deliveries, then drains the outbox (`webhook_deliveries`), each delivery in its own
//! task, at most `concurrency` at once, shared among teams and endpoints (`fair_share`), so an
//! endpoint or a team that hangs holds its own share and nobody else's. Attempts are recorded in
//! batches, one write transaction for all that ended meanwhile, so the worker seldom takes
//! SQLite's one writer.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{watch, Notify, OnceCell, Semaphore};
use tokio::task::JoinHandle;

use leadhub_domain::mail::{Mailer, Message};
use leadhub_domain::telemetry::WEBHOOK_ATTEMPTS;
use leadhub_domain::webhook::{
    attempt_record, failing_cutoff, AttemptRecord, DeliveryStatus, DueDelivery, EventPayloads,
    SendFailure, WebhookOutbox, WebhookSender,
};
use leadhub_domain::Clock;

use crate::failure_log::FailureLog;
use crate::fair_share::{shares, team_share, InFlight};

/// Endpoints with due deliveries looked at per claim, the ones waiting longest: enough for every
/// team with work to get its turn while the slots are few.
const DUE_ENDPOINTS_LOOKED_AT: i64 = 512;
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
    pub retry_scale: f64,
    /// Changes when events are written (`Database::webhook_wakeups`).
    pub wakeups: watch::Receiver<u64>,
}

struct Deliverer {
    settings: DeliverySettings,
    outbox: Arc<dyn WebhookOutbox>,
    payloads: Arc<dyn EventPayloads>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    in_flight: Mutex<InFlight>,
    /// `team_share(concurrency)`.
    team_share: usize,
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
    /// What the log was told of each failing endpoint (a first line, then a summary a minute).
    failure_log: Mutex<FailureLog>,
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

/// Starts the worker: it drains `outbox`, makes bodies with `payloads`, sends through `sender`
/// and tells a team's owner through `mailer` when an endpoint is turned off. It looks whenever
/// `settings.wakeups` changes (events written), and takes no new delivery once `stopped` turns
/// true.
pub fn start(
    outbox: Arc<dyn WebhookOutbox>,
    payloads: Arc<dyn EventPayloads>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    settings: DeliverySettings,
    stopped: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let wakeups = settings.wakeups.clone();
    let share = team_share(settings.concurrency.max(1));
    let deliverer = Arc::new(Deliverer {
        outbox,
        payloads,
        sender,
        clock,
        mailer,
        settings,
        in_flight: Mutex::new(InFlight::default()),
        team_share: share,
        unrecorded: Mutex::new(Vec::new()),
        to_record: Notify::new(),
        recorded: Notify::new(),
        retries_due: Mutex::new(BTreeSet::new()),
        failing_checked: Mutex::new(HashMap::new()),
        failure_log: Mutex::new(FailureLog::default()),
    });
    let recorder = tokio::spawn(deliverer.clone().record_forever());
    tokio::spawn(async move {
        deliverer.clone().run(wakeups, stopped).await;
        recorder.abort();
        // What ended before the stop is recorded now rather than sent again after its hold.
        deliverer.record().await;
    })
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
            self.log_failure_summaries();
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

    /// Claims what is due, shared among teams and endpoints, and starts it; returns how many
    /// deliveries it started.
    async fn round(self: &Arc<Self>, slots: &Arc<Semaphore>) -> usize {
        let free = slots.available_permits();
        if free == 0 {
            return 0;
        }
        let now = self.clock.now();
        let hold =
            chrono::Duration::from_std(self.settings.hold).unwrap_or(chrono::Duration::minutes(1));
        let (full_endpoints, full_teams) = {
            let in_flight = self.in_flight();
            (
                in_flight.full_endpoints(),
                in_flight.full_teams(self.team_share),
            )
        };
        let due = match self
            .outbox
            .due_endpoints(now, full_endpoints, full_teams, DUE_ENDPOINTS_LOOKED_AT)
            .await
        {
            Ok(due) => due,
            Err(e) => {
                tracing::error!(error = %e, "cannot look for due webhook deliveries");
                return 0;
            }
        };
        let take = shares(&due, &self.in_flight(), free, self.team_share);
        if take.is_empty() {
            return 0;
        }
        let claimed = match self.outbox.claim(now, now + hold, take).await {
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
            // The claim follows the shares; should a share be full anyway, the delivery goes back.
            let (endpoint, team) = (delivery.endpoint_id, delivery.team_id);
            if !self.in_flight().enter(endpoint, team, self.team_share) {
                excess.push(delivery.id);
                continue;
            }
            let Ok(slot) = slots.clone().acquire_owned().await else {
                self.in_flight().leave(endpoint, team);
                break;
            };
            started += 1;
            let me = self.clone();
            let body = bodies.entry(delivery.event_id.clone()).or_default().clone();
            tokio::spawn(async move {
                me.deliver(delivery, &body).await;
                me.in_flight().leave(endpoint, team);
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

    /// Writes the summaries of failing endpoints whose minute is over.
    fn log_failure_summaries(&self) {
        let now = self.clock.now();
        let lines = self
            .failure_log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .due(now);
        for line in lines {
            line.log();
        }
    }

    fn in_flight(&self) -> std::sync::MutexGuard<'_, InFlight> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn deliver(&self, d: DueDelivery, shared: &Body) {
        let made = d.payload.is_none();
        let body = match &d.payload {
            Some(p) => Ok(p.clone()),
            None => shared
                .get_or_init(|| self.payloads.payload(&d))
                .await
                .clone()
                .map_err(SendFailure::before_answer),
        };
        let attempts = d.attempts + 1;
        let (result, body) = match body {
            Ok(body) => (self.sender.send(&d, &body).await, Some(body)),
            Err(failed) => (Err(failed), None),
        };
        let now = self.clock.now();
        if let Err(failure) = &result {
            tracing::debug!(delivery = d.id, attempts, error = %failure.error, "webhook delivery failed");
        }
        let line = {
            let mut log = self.failure_log.lock().unwrap_or_else(|e| e.into_inner());
            match &result {
                Err(failure) => log.failed(d.endpoint_id, failure, now),
                Ok(_) => log.delivered(d.endpoint_id, now),
            }
        };
        if let Some(line) = line {
            line.log();
        }
        let made = body.filter(|_| made);
        let record = attempt_record(attempts, result, made, now, self.settings.retry_scale);
        let outcome = match record.status {
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Pending => "failed_will_retry",
            DeliveryStatus::Failed => "failed_for_good",
        };
        metrics::counter!(WEBHOOK_ATTEMPTS, "outcome" => outcome).increment(1);
        self.unrecorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((d.endpoint_id, d.id, record));
        self.to_record.notify_one();
    }

    /// Turns off an endpoint that has failed every delivery past `failing_cutoff`, and tells its
    /// team's owner.
    async fn turn_off_if_failing(&self, endpoint_id: i64, now: DateTime<Utc>) {
        let off = self
            .outbox
            .deactivate_if_failing(endpoint_id, failing_cutoff(now), now)
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
