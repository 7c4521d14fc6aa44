//! Webhook endpoints, the events they hear, their deliveries, and the rules on their fields.
use chrono::{DateTime, Duration, Utc};
use strum::IntoEnumIterator;

/// What happened; sent as the payload's `type`. `webhook.test` goes only to the endpoint asked,
/// and nothing subscribes to it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::EnumIter,
)]
pub enum EventType {
    #[strum(serialize = "lead.created")]
    LeadCreated,
    #[strum(serialize = "lead.updated")]
    LeadUpdated,
    #[strum(serialize = "lead.enriched")]
    LeadEnriched,
    #[strum(serialize = "submission.failed")]
    SubmissionFailed,
    #[strum(serialize = "batch.completed")]
    BatchCompleted,
    #[strum(serialize = "webhook.test")]
    WebhookTest,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The events an endpoint may subscribe to, in declaration order: all but `webhook.test`.
pub fn subscribable() -> impl Iterator<Item = EventType> {
    EventType::iter().filter(|e| *e != EventType::WebhookTest)
}

/// Subscribes to every event.
pub const ALL_EVENTS: &str = "*";

/// Whether an endpoint subscribed to `events` hears `event`.
pub fn subscribed(events: &[String], event: &str) -> bool {
    events.iter().any(|e| e == ALL_EVENTS || e == event)
}

/// Why an events list is refused, or None: a non-empty list of known events, or `["*"]` alone.
pub fn events_problem(events: &[String]) -> Option<&'static str> {
    if events.is_empty() {
        return Some("List should have at least 1 item");
    }
    if events.iter().any(|e| e == ALL_EVENTS) {
        return (events.len() != 1).then_some("\"*\" stands alone");
    }
    events
        .iter()
        .any(|e| !subscribable().any(|s| s.as_str() == e))
        .then_some("Unknown event")
}

/// Why a target URL is refused, or None: an absolute `https` URL with a host (`http` too when
/// `allow_http`), without credentials in it.
pub fn url_problem(url: &str, allow_http: bool) -> Option<&'static str> {
    let Ok(parsed) = url::Url::parse(url) else {
        return Some("Input should be a valid URL");
    };
    let scheme_ok = parsed.scheme() == "https" || (allow_http && parsed.scheme() == "http");
    if !scheme_ok {
        return Some(if allow_http {
            "URL scheme should be 'https' or 'http'"
        } else {
            "URL scheme should be 'https'"
        });
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Some("URL should have a host");
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Some("URL should not carry credentials");
    }
    None
}

/// An endpoint: `Id` is its row id once stored; a `NewEndpoint`, not stored yet, has none. Its
/// signing secret is never part of it (the repository takes it beside a new endpoint).
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookEndpoint<Id = i64> {
    pub id: Id,
    pub team_id: i64,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    /// Who registered it; None for endpoints made before creators were recorded.
    pub created_by: Option<Creator>,
}

/// An endpoint about to be stored: every field but the row id.
pub type NewEndpoint = WebhookEndpoint<()>;

/// Who registered an endpoint, for the team to see. The endpoint is the team's: it keeps
/// delivering when this person leaves the team.
#[derive(Debug, Clone, PartialEq)]
pub struct Creator {
    /// The user's row id.
    pub id: i64,
    /// The public user id (`usr_...`).
    pub user_id: String,
    pub email: String,
}

/// How many endpoints a team may have when `LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM` is unset: each
/// one multiplies every event of the team into a delivery.
pub const ENDPOINTS_PER_TEAM: usize = 20;

/// A `PATCH`: None leaves a field as it is; `description: Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointChanges {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub description: Option<Option<String>>,
    pub is_active: Option<bool>,
}

impl EndpointChanges {
    /// Names nothing to change.
    pub fn is_empty(&self) -> bool {
        *self == EndpointChanges::default()
    }

    /// Only turns the endpoint off: all an inactive team's endpoint may still be changed by, as
    /// that team's leads may still change and send events.
    pub fn only_turns_off(&self) -> bool {
        *self
            == EndpointChanges {
                is_active: Some(false),
                ..EndpointChanges::default()
            }
    }
}

/// How long a rotated-out secret keeps signing alongside the new one.
pub fn rotation_overlap() -> Duration {
    Duration::hours(24)
}

/// An endpoint that has failed every delivery for this long is turned off, and its team's owner told.
pub fn failing_limit() -> Duration {
    Duration::days(5)
}

