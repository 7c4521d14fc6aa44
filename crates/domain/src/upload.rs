//! CSV files uploaded from the pages: stored whole (so the import survives a restart), imported by
//! a job, and seen only by the members of the team they were uploaded into.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::error::ServiceError;
use crate::jobs::NewJob;
use crate::parse::clean_text;
use crate::store::StoreResult;
use crate::team_access::{may_add_to_team, may_see_team, MembershipRepository};
use crate::user::User;
use crate::Clock;

/// Import an upload; payload `{"upload_id": N}`.
pub const IMPORT_UPLOAD: &str = "import_upload";

/// What an upload holds: stored as `leads` or `businesses`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum UploadKind {
    Leads,
    Businesses,
}

impl UploadKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Stored as `queued`, `running`, `done`, `failed`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum UploadStatus {
    Queued,
    Running,
    Done,
    Failed,
}

impl UploadStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn is_final(self) -> bool {
        matches!(self, UploadStatus::Done | UploadStatus::Failed)
    }
}

/// The rows an import has seen so far, by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UploadCounts {
    pub rows: i64,
    pub created: i64,
    /// Merged into an existing lead (a duplicate).
    pub updated: i64,
    pub skipped: i64,
    pub rejected: i64,
    pub failed: i64,
    /// Cells dropped or flagged in rows that were imported.
    pub warnings: i64,
}

/// How an import ended, as the upload keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedUpload {
    /// `Done` or `Failed`.
    pub status: UploadStatus,
    pub counts: UploadCounts,
    /// The reject report (CSV), when rows were rejected or cells warned about.
    pub report: Option<Vec<u8>>,
    /// What the upload page shows of a finished import (encoding, mapping, reasons).
    pub summary: Option<serde_json::Value>,
    /// Why a failed import failed.
    pub error: Option<String>,
}

/// Longest file name kept for an upload, in characters.
pub const FILE_NAME_MAX_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct NewUpload {
    pub kind: UploadKind,
    pub team_id: i64,
    pub user_id: i64,
    pub file_name: String,
    /// The import's settings (for businesses: relationship type and flags), as JSON.
    pub options: serde_json::Value,
    pub content: Vec<u8>,
}

