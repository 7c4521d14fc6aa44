//! The `Mailer` port's adapters: SMTP (lettre), an outbox folder of `.eml` files, and memory (for
//! tests). All three render the same tera templates into a multipart/alternative e-mail with a
//! plain-text and an HTML part.
#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use leadhub_domain::mail::Mailer;

mod compose;
mod counted;
mod memory;
mod outbox;
mod render;
mod smtp;

pub use compose::{compose, Composed, Sender};
pub use counted::CountedMailer;
pub use memory::{MemoryMailer, SentMail};
pub use outbox::OutboxMailer;
pub use render::{check_templates, html_templates, render, Rendered};
pub use smtp::{SmtpMailer, DEFAULT_CONNECT_TIMEOUT, DEFAULT_SEND_TIMEOUT};

/// The sender when `LEADHUB_MAIL_FROM` is not set.
pub const DEFAULT_FROM: &str = "leadhub <noreply@localhost>";

/// Builds the mailer for the composition root: SMTP when `smtp_url` is given (`LEADHUB_SMTP_URL`),
/// else `.eml` files in `outbox_dir` (`<data dir>/outbox`). A blank URL counts as absent. Checks
/// the URL, the sender and the templates now, so a bad configuration stops the start-up.
pub fn build(
    smtp_url: Option<&str>,
    from: &str,
    outbox_dir: &Path,
) -> anyhow::Result<Arc<dyn Mailer>> {
    check_templates().context("e-mail templates")?;
    Sender::parse(from).context("LEADHUB_MAIL_FROM")?;
    match smtp_url.map(str::trim).filter(|url| !url.is_empty()) {
        Some(url) => {
            let mailer = SmtpMailer::new(url, from).context("LEADHUB_SMTP_URL")?;
            tracing::info!(server = mailer.server(), "e-mail goes out over SMTP");
            Ok(Arc::new(mailer))
        }
        None => {
            let mailer = OutboxMailer::new(outbox_dir, from).context("e-mail outbox")?;
            tracing::info!(
                folder = %outbox_dir.display(),
                "no LEADHUB_SMTP_URL: e-mails are written to the outbox folder"
            );
            Ok(Arc::new(mailer))
        }
    }
}
