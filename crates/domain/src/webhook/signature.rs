//! The Standard Webhooks signature: `v1,` + base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`,
//! keyed with the secret's decoded bytes (the part after `whsec_`).
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::secret::TokenGenerator;

pub const SECRET_PREFIX: &str = "whsec_";

/// A new signing secret: `whsec_` + base64 of 32 random bytes (the SHA-256 of a fresh credential,
/// which carries 258 random bits).
pub fn new_secret(tokens: &dyn TokenGenerator) -> String {
    let seed = tokens.secret("");
    format!(
        "{SECRET_PREFIX}{}",
        STANDARD.encode(Sha256::digest(seed.as_bytes()))
    )
}

/// One `v1,` signature, or None when the secret is not `whsec_` + base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = STANDARD
        .decode(secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret))
        .ok()?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header: one signature per secret, space-separated (the new secret's
/// first, and a rotated-out one's while it still signs).
pub fn signature_header(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|s| sign(s, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::MockTokenGenerator;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;

    #[test]
    fn the_specifications_test_vector() {
        assert_eq!(
            sign(SECRET, ID, TIMESTAMP, BODY).as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }

    #[test]
    fn any_change_changes_the_signature() {
        let good = sign(SECRET, ID, TIMESTAMP, BODY);
        assert_ne!(sign(SECRET, ID, TIMESTAMP + 1, BODY), good);
        assert_ne!(sign(SECRET, "msg_other", TIMESTAMP, BODY), good);
        assert_ne!(sign(SECRET, ID, TIMESTAMP, b"{}"), good);
        assert_eq!(sign("whsec_not base64!", ID, TIMESTAMP, BODY), None);
    }

    #[test]
    fn two_secrets_sign_side_by_side() {
        let other = "whsec_dGhlIHByZXZpb3VzIHNlY3JldCBrZXkgYnl0ZXM=";
        let header = signature_header(&[SECRET, other], ID, TIMESTAMP, BODY);
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(Some(parts[0].to_owned()), sign(SECRET, ID, TIMESTAMP, BODY));
        assert_eq!(Some(parts[1].to_owned()), sign(other, ID, TIMESTAMP, BODY));
    }

    #[test]
    fn new_secrets_decode_to_32_bytes() {
        let mut tokens = MockTokenGenerator::new();
        tokens
            .expect_secret()
            .returning(|p| format!("{p}random-credential"));
        let secret = new_secret(&tokens);
        let raw = secret.strip_prefix(SECRET_PREFIX).unwrap_or_default();
        assert_eq!(STANDARD.decode(raw).map(|b| b.len()).ok(), Some(32));
        assert!(sign(&secret, ID, TIMESTAMP, BODY).is_some());
    }
}
