//! Web addresses (`related_url`, a business's `website`): a careful small check, not a full WHATWG parser.
//!
//! Only what a lead or business record needs: an absolute http(s) URL whose host is a domain name, `localhost`
//! or an IP literal. User-info (`user:pass@host`) is refused: it has no business in lead data and is the classic
//! way to disguise a link's real host (`https://bank.com@evil.example`).

/// The parts of an accepted URL, host lower-cased and default port dropped.
struct Parts<'a> {
    scheme: &'static str,
    host: String,
    port: Option<u16>,
    /// Path, query and fragment exactly as given (possibly empty).
    tail: &'a str,
}

/// Normalises an http(s) URL: scheme and host lower-cased, a default port (`:80` for http, `:443` for https)
/// dropped, path, query and fragment kept as given. A URL without a scheme (`www.example.com/x`, `example.com`,
/// `//example.com`) gets `https://` when its host is a domain name with a dot. Other schemes (`ftp:`, `mailto:`,
/// `javascript:`), user-info, spaces, control characters and `"<>\` anywhere, bad ports and malformed hosts answer
/// `None`; the caller drops the value and warns `invalid_url`.
pub fn normalize_url(s: &str) -> Option<String> {
    let parts = parse(s)?;
    let port = parts.port.map(|p| format!(":{p}")).unwrap_or_default();
    Some(format!(
        "{}://{}{}{}",
        parts.scheme, parts.host, port, parts.tail
    ))
}

/// The host of a URL `normalize_url` accepts, lower-cased and without a leading `www.`, for spotting the same
/// business by its website: `https://WWW.Example.com/about` and `example.com` both give `example.com`.
/// Other subdomains are kept (`shop.example.com` is not `example.com`): telling a registrable domain from a
/// subdomain needs the public-suffix list (`example.co.uk`), which this crate does not carry.
pub fn url_domain(s: &str) -> Option<String> {
    let host = parse(s)?.host;
    match host.strip_prefix("www.") {
        Some(rest) if rest.contains('.') => Some(rest.to_string()),
        _ => Some(host),
    }
}

fn parse(s: &str) -> Option<Parts<'_>> {
    let s = s.trim();
    if s.is_empty()
        || s.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '\\' | '`')
        })
    {
        return None;
    }
    let (scheme, rest) = match s.split_once("://") {
        // Only a real scheme counts: "example.com/go?to=http://x" has "://" in its query, not a scheme.
        Some((scheme, rest)) if is_scheme(scheme) => {
            let scheme = if scheme.eq_ignore_ascii_case("https") {
                "https"
            } else if scheme.eq_ignore_ascii_case("http") {
                "http"
            } else {
                return None;
            };
            (Some(scheme), rest)
        }
        _ => (None, s.strip_prefix("//").unwrap_or(s)),
    };

    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = (rest.get(..end)?, rest.get(end..)?);
    if authority.contains('@') {
        return None;
    }
    let (host, port) = split_host_port(authority)?;
    let host = host.to_lowercase();
    let kind = host_kind(&host)?;
    // Without a scheme, only a dotted domain name is taken as a web address ("localhost:8080" or "1.5" is not).
    if scheme.is_none() && kind != HostKind::Domain {
        return None;
    }
    let scheme = scheme.unwrap_or("https");
    let port = port.filter(|&p| !matches!((scheme, p), ("http", 80) | ("https", 443)));
    Some(Parts {
        scheme,
        host,
        port,
        tail,
    })
}

fn is_scheme(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

fn split_host_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        // IPv6 literal: the port, if any, follows the closing bracket.
        let close = authority.find(']')?;
        let (host, after) = (authority.get(..=close)?, authority.get(close + 1..)?);
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) if (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().ok().filter(|&p| p != 0)?)
        }
        Some(_) => return None,
    };
    Some((host, port))
}

#[derive(Debug, PartialEq, Eq)]
enum HostKind {
    Domain,
    Localhost,
    Ip,
}

