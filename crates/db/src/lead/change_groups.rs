//! Lead changes that arrive together are written together (SQLite).
//!
//! SQLite has one writer, and a lead change is a short transaction whose commit (the WAL
//! frames, the search index's flush) costs as much as its statements: sixteen people editing
//! leads at once spent most of their time queueing for each other's commits. Here each change
//! joins a queue, and one runner on the blocking pool writes everything queued so far in one
//! transaction, each change in a savepoint of its own, so one change's failure or conflict
//! undoes only that change. Nobody waits for a group to fill: a lone change is written at
//! once, and groups grow only while earlier ones are being written ("group commit").
//! PostgreSQL, whose commits overlap, writes each change in its own transaction.
use std::sync::Arc;

use diesel::{Connection, QueryResult};
use tokio::runtime::Handle;

use leadhub_domain::lead::work::{ChangeSaved, LeadChange};
use leadhub_domain::store::{
    DatabaseReadOnly, DatabaseUnreachable, StorageFull, StoreError, StoreResult,
};

use crate::pool::group_commit::{GroupCommit, Member};
use crate::sql::error::store_error;
use crate::{Database, DbConnection};

/// The most changes one transaction writes; the rest wait for the next.
const MAX_GROUP: usize = 256;

/// Changes waiting for the writer. One runner: SQLite has one writer, so a second would only
/// wait for its turn.
pub(crate) type ChangeQueue = GroupCommit<LeadChange, StoreResult<ChangeSaved>>;

/// The queue a `Database` holds.
pub(crate) fn change_queue() -> Arc<ChangeQueue> {
    Arc::new(GroupCommit::new("lead change", MAX_GROUP, 1))
}

impl Database {
    /// Queues `change` and answers once the group it joined is committed.
    pub(crate) async fn save_change_in_group(
        &self,
        change: LeadChange,
    ) -> StoreResult<ChangeSaved> {
        let writer = || {
            let db = self.clone();
            move |group| db.write_and_answer(group)
        };
        self.lead_changes
            .submit(change, &Handle::current(), writer)
            .await
            .map_err(|_| StoreError::Unexpected(anyhow::anyhow!("the lead change queue stopped")))?
    }

    /// Writes one group and answers each of its members.
    fn write_and_answer(&self, group: Vec<Member<LeadChange, StoreResult<ChangeSaved>>>) {
        let (changes, replies): (Vec<LeadChange>, Vec<_>) = group.into_iter().unzip();
        match self.write_here(move |conn| write_group(conn, &changes)) {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    let outcome = outcome.map_err(store_error);
                    if let Err(e) = &outcome {
                        self.note_storage_error(e);
                    }
                    // A caller that went away still has its change written.
                    let _ = reply.send(outcome);
                }
            }
            Err(e) => {
                for reply in replies {
                    let _ = reply.send(Err(copy_of(&e)));
                }
            }
        }
    }
}

/// One transaction: each change in its own savepoint, answered as `save_change` answers it.
/// The outer error is the commit's (or the storage's), which every member hears of.
fn write_group(
    conn: &mut DbConnection,
    changes: &[LeadChange],
) -> QueryResult<Vec<QueryResult<ChangeSaved>>> {
    conn.transaction(|conn| {
        Ok(changes
            .iter()
            .map(|change| super::lead_work::save_one(conn, change))
            .collect())
    })
}

/// The group's error for each of its members: a full storage or a read-only database stays
/// one (507, 503), the rest keeps its message.
fn copy_of(error: &StoreError) -> StoreError {
    match error {
        StoreError::Conflict(text) => StoreError::Conflict(text.clone()),
        StoreError::Unexpected(cause) => StoreError::Unexpected(copy_of_fault(cause)),
    }
}

/// A copy of a group's fault for one of its members: a full storage or a read-only database
/// stays one (507, 503), any other keeps its message.
pub(crate) fn copy_of_fault(cause: &anyhow::Error) -> anyhow::Error {
    let found = |c: &(dyn std::error::Error + 'static)| {
        if let Some(full) = c.downcast_ref::<StorageFull>() {
            Some(anyhow::Error::new(StorageFull(full.0.clone())))
        } else if let Some(gone) = c.downcast_ref::<DatabaseUnreachable>() {
            Some(anyhow::Error::new(DatabaseUnreachable(gone.0.clone())))
        } else {
            c.downcast_ref::<DatabaseReadOnly>()
                .map(|ro| anyhow::Error::new(DatabaseReadOnly(ro.0.clone())))
        }
    };
    cause
        .chain()
        .find_map(found)
        .unwrap_or_else(|| anyhow::anyhow!("{cause:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::store::{is_database_read_only, is_storage_full};

    #[test]
    fn each_member_hears_the_groups_fault_for_what_it_is() {
        let full = StoreError::Unexpected(anyhow::Error::new(StorageFull("disk".into())));
        let read_only = StoreError::Unexpected(
            anyhow::Error::new(DatabaseReadOnly("ro".into())).context("writing a group"),
        );
        let other = StoreError::Unexpected(anyhow::anyhow!("boom").context("writing a group"));
        let StoreError::Unexpected(copy) = copy_of(&full) else {
            panic!("not unexpected")
        };
        assert!(is_storage_full(&copy));
        let StoreError::Unexpected(copy) = copy_of(&read_only) else {
            panic!("not unexpected")
        };
        assert!(is_database_read_only(&copy));
        let StoreError::Unexpected(copy) = copy_of(&other) else {
            panic!("not unexpected")
        };
        assert_eq!(format!("{copy:#}"), "writing a group: boom");
        assert!(matches!(
            copy_of(&StoreError::Conflict("taken".into())),
            StoreError::Conflict(t) if t == "taken"
        ));
    }
}
