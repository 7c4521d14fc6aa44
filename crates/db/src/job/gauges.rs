//! What `/metrics` reads from the database on each scrape: the job queue and the webhook outbox
//! as every process sees them, not as this one remembers them. Each query walks an index on
//! `status` (`jobs_ready`, `webhook_deliveries_due`) and only the rows still in play: done jobs
//! and delivered deliveries are never read.
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{count, count_star, min};
use diesel::prelude::*;

use leadhub_domain::jobs::JobStatus;
use leadhub_domain::lead::record::EnrichmentStatus;
use leadhub_domain::store::StoreResult;
use leadhub_domain::webhook::DeliveryStatus;

use crate::schema::{jobs, leads, webhook_deliveries};
use crate::sql::time::{from_db, to_db};
use crate::Database;

/// The job states a gauge reports (done jobs pile up and say nothing about health).
pub const JOB_STATES: [JobStatus; 3] = [JobStatus::Queued, JobStatus::Running, JobStatus::Dead];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueGauges {
    /// (kind, state, jobs) for each kind and state of `JOB_STATES` that has any.
    pub jobs: Vec<(String, String, i64)>,
    /// (kind, run_at of its oldest queued job that is due).
    pub oldest_due: Vec<(String, DateTime<Utc>)>,
    /// Deliveries still to be made (first attempts and retries).
    pub deliveries_pending: i64,
    /// Endpoints with a delivery that failed and waits for its retry.
    pub endpoints_failing: i64,
    /// Leads whose enrichment retries gave up (index `leads_enrichment_status_created`).
    pub leads_gave_up: i64,
}

impl Database {
    pub async fn queue_gauges(&self, now: DateTime<Utc>) -> StoreResult<QueueGauges> {
        self.read(move |conn| {
            let states: Vec<&str> = JOB_STATES.iter().map(|s| s.as_str()).collect();
            let jobs = conn.load(
                jobs::table
                    .filter(jobs::status.eq_any(states))
                    .group_by((jobs::kind, jobs::status))
                    .select((jobs::kind, jobs::status, count_star())),
            )?;
            let oldest: Vec<(String, Option<NaiveDateTime>)> = conn.load(
                jobs::table
                    .filter(jobs::status.eq(JobStatus::Queued.as_str()))
                    .filter(jobs::run_at.le(to_db(now)))
                    .group_by(jobs::kind)
                    .select((jobs::kind, min(jobs::run_at))),
            )?;
            let pending = || {
                webhook_deliveries::table
                    .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
            };
            let deliveries_pending = conn.get_result(pending().select(count_star()))?;
            let endpoints_failing = conn.get_result(
                pending()
                    .filter(webhook_deliveries::attempts.gt(0))
                    .select(count(webhook_deliveries::endpoint_id).aggregate_distinct()),
            )?;
            let leads_gave_up = conn.get_result(
                leads::table
                    .filter(leads::enrichment_status.eq(EnrichmentStatus::GaveUp.as_str()))
                    .select(count_star()),
            )?;
            Ok(QueueGauges {
                leads_gave_up,
                jobs,
                oldest_due: oldest
                    .into_iter()
                    .filter_map(|(kind, at)| Some((kind, from_db(at?))))
                    .collect(),
                deliveries_pending,
                endpoints_failing,
            })
        })
        .await
    }
}