fn host_kind(host: &str) -> Option<HostKind> {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        let ok = inner.contains(':')
            && inner
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        return ok.then_some(HostKind::Ip);
    }
    if host == "localhost" {
        return Some(HostKind::Localhost);
    }
    if host.is_empty() || host.len() > 253 {
        return None;
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels
        .iter()
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
    {
        // All-numeric hosts are only valid as dotted-quad IPv4.
        let ipv4 = labels.len() == 4
            && labels
                .iter()
                .all(|l| l.len() <= 3 && l.parse::<u8>().is_ok());
        return ipv4.then_some(HostKind::Ip);
    }
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    };
    let tld_ok = labels
        .last()
        .is_some_and(|tld| !tld.bytes().all(|b| b.is_ascii_digit()));
    (labels.len() >= 2 && labels.iter().all(label_ok) && tld_ok).then_some(HostKind::Domain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize_url(s)
    }

    #[test]
    fn absolute_urls() {
        for (input, want) in [
            ("https://example.com", "https://example.com"),
            ("https://example.com/", "https://example.com/"),
            (
                "HTTP://Example.COM/Path?Q=1#Frag",
                "http://example.com/Path?Q=1#Frag",
            ),
            ("  https://www.example.com/x  ", "https://www.example.com/x"),
            ("https://example.com:443/a", "https://example.com/a"),
            ("http://example.com:80/a", "http://example.com/a"),
            ("http://example.com:8080/a", "http://example.com:8080/a"),
            ("https://example.com?x=1", "https://example.com?x=1"),
            ("https://example.com#top", "https://example.com#top"),
            (
                "https://sub_domain.example.com",
                "https://sub_domain.example.com",
            ),
            (
                "https://travis.prodigycad.com/property-detail/123",
                "https://travis.prodigycad.com/property-detail/123",
            ),
            ("http://localhost:3000/x", "http://localhost:3000/x"),
            ("http://127.0.0.1/x", "http://127.0.0.1/x"),
            ("http://[::1]:8080/x", "http://[::1]:8080/x"),
            ("https://bücher.de/ä", "https://bücher.de/ä"),
            (
                "https://example.com/go?to=https://other.com",
                "https://example.com/go?to=https://other.com",
            ),
        ] {
            assert_eq!(norm(input).as_deref(), Some(want), "{input:?}");
        }
    }

    #[test]
    fn scheme_less_gets_https() {
        assert_eq!(
            norm("www.example.com/x").as_deref(),
            Some("https://www.example.com/x")
        );
        assert_eq!(norm("Example.com").as_deref(), Some("https://example.com"));
        assert_eq!(
            norm("//example.com/x").as_deref(),
            Some("https://example.com/x")
        );
        assert_eq!(
            norm("example.com:8443/x").as_deref(),
            Some("https://example.com:8443/x")
        );
        assert_eq!(
            norm("example.com/go?to=http://x.com").as_deref(),
            Some("https://example.com/go?to=http://x.com")
        );
    }

    #[test]
    fn refused() {
        for input in [
            "",
            "  ",
            "n/a",
            "none",
            "example",
            "localhost:8080",
            "1.5",
            "127.0.0.1",
            "ftp://example.com/file",
            "mailto:ann@example.com",
            "javascript:alert(1)",
            "javascript://example.com/%0Aalert(1)",
            "file:///etc/passwd",
            "https://",
            "https:///path",
            "https://user:pw@example.com",
            "https://bank.com@evil.example",
            "https://exa mple.com",
            "https://example.com/a b",
            "https://example.com/<script>",
            "https://example.com/\"x\"",
            "https://example.com\\@evil.com",
            "https://example.com:0/",
            "https://example.com:65536/",
            "https://example.com:http/",
            "https://example.com:/",
            "https://example..com",
            "https://.example.com",
            "https://example.com.",
            "https://-example.com",
            "https://example-.com",
            "https://example.123",
            "https://999.1.1.1",
            "https://1.2.3",
            "https://[zz::1]/",
            "https://[::1",
            "https://[::1]x/",
            "https://example.com/\u{0}",
            "https://exa\u{200B}mple.com",
            "https//example.com",
        ] {
            assert_eq!(norm(input), None, "{input:?}");
        }
        assert_eq!(norm(&format!("https://{}.com", "a".repeat(64))), None);
        assert_eq!(norm(&format!("https://{}com", "a.".repeat(200))), None);
        assert!(norm(&format!("https://example.com/{}", "a".repeat(100_000))).is_some());
    }

    #[test]
    fn domains() {
        for (input, want) in [
            ("https://www.example.com/about", "example.com"),
            ("https://WWW.Example.COM", "example.com"),
            ("example.com", "example.com"),
            ("www.example.com/x", "example.com"),
            ("http://shop.example.com:8080/", "shop.example.com"),
            ("https://www.com", "www.com"),
            ("https://www2.example.com", "www2.example.com"),
            ("http://127.0.0.1/x", "127.0.0.1"),
        ] {
            assert_eq!(url_domain(input).as_deref(), Some(want), "{input:?}");
        }
        assert_eq!(url_domain("not a url"), None);
        assert_eq!(url_domain("ftp://example.com"), None);
    }

    proptest! {
        #[test]
        fn idempotent(s in "((?i:https?)://)?(www\\.)?[a-zA-Z0-9-]{1,8}\\.[a-zA-Z]{2,4}(:[0-9]{1,5})?(/[a-zA-Z0-9/?=&#._-]{0,12})?") {
            if let Some(once) = normalize_url(&s) {
                prop_assert_eq!(normalize_url(&once), Some(once.clone()));
                prop_assert_eq!(url_domain(&once), url_domain(&s));
            }
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            if let Some(once) = normalize_url(&s) {
                prop_assert!(once.starts_with("http://") || once.starts_with("https://"));
                prop_assert_eq!(normalize_url(&once), Some(once.clone()));
            }
            let _ = url_domain(&s);
        }
    }
}
