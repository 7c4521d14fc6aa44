//! The outbox folder of `.eml` files, and `build` choosing it when no SMTP URL is set.
mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{invite, parse_eml, sign_in, INVITE_URL, SIGN_IN_URL};
use leadhub_domain::mail::Mailer;
use leadhub_mail::{build, OutboxMailer, DEFAULT_FROM};

/// A fresh folder per test under the system temp folder, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "leadhub-mail-{name}-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn eml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read outbox")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
}

#[tokio::test]
async fn writes_one_parseable_eml_per_message_into_a_new_folder() {
    let tmp = TempDir::new("write");
    let outbox = tmp.0.join("data").join("outbox");
    let mailer = OutboxMailer::new(&outbox, DEFAULT_FROM).expect("outbox");
    assert!(outbox.is_dir(), "created at construction");

    mailer.send(&invite("Roofing Crew")).await.expect("sent");
    mailer.send(&sign_in()).await.expect("sent");

    let files = eml_files(&outbox);
    assert_eq!(files.len(), 2, "{files:?}");
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(names[0].ends_with("-invite.eml"), "{names:?}");
    assert!(
        names[1].ends_with("-sign-in.eml"),
        "sorted by time: {names:?}"
    );

    let first = parse_eml(&std::fs::read(&files[0]).expect("read"));
    assert_eq!(first.content_type, "multipart/alternative");
    assert_eq!(first.to, "new.member@example.org");
    assert_eq!(first.from, "noreply@localhost");
    first.assert_invite_to("Roofing Crew");
    let second = parse_eml(&std::fs::read(&files[1]).expect("read"));
    assert!(second.text.contains(SIGN_IN_URL));

    let raw = std::fs::read_to_string(&files[0]).expect("read");
    assert!(raw.contains("\r\n"), "RFC 5322 line ends");
    assert!(raw.contains("MIME-Version: 1.0"));

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&outbox)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "a new outbox is private: {mode:o}");
        for file in &files {
            let mode = std::fs::metadata(file).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "a message is private: {mode:o}");
        }
    }
}

#[tokio::test]
async fn names_are_unique_and_time_ordered_under_concurrency() {
    let tmp = TempDir::new("concurrent");
    let mailer = Arc::new(OutboxMailer::new(&tmp.0, DEFAULT_FROM).expect("outbox"));
    let sends = (0..40).map(|_| {
        let mailer = Arc::clone(&mailer);
        tokio::spawn(async move { mailer.send(&sign_in()).await })
    });
    for send in sends.collect::<Vec<_>>() {
        send.await.expect("joined").expect("sent");
    }
    let files = eml_files(&tmp.0);
    assert_eq!(
        files.len(),
        40,
        "no file overwritten, no temp file left: {files:?}"
    );
    assert!(files
        .iter()
        .all(|f| f.extension().is_some_and(|e| e == "eml")));
}

#[tokio::test]
async fn recreates_a_folder_removed_while_running() {
    let tmp = TempDir::new("recreate");
    let mailer = OutboxMailer::new(&tmp.0, DEFAULT_FROM).expect("outbox");
    std::fs::remove_dir_all(&tmp.0).expect("removed");
    mailer.send(&sign_in()).await.expect("sent");
    assert_eq!(eml_files(&tmp.0).len(), 1);
}

#[tokio::test]
async fn build_without_smtp_url_writes_to_the_outbox() {
    let tmp = TempDir::new("build");
    for url in [None, Some(""), Some("  ")] {
        let mailer = build(url, "Leadhub <noreply@leads.example.com>", &tmp.0).expect("built");
        mailer.send(&invite("Roofing Crew")).await.expect("sent");
    }
    let files = eml_files(&tmp.0);
    assert_eq!(files.len(), 3);
    let parsed = parse_eml(&std::fs::read(&files[0]).expect("read"));
    assert_eq!(parsed.from, "noreply@leads.example.com");
    assert!(parsed.text.contains(INVITE_URL));
}

#[test]
fn build_refuses_a_bad_configuration_with_clear_messages() {
    let tmp = TempDir::new("refuse");
    let message = |r: anyhow::Result<Arc<dyn Mailer>>| match r {
        Ok(_) => String::from("accepted"),
        Err(e) => format!("{e:#}"),
    };

    let bad_from = message(build(None, "leadhub", &tmp.0));
    assert!(bad_from.starts_with("LEADHUB_MAIL_FROM: "), "{bad_from}");
    assert!(bad_from.contains("Name <user@example.com>"), "{bad_from}");

    let bad_scheme = message(build(Some("http://mail.example.com"), DEFAULT_FROM, &tmp.0));
    assert!(bad_scheme.starts_with("LEADHUB_SMTP_URL: "), "{bad_scheme}");
    assert!(bad_scheme.contains("smtp://"), "{bad_scheme}");

    let bad_tls = message(build(
        Some("smtp://user:hunter2@mail.example.com?tls=sometimes"),
        DEFAULT_FROM,
        &tmp.0,
    ));
    assert!(bad_tls.starts_with("LEADHUB_SMTP_URL: "), "{bad_tls}");
    assert!(
        !bad_tls.contains("hunter2"),
        "no password in messages: {bad_tls}"
    );

    let no_password = message(build(
        Some("smtp://user@mail.example.com"),
        DEFAULT_FROM,
        &tmp.0,
    ));
    assert!(no_password.contains("needs a password"), "{no_password}");

    // A file where the folder should be.
    std::fs::create_dir_all(&tmp.0).expect("tmp");
    let file = tmp.0.join("not-a-folder");
    std::fs::write(&file, b"x").expect("file");
    let not_a_folder = message(build(None, DEFAULT_FROM, &file.join("outbox")));
    assert!(
        not_a_folder.contains("cannot create the outbox folder"),
        "{not_a_folder}"
    );

    // Valid forms are accepted without connecting (no server runs there).
    for url in [
        "smtp://127.0.0.1:2525",
        "smtp://user:p%40ss@mail.example.com:587?tls=required",
        "smtps://user:pass@mail.example.com",
    ] {
        assert_eq!(
            message(build(Some(url), DEFAULT_FROM, &tmp.0)),
            "accepted",
            "{url}"
        );
    }
}
