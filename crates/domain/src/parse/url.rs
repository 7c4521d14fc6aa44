//! Web addresses (`related_url`, a business's `website`): parsed by the `url` crate (the WHATWG URL
//! standard), with leadhub's policy on top.
//!
//! The policy: an absolute http(s) URL whose host is a domain name with a dot, `localhost` or an IP
//! literal; without a scheme, only a dotted domain name, which gains `https://`. User-info
//! (`user:pass@host`) is refused: it has no business in lead data and is the classic way to disguise
//! a link's real host (`https://bank.com@evil.example`). The value is kept as the person wrote it
//! (host lower-cased, a default port dropped), not re-serialised: the parser would add a `/` to a
//! bare host and spell `bücher.de` as `xn--bcher-kva.de`.
use url::{Host, Url};

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
    // The parser would silently drop tabs and line breaks and percent-encode spaces and quotes: a
    // value carrying them is not a web address someone typed, so it is refused instead.
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
            if scheme.eq_ignore_ascii_case("https") {
                (Some("https"), rest)
            } else if scheme.eq_ignore_ascii_case("http") {
                (Some("http"), rest)
            } else {
                return None;
            }
        }
        _ => (None, s.strip_prefix("//").unwrap_or(s)),
    };
    let url = Url::parse(&format!("{}://{rest}", scheme.unwrap_or("https"))).ok()?;

    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    // Also an empty user-info (`https://@example.com`); and an empty port or port 0 is a typo.
    if authority.contains('@') || authority.ends_with(':') || url.port() == Some(0) {
        return None;
    }
    let given_host = match authority.find(']') {
        Some(close) => &authority[..=close],
        None => authority.split(':').next().unwrap_or(authority),
    }
    .to_lowercase();
    let host = match url.host()? {
        Host::Domain(ascii) if is_domain(&given_host, ascii) => given_host,
        Host::Domain("localhost") if scheme.is_some() => given_host,
        // Dotted-quad only: the standard also reads `1.2.3` and `0x7f.1` as addresses.
        Host::Ipv4(ip) if scheme.is_some() && ip.to_string() == given_host => given_host,
        Host::Ipv6(ip) if scheme.is_some() => format!("[{ip}]"),
        _ => return None,
    };
    Some(Parts {
        scheme: scheme.unwrap_or("https"),
        host,
        port: url.port(),
        tail,
    })
}

fn is_scheme(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// A domain name as DNS takes it: two labels or more, without a leading or trailing hyphen, each
/// 1 to 63 characters in the ASCII form and 253 at most in all. The name as given holds only letters,
/// digits, `-`, `_` and dots: the standard would quietly drop invisible characters such as U+200B.
fn is_domain(given: &str, ascii: &str) -> bool {
    let labels: Vec<&str> = given.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
        })
        && ascii.len() <= 253
        && ascii.split('.').all(|l| l.len() <= 63)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::test_cases::{assert_normalises, assert_refuses, check_idempotent};
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize_url(s)
    }

    #[test]
    fn absolute_urls() {
        assert_normalises(
            norm,
            &[
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
            ],
        );
    }

    #[test]
    fn scheme_less_gets_https() {
        assert_normalises(
            norm,
            &[
                ("www.example.com/x", "https://www.example.com/x"),
                ("Example.com", "https://example.com"),
                ("//example.com/x", "https://example.com/x"),
                ("example.com:8443/x", "https://example.com:8443/x"),
                (
                    "example.com/go?to=http://x.com",
                    "https://example.com/go?to=http://x.com",
                ),
            ],
        );
    }

    #[test]
    fn refused() {
        assert_refuses(
            norm,
            &[
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
                "http://[:]/",
                "http://010.0.0.1/",
                "https://-bücher.de",
                "https://example.com/\u{0}",
                "https://exa\u{200B}mple.com",
                "https//example.com",
            ],
        );
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
            if let Some(once) = check_idempotent(normalize_url, &s)? {
                prop_assert_eq!(url_domain(&once), url_domain(&s));
            }
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            if let Some(once) = check_idempotent(normalize_url, &s)? {
                prop_assert!(once.starts_with("http://") || once.starts_with("https://"));
            }
            let _ = url_domain(&s);
        }
    }
}
