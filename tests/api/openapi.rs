//! `/openapi.json` checked by a real validator (PyPI's `openapi-spec-validator`; CI installs it,
//! elsewhere the check is skipped with a notice, and fails with CI set if missing), and held
//! against the routes the API registers.
use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use leadhub_tests::python::python_has;
use leadhub_tests::{backend_tests, Backend, TestApp, TestDatabase};

#[test]
fn openapi_document_is_valid_openapi_3() {
    if !python_has("openapi_spec_validator", "OpenAPI validation") {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let spec = runtime.block_on(async {
        let app = TestApp::start(TestDatabase::create(Backend::Sqlite).unwrap()).await;
        app.get_text("/openapi.json").await
    });
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import json,sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(sys.stdin))\nprint('valid')",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(spec.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "openapi-spec-validator rejected /openapi.json:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Operations anyone may call: every other /api operation needs the Bearer scheme.
const PUBLIC: [&str; 5] = [
    "/api/auth/magic-link",
    "/api/auth/verify",
    "/api/auth/refresh",
    "/api/invites/{token}",
    "/api/invites/{token}/accept",
];

/// Every route the API registers is an operation of the document and every operation is
/// registered; each answers for itself (not the unknown-route 404), and each carries its
/// operationId, tag, summary, security and error answers with bodies that resolve.
async fn every_route_is_documented(app: TestApp) {
    let spec: Value = serde_json::from_str(&app.get_text("/openapi.json").await).unwrap();
    let mut documented = BTreeSet::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            documented.insert((method.to_uppercase(), path.clone()));
            let what = format!("{method} {path}");
            assert!(op["operationId"].is_string(), "{what}: operationId");
            assert_eq!(op["tags"].as_array().map(Vec::len), Some(1), "{what}: tag");
            assert!(
                !op["summary"].as_str().unwrap_or("").is_empty(),
                "{what}: summary"
            );
            let secured = path.starts_with("/api") && !PUBLIC.contains(&path.as_str());
            assert_eq!(
                op.get("security") == Some(&json!([{"bearer": []}])),
                secured,
                "{what}: security"
            );
            let responses = op["responses"].as_object().unwrap();
            for (status, response) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    let reference = response["content"]["application/json"]["schema"]["$ref"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{what}: {status} has no body"));
                    let name = reference.trim_start_matches("#/components/schemas/");
                    assert!(
                        spec["components"]["schemas"][name]["properties"]["detail"].is_object(),
                        "{what}: {status} body {reference}"
                    );
                }
            }
            let statuses: BTreeSet<&str> = responses.keys().map(String::as_str).collect();
            if path.starts_with("/api") {
                assert!(statuses.contains("429"), "{what}: 429");
            }
            if secured {
                assert!(statuses.contains("401"), "{what}: 401");
            }
            if op.get("requestBody").is_some() || op.get("parameters").is_some() {
                assert!(statuses.contains("422"), "{what}: 422");
            }
        }
    }
    let served: BTreeSet<(String, String)> = leadhub_api::served()
        .into_iter()
        .map(|(method, path)| (method.to_string(), path.to_owned()))
        .collect();
    assert_eq!(served, documented, "routes served and documented");
    for (method, path) in &served {
        let concrete = path
            .split('/')
            .map(|part| if part.starts_with('{') { "1" } else { part })
            .collect::<Vec<_>>()
            .join("/");
        let (status, body) = app
            .call(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                &concrete,
                None,
                Some(&json!({})),
            )
            .await;
        assert!(
            !(status == reqwest::StatusCode::NOT_FOUND && body == json!({"detail": "Not found"})),
            "{method} {path} is registered but not served"
        );
    }
}

backend_tests!(every_route_is_documented);