/// An upload without its file and report (those are read on their own).
#[derive(Debug, Clone, PartialEq)]
pub struct Upload {
    pub id: i64,
    pub kind: UploadKind,
    pub team_id: i64,
    pub user_id: i64,
    pub file_name: String,
    pub options: serde_json::Value,
    pub size: i64,
    pub status: UploadStatus,
    pub bytes_done: i64,
    pub counts: UploadCounts,
    /// The finished import's summary for the page (encoding, mapping, ignored columns, top
    /// reasons), as JSON.
    pub summary: Option<serde_json::Value>,
    pub error: Option<String>,
    pub has_report: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait UploadStore: Send + Sync {
    /// Stores the upload and queues its import job in one transaction; returns its id.
    async fn create_upload(&self, upload: NewUpload, at: DateTime<Utc>) -> StoreResult<i64>;
    async fn upload(&self, id: i64) -> StoreResult<Option<Upload>>;
    /// The latest `limit` uploads into these teams, newest first.
    async fn team_uploads(&self, team_ids: Vec<i64>, limit: i64) -> StoreResult<Vec<Upload>>;
    async fn upload_content(&self, id: i64) -> StoreResult<Option<Vec<u8>>>;
    async fn upload_report(&self, id: i64) -> StoreResult<Option<Vec<u8>>>;
    /// Records how far a running import got.
    async fn record_progress(
        &self,
        id: i64,
        bytes_done: i64,
        counts: UploadCounts,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// Records the final state, with the report when rows were rejected or cells warned about.
    async fn finish_upload(
        &self,
        id: i64,
        finished: FinishedUpload,
        at: DateTime<Utc>,
    ) -> StoreResult<()>;
}

/// Uploads for people: who may upload into a team, and who may see an upload.
pub struct UploadService {
    pub uploads: Arc<dyn UploadStore>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub clock: Arc<dyn Clock>,
}

impl UploadService {
    /// Stores the file and queues its import, when the user may add to the team (the API's rule).
    pub async fn start(&self, user: &User, upload: NewUpload) -> Result<i64, ServiceError> {
        may_add_to_team(self.memberships.as_ref(), user, upload.team_id)
            .await?
            .map_err(|reason| ServiceError::Forbidden(reason.into()))?;
        // The browser's name for the file is shown on pages and stored as text: cleaned like any
        // text (control characters dropped: PostgreSQL's text cannot hold NUL) and cut short.
        let file_name = clean_text(&upload.file_name).unwrap_or_default();
        let upload = NewUpload {
            file_name: file_name.chars().take(FILE_NAME_MAX_CHARS).collect(),
            ..upload
        };
        Ok(self.uploads.create_upload(upload, self.clock.now()).await?)
    }

    /// The upload when `user` may see it: a member of its team, or a platform admin. Another
    /// team's upload is "not found", like one that does not exist.
    pub async fn visible(&self, user: &User, id: i64) -> Result<Upload, ServiceError> {
        let upload = self
            .uploads
            .upload(id)
            .await?
            .ok_or(ServiceError::NotFound("Upload"))?;
        let member = may_see_team(self.memberships.as_ref(), user, upload.team_id).await?;
        if member {
            Ok(upload)
        } else {
            Err(ServiceError::NotFound("Upload"))
        }
    }

    /// The latest uploads into the teams `user` belongs to (`team_ids`, the caller's own list of
    /// them), newest first.
    pub async fn recent(
        &self,
        team_ids: Vec<i64>,
        limit: i64,
    ) -> Result<Vec<Upload>, ServiceError> {
        Ok(self.uploads.team_uploads(team_ids, limit).await?)
    }

    /// The reject report of an upload `user` may see.
    pub async fn report(&self, user: &User, id: i64) -> Result<Vec<u8>, ServiceError> {
        self.visible(user, id).await?;
        self.uploads
            .upload_report(id)
            .await?
            .ok_or(ServiceError::NotFound("Report"))
    }
}

/// The job that imports an upload.
pub fn import_job(upload_id: i64, at: DateTime<Utc>) -> NewJob {
    NewJob::now(
        IMPORT_UPLOAD,
        serde_json::json!({ "upload_id": upload_id }),
        at,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::Role;
    use crate::team_access::MockMembershipRepository;
    use crate::test_support::{ada, person, roster_memberships};

    fn service(uploads: MockUploadStore, memberships: MockMembershipRepository) -> UploadService {
        UploadService {
            uploads: Arc::new(uploads),
            memberships: Arc::new(memberships),
            clock: Arc::new(crate::SystemClock),
        }
    }

    fn stored(team_id: i64) -> Upload {
        Upload {
            id: 7,
            kind: UploadKind::Leads,
            team_id,
            user_id: 1,
            file_name: "leads.csv".into(),
            options: serde_json::json!({}),
            size: 10,
            status: UploadStatus::Queued,
            bytes_done: 0,
            counts: UploadCounts::default(),
            summary: None,
            error: None,
            has_report: false,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    #[tokio::test]
    async fn another_teams_upload_is_not_found() {
        let mut uploads = MockUploadStore::new();
        uploads.expect_upload().returning(|_| Ok(Some(stored(2))));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let service = service(uploads, memberships);
        let outsider = person(5, "eve@example.com");
        assert!(matches!(
            service.visible(&outsider, 7).await,
            Err(ServiceError::NotFound(_))
        ));
        assert!(matches!(
            service.report(&outsider, 7).await,
            Err(ServiceError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn the_file_name_is_stored_cleaned_and_cut() {
        let mut uploads = MockUploadStore::new();
        let long = format!(" odd\u{0}\u{1b}  name{}.csv", "x".repeat(300));
        uploads
            .expect_create_upload()
            .withf(|u, _| {
                u.file_name.starts_with("odd name")
                    && u.file_name.chars().count() == FILE_NAME_MAX_CHARS
            })
            .returning(|_, _| Ok(7));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let upload = NewUpload {
            kind: UploadKind::Leads,
            team_id: 1,
            user_id: ada().id,
            file_name: long,
            options: serde_json::json!({}),
            content: b"address\n1 Main St\n".to_vec(),
        };
        let started = service(uploads, memberships).start(&ada(), upload).await;
        assert!(matches!(started, Ok(7)), "{started:?}");
    }

    #[tokio::test]
    async fn an_upload_into_a_foreign_team_is_refused_before_storing() {
        // No expectation on the store: storing would panic the mock.
        let service = service(MockUploadStore::new(), roster_memberships(Vec::new()));
        let upload = NewUpload {
            kind: UploadKind::Leads,
            team_id: 2,
            user_id: 5,
            file_name: "x.csv".into(),
            options: serde_json::json!({}),
            content: b"address\n1 Main St\n".to_vec(),
        };
        assert!(matches!(
            service.start(&person(5, "eve@example.com"), upload).await,
            Err(ServiceError::Forbidden(_))
        ));
    }
}
