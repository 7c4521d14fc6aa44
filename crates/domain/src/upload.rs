//! CSV files uploaded from the pages: stored whole (so the import survives a restart), imported by
//! a job, and seen only by the members of the team they were uploaded into.
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::business::RelationshipType;
use crate::error::{FieldError, ServiceError};
use crate::import::{ColumnMap, ImportKind};
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

/// Stored as `awaiting_columns`, `queued`, `running`, `done`, `failed`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum UploadStatus {
    /// Stored, not queued: its header has columns we do not know (or only guess at), and the
    /// person who uploaded it is asked which field each feeds (`UploadService::choose_columns`).
    AwaitingColumns,
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

    /// Queued or running: its page follows the import.
    pub fn is_importing(self) -> bool {
        matches!(self, UploadStatus::Queued | UploadStatus::Running)
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
    /// Stored `AwaitingColumns` with no job, rather than queued.
    pub awaiting_columns: bool,
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
    /// Replaces the options of an upload awaiting its columns and queues its import job, in one
    /// transaction; false (nothing changed) when it is no longer awaiting them.
    async fn queue_with_columns(
        &self,
        id: i64,
        options: serde_json::Value,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Deletes an upload still awaiting its columns (nothing was imported from it); false when
    /// it is no longer awaiting them.
    async fn discard_awaiting(&self, id: i64) -> StoreResult<bool>;
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

    /// An upload `user` may see with its file.
    pub async fn with_file(&self, user: &User, id: i64) -> Result<(Upload, Vec<u8>), ServiceError> {
        let upload = self.visible(user, id).await?;
        let content = self
            .uploads
            .upload_content(id)
            .await?
            .ok_or(ServiceError::NotFound("Upload"))?;
        Ok((upload, content))
    }

    /// Queues the import of an upload awaiting its columns, with the field each column feeds as
    /// `user` chose it (`choices[i]` for `headers[i]`, the file's header row), when they may add
    /// to its team. Ok(false): it was queued already (a form sent twice). A choice that cannot be
    /// imported is `Invalid`, saying why.
    pub async fn choose_columns(
        &self,
        user: &User,
        id: i64,
        headers: &[String],
        choices: Vec<Option<String>>,
    ) -> Result<bool, ServiceError> {
        let Some(upload) = self.awaiting(user, id).await? else {
            return Ok(false);
        };
        let kind = import_kind(upload.kind, &upload.options);
        if let Err(problem) = ColumnMap::chosen(&kind, headers, &choices) {
            let loc = vec!["columns".into()];
            return Err(ServiceError::Invalid(vec![FieldError::new(
                loc, "columns", problem,
            )]));
        }
        let mut options = upload.options;
        if !options.is_object() {
            options = serde_json::json!({});
        }
        options["columns"] = serde_json::json!(choices);
        Ok(self
            .uploads
            .queue_with_columns(id, options, self.clock.now())
            .await?)
    }

    /// Discards an upload awaiting its columns (the wrong file, or one to fix first), when
    /// `user` may add to its team: it is gone, as nothing was imported from it. Ok(false): it is
    /// no longer awaiting its columns (queued meanwhile), and stays.
    pub async fn discard(&self, user: &User, id: i64) -> Result<bool, ServiceError> {
        if self.awaiting(user, id).await?.is_none() {
            return Ok(false);
        }
        Ok(self.uploads.discard_awaiting(id).await?)
    }

    /// The upload `user` may see, when they may also add to its team (else `Forbidden`, as for
    /// `start`) and it awaits its columns (else None).
    async fn awaiting(&self, user: &User, id: i64) -> Result<Option<Upload>, ServiceError> {
        let upload = self.visible(user, id).await?;
        may_add_to_team(self.memberships.as_ref(), user, upload.team_id)
            .await?
            .map_err(|reason| ServiceError::Forbidden(reason.into()))?;
        Ok((upload.status == UploadStatus::AwaitingColumns).then_some(upload))
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

/// The import settings an upload carries: the business import's options (the CLI's flags).
pub fn import_kind(kind: UploadKind, options: &serde_json::Value) -> ImportKind {
    match kind {
        UploadKind::Leads => ImportKind::Leads,
        UploadKind::Businesses => ImportKind::Businesses {
            relationship_type: options["relationship_type"]
                .as_str()
                .and_then(RelationshipType::parse)
                .unwrap_or(RelationshipType::Prospect),
            skip_duplicates: options["skip_duplicates"].as_bool().unwrap_or(true),
            auto_categorize: options["auto_categorize"].as_bool().unwrap_or(true),
        },
    }
}

/// The tags an upload gives every lead of its file (the form's "Tag every lead"), stored form.
pub fn file_tags(options: &serde_json::Value) -> Vec<String> {
    let given = options["tags"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    given
        .iter()
        .filter_map(|t| crate::lead::work::parse_tag(t.as_str()?).ok())
        .collect()
}

/// The source an upload gives each lead row without its own (the form's "Source of these
/// leads"), as `import::file_source` kept it.
pub fn lead_source(options: &serde_json::Value) -> Option<String> {
    options["source"].as_str().map(str::to_owned)
}

/// The fields an upload's columns were chosen to feed (`choose_columns`), if they were.
pub fn chosen_columns(options: &serde_json::Value) -> Option<Vec<Option<String>>> {
    serde_json::from_value(options.get("columns")?.clone()).ok()
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
            awaiting_columns: false,
        };
        let started = service(uploads, memberships).start(&ada(), upload).await;
        assert!(matches!(started, Ok(7)), "{started:?}");
    }

    fn awaiting(team_id: i64) -> Upload {
        Upload {
            status: UploadStatus::AwaitingColumns,
            options: serde_json::json!({ "relationship_type": null }),
            ..stored(team_id)
        }
    }

    #[tokio::test]
    async fn chosen_columns_queue_the_import_with_them() {
        let mut uploads = MockUploadStore::new();
        uploads.expect_upload().returning(|_| Ok(Some(awaiting(1))));
        uploads
            .expect_queue_with_columns()
            .withf(|id, options, _| {
                *id == 7
                    && chosen_columns(options) == Some(vec![Some("address".to_owned()), None])
                    && options["relationship_type"].is_null()
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let headers = ["Prop Addr".to_owned(), "Year Built".to_owned()];
        let choices = vec![Some("address".to_owned()), None];
        let queued = service(uploads, memberships)
            .choose_columns(&ada(), 7, &headers, choices)
            .await;
        assert!(matches!(queued, Ok(true)), "{queued:?}");
    }

    #[tokio::test]
    async fn columns_that_cannot_be_imported_are_refused_and_nothing_is_queued() {
        // No expectation on queue_with_columns: queueing would panic the mock.
        let mut uploads = MockUploadStore::new();
        uploads.expect_upload().returning(|_| Ok(Some(awaiting(1))));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let headers = ["A".to_owned(), "B".to_owned()];
        let twice = vec![Some("city".to_owned()), Some("city".to_owned())];
        let refused = service(uploads, memberships)
            .choose_columns(&ada(), 7, &headers, twice)
            .await;
        let Err(ServiceError::Invalid(errors)) = refused else {
            panic!("{refused:?}");
        };
        assert!(errors[0].msg.contains("both feed city"), "{errors:?}");
    }

    #[tokio::test]
    async fn an_upload_queued_already_is_left_as_it_is() {
        let mut uploads = MockUploadStore::new();
        uploads.expect_upload().returning(|_| Ok(Some(stored(1))));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let headers = ["A".to_owned()];
        let again = service(uploads, memberships)
            .choose_columns(&ada(), 7, &headers, vec![Some("city".to_owned())])
            .await;
        assert!(matches!(again, Ok(false)), "{again:?}");
    }

    #[tokio::test]
    async fn only_an_upload_awaiting_its_columns_is_discarded() {
        let mut uploads = MockUploadStore::new();
        uploads
            .expect_upload()
            .returning(|id| Ok(Some(if id == 7 { awaiting(1) } else { stored(1) })));
        uploads
            .expect_discard_awaiting()
            .withf(|id| *id == 7)
            .times(1)
            .returning(|_| Ok(true));
        let memberships = roster_memberships(vec![(1, ada().id, Role::Member, true)]);
        let service = service(uploads, memberships);
        assert!(matches!(service.discard(&ada(), 7).await, Ok(true)));
        assert!(matches!(service.discard(&ada(), 8).await, Ok(false)));
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
            awaiting_columns: false,
        };
        assert!(matches!(
            service.start(&person(5, "eve@example.com"), upload).await,
            Err(ServiceError::Forbidden(_))
        ));
    }
}
