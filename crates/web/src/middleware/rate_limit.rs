//! Rate limits (contract section 8), applied once per request before any handler runs.
//!
//! The per-credential limit needs to know the credential, so this middleware resolves the Bearer
//! header itself through the `AuthService` and leaves the outcome in the request's extensions;
//! the `Caller` extractor takes it from there instead of authenticating a second time. A request
//! over a limit therefore never reaches a handler (no side effects), and unauthenticated or
//! badly authenticated requests are held to the per-IP limit only.
//!
//! Every response carries the IETF draft `RateLimit-Policy`/`RateLimit` headers and GitHub's
//! `X-RateLimit-*` for the tightest limit in force; `/healthz`, `/readyz` and `/metrics` are
//! neither counted nor limited (probes and scrapers must not starve or be starved).
use std::net::IpAddr;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse, ResponseError};

use leadhub_domain::rate_limit::{tightest, Usage};
use leadhub_domain::store::{is_database_unreachable, StoreError};
use leadhub_http::error::ApiError;
use leadhub_http::extract::{bearer_credential, Authenticated};
use leadhub_http::state::AppState;

/// Paths that are neither counted nor limited.
const EXEMPT: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

pub async fn rate_limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody + 'static>>, actix_web::Error> {
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let path = req.path().trim_end_matches('/');
    let Some(state) = state.filter(|_| !EXEMPT.contains(&path)) else {
        return next.call(req).await.map(|r| r.map_into_left_body());
    };
    let limiter = &state.rate_limiter;
    let mut usages: Vec<Usage> = Vec::with_capacity(2);

    if limiter.ip_limit().is_some() {
        let client = client_ip(&req, &state.config.trusted_proxies);
        match limiter.hit_ip(&client_bucket(client)).await {
            Ok(Some(usage)) => usages.push(usage),
            Ok(None) => {}
            // No database at all: the request could not be served either; answer now rather
            // than after two more waits for a connection.
            Err(StoreError::Unexpected(cause)) if is_database_unreachable(&cause) => {
                return Ok(refused(req, cause));
            }
            // Failing open: a counter store outage must not take the whole API down with it.
            Err(e) => tracing::warn!(error = %e, "rate-limit store unavailable; IP limit skipped"),
        }
        if let Some(response) = over_limit(&usages) {
            return Ok(req.into_response(response).map_into_right_body());
        }
    }

    if limiter.credential_limit().is_some() {
        if let Some(credential) = bearer_credential(req.headers()) {
            match state.auth.authenticate(&credential).await {
                Ok(caller) => {
                    match limiter.hit_credential(&caller.credential_label()).await {
                        Ok(Some(usage)) => usages.push(usage),
                        Ok(None) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "rate-limit store unavailable; credential limit skipped")
                        }
                    }
                    req.extensions_mut()
                        .insert(Authenticated::Caller(Box::new(caller)));
                }
                Err(leadhub_domain::auth::AuthError::Unauthorized) => {
                    req.extensions_mut().insert(Authenticated::Rejected);
                }
                Err(leadhub_domain::auth::AuthError::Unexpected(cause))
                    if is_database_unreachable(&cause) =>
                {
                    return Ok(refused(req, cause));
                }
                // Anything else (the database is down, ...): the extractor tries again and reports it.
                Err(_) => {}
            }
            if let Some(response) = over_limit(&usages) {
                return Ok(req.into_response(response).map_into_right_body());
            }
        }
    }

    // Handlers' and extractors' errors arrive here as responses already; only a failure of the
    // service machinery itself is an `Err`, which has no request left to answer with headers.
    let mut response = next.call(req).await?;
    add_headers(response.headers_mut(), &usages);
    Ok(response.map_into_left_body())
}

/// The request answered now with `cause` (a database that cannot be reached: 503).
fn refused<B>(req: ServiceRequest, cause: anyhow::Error) -> ServiceResponse<EitherBody<B>> {
    let response = ApiError::unexpected(cause).error_response();
    req.into_response(response).map_into_right_body()
}

