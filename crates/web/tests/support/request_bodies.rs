//! The checks shared by the proptest suite (`tests/fuzz_bodies.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/json_body.rs`, which includes this file): what `ValidatedJson<T>` does
//! with a body once it has arrived, for every request body type of the API. Nothing may panic;
//! every failure is a non-empty 422 problem list located under "body", in pydantic's words,
//! rendered as a 422 with one `detail` entry per problem; malformed JSON is `json_invalid` at an
//! offset within the body.
use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::ResponseError;
use serde_json::Value;

use leadhub_api::auth::{MagicLinkRequest, RefreshRequest, TokenRequest};
use leadhub_api::batch_body::BatchSubmission;
use leadhub_api::businesses::{ImportBody, PatchBody};
use leadhub_api::invites::{AcceptRequest, InviteRequest};
use leadhub_api::keys::CreateKeyRequest;
use leadhub_api::lead_body::SubmittedLead;
use leadhub_api::teams::{CreateTeamRequest, RoleRequest, UpdateTeamRequest};
use leadhub_domain::error::{FieldError, LocPart};
use leadhub_http::error::ApiError;
use leadhub_http::extract::{check_json, read_body, RequestBody};

fn check_problems(what: &str, problems: &[FieldError]) {
    assert!(!problems.is_empty(), "{what}: an error without problems");
    for p in problems {
        assert_eq!(
            p.loc.first(),
            Some(&LocPart::from("body")),
            "{what}: loc {:?}",
            p.loc
        );
        assert!(!p.msg.is_empty(), "{what}: empty msg");
        // pydantic-style words: lower snake case.
        assert!(
            !p.kind.is_empty() && p.kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{what}: odd type {:?} ({})",
            p.kind,
            p.msg
        );
    }
    // What the client gets: 422 and a `detail` list with every problem.
    let response = ApiError::Validation(problems.to_vec()).error_response();
    assert_eq!(
        response.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "{what}"
    );
    let body = response.into_body().try_into_bytes().unwrap_or_default();
    let json: Value = serde_json::from_slice(&body).unwrap_or_default();
    let detail = json.get("detail").and_then(Value::as_array).map(Vec::len);
    assert_eq!(detail, Some(problems.len()), "{what}: {json}");
}

/// Reads a body as its type and checks the failure's shape; success is fine too.
fn read<T: RequestBody>(what: &str, body: &[u8]) {
    if let Err(problems) = read_body::<T>(body) {
        check_problems(what, &problems);
    }
}

/// What every body goes through first: malformed JSON is refused in FastAPI's words, at a byte
/// of the body; then every reader, the two lead submission bodies first.
pub fn check_then_read(body: &[u8]) {
    if let Err(problems) = check_json(body) {
        check_problems("parse", &problems);
        assert!(
            problems
                .iter()
                .all(|p| p.kind == "json_invalid" || p.kind == "missing"),
            "{problems:?}"
        );
        if let Some(LocPart::Index(offset)) = problems[0].loc.get(1) {
            assert!(*offset <= body.len());
        }
    }
    read::<SubmittedLead>("single", body);
    read::<BatchSubmission>("batch", body);
    read::<ImportBody>("import", body);
    read::<PatchBody>("business patch", body);
    read::<CreateTeamRequest>("create team", body);
    read::<UpdateTeamRequest>("team changes", body);
    read::<RoleRequest>("role", body);
    read::<MagicLinkRequest>("magic link", body);
    read::<TokenRequest>("verify", body);
    read::<RefreshRequest>("refresh", body);
    read::<CreateKeyRequest>("create key", body);
    read::<InviteRequest>("invite", body);
    read::<AcceptRequest>("accept", body);
}