/// The five-day rule at `now`: an endpoint is turned off when it has failed every delivery since
/// before the instant returned (one made before then is still undelivered, and none was
/// delivered after it). The worker checks with it; the outbox applies it in one transaction.
pub fn failing_cutoff(now: DateTime<Utc>) -> DateTime<Utc> {
    now - failing_limit()
}

/// Stored as `pending`, `delivered`, `failed`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub id: i64,
    pub endpoint_id: i64,
    /// The `webhook-id` header: the same on every attempt.
    pub event_id: String,
    pub event_type: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// The attempts after the first, their waits in seconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
/// 10 h; after the last the delivery is `failed`.
pub const RETRY_SCHEDULE_SECS: [i64; 7] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/// When a delivery that failed its `attempts`-th attempt is tried again (None: it has failed for
/// good). `scale` multiplies the schedule (tests shrink it).
pub fn next_attempt(attempts: i32, failed_at: DateTime<Utc>, scale: f64) -> Option<DateTime<Utc>> {
    let wait = usize::try_from(attempts - 1)
        .ok()
        .and_then(|i| RETRY_SCHEDULE_SECS.get(i))?;
    let millis = (*wait as f64 * 1000.0 * scale).round() as i64;
    Some(failed_at + Duration::milliseconds(millis.max(0)))
}

/// What an error or a response body stored on a delivery is cut to.
pub const STORED_ERROR_BYTES: usize = 1024;

/// `text` cut to at most `STORED_ERROR_BYTES` bytes, on a character boundary.
pub fn stored_excerpt(text: &str) -> String {
    let mut end = text.len().min(STORED_ERROR_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(events: &[&str]) -> Vec<String> {
        events.iter().map(|e| (*e).to_owned()).collect()
    }

    #[test]
    fn every_event_but_the_test_is_subscribable() {
        assert_eq!(
            subscribable().map(EventType::as_str).collect::<Vec<_>>(),
            [
                "lead.created",
                "lead.updated",
                "lead.enriched",
                "submission.failed",
                "batch.completed"
            ]
        );
    }

    #[test]
    fn events_lists() {
        assert_eq!(
            events_problem(&list(&["lead.created", "batch.completed"])),
            None
        );
        assert_eq!(events_problem(&list(&["*"])), None);
        assert!(events_problem(&list(&[])).is_some());
        assert!(events_problem(&list(&["*", "lead.created"])).is_some());
        assert!(events_problem(&list(&["lead.deleted"])).is_some());
        assert!(events_problem(&list(&["webhook.test"])).is_some());
        assert!(subscribed(&list(&["*"]), "lead.enriched"));
        assert!(subscribed(&list(&["lead.enriched"]), "lead.enriched"));
        assert!(!subscribed(&list(&["lead.created"]), "lead.enriched"));
    }

    #[test]
    fn urls() {
        assert_eq!(
            url_problem("https://crm.example.com/hooks?x=1", false),
            None
        );
        assert!(url_problem("http://crm.example.com/hooks", false).is_some());
        assert_eq!(url_problem("http://127.0.0.1:9000/", true), None);
        assert!(url_problem("ftp://crm.example.com/", true).is_some());
        assert!(url_problem("not a url", false).is_some());
        assert!(url_problem("https://user:pw@crm.example.com/", false).is_some());
        assert!(url_problem("/relative", false).is_some());
    }

    #[test]
    fn the_retry_schedule() {
        let t = chrono::DateTime::<Utc>::UNIX_EPOCH;
        assert_eq!(next_attempt(1, t, 1.0), Some(t + Duration::seconds(5)));
        assert_eq!(next_attempt(2, t, 1.0), Some(t + Duration::minutes(5)));
        assert_eq!(next_attempt(7, t, 1.0), Some(t + Duration::hours(10)));
        assert_eq!(next_attempt(8, t, 1.0), None);
        assert_eq!(
            next_attempt(2, t, 0.001),
            Some(t + Duration::milliseconds(300))
        );
    }

    #[test]
    fn excerpts_stop_at_a_character() {
        let long = "é".repeat(1000);
        let cut = stored_excerpt(&long);
        assert!(cut.len() <= STORED_ERROR_BYTES && cut.len() >= STORED_ERROR_BYTES - 1);
        assert_eq!(stored_excerpt("short"), "short");
    }
}
