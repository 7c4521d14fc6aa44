//! Every request gets an id (the client's `X-Request-Id` when it is sane, else a new one),
//! a tracing span carrying it, and the id echoed in the response. The same middleware records
//! metrics, so both see the same route and timing.
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use rand::Rng;
use tracing::Instrument;

use leadhub_http::state::AppState;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

#[derive(Clone, Debug)]
pub struct RequestId(pub String);

fn acceptable(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

fn new_id() -> String {
    let bytes: [u8; 12] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable(v))
        .map(str::to_owned)
        .unwrap_or_else(new_id);
    req.extensions_mut().insert(RequestId(id.clone()));
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());
    let method = req.method().to_string();
    let span = tracing::info_span!("request", request_id = %id, method = %method, path = %logged_path(&req));
    let started = Instant::now();
    let result = next.call(req).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let _entered = span.enter();
    match result {
        Ok(mut response) => {
            let route = response
                .request()
                .match_pattern()
                .unwrap_or_else(|| "unmatched".to_owned());
            let status = response.status().as_u16();
            if let Some(m) = &metrics {
                m.record(&method, &route, status, elapsed);
            }
            tracing::info!(status, route = %route, elapsed_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX), "request finished");
            if let Ok(value) = HeaderValue::from_str(&id) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
            }
            Ok(response)
        }
        Err(e) => {
            tracing::warn!(error = %e, "request failed before a response");
            Err(e)
        }
    }
}

/// The path as logs show it: the route it matches (`/api/invites/{token}`), so that a
/// credential in a path never reaches a log line; an unmatched path with each segment that may
/// hold a credential replaced.
fn logged_path(req: &ServiceRequest) -> String {
    req.match_pattern().unwrap_or_else(|| redacted(req.path()))
}

/// `path` with every segment that looks like a credential (a `lh?_` prefix) or is long enough
/// to be one replaced by `{redacted}`.
fn redacted(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            let credential = segment.len() > 32
                || (segment.len() > 4
                    && segment.starts_with("lh")
                    && segment.as_bytes().get(3) == Some(&b'_'));
            if credential {
                "{redacted}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_unmatched_paths_are_redacted() {
        assert_eq!(redacted("/invite/lhi_abc/"), "/invite/{redacted}/");
        assert_eq!(redacted(&format!("/x/{}", "a".repeat(40))), "/x/{redacted}");
        assert_eq!(redacted("/api/teams/12/"), "/api/teams/12/");
    }

    #[test]
    fn only_sane_ids_are_echoed() {
        assert!(acceptable("abc-123_x.y:z"));
        assert!(!acceptable(""));
        assert!(!acceptable("a b"));
        assert!(!acceptable(&"x".repeat(129)));
        assert_eq!(new_id().len(), 24);
    }
}