/// A 429 with the headers, when some limit is exceeded.
fn over_limit(usages: &[Usage]) -> Option<HttpResponse> {
    let exceeded: Vec<&Usage> = usages.iter().filter(|u| u.exceeded()).collect();
    let worst = exceeded.iter().max_by_key(|u| u.reset_in())?;
    let error = ApiError::RateLimited {
        limit: worst.limit.describe(),
        retry_after: worst.reset_in(),
    };
    let mut response = error.error_response();
    add_headers(response.headers_mut(), usages);
    Some(response)
}

fn add_headers(headers: &mut HeaderMap, usages: &[Usage]) {
    let Some(tight) = tightest(usages) else {
        return;
    };
    // Longest window first, as in the contract's example.
    let mut policies: Vec<&Usage> = usages.iter().collect();
    policies.sort_by_key(|u| std::cmp::Reverse(u.limit.window_secs()));
    let policy = policies
        .iter()
        .map(|u| {
            format!(
                "\"{}\";q={};w={}",
                u.limit.name(),
                u.limit.quota,
                u.limit.window_secs()
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let current = format!(
        "\"{}\";r={};t={}",
        tight.limit.name(),
        tight.remaining(),
        tight.reset_in()
    );
    for (name, value) in [
        ("ratelimit-policy", policy),
        ("ratelimit", current),
        ("x-ratelimit-limit", tight.limit.quota.to_string()),
        ("x-ratelimit-remaining", tight.remaining().to_string()),
        ("x-ratelimit-reset", tight.reset_at.to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
}

/// The socket peer, unless it is a trusted proxy: then the nearest `X-Forwarded-For` hop that is
/// not a trusted proxy itself (hops further left are the client's to invent, so never believed).
pub fn client_ip(req: &ServiceRequest, trusted: &[IpAddr]) -> Option<IpAddr> {
    let peer = req.peer_addr().map(|a| a.ip().to_canonical())?;
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let hops: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    forwarded_client(peer, &hops, trusted)
}

fn forwarded_client(peer: IpAddr, hops: &[&str], trusted: &[IpAddr]) -> Option<IpAddr> {
    let mut nearest = peer;
    for hop in hops.iter().rev() {
        let Some(ip) = parse_hop(hop) else {
            // Garbage where an address should be: stay with the last proxy we trust.
            return Some(nearest);
        };
        if !trusted.contains(&ip) {
            return Some(ip);
        }
        nearest = ip;
    }
    Some(nearest)
}

/// `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:5678`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(addr) = hop.parse::<std::net::SocketAddr>() {
        return Some(addr.ip().to_canonical());
    }
    None
}

/// The counting bucket of a client: its IPv4 address, or its IPv6 /64 (one subscriber usually
/// holds a whole /64, so counting single IPv6 addresses would be trivially evaded).
fn client_bucket(ip: Option<IpAddr>) -> String {
    match ip {
        Some(IpAddr::V4(v4)) => v4.to_string(),
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        // No peer address (a Unix socket, a test request): one shared bucket.
        None => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    #[test]
    fn forwarded_for_is_read_from_the_right() {
        let trusted = [ip("10.0.0.1"), ip("10.0.0.2")];
        let peer = ip("10.0.0.1");
        let got = |hops: &[&str]| forwarded_client(peer, hops, &trusted).map(|i| i.to_string());
        assert_eq!(got(&["1.1.1.1", "2.2.2.2"]).as_deref(), Some("2.2.2.2"));
        assert_eq!(
            got(&["1.1.1.1", "2.2.2.2", "10.0.0.2"]).as_deref(),
            Some("2.2.2.2")
        );
        assert_eq!(got(&["2.2.2.2:443"]).as_deref(), Some("2.2.2.2"));
        assert_eq!(got(&["[2001:db8::1]:443"]).as_deref(), Some("2001:db8::1"));
        assert_eq!(got(&["junk", "10.0.0.2"]).as_deref(), Some("10.0.0.2"));
        assert_eq!(got(&[]).as_deref(), Some("10.0.0.1"));
        assert_eq!(got(&["10.0.0.2"]).as_deref(), Some("10.0.0.2"));
    }

    #[test]
    fn ipv6_clients_count_by_slash_64() {
        assert_eq!(
            client_bucket(Some(ip("2001:db8:1:2:3:4:5:6"))),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            client_bucket(Some(ip("::ffff:1.2.3.4").to_canonical())),
            "1.2.3.4"
        );
        assert_eq!(client_bucket(None), "unknown");
    }
}
