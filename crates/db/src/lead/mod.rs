//! Leads and submissions: the lead rows, the batch writer and the plan it stores, the queue that
//! groups single submissions and the one that groups lead changes, rows rewritten without their
//! indexes, submissions and their outcomes, the dashboard counts, and uploaded files awaiting
//! import, the contacts logged on leads, the leads' tags, the e-mail of follow-ups due, and each
//! person's saved views of the leads list; on SQLite, whether a list in an indexed order walks
//! that index.

pub(crate) mod change_groups;
pub(crate) mod contacts;
pub(crate) mod daily_counts;
pub(crate) mod dashboard;
pub(crate) mod digests;
pub(crate) mod enrichment_retries;
pub(crate) mod fresh_submissions;
pub(crate) mod lead_row;
pub(crate) mod lead_search;
pub(crate) mod lead_tags;
pub(crate) mod lead_work;
pub(crate) mod lead_writes;
pub(crate) mod leads;
pub(crate) mod merge_leads;
pub(crate) mod order_walk;
pub(crate) mod outcomes;
pub(crate) mod plan_store;
pub(crate) mod saved_views;
pub(crate) mod single_intake;
pub(crate) mod submission_rows;
pub(crate) mod submissions;
pub(crate) mod turns;
pub(crate) mod unindexed;
pub(crate) mod uploads;
pub(crate) mod word_search;

/// The positions of `items` in the order of their leads' ids: the order in which every
/// transaction that changes several leads changes them, so that two never wait on each other's
/// rows in opposite orders (on PostgreSQL a deadlock, which fails one of them).
pub(crate) fn in_lead_order<T>(items: &[T], lead_id: impl Fn(&T) -> i64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| lead_id(&items[i]));
    order
}
