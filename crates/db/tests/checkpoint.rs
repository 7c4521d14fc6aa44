//! SQLite's write-ahead log is copied back into the database file in the background, soon
//! after writes, without any commit crossing the automatic checkpoint threshold.
#![allow(clippy::unwrap_used)]

mod common;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use leadhub_db::Database;

use common::OwnFile;

fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_pages_reach_the_database_file_without_a_large_commit() {
    let file = OwnFile::create("checkpoint");
    let path = file.path.clone();
    let db = Database::connect(&file.url(), 2).unwrap();
    db.write(|conn| conn.batch_execute("CREATE TABLE filler (body BLOB NOT NULL)"))
        .await
        .unwrap();
    // Let the table's creation be checkpointed too, then measure from there.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = file_len(&path);
    // About 100 pages: far below the 4000 after which a commit would checkpoint by itself.
    db.write(|conn| {
        conn.batch_execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) \
             INSERT INTO filler (body) SELECT zeroblob(3000) FROM n",
        )
    })
    .await
    .unwrap();
    let started = Instant::now();
    while file_len(&path) < before + 250_000 && started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let after = file_len(&path);
    drop(db);
    file.remove();
    assert!(
        after >= before + 250_000,
        "the database file did not grow ({before} -> {after} bytes): nothing checkpointed"
    );
}
