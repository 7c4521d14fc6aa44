//! Where a webhook may be sent: never to loopback, private, link-local, shared or metadata
//! addresses (SSRF), unless the operator allows it. Checked when the request is made, on every
//! address the host resolves to, by the client's own resolver: what is checked is what is dialled.
use std::net::{IpAddr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether a delivery may connect to `ip`: not in a special-purpose block
/// (`special_addresses`, which reads the IPv4 address inside IPv6 translation forms too).
pub fn is_public(ip: IpAddr) -> bool {
    crate::special_addresses::refusal(ip).is_none()
}

/// Resolves with the system resolver and drops every address a delivery may not reach; a host
/// left with none fails to resolve.
pub struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> =
                found.into_iter().filter(|a| is_public(a.ip())).collect();
            if allowed.is_empty() {
                return Err(format!("{host} resolves to no public address").into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

/// A URL whose host is an IP literal the resolver never sees: refused here when not public.
pub fn literal_refused(url: &reqwest::Url) -> Option<String> {
    let ip = match url.host()? {
        url::Host::Ipv4(v4) => IpAddr::V4(v4),
        url::Host::Ipv6(v6) => IpAddr::V6(v6),
        url::Host::Domain(_) => return None,
    };
    (!is_public(ip)).then(|| format!("refused: {ip} is not a public address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_metadata_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00:ec2::254",
            "fe80::1",
            "::ffff:127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:101::1",
            "192.0.0.1",
            "198.18.0.1",
            "240.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn literals_are_checked() {
        let refused = |u: &str| literal_refused(&reqwest::Url::parse(u).unwrap()).is_some();
        assert!(refused("http://127.0.0.1:8080/x"));
        assert!(refused("https://[::1]/x"));
        assert!(refused("https://[::ffff:0:a00:1]/x"));
        assert!(!refused("https://8.8.8.8/x"));
        assert!(!refused("https://crm.example.com/x"));
    }
}
