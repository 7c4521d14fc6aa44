//! Delivery into a folder: each message becomes one `.eml` file (the full RFC 5322 message as it
//! would go over SMTP). The default when no SMTP server is configured.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use chrono::Utc;
use leadhub_domain::mail::{MailError, Mailer, Message};

use crate::compose::{compose, kind, Sender};

#[derive(Debug)]
pub struct OutboxMailer {
    sender: Sender,
    dir: PathBuf,
    sequence: AtomicU64,
}

impl OutboxMailer {
    /// Creates the folder when it is missing, so a folder that cannot be written to is found at
    /// start-up rather than at the first e-mail.
    pub fn new(dir: impl Into<PathBuf>, from: &str) -> Result<Self, MailError> {
        let sender = Sender::parse(from)?;
        let dir = dir.into();
        create_dir(&dir)?;
        Ok(Self {
            sender,
            dir,
            sequence: AtomicU64::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `20260131T170405.123456Z-p4242-000001-invite.eml`: sorts by time; the process id and a
    /// per-process sequence make it unique among processes sharing the folder.
    fn file_name(&self, message: &Message) -> String {
        let sequence = self.sequence.fetch_add(1, Ordering::Relaxed) + 1;
        format!(
            "{}-p{}-{:06}-{}.eml",
            Utc::now().format("%Y%m%dT%H%M%S%.6fZ"),
            std::process::id(),
            sequence,
            kind(message)
        )
    }
}

#[async_trait]
impl Mailer for OutboxMailer {
    async fn send(&self, message: &Message) -> Result<(), MailError> {
        let composed = compose(&self.sender, message)?;
        let bytes = composed.email.formatted();
        let dir = self.dir.clone();
        let name = self.file_name(message);
        let path = tokio::task::spawn_blocking(move || write_eml(&dir, &name, &bytes))
            .await
            .map_err(|e| MailError(format!("writing to the outbox failed: {e}")))??;
        tracing::info!(kind = kind(message), path = %path.display(), "e-mail written to the outbox");
        Ok(())
    }
}

/// Writes under a hidden temporary name, then renames, so a reader of the folder never sees a
/// half-written message.
fn write_eml(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, MailError> {
    create_dir(dir)?;
    let fail = |what: &str, e: std::io::Error| {
        MailError(format!(
            "{what} in the outbox {} failed: {e}",
            dir.display()
        ))
    };
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    // Like the folder, each message is its owner's only: it holds a sign-in or invite link.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp).map_err(|e| fail("creating a file", e))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("writing a file", e));
    }
    Ok(path)
}

fn create_dir(dir: &Path) -> Result<(), MailError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    // The messages hold sign-in links: keep a new folder private to its owner.
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| {
        MailError(format!(
            "cannot create the outbox folder {}: {e}",
            dir.display()
        ))
    })
}
