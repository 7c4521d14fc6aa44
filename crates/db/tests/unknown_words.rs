//! A stored word the code does not know (a status, a role, a token kind) is reported as an
//! unexpected store error naming the column and the value, never read as some other word.
//! On SQLite, and on PostgreSQL when `TEST_DATABASE_URL` is set.
#![allow(clippy::unwrap_used)]
mod common;
use common::{OwnFile, OwnSchema};

use diesel::connection::SimpleConnection;
use leadhub_db::Database;
use leadhub_domain::lead::record::{EnrichmentStatus, LeadRepository};
use leadhub_domain::session::{SessionRepository, TokenKind};
use leadhub_domain::store::StoreError;
use leadhub_domain::submission::{SubmissionRepository, SubmissionStatus};
use leadhub_domain::team::Role;
use leadhub_domain::team_access::MembershipRepository;

const AT: &str = "'2026-11-01 10:00:00'";

/// Rows 1 hold known words, rows 2 unknown ones.
fn rows() -> String {
    format!(
        "INSERT INTO users (id, user_id, email, is_admin, created_at, updated_at) VALUES \
           (1, 'u1', 'a@example.com', false, {AT}, {AT}), (2, 'u2', 'b@example.com', false, {AT}, {AT});
         INSERT INTO teams (id, name, is_active, created_by, created_at, updated_at) VALUES \
           (1, 'T', true, 1, {AT}, {AT});
         INSERT INTO team_members (id, team_id, user_id, role, is_active, joined_at) VALUES \
           (1, 1, 1, 'admin', true, {AT}), (2, 1, 2, 'superuser', true, {AT});
         INSERT INTO auth_tokens (id, user_id, kind, token_hash, family_id, created_at, expires_at) VALUES \
           (1, 1, 'refresh', 'h1', 'f', {AT}, {AT}), (2, 1, 'api', 'h2', 'f', {AT}, {AT});
         INSERT INTO leads (id, dedupe_scope, enrichment_status, created_by, created_at, updated_at) VALUES \
           (1, 0, 'partial', 1, {AT}, {AT}), (2, 0, 'bogus', 1, {AT}, {AT});
         INSERT INTO submissions (id, user_id, raw_json, status, result_action, created_at) VALUES \
           (1, 1, '{{}}', 'duplicate', 'skipped', {AT}), (2, 1, '{{}}', 'archived', NULL, {AT}), \
           (3, 1, '{{}}', 'completed', 'merged', {AT});"
    )
}

fn names_the_word(error: StoreError, column: &str, value: &str) {
    let StoreError::Unexpected(e) = error else {
        panic!("not unexpected: {error:?}");
    };
    let message = e.to_string();
    assert!(
        message.contains(column) && message.contains(&format!("{value:?}")),
        "{message}"
    );
}

async fn check(db: &Database) {
    db.migrate().unwrap();
    let sql = rows();
    db.write(move |conn| conn.batch_execute(&sql))
        .await
        .unwrap();

    let lead = db.find_lead(1).await.unwrap().unwrap();
    assert_eq!(lead.enrichment_status, EnrichmentStatus::Partial);
    let submission = db.find_submission(1).await.unwrap().unwrap();
    assert_eq!(submission.status, SubmissionStatus::Duplicate);
    let membership = db.membership(1, 1).await.unwrap().unwrap();
    assert_eq!(membership.role, Role::Admin);
    let token = db.find_token("h1").await.unwrap().unwrap();
    assert_eq!(token.kind, TokenKind::Refresh);

    // (the error reading a row, the column, the unknown word in it)
    let refused = [
        (
            db.find_lead(2).await.unwrap_err(),
            "leads.enrichment_status",
            "bogus",
        ),
        (
            db.find_leads(vec![1, 2]).await.unwrap_err(),
            "leads.enrichment_status",
            "bogus",
        ),
        (
            db.find_submission(2).await.unwrap_err(),
            "submissions.status",
            "archived",
        ),
        (
            db.find_submission(3).await.unwrap_err(),
            "submissions.result_action",
            "merged",
        ),
        (
            db.membership(1, 2).await.unwrap_err(),
            "team_members.role",
            "superuser",
        ),
        (
            db.find_token("h2").await.unwrap_err(),
            "auth_tokens.kind",
            "api",
        ),
    ];
    for (error, column, value) in refused {
        names_the_word(error, column, value);
    }
}

#[tokio::test]
async fn unknown_words_are_reported_on_sqlite() {
    let file = OwnFile::create("words");
    let db = Database::connect(&file.url(), 2).unwrap();
    check(&db).await;
    drop(db);
    file.remove();
}

#[tokio::test]
async fn unknown_words_are_reported_on_postgres() {
    let Some(schema) = OwnSchema::on_test_database("words", "unknown words on PostgreSQL") else {
        return;
    };
    let db = Database::connect(&schema.url, 2).unwrap();
    check(&db).await;
    drop(db);
    schema.remove();
}
