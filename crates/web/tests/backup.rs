//! `leadhub backup` while a server takes leads: the copy is consistent and serves again.
#![allow(clippy::unwrap_used)]

mod binary;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use binary::{json_of, wait_up, Env};

/// Posts single leads, each a new property, until told to stop; counts the stored ones.
async fn keep_submitting(
    task: u64,
    base: String,
    key: String,
    stop: Arc<AtomicBool>,
    stored: Arc<AtomicU64>,
) {
    let client = reqwest::Client::new();
    let mut n = task * 1_000_000;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let lead = json!({"address": format!("{n} Backup Way"), "city": "Austin", "state": "TX",
                          "zip_code": "78701", "first_name": "Load"});
        let answer = client
            .post(format!("{base}/api/v1/submissions/single"))
            .bearer_auth(&key)
            .json(&lead)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
        stored.fetch_add(1, Ordering::SeqCst);
    }
}

async fn lead_total(client: &reqwest::Client, base: &str, key: &str) -> u64 {
    let list = json_of(
        client
            .get(format!("{base}/api/v1/leads?limit=1"))
            .bearer_auth(key),
    )
    .await;
    list["total"].as_u64().unwrap()
}

#[tokio::test]
async fn a_backup_taken_under_load_is_consistent_and_serves_again() {
    let env = Env::new("backup", false).unwrap();
    let key = env.key();
    let client = reqwest::Client::new();
    let mut command = env.command();
    command
        .env("LEADHUB_RATE_LIMIT_PER_KEY_HOUR", "0")
        .env("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", "0");
    let (server, base) = binary::serve(command);
    wait_up(&client, &base).await;

    let stop = Arc::new(AtomicBool::new(false));
    let stored = Arc::new(AtomicU64::new(0));
    let load: Vec<_> = (0..4u64)
        .map(|task| {
            let (base, key, stop, stored) =
                (base.clone(), key.clone(), stop.clone(), stored.clone());
            tokio::spawn(keep_submitting(task, base, key, stop, stored))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(700)).await;

    let copy = env.dir.join("copy.db");
    let before = stored.load(Ordering::SeqCst);
    let mut command = env.command();
    command.arg("backup").arg(&copy);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let after = stored.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes: u64 = String::from_utf8(output.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(bytes, std::fs::metadata(&copy).unwrap().len());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the copy is private");
    }
    let live = lead_total(&client, &base, &key).await;
    drop(server);

    // Restore: the copy in place of the database, served as it is.
    let restored = env.dir.join("restored");
    std::fs::create_dir_all(&restored).unwrap();
    std::fs::copy(&copy, restored.join("leadhub.db")).unwrap();
    let mut serve = env.command();
    serve.env("LEADHUB_DATA_DIR", &restored).env(
        "DATABASE_URL",
        format!("sqlite://{}", restored.join("leadhub.db").display()),
    );
    let (_restored_server, restored_base) = binary::serve(serve);
    wait_up(&client, &restored_base).await;
    let in_copy = lead_total(&client, &restored_base, &key).await;
    assert!(
        before > 0 && after < live,
        "the load ran before and after the copy: {before} {after} {live} {in_copy}"
    );
    assert!(
        (before..=after).contains(&in_copy),
        "the copy holds the leads stored when it was taken: {before} <= {in_copy} <= {after}"
    );
}

#[test]
fn backup_refuses_an_existing_file_and_postgresql() {
    let env = Env::new("backup-refusals", false).unwrap();
    let existing = env.dir.join("existing.db");
    std::fs::write(&existing, b"keep me").unwrap();
    let output = env.command().arg("backup").arg(&existing).output().unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("exists already"));
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");

    let output = env
        .command()
        .env("DATABASE_URL", "postgres://127.0.0.1:1/none")
        .arg("backup")
        .arg(env.dir.join("pg.db"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("pg_dump"));
    assert!(!env.dir.join("pg.db").exists(), "nothing written");
}
