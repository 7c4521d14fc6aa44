//! The process-wide metrics, named once: every crate records them through the `metrics` facade
//! (a no-op until the web crate installs its Prometheus recorder), and the alert rules in
//! `docs/deploy/alerts.yml` name the same series.
use metrics::{describe_counter, describe_gauge};

/// Calls to a geocoder, by `provider` (census, nominatim) and `outcome` (`CallOutcome`).
pub const GEOCODER_CALLS: &str = "leadhub_geocoder_calls_total";
/// Parcel lookups at a county appraisal layer, by `county` (state and name) and `outcome` (`CallOutcome`).
pub const APPRAISAL_CALLS: &str = "leadhub_appraisal_calls_total";
/// 1 while a circuit breaker refuses calls to an upstream service, 0 while it lets them through.
pub const CIRCUIT_OPEN: &str = "leadhub_circuit_open";
/// Webhook delivery attempts, by `outcome`: delivered, failed_will_retry, failed_for_good.
pub const WEBHOOK_ATTEMPTS: &str = "leadhub_webhook_attempts_total";
/// Leads written by intake (API, pages, imports, deferred batches), by `action`: created,
/// updated (merged into a stored lead), skipped (a duplicate with nothing new), failed (the lead
/// could not be stored; the submission is kept).
pub const LEADS_INGESTED: &str = "leadhub_leads_ingested_total";
/// Database statements refused because its storage was full (disk, quota or size limit).
pub const STORAGE_FULL: &str = "leadhub_storage_full_total";
/// Database statements refused because the database was read-only (file, folder, file system,
/// or a PostgreSQL standby).
pub const DATABASE_READ_ONLY: &str = "leadhub_database_read_only_total";
/// Rows of CSV imports (CLI and page uploads), by `kind` (leads, businesses) and `outcome`:
/// created, updated, skipped, rejected (not imported: unreadable or refused), failed (kept as a
/// submission, the lead not stored).
pub const IMPORT_ROWS: &str = "leadhub_import_rows_total";
/// E-mails handed to the mail adapter, by `kind` and `outcome` (sent, failed).
pub const EMAILS: &str = "leadhub_emails_total";

/// How one call to an upstream service ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum CallOutcome {
    Ok,
    /// A 5xx, a refused or reset connection: retried.
    Failed,
    /// No answer within the timeout.
    Timeout,
    /// A 429.
    RateLimited,
    /// An answer that no retry will change (a 4xx, an unreadable body).
    Refused,
    /// Not made: the circuit breaker is open.
    CircuitOpen,
}

impl CallOutcome {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Gives each process-wide series its help text; the exporter calls it once it is installed.
pub fn describe() {
    describe_counter!(GEOCODER_CALLS, "Geocoder calls by provider and outcome.");
    describe_counter!(
        APPRAISAL_CALLS,
        "County appraisal lookups by county and outcome."
    );
    describe_gauge!(
        CIRCUIT_OPEN,
        "1 while the circuit breaker of an upstream service is open."
    );
    describe_counter!(WEBHOOK_ATTEMPTS, "Webhook delivery attempts by outcome.");
    describe_counter!(
        LEADS_INGESTED,
        "Leads written by intake, by action (created, updated, skipped, failed)."
    );
    describe_counter!(EMAILS, "E-mails by kind and outcome (sent, failed).");
    describe_counter!(
        STORAGE_FULL,
        "Database statements refused because the storage was full."
    );
    describe_counter!(
        DATABASE_READ_ONLY,
        "Database statements refused because the database was read-only."
    );
    describe_counter!(
        IMPORT_ROWS,
        "CSV import rows by kind and outcome (created, updated, skipped, rejected, failed)."
    );
}
