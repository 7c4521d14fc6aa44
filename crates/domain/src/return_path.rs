//! The page a person asked for before signing in, carried through the sign-in form and the
//! e-mailed link (`next`), so they land where they were going. Only a path on this origin is
//! accepted: anything a browser could read as another host would make sign-in an open redirect.

/// Longest `next` kept; a longer one is dropped (sign-in then lands on the dashboard).
const MAX_LEN: usize = 2000;

/// `raw` when it is a same-origin relative path (`/leads/12?q=a`); None for `//host`, `/\host`,
/// `https://...`, `javascript:...`, a backslash or control character anywhere (browsers read `\`
/// as `/` and drop tabs and newlines), or the sign-in pages themselves (no loop back to them).
pub fn safe_return_path(raw: &str) -> Option<&str> {
    let rest = raw.strip_prefix('/')?;
    let bad_start = rest.starts_with('/') || rest.starts_with('\\');
    let bad_char = raw
        .chars()
        .any(|c| c == '\\' || c.is_control() || c.is_whitespace());
    let sign_in = rest == "sign-in" || rest.starts_with("sign-in?") || rest.starts_with("sign-in/");
    (!bad_start && !bad_char && !sign_in && raw.len() <= MAX_LEN).then_some(raw)
}

#[cfg(test)]
mod tests {
    use super::safe_return_path;

    #[test]
    fn same_origin_paths_are_kept() {
        for ok in [
            "/",
            "/leads/1897",
            "/leads?q=lamar&city=Austin",
            "/teams/3#webhooks",
            "/a%2Fb",
        ] {
            assert_eq!(safe_return_path(ok), Some(ok), "{ok}");
        }
    }

    #[test]
    fn anything_that_could_leave_the_origin_is_dropped() {
        for bad in [
            "",
            "leads/1",
            "//evil.example",
            "/\\evil.example",
            "/\\/evil.example",
            "https://evil.example/",
            "javascript:alert(1)",
            "/leads\\..\\x",
            "/\t/evil.example",
            "/\n/evil.example",
            "/ /evil",
            "/sign-in",
            "/sign-in?token=x",
            "/sign-in/link",
        ] {
            assert_eq!(safe_return_path(bad), None, "{bad:?}");
        }
        assert_eq!(safe_return_path(&format!("/{}", "a".repeat(2000))), None);
    }
}
