//! The JSON request path on arbitrary bytes: what `ValidatedJson<T>` does with a body once it has
//! been read (an empty body is `{}` for readers that allow it, else `parse_json_body`), then every
//! `FromBody` reader of the API, the two lead submission readers first. The libFuzzer counterpart
//! of the proptest suite `crates/web/tests/fuzz_bodies.rs`, with the same checks: nothing panics,
//! and every failure is a non-empty 422 problem list located under "body" (malformed JSON:
//! `json_invalid` at an offset within the body), which renders as a 422 with one `detail` entry
//! per problem.
#![no_main]

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::ResponseError;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

use leadhub_domain::error::{FieldError, LocPart};
use leadhub_web::error::ApiError;
use leadhub_web::extract::{parse_json_body, FromBody};
use leadhub_web::routes::auth::{MagicLinkRequest, RefreshRequest, TokenRequest};
use leadhub_web::routes::businesses::{ImportBody, PatchBody};
use leadhub_web::routes::invites::{AcceptBody, NewInviteBody};
use leadhub_web::routes::keys::CreateKeyRequest;
use leadhub_web::routes::batch_body::BatchSubmission;
use leadhub_web::routes::lead_body::SingleSubmission;
use leadhub_web::routes::teams::{CreateTeamRequest, RoleChange, TeamChanges};

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

/// `ValidatedJson<T>` after the body has arrived.
fn read<T: FromBody>(what: &str, body: &[u8], parsed: &Result<Value, Vec<FieldError>>) {
    let empty = Value::Object(serde_json::Map::new());
    let json = if T::empty_is_object() && body.iter().all(u8::is_ascii_whitespace) {
        &empty
    } else {
        match parsed {
            Ok(json) => json,
            Err(_) => return, // checked once, in `fuzz_target!`
        }
    };
    if let Err(problems) = T::from_body(json) {
        check_problems(what, &problems);
    }
}

fuzz_target!(|body: &[u8]| {
    let parsed = parse_json_body(body);
    if let Err(problems) = &parsed {
        check_problems("parse", problems);
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
    read::<SingleSubmission>("single", body, &parsed);
    read::<BatchSubmission>("batch", body, &parsed);
    read::<ImportBody>("import", body, &parsed);
    read::<PatchBody>("business patch", body, &parsed);
    read::<CreateTeamRequest>("create team", body, &parsed);
    read::<TeamChanges>("team changes", body, &parsed);
    read::<RoleChange>("role", body, &parsed);
    read::<MagicLinkRequest>("magic link", body, &parsed);
    read::<TokenRequest>("verify", body, &parsed);
    read::<RefreshRequest>("refresh", body, &parsed);
    read::<CreateKeyRequest>("create key", body, &parsed);
    read::<NewInviteBody>("invite", body, &parsed);
    read::<AcceptBody>("accept", body, &parsed);
});
