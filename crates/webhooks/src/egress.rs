//! Requests to hosts that people name (webhook endpoints) or that serve our pages (map tiles) go
//! out directly, not through the `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` of the environment: behind
//! such a proxy the proxy resolves and dials the host, so the address guard would never see where
//! a delivery goes (a company proxy reaches internal hosts). An operator who must send them
//! through a proxy names it in `LEADHUB_EGRESS_PROXY`, and that proxy then has to refuse internal
//! addresses itself (docs/security.md).

/// A client builder for outbound requests: no proxy from the environment, or `proxy` (the
/// operator's `LEADHUB_EGRESS_PROXY`) for every scheme.
pub fn client_builder(proxy: Option<&str>) -> anyhow::Result<reqwest::ClientBuilder> {
    // `no_proxy` first: it also forgets proxies added before it.
    let builder = reqwest::Client::builder().no_proxy();
    Ok(match proxy {
        Some(url) => builder.proxy(reqwest::Proxy::all(url)?),
        None => builder,
    })
}
