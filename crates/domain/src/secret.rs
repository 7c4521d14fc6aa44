//! Credentials (API keys, access, refresh, sign-in and invite tokens) are random strings with a
//! recognisable prefix. Only their SHA-256 hashes are stored, so a leaked database holds nothing usable.
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Where random credentials come from: a port, so tests can make predictable ones.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait TokenGenerator: Send + Sync {
    /// `prefix` followed by at least 256 random bits, URL-safe: a credential.
    fn secret(&self, prefix: &str) -> String;
    /// `prefix` followed by 26 base32 characters (130 bits): a public identifier.
    fn public_id(&self, prefix: &str) -> String;
}

/// Hex SHA-256 of a credential: what the database stores and looks up.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Compares a presented credential's hash with a stored one without leaking, through timing,
/// how many leading characters agree.
pub fn hashes_match(presented_hash: &str, stored_hash: &str) -> bool {
    presented_hash
        .as_bytes()
        .ct_eq(stored_hash.as_bytes())
        .into()
}

pub const API_KEY_PREFIX: &str = "lhk_";
pub const ACCESS_TOKEN_PREFIX: &str = "lha_";
pub const REFRESH_TOKEN_PREFIX: &str = "lhr_";
pub const SIGN_IN_TOKEN_PREFIX: &str = "lhs_";
pub const INVITE_TOKEN_PREFIX: &str = "lhi_";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_hex_sha256() {
        assert_eq!(
            hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn hashes_compare() {
        let h = hash_secret("lhk_x");
        assert!(hashes_match(&h, &hash_secret("lhk_x")));
        assert!(!hashes_match(&h, &hash_secret("lhk_y")));
        assert!(!hashes_match(&h, ""));
    }
}
