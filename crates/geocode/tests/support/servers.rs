//! wiremock servers on 127.0.0.1 and what they were asked, shared by the geocode and appraisal
//! tests (the appraisal tests include this file by path).
#![allow(dead_code)]

use wiremock::matchers::any;
use wiremock::{Mock, MockGuard, MockServer, Request, Respond};

/// A server answering every request with `respond` (a `ResponseTemplate`, or a closure of the request).
pub async fn serve(respond: impl Respond + 'static) -> MockServer {
    let server = MockServer::start().await;
    otherwise(&server, respond).await;
    server
}

/// A server answering its first `times` requests with `first` and every later one with `then`.
pub async fn serve_after(
    first: impl Respond + 'static,
    times: u64,
    then: impl Respond + 'static,
) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(first)
        .up_to_n_times(times)
        .mount(&server)
        .await;
    otherwise(&server, then).await;
    server
}

/// A server answering `down` until the returned guard is dropped, and `up` from then on.
pub async fn serve_down_then_up(
    down: impl Respond + 'static,
    up: impl Respond + 'static,
) -> (MockServer, MockGuard) {
    let server = MockServer::start().await;
    // Mounted first, so it answers while mounted.
    let guard = Mock::given(any())
        .respond_with(down)
        .mount_as_scoped(&server)
        .await;
    otherwise(&server, up).await;
    (server, guard)
}

/// Answers with `respond` the requests that no mock mounted before it takes.
pub async fn otherwise(server: &MockServer, respond: impl Respond + 'static) {
    Mock::given(any()).respond_with(respond).mount(server).await;
}

/// Every request the server received, in order.
pub async fn requests(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap_or_default()
}

pub async fn count(server: &MockServer) -> usize {
    requests(server).await.len()
}

/// A decoded query parameter.
pub fn param(request: &Request, name: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}
